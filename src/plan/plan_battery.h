/* plan_battery.h - the battery under a constant computer load
 * (plan_battery.c), for the planners. */
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

#endif
