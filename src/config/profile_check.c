/* profile_check.c - checks of a whole profile once its components are read
 * (profile.h): a warm-up that would leave no sample. Calls nothing of
 * profile.c. */
#include "profile.h"

#include "config.h"

#include <errno.h>

/* The longest a configuration runs when every component runs for its
 * duration_s (in parallel the longest of them, in sequence their sum);
 * -1 when a component's run is not bounded by a duration. *which: the
 * component that sets it. */
static double bounded_run_s(const pp_profile *p, size_t *which)
{
    double total = 0;

    for (size_t c = 0; c < p->n_components; c++) {
        const pp_component_spec *cs = &p->components[c];
        if (cs->until != PP_UNTIL_DURATION)
            return -1;
        if (p->sequential || cs->duration_s > total)
            *which = c;
        total = p->sequential ? total + cs->duration_s
                              : (cs->duration_s > total ? cs->duration_s : total);
    }
    return p->n_components ? total : -1;
}

int pp_profile_check_warmup(const pp_config *cfg, const pp_config_node *root,
                            const pp_profile *p)
{
    const pp_config_node *g = NULL;
    size_t which = 0;
    double run_s = bounded_run_s(p, &which);

    if (!(p->warmup_s > 0) || run_s < 0 || p->warmup_s < run_s)
        return 0;
    if (pp_config_get_group(cfg, root, "profile", &g) < 0 || !g)
        return -EINVAL;
    return pp_config_error(cfg, g, "warmup_s",
                           "%g s is not shorter than a configuration's run (%g s: %s '%s' runs "
                           "duration_s = %g s): no sample would be kept; shorten the warm-up or "
                           "lengthen the run", p->warmup_s, run_s,
                           p->sequential ? "the components in sequence, the last" : "component",
                           p->components[which].name, p->components[which].duration_s);
}
