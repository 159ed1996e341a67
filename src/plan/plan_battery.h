/* plan_battery.h - the battery under a constant computer load
 * (plan_battery.c): for the planners, and for the report of a run. */
#ifndef PP_PLAN_BATTERY_H
#define PP_PLAN_BATTERY_H

#include "battery/battery.h"

/* The battery b under a constant computer load for duration_s from
 * soc_start: 0 when it lasts (ends at min_soc or above, no event), 1 when
 * not, -errno. soc_end and ttc (time to cutoff) may be NULL. */
int pp_plan_lasts(const pp_battery_params *b, double power_w, double soc_start, double duration_s,
                  double min_soc, double *soc_end, double *ttc);

/* The most computer power that lasts duration_s from soc, then (rest_s >
 * 0) after_w for rest_s, ending at min_soc or above (bisection); < 0 when
 * not even 0 W does. */
double pp_plan_max_power_from(const pp_battery_params *b, double soc, double duration_s,
                              double after_w, double rest_s, double min_soc);

/* The battery b with the computer drawing a constant computer_w (through
 * b's efficiency, beside b's base_power_w) for duration_s from b's start:
 * the charge drained (fraction) and the time to its cutoff if it went on
 * (NAN when none within 48 h). The loads the plan counts, for the report
 * of `powprof run` to show beside it. 0 or -errno. */
int pp_plan_constant_load(const pp_battery_params *b, double computer_w, double duration_s,
                          double *drain_frac, double *ttc_s);

/* The most power the computer may draw, constant, for duration_s from b's
 * start (b's base_power_w beside it) and end with min_soc_frac or more and
 * no event: *max_w, < 0 when not even 0 W does. 0, or -EINVAL (logged:
 * bad battery parameters). */
int pp_plan_max_power(const pp_battery_params *b, double duration_s, double min_soc_frac,
                      double *max_w);

#endif
