/* plan_work.h - work measured per unit (plan_work.c): a setting's energy
 * per unit of work (an iteration: a frame, a file, a run of a program) and
 * the rate of units it keeps up, for --min-rate, --work and a phase's
 * work. Model types only (plan.c calls these; they call nothing of it). */
#ifndef PP_PLAN_WORK_H
#define PP_PLAN_WORK_H

#include "src/layer2/model.h"

/* The metric of the energy per unit of work (an iteration). */
#define PP_PLAN_UNIT_METRIC "energy_per_iteration_j"

/* Its index in m, -1 without; -EINVAL (logged) when a rate of work is
 * asked for (need_rate) and the results have none. */
int pp_plan_unit_metric(const pp_model *m, int need_rate);

/* At pt, with power_w the predicted power there: *energy_per_unit_j and
 * *rate_per_s (power / energy per unit), NaN without unit_metric or a
 * prediction. */
void pp_plan_unit_rate(const pp_model *m, int unit_metric, const pp_model_point *pt,
                       double power_w, double *energy_per_unit_j, double *rate_per_s);

#endif
