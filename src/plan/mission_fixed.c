/* A mission file's top-level fixed (src/config/mission_fixed.c) held in a
 * plan on a results folder: each name a parameter of the results, each
 * value a number or one of its labels, said with the file and line. */
#include "phases.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <string.h>

/* value is one of parameter k's: a label of a categorical one, else a
 * number. */
static int value_ok(const pp_summary *s, size_t k, const char *value)
{
    const pp_summary_param_info *pi = &s->param[k];
    double v;

    if (pi->kind != PP_PARAM_CATEGORICAL)
        return pp_parse_double(value, &v) == 0;
    for (size_t i = 0; i < pi->n_labels; i++)
        if (strcmp(pi->labels[i], value) == 0)
            return 1;
    return 0;
}

int pp_plan_fix_mission(pp_plan_options *o, const pp_mission_spec *mi, const pp_summary *s)
{
    for (size_t i = 0; i < mi->n_fixed; i++) {
        const pp_mission_fixed *f = &mi->fixed[i];
        int k = pp_summary_param(s, f->name), held = 0;
        if (k < 0) {
            char known[1024];
            size_t len = 0;
            known[0] = '\0';
            for (size_t j = 0; j < s->n_params && len < sizeof known; j++)
                len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", j ? ", " : "",
                                        s->params[j]);
            pp_log_error("%s:%d: mission.fixed: '%s' is no parameter of the results (known: "
                         "%s)", mi->path, f->line, f->name, known);
            return -EINVAL;
        }
        if (!value_ok(s, (size_t)k, f->value)) {
            pp_log_error("%s:%d: mission.fixed: '%s' is not a value of %s (a number, or one of "
                         "its labels)", mi->path, f->line, f->value, f->name);
            return -EINVAL;
        }
        for (size_t j = 0; j < o->n_fixed; j++)
            held |= strcmp(o->fixed[j].name, f->name) == 0; /* --fix says it already */
        if (held)
            continue;
        if (o->n_fixed == PP_SUMMARY_MAX_PARAMS) {
            pp_log_error("%s:%d: mission.fixed: more than %d parameters held", mi->path, f->line,
                         PP_SUMMARY_MAX_PARAMS);
            return -EINVAL;
        }
        if (pp_strlcpy(o->fixed[o->n_fixed].name, f->name, sizeof o->fixed[0].name) < 0 ||
            pp_strlcpy(o->fixed[o->n_fixed++].value, f->value, sizeof o->fixed[0].value) < 0) {
            pp_log_error("%s:%d: mission.fixed: %.40s = %.40s: too long to hold", mi->path,
                         f->line, f->name, f->value);
            return -EINVAL;
        }
    }
    return 0;
}
