/* profile_check.c - checks of a whole profile once its components are read
 * (profile_check.h): a warm-up that would leave no sample. */
#include "profile_check.h"

#include <errno.h>

/* The longest a configuration runs when every component runs for its
 * duration_s (in parallel the longest of them, in sequence their sum);
 * -1 when a component's run is not bounded by a duration. *which: the
 * component that sets it. */
static double bounded_run_s(int sequential, const pp_component_spec *comp, size_t n,
                            size_t *which)
{
    double total = 0;

    for (size_t c = 0; c < n; c++) {
        const pp_component_spec *cs = &comp[c];
        if (cs->until != PP_UNTIL_DURATION)
            return -1;
        if (sequential || cs->duration_s > total)
            *which = c;
        total = sequential ? total + cs->duration_s
                           : (cs->duration_s > total ? cs->duration_s : total);
    }
    return n ? total : -1;
}

int pp_profile_check_warmup(const pp_config *cfg, const pp_config_setting *root,
                            double warmup_s, int sequential, const pp_component_spec *comp,
                            size_t n)
{
    const pp_config_setting *g = NULL;
    size_t which = 0;
    double run_s = bounded_run_s(sequential, comp, n, &which);

    if (!(warmup_s > 0) || run_s < 0 || warmup_s < run_s)
        return 0;
    if (pp_config_get_group(cfg, root, "profile", &g) < 0 || !g)
        return -EINVAL;
    return pp_config_error(cfg, g, "warmup_s",
                           "%g s is not shorter than a configuration's run (%g s: %s '%s' runs "
                           "duration_s = %g s): no sample would be kept; shorten the warm-up or "
                           "lengthen the run", warmup_s, run_s,
                           sequential ? "the components in sequence, the last" : "component",
                           comp[which].name, comp[which].duration_s);
}
