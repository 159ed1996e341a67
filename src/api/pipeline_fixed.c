/* The mission group's `fixed`: inputs that are not knobs, held at one
 * value in the plan (as `plan --fix NAME=VALUE`), checked against the
 * profile with the file's line before anything runs. */
#include "pipeline_fixed.h"
#include "pipeline.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/config/mission.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The parameter of p named name: its index, or -1. */
static int param_of(const pp_profile *p, const char *name)
{
    char pname[160];

    for (size_t k = 0; k < pp_profile_n_params(p); k++) {
        pp_profile_param_name(p, k, pname, sizeof pname);
        if (strcmp(pname, name) == 0)
            return (int)k;
    }
    return -1;
}

/* value is one of parameter k's: a label of a categorical one, else a
 * number. */
static int value_ok(const pp_profile *p, size_t k, const char *value)
{
    const pp_param_spec *ps = pp_profile_param(p, k);
    double v;

    if (ps->kind != PP_RANGE_CATEGORICAL)
        return pp_parse_double(value, &v) == 0;
    for (size_t i = 0; i < ps->n_values; i++)
        if (strcmp(ps->labels[i], value) == 0)
            return 1;
    return 0;
}

/* One element of the mission's fixed list, checked against the profile,
 * into f. 0 or -EINVAL (logged: file:line). */
static int one_fixed(const pp_mission_spec *m, const pp_mission_fixed *mf, const pp_profile *p,
                     pp_plan_fixed *f)
{
    int k;

    if ((k = param_of(p, mf->name)) < 0) {
        pp_log_error("%s:%d: mission.fixed: '%s' is no parameter of the profile", m->path,
                     mf->line, mf->name);
        return -EINVAL;
    }
    if (!value_ok(p, (size_t)k, mf->value)) {
        pp_log_error("%s:%d: mission.fixed: '%s' is not a value of %s (a number, or one of its "
                     "labels)", m->path, mf->line, mf->value, mf->name);
        return -EINVAL;
    }
    if (pp_strlcpy(f->name, mf->name, sizeof f->name) < 0 ||
        pp_strlcpy(f->value, mf->value, sizeof f->value) < 0) {
        pp_log_error("%s:%d: mission.fixed: '%.40s' = '%.40s': too long", m->path, mf->line,
                     mf->name, mf->value);
        return -EINVAL;
    }
    return 0;
}

int pp_pipeline_mission_fixed(const pp_profile *p, pp_plan_options *o)
{
    pp_mission_spec *m;
    pp_battery_params b; /* read by the mission reader, not used here */
    int rc;

    if (!p->has_mission)
        return 0;
    if (!(m = malloc(sizeof *m)))
        return -ENOMEM;
    pp_battery_params_default(&b);
    rc = pp_mission_load(p->path, m, &b) < 0 ? -EINVAL : 0; /* the one reader of mission.fixed */
    for (size_t i = 0; rc == 0 && i < m->n_fixed; i++) {
        if (o->n_fixed == PP_SUMMARY_MAX_PARAMS) {
            pp_log_error("%s:%d: mission.fixed: at most %d parameters", m->path, m->fixed[i].line,
                         PP_SUMMARY_MAX_PARAMS);
            rc = -EINVAL;
        } else if ((rc = one_fixed(m, &m->fixed[i], p, &o->fixed[o->n_fixed])) == 0) {
            o->n_fixed++;
        }
    }
    free(m);
    return rc;
}
