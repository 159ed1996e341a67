/* plot_phases.h - the plot of a plan per phase (plot_phases.c), called by
 * plot_plan.c. Not installed. */
#ifndef PP_PLOT_PHASES_H
#define PP_PLOT_PHASES_H

#include "gnuplot.h"

/* A plan per phase (plot_phases.c): read from root (the object of `plan
 * --mission --json`; 0 or -1, logged), and plotted (plan-phases: the
 * phases shaded and named, the charge, the reserve, the base load and the
 * computer's power; a phase whose floor binds marked). */
struct json_t;
int pp_plot_phases_fields(const char *path, struct json_t *root, pp_plot_plan *p);
int pp_plot_plan_phases(pp_plotter *pl, const pp_plot_plan *plan);

#endif
