/* gnuplot.h - what the plots share (gnuplot.c): the scripts and data files
 * under RESULTS/plots/ and the words and ranges of their axes. plot.c
 * (layer 1, the whole), plot_layer2.c and plot_plan.c call these; these
 * call none of them. Not installed, not for other modules. */
#ifndef PP_GNUPLOT_H
#define PP_GNUPLOT_H

#include "plot.h"

#include <stdio.h>

typedef struct pp_plotter {
    const char *dir;             /* RESULTS */
    const pp_plot_options *o;
    pp_plot_result *r;           /* scripts are appended to it */
    int estimated;               /* power estimated from CPU utilization */
    char data[PP_NAME_MAX];      /* the last data file opened: its script follows */
    int write_error;             /* the first file that could not be written: -errno */
} pp_plotter;

/* A plotter writing straight into dir (created when missing), for the
 * plots that have a folder of their own (battery fit --plot, govern
 * --plot, battery LOG --plot): r cleared, its plots_dir dir. 0 or -errno
 * (logged). */
int pp_plotter_in_dir(const char *dir, const pp_plot_options *o, pp_plotter *pl,
                      pp_plot_result *r);

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
 * NULL on error (logged). Every file of plots/ is written under a
 * temporary name and renamed when closed whole: a write error (a full
 * disk) is logged with the file, the file removed, and pp_plot_write
 * fails with it. */
FILE *pp_plot_data_open(pp_plotter *pl, const char *name);

/* Close a data file of pp_plot_data_open. 0 or -errno (logged). */
int pp_plot_data_close(pp_plotter *pl, FILE *fp, const char *name);

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

/* 1 when s is longer than suffix and ends with it. */
int pp_plot_ends_with(const char *s, const char *suffix);

#endif
