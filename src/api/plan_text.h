/* plan_text.h - a plan as JSON text, for the public facade (api_model.c),
 * which cannot include pipeline.h: its internal pp_mission (phases) and the
 * public one (include/powprof/plan.h) share a name. */
#ifndef PP_PLAN_TEXT_H
#define PP_PLAN_TEXT_H

#include "src/layer2/model.h"
#include "src/plan/plan.h"

/* pp_plan with o on m, then pp_plan_json as text (17 significant digits)
 * into *json_out (malloc'd). 0, or the planner's -errno (logged), -ENOMEM. */
int pp_plan_json_text(const pp_model *m, const pp_plan_options *o, char **json_out);

#endif
