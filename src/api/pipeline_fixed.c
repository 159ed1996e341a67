/* The mission group's `fixed`: inputs that are not knobs, held at one
 * value in the plan (as `plan --fix NAME=VALUE`), checked against the
 * profile with the file's line before anything runs. */
#include "pipeline.h"

#include "src/base/util.h"
#include "src/config/config.h"

#include <errno.h>
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

/* One element "NAME=VALUE" of the list into f. 0 or -EINVAL (logged). */
static int one_fixed(const pp_config *cfg, const pp_config_setting *e, const pp_profile *p,
                     pp_plan_fixed *f)
{
    const char *text = pp_config_string(e), *eq = text ? strchr(text, '=') : NULL;
    int k;

    if (!eq || eq == text || !eq[1] ||
        pp_fmt(f->name, sizeof f->name, "%.*s", (int)(eq - text), text) < 0 ||
        pp_fmt(f->value, sizeof f->value, "%s", eq + 1) < 0)
        return pp_config_node_error(cfg, e, "fixed", "\"NAME=VALUE\" expected (got %s)",
                                    text ? text : "no string");
    if ((k = param_of(p, f->name)) < 0)
        return pp_config_node_error(cfg, e, "fixed", "'%s' is no parameter of the profile",
                                    f->name);
    if (!value_ok(p, (size_t)k, f->value))
        return pp_config_node_error(cfg, e, "fixed", "'%s' is not a value of %s (a number, or "
                                    "one of its labels)", f->value, f->name);
    return 0;
}

int pp_pipeline_mission_fixed(const pp_profile *p, pp_plan_options *o)
{
    const pp_config_setting *g = NULL, *list;
    pp_config *cfg;
    int rc;

    if (!p->has_mission || (rc = pp_config_load(p->path, &cfg)) < 0)
        return p->has_mission ? -EINVAL : 0;
    rc = pp_config_get_group(cfg, pp_config_root(cfg), "mission", &g) < 0 ? -EINVAL : 0;
    list = g ? pp_config_member(g, "fixed") : NULL;
    if (rc == 0 && list && pp_config_kind_of(list) != PP_CONFIG_LIST)
        rc = pp_config_node_error(cfg, list, "fixed", "a list of \"NAME=VALUE\" expected");
    for (size_t i = 0; rc == 0 && list && i < pp_config_length(list); i++) {
        if (o->n_fixed == PP_SUMMARY_MAX_PARAMS)
            rc = pp_config_node_error(cfg, list, "fixed", "at most %d parameters",
                                      PP_SUMMARY_MAX_PARAMS);
        else
            rc = one_fixed(cfg, pp_config_elem(list, i), p, &o->fixed[o->n_fixed++]);
    }
    pp_config_free(cfg);
    return rc < 0 ? -EINVAL : 0;
}
