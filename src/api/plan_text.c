/* plan_text.c - plans as JSON text for the public facade (plan_text.h). */
#include "plan_text.h"

#include "answer.h"
#include "pipeline.h"

#include <errno.h>
#include <stdlib.h>

/* root as text into *json_out (and root released): 0 or -ENOMEM. */
static int text_of(json_t *root, char **json_out)
{
    *json_out = root ? json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(root);
    return *json_out ? 0 : -ENOMEM;
}

int pp_plan_json_text(const pp_model *m, const pp_plan_options *o, char **json_out)
{
    pp_plan_result *r = malloc(sizeof *r);
    int rc;

    *json_out = NULL;
    if (!r)
        return -ENOMEM;
    if ((rc = pp_plan(m, o, r)) == 0)
        rc = text_of(pp_plan_json(m, o, r), json_out);
    free(r);
    return rc;
}

int pp_plan_phases_json_text(const pp_model *m, const pp_plan_options *o,
                             const char *mission_file, char **json_out)
{
    pp_phases_plan *r = malloc(sizeof *r);
    pp_plan_options po = *o;
    pp_mission_resolved res = {0};
    pp_mission_ask a;
    int rc = r ? 0 : -ENOMEM;

    *json_out = NULL;
    pp_mission_ask_init(&a); /* the file's mission, o's battery flown as it is */
    a.file = mission_file;
    a.given.min_soc_frac = o->min_soc_frac;
    a.given.risk_mean = o->risk == PP_RISK_MEAN;
    a.battery_given = "the battery given";
    if (rc == 0 && (rc = pp_mission_resolve(&a, &res, &po)) == 0 &&
        (rc = pp_plan_phases(m, &po, res.spec, r)) == 0) {
        rc = text_of(pp_phases_plan_json(m, &po, res.spec, r), json_out);
        pp_phases_plan_free(r);
    }
    pp_mission_resolved_free(&res);
    free(r);
    return rc;
}
