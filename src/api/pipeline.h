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

/* The mission of profile p as plan options (*o initialized here): its
 * duration, the parameter to maximize, the reserve, the battery of p's
 * file with the mission's base load, the schedule. Without a mission
 * group: 1 (o unused). 0, 1, or -EINVAL (logged). */
int pp_pipeline_mission(const pp_profile *p, pp_plan_options *o);

/* The mission group's fixed = ["NAME=VALUE", ...] (parameters held at one
 * value, as plan --fix) added to o (pp_pipeline_mission leaves them out;
 * the checks before a run call this too), each name a parameter of p and each
 * value one of its own (pipeline_fixed.c). 0, or -EINVAL (logged with the
 * file's line). */
int pp_pipeline_mission_fixed(const pp_profile *p, pp_plan_options *o);

/* The mission's options of o (the rest as they are): the battery c asks
 * for (pp_battery_choose; c NULL: o's battery as it is), the mission's length, the reserve to keep
 * (min_soc_frac < 0: the pack's cutoff; else it replaces the pack's
 * cutoff), planned on the prediction (risk_mean) or its band's upper end.
 * 0 or -errno (logged). */
int pp_plan_options_mission(pp_plan_options *o, const pp_battery_choice *c, double mission_s,
                            double min_soc_frac, int risk_mean);

/* The reserve to keep, frac, is a fraction in [0, 1): 0, or -EINVAL
 * logged in the words every face says it in (the CLI's --min-soc, the C
 * API's min_soc_frac, Python's min_soc_frac and min_soc). */
int pp_plan_check_min_soc(double frac);

/* The one rule of a mission file's battery group: the mission of file into
 * spec (initialized by the caller) and, when no battery was given
 * (battery_given NULL), its battery group over b (the default pack); a
 * battery given (battery_given: the words naming it, a file or "the
 * battery given") is flown as it is, and a battery group of the file is
 * then said not to be read (a warning), never used silently. 0, or
 * -errno (logged with the file and line). */
int pp_mission_load_with(const char *file, pp_mission_spec *spec, pp_battery_params *b,
                         const char *battery_given);

/* The mission in phases of file into spec (initialized by the caller), its
 * battery group over o's battery unless battery_given names the battery
 * flown (pp_mission_load_with's rule); then what the settings mi give win
 * over the file: their base load over the file's battery's, and the
 * file's maximize is taken only when o has none. 0, or -EINVAL (logged
 * with the file and line). pp_mission_apply's phases. */
int pp_plan_options_mission_file_given(pp_plan_options *o, const pp_mission_settings *mi,
                                       const char *file, const char *battery_given,
                                       pp_mission_spec *spec);

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

/* pp_model_open (choices made anew with o, NULL: defaults) then
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

/* ---- the plan --------------------------------------------------------- */

/* The model of dir for a plan that maximizes maximize (NULL: the planner's
 * choice): only the metrics a plan reads when maximize is given, aimed at
 * node (or the most power-hungry board with worst). 0, -EINVAL (logged),
 * -ENOENT, -ESRCH (no such node, none that compares: logged) or -ENOMEM. */
int pp_pipeline_plan_model(const char *dir, const char *maximize, const char *node, int worst,
                           pp_model *m);

/* A plan as `powprof plan --json` prints it and RESULTS/plan.json keeps it
 * (plots/plot_plan.c reads it back). A new reference. */
json_t *pp_plan_json(const pp_model *m, const pp_plan_options *o, const pp_plan_result *r);

/* One configuration of a plan as JSON: its parameters (labels as text),
 * power_w with its band, planned_w, achieved, quality. */
json_t *pp_plan_choice_json(const pp_model *m, const pp_plan_choice *c);
/* ... its parameters alone {name: value} (labels for categorical ones). */
json_t *pp_plan_setting_json(const pp_model *m, const pp_plan_choice *c);
/* What every planner left out and by which rule (plan.h): {"tolerance",
 * "short_of_rate", "never_measured_gave_way", "below_min_rate"}. */
json_t *pp_plan_left_out_json(const pp_plan_options *o, const pp_plan_result *r);

/* A plan of a mission in phases (pp_plan_phases) as `powprof plan
 * --mission --json` prints it and RESULTS/plan.json keeps it
 * (pipeline_phases.c). A new reference. */
json_t *pp_phases_plan_json(const pp_model *m, const pp_plan_options *o, const pp_mission_spec *mi,
                            const pp_phases_plan *r);

/* plan into dir/plan.json, atomically (the one writer of plan.json). 0 or -errno (logged). */
int pp_pipeline_plan_save(const char *dir, const json_t *plan);

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

/* r for profile p into the folder dir (the profile's own, resolved by the
 * caller; both must outlive r): the report's loads, the mission's plan
 * options (a mission group whose keys do not hold is said by the checks).
 * 0 or -ENOMEM. Free r with pp_pipeline_run_free, also after an error. */
int pp_pipeline_prepare(const pp_profile *p, const char *dir, pp_pipeline_run *r);

/* Check, profile (h->profile), model, plan (a mission group), plots; stops
 * at the first step that fails, r->step saying which. Returns 0 (r->step
 * DONE), the profile hook's value when not 0 or 1, or a -errno of the
 * step (logged): -EINVAL at the checks, the model's, the plan's (-ENOMEM,
 * else a mission the model cannot plan), the plots' (-EINVAL: no summary,
 * a plan the battery does not give; -EIO: gnuplot failed on some). */
int pp_pipeline_run_all(pp_pipeline_run *r, const pp_pipeline_hooks *h);

void pp_pipeline_run_free(pp_pipeline_run *r);

/* The files of a results folder as `run --json` lists them: summary,
 * run_json, traces, model, grids, plots, plan (the plan only when plan is
 * set), each a path or null when absent. A new reference. */
json_t *pp_pipeline_files_json(const char *dir, int plan);

/* ---- what `run` answers (run_doc.c) ----------------------------------- */

/* The report of the results in dir in words on fp: each configuration's
 * mean power and energy, energy per iteration, late frames and achieved
 * rates, and the battery b drained and the time to its cutoff under the
 * loads the plan counts (mission: the mission's base load, else the
 * battery group's; group_base_w the group's, which summary.csv counts);
 * the cheapest in power and in energy per iteration. Nothing when the
 * report cannot be made (logged). */
void pp_run_report_print(FILE *fp, const char *dir, const pp_battery_params *b, int mission,
                         double group_base_w);

/* The exit status of run r's outcome rc (pp_pipeline_run_all's; r->step
 * where it stopped): rc when >= 0; 2 for the checks, a plan the model
 * cannot plan and plots refused; else 125. */
int pp_pipeline_exit_status(const pp_pipeline_run *r, int rc);

/* --dry-run: what follows the sweep (the results folder, the mission:
 * {mission_s, maximize, base_power_w, min_soc} or null), as the members
 * added to the dry run's document, and in words on fp. */
json_t *pp_pipeline_dry_doc(const pp_pipeline_run *r);
void pp_pipeline_dry_text(const pp_pipeline_run *r, FILE *fp);

/* run --json: {results, exit_status, profile, model, plots, plan, files};
 * profile and plots (the sweep's and the plots' documents, NULL: null)
 * are stolen. A new reference. */
json_t *pp_pipeline_run_doc(const pp_pipeline_run *r, int status, json_t *profile, json_t *plots);

#endif
