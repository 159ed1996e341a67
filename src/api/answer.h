/* answer.h - the answers of `powprof model`, `predict` and `plan` as the
 * library gives them: each a document (JSON, the keys Python reads) and
 * the words a person reads, written on the FILE given, so that the
 * command line only parses and prints, and every face says the same.
 *
 *   mission   what plan and govern fly, resolved once: pp_mission_resolve
 *             (pipeline_mission.c)
 *   model     pp_model_text (model.json itself: pp_model_dump)
 *   predict   pp_prediction_json, pp_prediction_text (answer_model.c)
 *   plan      pp_plan_json (pipeline.h), pp_plan_text; the networks never
 *             run in a measured one's place: pp_networks_plan_json,
 *             pp_networks_plan_text (answer_plan.c)
 *   phases    pp_phases_plan_json (pipeline.h), pp_phases_plan_text
 *             (answer_phases.c)
 */
#ifndef PP_API_ANSWER_H
#define PP_API_ANSWER_H

#include "src/config/mission_settings.h"
#include "src/dnn/swap.h"
#include "src/layer2/model.h"
#include "src/plan/phases_model.h"
#include "src/plan/plan.h"

#include <jansson.h>
#include <stdio.h>

/* ---- the mission a plan flies, resolved once (pipeline_mission.c) ---- */

/* What a caller gives of its mission: `plan` and `govern` their options,
 * the C API (so Python's plan and Governor) a battery, a file or a length. */
typedef struct pp_mission_ask {
    pp_mission_settings given; /* -c, --mission-s, --min-soc, --base-power-w, --risk */
    const char *results;       /* a results folder: its profile.cfg says what is not
                                  given, unless a file is (NULL: none) */
    const char *file;          /* a mission in phases (--mission FILE; NULL: none) */
    const char *base_trace;    /* one phase of given.mission_s whose base load is this
                                  trace, a flight log or a folder (NULL: none) */
    double work_units;         /* N units of work to finish within the mission (0: none) */
    int phases;                /* 1: a length flies as one phase (govern), not as pp_plan's
                                  constant load */
    const char *battery_given; /* the plan options' battery is the caller's, flown as it is
                                  (the words naming it; a file's battery group is then not
                                  read: pp_mission_load_with); NULL: chosen from given */
} pp_mission_ask;

/* The mission resolved: what chose the battery, the phases flown. */
typedef struct pp_mission_resolved {
    pp_mission_settings mi; /* given, with the results folder's profile.cfg filled in */
    const char *file;       /* the phases' file: the one asked for, or the folder's */
    int folder_phases;      /* file is the results' own mission in phases */
    pp_mission_spec *spec;  /* the phases (malloc'd); NULL: one constant base load (pp_plan) */
} pp_mission_resolved;

/* Nothing asked: the settings as pp_mission_settings_init, no files. */
void pp_mission_ask_init(pp_mission_ask *a);

/* Which mission a flies, into r (not to be copied: it points into itself):
 * a file named is the whole mission; else the results' profile.cfg fills
 * what a does not give (battery, length, reserve, base load, maximize),
 * and its mission in phases flies when a says no constant load (no
 * length, base trace or base load). 0 or -EINVAL (logged with the file). */
int pp_mission_settle(const pp_mission_ask *a, pp_mission_resolved *r);

/* The mission r settled into o (initialized by the caller; its maximize
 * kept when set): the battery (pp_battery_choose on r->mi, unless
 * a->battery_given), the length, the reserve (it replaces the pack's
 * cutoff), the risk, the maximize (the folder's, then the file's), the
 * phases (r->spec), --work's rate. 0; -ENOENT when there is no mission
 * (no file, no length given: not logged, the caller says how to give one);
 * -EINVAL (logged with the file and line); -ENOMEM. */
int pp_mission_apply(const pp_mission_ask *a, pp_mission_resolved *r, pp_plan_options *o);

/* pp_mission_settle then pp_mission_apply. Free r with
 * pp_mission_resolved_free, also after an error. */
int pp_mission_resolve(const pp_mission_ask *a, pp_mission_resolved *r, pp_plan_options *o);
void pp_mission_resolved_free(pp_mission_resolved *r);

/* ---- model ------------------------------------------------------------ */

/* The configurations m models (every group's). */
size_t pp_model_n_configs(const pp_model *m);
/* m's summary holds more rows than its repeats and nodes explain (rows of
 * different profiles mixed): 1, else 0. */
int pp_model_rows_mixed(const pp_model *m);
/* The model m of the results folder dir as `powprof model` prints it: the
 * configurations and parameters, per group a row per metric (the
 * estimator's settings with verbose), advice, the fleet and the repeats. */
void pp_model_text(FILE *fp, const pp_model *m, const char *dir, int verbose);

/* ---- predict ---------------------------------------------------------- */

/* The model of the results folder dir for a prediction (pp_model_open:
 * model.json when it matches, else chosen now), with the battery its
 * run.json names and, node not NULL, aimed at that node of a fleet. 0, or
 * -errno (logged; m freed). */
int pp_prediction_open(const char *dir, const char *node, pp_model *m);
/* The n arguments NAME=VALUE (every parameter, a constant may be left
 * out) into pt, located in m at w; a numeric value outside the measured
 * range is warned about (point_check.h). 0, or -EINVAL: why said into why
 * (cap bytes), or logged and why empty. */
int pp_prediction_point(const pp_model *m, int n, char *const *args, pp_model_point *pt,
                        pp_model_where *w, char *why, size_t cap);

/* The prediction of every metric of m at pt (located at w) as `predict
 * --json` prints it: point, outside_measured_range, nearest {id,
 * distance}, band_level, metrics {name: {value, lo, hi,
 * typical_error_pct, beyond_measured_values}}. A new reference. */
json_t *pp_prediction_json(const pp_model *m, const pp_model_point *pt, const pp_model_where *w);
/* The same in words: the nearest measured configuration, a row per metric. */
void pp_prediction_text(FILE *fp, const pp_model *m, const pp_model_point *pt,
                        const pp_model_where *w);
/* The metrics of m predicted at pt beyond ten times their measured values,
 * each said by the library (point_check.h): refused (refuse) or a
 * warning. How many were refused. */
size_t pp_prediction_beyond(const pp_model *m, const pp_model_point *pt, const pp_model_where *w,
                            int refuse);
/* Which battery and load the battery metrics of the results dir (summary
 * s) were computed with (its run.json), a line; nothing without them. */
void pp_prediction_battery_text(FILE *fp, const char *dir, const pp_summary *s);

/* ---- plan ------------------------------------------------------------- */

/* --maximize, --fix and --resolution name parameters of m: 0, or -EINVAL
 * with why (cap bytes) naming the option and value. */
int pp_plan_names_check(const pp_model *m, const pp_plan_options *o, char *why, size_t cap);
/* One choice c of plan r in words: the parameter maximized, what it
 * achieves (its band; "not measured"), the other settings, its power (and
 * energy per unit of work). No end of line. */
void pp_plan_choice_words(FILE *fp, const pp_model *m, const pp_plan_result *r,
                          const pp_plan_choice *c);
/* What a planner left out and by which rule (--tolerance, settings never
 * measured, --min-rate): a line each. */
void pp_plan_left_out_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                           const pp_plan_result *r);
/* The node of a fleet m is aimed at (the most power-hungry with worst), a
 * line; nothing when none. */
void pp_plan_node_text(FILE *fp, const pp_model *m, int worst);
/* Plan r with o on m as `powprof plan` prints it: the loads, the held
 * settings, what was left out, the best (or the most frugal when nothing
 * completes the mission), the runners-up, the schedule. */
void pp_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o, const pp_plan_result *r);
/* The plans sp of each network in the place of the one measured (a layer
 * model's): each in words, then side by side; and as `plan --network
 * --json` prints them: {layer_model, measured, measured_plan, networks:
 * [{network, time_ratio, time_s, energy_j, plan}]} (a new reference). */
void pp_networks_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                           const char *measured, const pp_swap_plans *sp);
json_t *pp_networks_plan_json(const pp_model *m, const pp_plan_options *o, const char *layer_model,
                              const char *measured, const pp_swap_plans *sp);

/* ---- plan in phases ---------------------------------------------------- */

/* Plan r of the mission mi in phases, with o on m, as `powprof plan
 * --mission` prints it: the loads, what was left out, the unmet bounds or
 * a row per phase, the end and the gain over one configuration held
 * throughout. */
void pp_phases_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                         const pp_mission_spec *mi, const pp_phases_plan *r);

#endif
