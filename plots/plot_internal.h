/* plot_internal.h - what the parts of the plot module share (plot.c: the
 * scripts and layer 1; plot_layer2.c; plot_plan.c; plot_render.c). Not
 * installed, not for other modules. */
#ifndef PP_PLOT_INTERNAL_H
#define PP_PLOT_INTERNAL_H

#include "plot.h"

#include "src/layer2/model.h"

#include <stdio.h>

typedef struct pp_plotter {
    const char *dir;             /* RESULTS */
    const pp_plot_options *o;
    pp_plot_result *r;           /* scripts are appended to it */
    int estimated;               /* power estimated from CPU utilization */
    char data[PP_NAME_MAX];      /* the last data file opened: its script follows */
} pp_plotter;

/* plots/<name>.gp opened, recorded in the result, its first lines written
 * (data separator, grid, line colours) and the title (NULL: none; a second
 * line after '\n'). NULL when the name cannot be a file name or the file
 * cannot be written (logged). */
FILE *pp_plot_script_open(pp_plotter *pl, const char *name, const char *title);

/* Before the plot command: the first format's terminal and output. */
void pp_plot_script_output(const pp_plotter *pl, FILE *fp, const char *name);

/* After it: the other format when both are asked, and close. Returns 0 or
 * -EIO (the script is then dropped from the result). */
int pp_plot_script_close(pp_plotter *pl, FILE *fp, const char *name);

/* plots/<name>.dat for writing, and marks the script as having data.
 * NULL on error (logged). */
FILE *pp_plot_data_open(pp_plotter *pl, const char *name);

/* A range [*lo, *hi] to show values between lo and hi: padded by pad of
 * the span (both ends), a constant widened to +-10 % (+-1 around 0), so
 * that gnuplot never meets an empty range. NaNs are ignored; none at all
 * gives [0, 1]. */
void pp_plot_range(double lo, double hi, double pad, double *out_lo, double *out_hi);

/* A tick step giving about n ticks over [lo, hi]: 1, 2 or 5 x 10^k. */
double pp_plot_tick_step(double lo, double hi, int n);

/* Words for a metric with its unit: "total mean power [W]",
 * "VDD_SYS_GPU energy [J]", "battery drained by one run [%]", ... and
 * the factor from the metric's units to the shown ones (100 for a
 * fraction shown in %). */
void pp_plot_metric_words(const char *metric, char *buf, size_t cap, double *factor);

/* Layer 2 (plot_layer2.c) and the plan (plot_plan.c). 0 or -errno. */
int pp_plot_layer2(pp_plotter *pl, const pp_model *m);
int pp_plot_plan_soc(pp_plotter *pl, const pp_plot_plan *plan, const pp_battery_params *b);

/* A plan per phase (plot_phases.c): read from root (the object of `plan
 * --mission --json`; 0 or -1, logged), and plotted (plan-phases: the
 * phases shaded and named, the charge, the reserve, the base load and the
 * computer's power; a phase whose floor binds marked). */
struct json_t;
int pp_plot_phases_fields(const char *path, struct json_t *root, pp_plot_plan *p);
int pp_plot_plan_phases(pp_plotter *pl, const pp_plot_plan *plan);

#endif
