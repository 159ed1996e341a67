/* pipeline_plan.h - the plan of the main job: planned on the model, its
 * JSON documents, plan.json saved. */
#ifndef PP_PIPELINE_PLAN_H
#define PP_PIPELINE_PLAN_H

#include "pipeline.h"

/* The model of dir for a plan that maximizes maximize (NULL: the planner's
 * choice): only the metrics a plan reads when maximize is given, aimed at
 * node (or the most power-hungry board with worst). 0, -EINVAL (logged),
 * -ENOENT, -ESRCH (no such node, none that compares: logged) or -ENOMEM. */
int pp_pipeline_plan_model(const char *dir, const char *maximize, const char *node, int worst,
                           pp_model *m);

/* A plan as `powprof plan --json` prints it and RESULTS/plan.json keeps it
 * (plots/plot_plan.c reads it back). A new reference. */
json_t *pp_plan_json(const pp_model *m, const pp_plan_options *o, const pp_plan_result *r);

/* One configuration of a plan as JSON: its parameters (labels as text),
 * power_w with its band, planned_w, achieved, quality. */
json_t *pp_plan_choice_json(const pp_model *m, const pp_plan_choice *c);

/* ... its parameters alone {name: value} (labels for categorical ones). */
json_t *pp_plan_setting_json(const pp_model *m, const pp_plan_choice *c);

/* What every planner left out and by which rule (plan.h): {"tolerance",
 * "short_of_rate", "never_measured_gave_way", "below_min_rate"}. */
json_t *pp_plan_left_out_json(const pp_plan_options *o, const pp_plan_result *r);

/* plan into dir/plan.json, atomically (the one writer of plan.json). 0 or -errno (logged). */
int pp_pipeline_plan_save(const char *dir, const json_t *plan);

#endif
