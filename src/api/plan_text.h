/* plan_text.h - plans as JSON text, for the public facade (api_model.c):
 * the documents `powprof plan --json` prints, with every number's 17
 * significant digits. */
#ifndef PP_PLAN_TEXT_H
#define PP_PLAN_TEXT_H

#include "src/layer2/model.h"
#include "src/plan/plan.h"

/* pp_plan with o on m, then pp_plan_json as text into *json_out
 * (malloc'd). 0, or the planner's -errno (logged), -ENOMEM. */
int pp_plan_json_text(const pp_model *m, const pp_plan_options *o, char **json_out);

/* The mission in phases of the configuration file mission_file (o's
 * battery flown as it is; the file's maximize when o has none), resolved
 * as plan --mission resolves it (pp_mission_resolve), planned with
 * pp_plan_phases, then pp_phases_plan_json as text into
 * *json_out (malloc'd). 0, or -errno (logged with the file and line). */
int pp_plan_phases_json_text(const pp_model *m, const pp_plan_options *o,
                             const char *mission_file, char **json_out);

#endif
