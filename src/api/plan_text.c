/* plan_text.c - plans as JSON text for the public facade (plan_text.h). */
#include "plan_text.h"

#include "pipeline.h"

#include <errno.h>
#include <stdlib.h>

int pp_plan_json_text(const pp_model *m, const pp_plan_options *o, char **json_out)
{
    pp_plan_result *r = malloc(sizeof *r);
    json_t *root;
    int rc;

    *json_out = NULL;
    if (!r)
        return -ENOMEM;
    if ((rc = pp_plan(m, o, r)) == 0) {
        root = pp_plan_json(m, o, r);
        *json_out = root ? json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
        rc = *json_out ? 0 : -ENOMEM;
        json_decref(root);
    }
    free(r);
    return rc;
}
