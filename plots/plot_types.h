/* plot_types.h - what the files of plots/ share (plot.h says what each
 * plot is): a plan as the plots read it, the options, the scripts made.
 * A header of its own, with no .c, so that plot.c and the files it calls
 * (gnuplot.c, plot_layer2.c, plot_plan.c, plot_phases.c) name these types
 * without calling each other (scripts/check-layout). */
#ifndef PP_PLOT_TYPES_H
#define PP_PLOT_TYPES_H

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

typedef struct pp_plot_options {
    int png, svg;                 /* the formats rendered (default png) */
    const pp_plot_plan *plan;     /* NULL: no plan-soc */
    pp_battery_params battery;    /* the plan's battery; its base load and
                                     efficiency are taken from the plan */
} pp_plot_options;

typedef struct pp_plot_script {
    char name[PP_NAME_MAX]; /* plots/<name>.gp, images <name>.png / .svg */
    int has_data;           /* plots/<name>.dat */
    int rendered;           /* gnuplot ran and every image is there */
    char error[1024];       /* why it was not rendered ("" when it was) */
    char warnings[1024];    /* what gnuplot warned while rendering it ("": nothing) */
} pp_plot_script;

typedef struct pp_plot_result {
    char plots_dir[PP_PATH_MAX];   /* RESULTS/plots */
    size_t n_scripts, cap;
    pp_plot_script *scripts; /* malloc'd */
    int gnuplot_missing;     /* pp_plot_render found no gnuplot */
    size_t n_rendered, n_failed, n_warned;
} pp_plot_result;

#endif
