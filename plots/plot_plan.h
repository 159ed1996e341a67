/* plot_plan.h - a plan read for plotting, and its state of charge (plot.h:
 * plan-soc), for plot.c.
 * plot_plan.c calls gnuplot.c, nothing of plot.c. Not installed. */
#ifndef PP_PLOT_PLAN_H
#define PP_PLOT_PLAN_H

#include "gnuplot.h"

#include "battery/battery.h"

/* Read path (the output of `powprof plan --json`). 0, or -EINVAL (logged
 * with the file and the key: not JSON, a key missing or of the wrong type,
 * a parameter name that pp_name_check refuses) or -errno. */
int pp_plot_plan_load(const char *path, pp_plot_plan *p);

/* The same from a plan already in memory (pp_plan_json, the plan of
 * phases' JSON), path naming it in messages. */
struct json_t;
int pp_plot_plan_from_json(const char *path, struct json_t *root, pp_plot_plan *p);

/* plan-soc: plan flown on battery b. 0 or -errno. */
int pp_plot_plan_soc(pp_plotter *pl, const pp_plot_plan *plan, const pp_battery_params *b);

#endif
