/* plot_plan.h - the plan's state of charge (plot.h: plan-soc), for plot.c.
 * plot_plan.c calls gnuplot.c, nothing of plot.c. Not installed. */
#ifndef PP_PLOT_PLAN_H
#define PP_PLOT_PLAN_H

#include "gnuplot.h"

#include "battery/battery.h"

/* plan-soc: plan flown on battery b. 0 or -errno. */
int pp_plot_plan_soc(pp_plotter *pl, const pp_plot_plan *plan, const pp_battery_params *b);

#endif
