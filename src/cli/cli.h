/* cli.h - shared pieces of the command line (not part of libpowprof). */
#ifndef PP_CLI_H
#define PP_CLI_H

#include "src/config/profile.h"
#include "src/config/mission_settings.h"
#include "src/config/shard.h"
#include "src/results/json_file.h"
#include "src/results/node.h"
#include "devices/device.h"
#include "opt.h"

#include <stdio.h>

/* The rows of the options shared by every command that opens a device,
 * into the pp_device_options o. */
#define PP_CLI_DEVICE_ROWS(o)                                                                   \
    PP_OPT_STRING(0, "sysfs-root", &(o)->sysfs_root, "DIR",                                     \
                  "read /sys and /proc under DIR (default /)"),                                 \
    PP_OPT_NUMBER(0, "procstat-idle-w", &(o)->procstat_idle_w, "W",                             \
                  "procstat estimate: power with all cores idle (default 1.5)"),                \
    PP_OPT_NUMBER(0, "procstat-core-w", &(o)->procstat_core_w, "W",                             \
                  "procstat estimate: added power per busy core (default 0.6)"),                \
    PP_OPT_STRING(0, "replay", &(o)->replay_path, "FILE.csv",                                   \
                  "trace played back by the 'replay' device"),                                  \
    PP_OPT_STRING(0, "nvml-lib", &(o)->nvml_library, "PATH",                                    \
                  "NVML library to load (default libnvidia-ml.so.1)")

/* Long options of the mission that `plan` and `layers predict` plan for,
 * the battery's among them; their values start at this code. */
/* Callbacks of the option table (opt.h) for the mission's options, rows
 * of plan, govern and layers predict: --mission-s (a duration, into a
 * double), --min-soc (a fraction, into a double), --resolution (into a
 * pp_plan_options). 0, or -1 (said why). */
int pp_cli_opt_mission_s(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_min_soc(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_resolution(const pp_opt *row, const char *arg, const char *cmd);
/* --mission-s and --min-soc rows into the pp_mission_settings m. */
#define PP_CLI_MISSION_S_ROW(m, help) \
    PP_OPT_CALLBACK(0, "mission-s", &(m)->mission_s, "S", help, pp_cli_opt_mission_s)
#define PP_CLI_MIN_SOC_ROW(m, help) \
    PP_OPT_CALLBACK(0, "min-soc", &(m)->min_soc_frac, "F", help, pp_cli_opt_min_soc)
/* --risk upper|mean into an int (1: mean): 0, or -1. */
int pp_cli_risk_parse(const char *arg, void *mean);
#define PP_CLI_RISK_ROW(m, help) \
    PP_OPT_PARSE(0, "risk", &(m)->risk_mean, "upper|mean", help, pp_cli_risk_parse, "upper or mean")
/* --base-power-w's row into m (watts >= 0). */
#define PP_CLI_BASE_POWER_ROW(m, help) \
    PP_OPT_RANGE(0, "base-power-w", &(m)->base_power_w, "W", help, 0, HUGE_VAL, 0, "watts >= 0")

/* One line on fp: the pack b and base load a plan of m flies, and where
 * they came from. */
void pp_cli_mission_say(const pp_mission_settings *m, const struct pp_battery_params *b, FILE *fp);

/* An option the library refused (rc < 0): "powprof CMD: NAME ARG: WHY" on
 * stderr and -1; 0 otherwise. */
int pp_cli_refused(const char *cmd, const char *name, const char *arg, int rc, const char *why);

/* Parse a real number argument of option name; prints an error on failure. */
int pp_cli_parse_double(const char *cmd, const char *name, const char *arg, double *out);

/* A sweep as `profile` and `run` ask for it (src/cli/sweep_ui.c). */
typedef struct pp_cli_sweep {
    const char *command;                /* "profile" or "run": the command that continues it */
    const char *config, *out_dir;       /* -o as given; the folder once resolved */
    int resume, retry_failed, json;
    unsigned max_failures;              /* 0: never stop */
    const char *shard_spec, *node_name; /* as given (NULL: none) */
    pp_shard shard;
    unsigned repeats;
    pp_node node;
    char shard_text[48], repeat_text[16], out_buf[PP_PATH_MAX];
    struct pp_cli_adaptive *adaptive;   /* profile --adaptive's options and outcome (NULL:
                                           none asked; a profile's adaptive group still runs) */
} pp_cli_sweep;

/* Defaults: stop after 3 identical failures, each configuration once. */
void pp_cli_sweep_init(pp_cli_sweep *rq, const char *command);
/* --max-failures ARG into rq: 0, or -1 (said why). */
int pp_cli_max_failures(const char *cmd, const char *arg, pp_cli_sweep *rq);
/* Callbacks of the sweep's options into row->value, a pp_cli_sweep:
 * --retry-failed (resume, and run the failed again), --keep-going (never
 * stop), --max-failures N. 0, or -1 (said why). */
int pp_cli_opt_retry(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_keep_going(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_max_failures(const pp_opt *row, const char *arg, const char *cmd);
/* The shard, the node and the results folder, once the profile is read.
 * 0, or PP_EXIT_USAGE (said why). */
int pp_cli_sweep_resolve(const pp_profile *p, pp_cli_sweep *rq);
/* More than PP_PROFILE_CONFIRM_ABOVE configurations: asked on a terminal,
 * refused otherwise. 0 to go on. */
int pp_cli_sweep_confirm(const char *cmd, const char *config, uint64_t n);
/* The sweep, interruptible, its progress on stderr and its outcome in
 * words; with json not NULL, *json set to the outcome as `profile --json`
 * prints it (the caller frees it). Returns the exit status. */
struct json_t;
int pp_cli_sweep_run(const pp_profile *p, const pp_cli_sweep *rq, struct json_t **json);

/* --dry-run: the configurations (this shard's) with their estimated
 * times, then the checks of the device and the components; with json one
 * object, more's members added (more is freed). 0 ready, 1 not. */
int pp_cli_dry_run(const pp_profile *p, int json, const pp_shard *sh, struct json_t *more);

int pp_cmd_devices(int argc, char **argv);
int pp_cmd_meter(int argc, char **argv);
int pp_cmd_battery(int argc, char **argv);
/* battery FLIGHT.ulg: the model p against each battery of the log
 * (src/flight/flight.h), printed. Returns an exit status. */
struct pp_battery_params;
/* powprof battery fit (battery_fit.c), from pp_cmd_battery. */
int pp_cli_battery_fit(int argc, char **argv);
int pp_cli_battery_flight(const char *path, const struct pp_battery_params *p, int user_pack,
                          int json, const char *out_path, const char *plot_dir);
struct pp_plot_result;
/* A plot of a folder of its own (battery fit --plot, battery LOG --plot),
 * said on stderr (stdout may be JSON) as cmd: rendered, written without
 * gnuplot, or gnuplot's error. rc: the plot's return. 0, or -1 when it
 * failed (r freed either way). */
int pp_cli_plot_said(const char *cmd, const char *dir, const char *name, int rc,
                     struct pp_plot_result *r);
int pp_cmd_profile(int argc, char **argv);
int pp_cmd_import(int argc, char **argv);
int pp_cmd_merge(int argc, char **argv);
int pp_cmd_model(int argc, char **argv);
/* The model's table (and the fleet's) as `powprof model` prints it. */
struct pp_model;
void pp_cli_model_print(const struct pp_model *m, const char *dir, int verbose);
int pp_cmd_predict(int argc, char **argv);
int pp_cmd_plot(int argc, char **argv);
struct pp_plot_options;
/* The plots r of dir made with o, printed (json NULL) or as `plot --json`'s
 * object into *json. PP_EXIT_FAILURE when gnuplot failed on some, else 0. */
struct pp_plot_result;
int pp_cli_plot_show(const char *dir, const struct pp_plot_options *o,
                     const struct pp_plot_result *r, struct json_t **json);
int pp_cmd_run(int argc, char **argv);
/* What `powprof run` was asked (run.c parses it). */
typedef struct pp_cli_run {
    pp_cli_sweep rq;          /* the sweep; its folder once resolved */
    const char *max_failures; /* as given (checked with the sweep) */
    int yes, json, dry;
} pp_cli_run;
/* run_steps.c: the pipeline of p (src/api/pipeline.h) with the sweep's
 * progress, each step's outcome, the report and the plan printed, or one
 * JSON object; --dry-run's configurations and checks. An exit status. */
struct pp_profile;
int pp_cli_run_steps(pp_cli_run *a, const struct pp_profile *p);
int pp_cmd_plan(int argc, char **argv);
/* A plan in words, as `powprof plan` prints it. */
struct pp_plan_options;
struct pp_plan_result;
void pp_cli_plan_print(const struct pp_model *m, const struct pp_plan_options *o,
                       const struct pp_plan_result *r);
/* plan_left.c: one choice in words (the rate maximized, what it achieves,
 * the other settings, its power), and what every planner leaves out */
struct pp_plan_choice;
void pp_cli_plan_choice_print(const struct pp_model *m, const struct pp_plan_result *r,
                              const struct pp_plan_choice *c);
/* What every planner leaves out, and by which rule (--tolerance, settings
 * never measured), said once: a line each. */
void pp_cli_plan_left_out(const struct pp_model *m, const struct pp_plan_options *o,
                          const struct pp_plan_result *r);
/* plan --mission: the plan per phase of mi on m, printed (json: one
 * object). Returns an exit status (3: no schedule keeps the reserve). */
struct pp_mission_spec;
int pp_cli_plan_phases(const struct pp_model *m, const struct pp_plan_options *o,
                       const struct pp_mission_spec *mi, int json);
struct pp_phases_plan;
void pp_cli_plan_phases_print(const struct pp_model *m, const struct pp_plan_options *o,
                              const struct pp_mission_spec *mi, const struct pp_phases_plan *r);
/* powprof govern (src/cli/govern.c); --simulate in govern_sim.c: the three
 * runs side by side, as text or one JSON object, and the plot. Returns an
 * exit status. */
int pp_cmd_govern(int argc, char **argv);
struct pp_sim_options;
int pp_cli_govern_simulate(const struct pp_model *m, const struct pp_phases_plan *r,
                           const char *actual, double scale_t_s, double scale_f,
                           const struct pp_sim_options *o, const char *plot_dir, int json);
/* powprof layers profile|model|predict (src/cli/layers.c, layers_predict.c) */
int pp_cmd_layers(int argc, char **argv);
/* powprof ulog info LOG (src/cli/ulog.c) */
int pp_cmd_ulog(int argc, char **argv);

#endif
