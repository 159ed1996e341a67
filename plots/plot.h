/* plot.h - the plots of a results folder: gnuplot scripts and their data
 * under RESULTS/plots/, and their rendering.
 *
 * What is plotted (each a script <name>.gp, most with their data in
 * <name>.dat beside it, whitespace separated, a '#' line naming the
 * columns, blocks separated by two blank lines for gnuplot's `index`):
 *   trace-<id>          layer 1: every rail of a configuration over time
 *                       (the first 24 configurations)
 *   layer1-total        layer 1: the total power over time of up to 8
 *                       configurations spread over the range of mean power
 *   layer2-<metric>     layer 2 with one varying numeric parameter: the
 *                       prediction with its 90 % band, the measured points,
 *                       a line per combination of labels (categorical
 *                       parameters); total_mean_w and total_energy_j with
 *                       the state of charge after one run on a second axis
 *   layer2-rails-mean_w, layer2-rails-energy_j
 *                       the same for every rail beside the total (rails
 *                       that repeat the total left out)
 *   layer2-<metric>-<a>-<b>[-g<g>]
 *                       layer 2 with two or more: the surface over each
 *                       pair of varying numeric parameters, the others at a
 *                       measured value near their middle (said in the
 *                       title), with the measured configurations of that
 *                       slice as points and the 90 % band of the prediction
 *                       at each as an error bar; for total_mean_w,
 *                       total_energy_j, soc_drain and every rail's mean
 *                       power; one per combination of labels (g, the
 *                       group's index in model.json, when there are several)
 *   plan-soc            the state of charge over the mission time of a plan
 *                       (`powprof plan --json`): the best configuration at
 *                       its planned power, its 90 % band, the schedule and
 *                       the computer power it plans, the reserve and the
 *                       mission's end
 * Every value is predicted through pp_model_predict (model.h), the path of
 * every prediction. Ranges are set from the data (a constant one widened),
 * so gnuplot never autoscales an empty range.
 *
 * Names from data reach file names only through pp_path_fmt and scripts
 * only through pp_gp_printf (util.h). Library code: nothing is printed;
 * errors are logged and returned as -errno.
 */
#ifndef PP_PLOT_H
#define PP_PLOT_H

#include "src/base/util.h"

#include "battery/battery.h"

#include <stddef.h>

/* A plan as `powprof plan --json` writes it: what the plot needs. */
#define PP_PLOT_PLAN_STEPS 64
typedef struct pp_plot_plan_step {
    double t_s;        /* when it starts */
    double planned_w;  /* the computer's power planned with */
    double value;      /* the maximized parameter's value */
} pp_plot_plan_step;

/* A plan per phase (`powprof plan --mission --json`): its phases and the
 * confirming run's timeline. */
#define PP_PLOT_PHASES_MAX 32
#define PP_PLOT_TIMELINE_MAX 2000
typedef struct pp_plot_phase {
    char name[64];
    double start_s, duration_s, base_mean_w, computer_w, value;
    int met, floor_binds;
} pp_plot_phase;

typedef struct pp_plot_plan {
    int feasible;
    double mission_s, min_soc_frac, base_power_w, efficiency;
    char maximize[PP_NAME_MAX]; /* the parameter maximized */
    int risk_upper;             /* planned with the band's upper end */
    /* the best configuration when feasible, else the most frugal */
    double value, power_w, power_lo_w, power_hi_w, planned_w;
    double soc_end_frac;        /* best_soc_end (NaN when infeasible) */
    size_t n_steps;             /* the schedule, when there is one */
    pp_plot_plan_step steps[PP_PLOT_PLAN_STEPS];
    double schedule_soc_end_frac; /* NaN without a schedule */
    size_t n_phases;              /* a plan per phase (0: a plan as above) */
    pp_plot_phase phase[PP_PLOT_PHASES_MAX];
    size_t n_points;              /* its timeline: time, charge, base and computer power */
    double tl_t_s[PP_PLOT_TIMELINE_MAX], tl_soc[PP_PLOT_TIMELINE_MAX];
    double tl_base_w[PP_PLOT_TIMELINE_MAX], tl_computer_w[PP_PLOT_TIMELINE_MAX];
} pp_plot_plan;

/* Read path (the output of `powprof plan --json`). 0, or -EINVAL (logged
 * with the file and the key: not JSON, a key missing or of the wrong type,
 * a parameter name that pp_name_check refuses) or -errno. */
int pp_plot_plan_load(const char *path, pp_plot_plan *p);

typedef struct pp_plot_options {
    int png, svg;                 /* the formats rendered (default png) */
    const pp_plot_plan *plan;     /* NULL: no plan-soc */
    const char *metric;           /* layer 2 of this metric alone (NULL: the usual ones) */
    pp_battery_params battery;    /* the plan's battery; its base load and
                                     efficiency are taken from the plan */
} pp_plot_options;

/* png only, no plan, the default battery. */
void pp_plot_options_init(pp_plot_options *o);

typedef struct pp_plot_script {
    char name[PP_NAME_MAX]; /* plots/<name>.gp, images <name>.png / .svg */
    int has_data;           /* plots/<name>.dat */
    int rendered;           /* gnuplot ran and every image is there */
    char error[1024];       /* why it was not rendered ("" when it was) */
    char warnings[1024];    /* what gnuplot warned while rendering it ("": nothing) */
} pp_plot_script;

typedef struct pp_plot_result {
    char plots_dir[4200];   /* RESULTS/plots */
    size_t n_scripts, cap;
    pp_plot_script *scripts; /* malloc'd */
    int gnuplot_missing;     /* pp_plot_render found no gnuplot */
    size_t n_rendered, n_failed, n_warned;
} pp_plot_result;

/* Write the scripts and data of results (a folder with summary.csv; the
 * layer-2 plots need its model.json, see `powprof model`) under
 * results/plots/ (created) into r (r is initialized here: free it with
 * pp_plot_result_free, also after an error). A plot that cannot be made
 * (a trace that does not read, a name too long for a file) is left out
 * and logged. Returns 0, -EINVAL (logged: no summary, a plan whose
 * figures this battery does not give) or -errno. */
int pp_plot_write(const char *results, const pp_plot_options *o, pp_plot_result *r);

/* Run gnuplot on every script of r (in r->plots_dir, never through a
 * shell), its standard output and error captured: a failure is recorded
 * in the script's error (gnuplot's message, noise such as font
 * configuration left out) and counted in n_failed; a warning of a script
 * that rendered in warnings and n_warned (logged at debug level); an image
 * missing after gnuplot succeeded is a failure. No gnuplot: 0 with
 * gnuplot_missing set. Returns 0 or -errno. */
int pp_plot_render(const pp_plot_options *o, pp_plot_result *r);

void pp_plot_result_free(pp_plot_result *r);

#endif
