/* cli.h - shared pieces of the command line (not part of libpowprof). */
#ifndef PP_CLI_H
#define PP_CLI_H

#include "opt.h"
#include "src/api/pipeline.h"

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

int pp_cmd_devices(int argc, char **argv);
int pp_cmd_meter(int argc, char **argv);
int pp_cmd_battery(int argc, char **argv);
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
int pp_cmd_plan(int argc, char **argv);
/* A plan in words, as `powprof plan` prints it. */
struct pp_plan_options;
struct pp_plan_result;
void pp_cli_plan_print(const struct pp_model *m, const struct pp_plan_options *o,
                       const struct pp_plan_result *r);
/* plan --mission's plan per phase in words (src/api/answer.h). */
struct pp_mission_spec;
struct pp_phases_plan;
void pp_cli_plan_phases_print(const struct pp_model *m, const struct pp_plan_options *o,
                              const struct pp_mission_spec *mi, const struct pp_phases_plan *r);
/* powprof govern (src/cli/govern.c), --simulate too. */
int pp_cmd_govern(int argc, char **argv);
/* powprof layers profile|model|predict (src/cli/layers.c) */
int pp_cmd_layers(int argc, char **argv);
/* powprof ulog info LOG (src/cli/ulog.c) */
int pp_cmd_ulog(int argc, char **argv);

/* --dry-run of profile and run: the configurations of shard sh with their
 * estimated times, then the checks; with json one object, more's members
 * added (more is freed). 0 ready, 1 not. */
struct pp_shard;
int pp_cli_dry_run(const pp_profile *p, int json, const struct pp_shard *sh, json_t *more);

/* A document on stdout, one line (flags: jansson's), freed; NULL: nothing. */
void pp_cli_print_doc(json_t *doc, size_t flags);

#endif
