/* plan_measured.h - what a plan takes from the measured configurations
 * themselves (plan_measured.c): whether a setting was measured, and an
 * achieved rate held within the rates measured around it. Model types
 * only (plan.c calls these; they call nothing of it). */
#ifndef PP_PLAN_MEASURED_H
#define PP_PLAN_MEASURED_H

#include "src/layer2/model.h"

/* 1 when a configuration was measured at every parameter of pt. */
int pp_plan_is_measured(const pp_model *m, const pp_model_point *pt);

/* The achieved rate *a at pt (metric achieved_metric, < 0: none) held
 * between the rates measured at the levels of parameter q around pt's
 * value (the other parameters as pt's): an interpolation between 1.00 at
 * 1 fps and 1.07 at 2 fps cannot promise 1.16; outside the measured
 * levels, never above the nearest. Its band is widened to hold the value. */
void pp_plan_bound_achieved(const pp_model *m, size_t q, int achieved_metric,
                            const pp_model_point *pt, pp_prediction *a);

/* 1 when the parameter named name is a clock or a power mode of the board
 * (clocks.*, src/config/profile_clocks.c): the kernel sets only the
 * values of its table, so a plan takes the levels measured, not the grid
 * of their common step (issue 44). */
int pp_plan_is_clock(const char *name);

/* The distinct values measured of parameter k of s, increasing, into *v
 * (malloc'd) and *n: 0 or -ENOMEM. */
int pp_plan_measured_levels(const pp_summary *s, size_t k, double **v, size_t *n);

#endif
