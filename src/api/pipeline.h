/* pipeline.h - the method's steps as library calls that return structs:
 * what `powprof run` does with a configuration file (check everything it
 * will need, profile, model, plan, plots, report), and what `model`,
 * `plot` and `plan` each do of it. The command line parses, calls these
 * and prints; it never runs another command or reads its output.
 *
 *   pp_pipeline_check      before the first configuration runs: the
 *                          mission's keys, the battery, the results folder
 *   (the sweep)            pp_results_dir_name, pp_results_make_dirs
 *                          (src/results/folder.h), pp_sweep_run (sweep.h)
 *   pp_pipeline_model      the layer-2 model, saved (model.json, model/)
 *   pp_pipeline_plan_model + pp_plan: the mission's plan; pp_plan_json,
 *                          pp_pipeline_plan_save (RESULTS/plan.json)
 *   pp_pipeline_plots      the plots, the model built first when missing
 *   pp_run_report_make     each configuration under the plan's loads
 *   pp_pipeline_run_all    all of it in order (pipeline_run.c), the sweep
 *                          and the printing left to the caller's hooks
 */
#ifndef PP_PIPELINE_H
#define PP_PIPELINE_H

#include "src/config/battery_config.h"
#include "src/config/mission_settings.h"
#include "src/config/profile.h"
#include "src/layer2/model.h"
#include "src/plan/plan.h"
#include "src/plan/phases_model.h"
#include "plots/plot.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* ---- before anything runs ------------------------------------------- */

/* The reserve to keep, frac, is a fraction in [0, 1): 0, or -EINVAL
 * logged in the words every face says it in (the CLI's --min-soc, the C
 * API's min_soc_frac, Python's min_soc_frac and min_soc). */
int pp_plan_check_min_soc(double frac);

/* Everything `run` needs after the sweep, checked before it: the mission's
 * keys (maximize names a numeric parameter of the profile, or one can be
 * chosen; min_soc below the battery's start), the battery (read with the
 * profile), the results folder dir (can be created and written). Every
 * problem is logged with the file, line and key, or the folder. 0 or
 * -EINVAL. */
int pp_pipeline_check(const pp_profile *p, const char *dir);

/* ---- layer 2 ---------------------------------------------------------- */

/* What `powprof model` keeps of an open model m of dir: the fleet measured
 * when there are several nodes or repeats (m->fleet), model.json and the
 * plotted grids under dir/model/. 0 or -errno (logged). */
int pp_pipeline_model_keep(pp_model *m, const char *dir);

/* pp_model_read (choices made anew with o, NULL: defaults) then
 * pp_pipeline_model_keep; m is left open for the caller to read (free it
 * with pp_model_free). 0, or the error of the step that failed. */
int pp_pipeline_model(const char *dir, const pp_model_options *o, pp_model *m);

/* Metric k repeats metric *of's column in every row (a rail that is the
 * total; soc_end beside soc_drain): 1, else 0. */
int pp_model_metric_repeats(const pp_summary *s, size_t k, size_t *of);

/* What to do about the metrics whose typical error is high (group g; the
 * metrics with shown[k] set). */
typedef struct pp_model_advice {
    int worst;            /* the metric with the highest typical error above 10 %; -1: none */
    double worst_pct;
    int edges;            /* some are bad at the edges of the range only */
    int middle;           /* some are bad inside it */
    size_t n_short;       /* short runs among */
    size_t n_rows;        /* the rows measured */
} pp_model_advice;

void pp_model_advise(const pp_model *m, size_t g, const int *shown, pp_model_advice *a);

/* The model's summary as `run --json` reports it: per group and metric the
 * estimator, its value space and typical error, from dir/model.json (JSON
 * null without one). A new reference. */
json_t *pp_model_summary_json(const char *dir);

/* ---- plots ------------------------------------------------------------ */

/* The plots of dir (plot.h) with o into r (free it with
 * pp_plot_result_free, also after an error): the model built first with
 * the defaults when dir has parameters and no model.json, the scripts
 * written and rendered. 0; -EINVAL (logged: no summary, a plan this
 * battery does not give); another -errno (logged: the model, the files). */
int pp_pipeline_plots(const char *dir, const pp_plot_options *o, pp_plot_result *r);

/* ---- the report of `run` ---------------------------------------------- */

#define PP_RUN_REPORT_MAX_RATES 8

/* Each configuration of a results folder under the loads the plan counts:
 * what was measured, and the battery b drained by its mean power over its
 * duration (the computer through the converter plus b's base load). */
typedef struct pp_run_report {
    pp_summary sum;                 /* summary.csv */
    int mean_w, energy_j, per_iteration_j, duration_s; /* their metrics (-1: none) */
    size_t n_rates;                 /* achieved-rate metrics (<component>.achieved_*) */
    int rate[PP_RUN_REPORT_MAX_RATES];
    double *drain_frac, *cutoff_s;  /* per row (NaN: no mean power or duration) */
    size_t cheapest_w;              /* the row of the lowest mean power */
    size_t cheapest_per_iteration;  /* the row of the lowest energy per iteration */
} pp_run_report;

/* 0, or -errno (logged). */
int pp_run_report_make(const char *dir, const pp_battery_params *b, pp_run_report *r);
void pp_run_report_free(pp_run_report *r);

/* Row i's value of metric k (NaN when k < 0). */
double pp_run_report_value(const pp_run_report *r, size_t i, int k);

/* ---- the main job: `powprof run` (pipeline_run.c) ------------------- */

typedef enum pp_pipeline_step {
    PP_PIPELINE_CHECK,   /* pp_pipeline_check */
    PP_PIPELINE_PROFILE, /* the sweep (the caller's hook) */
    PP_PIPELINE_MODEL,   /* layer 2, saved */
    PP_PIPELINE_PLAN,    /* the mission's plan, saved (with a mission group) */
    PP_PIPELINE_PLOTS,   /* the plots, the plan's state of charge among them */
    PP_PIPELINE_DONE
} pp_pipeline_step;

/* A run of profile p into dir, step by step. What a step leaves for the
 * hook of its end is valid during that call only (model, plots); the plan
 * stays until pp_pipeline_run_free. */
typedef struct pp_pipeline_run {
    const pp_profile *p;
    const char *dir;
    pp_plan_options *mission;  /* the plan's options (NULL: no mission group) */
    pp_battery_params loads;   /* the report's: p's pack with the mission's base load */
    pp_pipeline_step step;     /* the step running, the one that failed, or DONE */
    pp_model model;            /* layer 2 (have_model: in the model step's end hook) */
    int have_model;
    pp_model plan_model;       /* the model the plan read (with plan or phases) */
    pp_plan_result *plan;      /* the plan (NULL: none) */
    pp_phases_plan *phases;    /* the plan per phase, for a mission of phases */
    json_t *plan_json;         /* as kept in dir/plan.json (NULL: no plan) */
    pp_plot_options plot_opts; /* the plots' options */
    pp_plot_plan *plot_plan;   /* plan_json read for the plots (malloc'd) */
    pp_plot_result plots;      /* have_plots: in the plots step's end hook */
    int have_plots;
} pp_pipeline_run;

typedef struct pp_pipeline_hooks {
    /* The sweep of r->p into r->dir, run by the caller (its progress and
     * interruption are the caller's): 0, 1 (some configurations failed:
     * the rest goes on) or any other value, which stops the run and is
     * returned. Required. */
    int (*profile)(void *ctx, const pp_pipeline_run *r);
    /* Called at the start (done 0) and the end (done 1) of the model, the
     * plan and the plots steps, r->step saying which. NULL: none. */
    void (*step)(void *ctx, const pp_pipeline_run *r, int done);
    void *ctx;
} pp_pipeline_hooks;

/* declared beside their files (check-layout's rule 4), here for every
 * caller of this header */
#include "pipeline_fixed.h"
#include "pipeline_mission.h"
#include "pipeline_phases.h"
#include "pipeline_plan.h"
#include "pipeline_run.h"
#include "run_doc.h"

#endif
