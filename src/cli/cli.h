/* cli.h - shared pieces of the command line (not part of libpowprof). */
#ifndef PP_CLI_H
#define PP_CLI_H

#include "devices/device.h"

#include <getopt.h>
#include <stdio.h>

/* Exit statuses of powprof's own failures (a command's status passes through). */
#define PP_EXIT_USAGE 2
#define PP_EXIT_FAILURE 125

/* Long options shared by every command that opens a device; their values
 * start at this code. */
enum {
    PP_OPT_SYSFS_ROOT = 1000,
    PP_OPT_IDLE_W,
    PP_OPT_CORE_W,
    PP_OPT_REPLAY,
    PP_OPT_NVML_LIB,
    PP_OPT_JSON,
    PP_OPT_REPORT,
};

#define PP_CLI_DEVICE_LONG_OPTIONS                                                              \
    {"sysfs-root", required_argument, NULL, PP_OPT_SYSFS_ROOT},                                 \
    {"procstat-idle-w", required_argument, NULL, PP_OPT_IDLE_W},                                \
    {"procstat-core-w", required_argument, NULL, PP_OPT_CORE_W},                                \
    {"replay", required_argument, NULL, PP_OPT_REPLAY},                                         \
    {"nvml-lib", required_argument, NULL, PP_OPT_NVML_LIB}

#define PP_CLI_DEVICE_HELP                                                                      \
    "  --sysfs-root DIR       read /sys and /proc under DIR (default /)\n"                      \
    "  --procstat-idle-w W    procstat estimate: power with all cores idle (default 1.5)\n"     \
    "  --procstat-core-w W    procstat estimate: added power per busy core (default 0.6)\n"     \
    "  --replay FILE.csv      trace played back by the 'replay' device\n"                       \
    "  --nvml-lib PATH        NVML library to load (default libnvidia-ml.so.1)\n"

/* Handle one of the shared device options. Returns 1 when opt was one (0
 * when not), -1 on a bad value (message printed). */
int pp_cli_device_option(int opt, const char *arg, pp_device_options *o, const char *cmd);

/* Long options of the mission that `plan` and `layers predict` plan for,
 * the battery's among them; their values start at this code. */
enum {
    PP_OPT_MISSION = 1100,
    PP_OPT_MIN_SOC,
    PP_OPT_BASE_W,
    PP_OPT_RISK,
};

#define PP_CLI_MISSION_LONG_OPTIONS                                                             \
    {"mission-s", required_argument, NULL, PP_OPT_MISSION},                                     \
    {"config", required_argument, NULL, 'c'},                                                   \
    {"base-power-w", required_argument, NULL, PP_OPT_BASE_W},                                   \
    {"min-soc", required_argument, NULL, PP_OPT_MIN_SOC},                                       \
    {"risk", required_argument, NULL, PP_OPT_RISK}

/* What those options said. */
typedef struct pp_cli_mission {
    double mission_s;    /* -1 until given */
    double min_soc_frac; /* -1: the battery's soc_cutoff */
    double base_power_w; /* -1: the battery's */
    const char *config;  /* -c: a file with a battery group; NULL: the default battery */
    int risk_mean;       /* --risk mean: plan on the prediction, not its band's upper end */
} pp_cli_mission;

void pp_cli_mission_init(pp_cli_mission *m);

/* Handle one of the mission options. Returns 1 when opt was one (0 when
 * not), -1 on a bad value (message printed). */
int pp_cli_mission_option(int opt, const char *arg, pp_cli_mission *m, const char *cmd);

/* The battery m flies: -c's (else the default) with --base-power-w. 0, or
 * -1 (message printed: a bad file, a reserve not below the start). */
struct pp_battery_params;
int pp_cli_mission_battery(const pp_cli_mission *m, struct pp_battery_params *b, const char *cmd);

/* Parse a real number argument of option name; prints an error on failure. */
int pp_cli_parse_double(const char *cmd, const char *name, const char *arg, double *out);

/* JSON helpers. */
void pp_json_string(FILE *fp, const char *s);
void pp_json_number(FILE *fp, double v);
/* ,"key":number (null when not finite) */
void pp_json_field(FILE *fp, const char *key, double v);

int pp_cmd_devices(int argc, char **argv);
int pp_cmd_meter(int argc, char **argv);
int pp_cmd_battery(int argc, char **argv);
/* battery FLIGHT.ulg: the model p against each battery of the log
 * (src/results/flight.h), printed. Returns an exit status. */
struct pp_battery_params;
int pp_cli_battery_flight(const char *path, const struct pp_battery_params *p, int json);
int pp_cmd_profile(int argc, char **argv);
int pp_cmd_import(int argc, char **argv);
int pp_cmd_merge(int argc, char **argv);
int pp_cmd_model(int argc, char **argv);
/* Build the layer-2 model of a results folder (model.json, model/ grids);
 * fixed_sigma 0: cross-validated. Returns an exit status. */
int pp_model_build(const char *dir, double fixed_sigma, int json, int quiet);
int pp_cmd_predict(int argc, char **argv);
int pp_cmd_plot(int argc, char **argv);
/* What `powprof plot` does, for `run`: build the model when it is missing,
 * write and render the plots of dir (plot.h) with o; the outcome printed,
 * or, when json is not NULL, *json set to the object `plot --json` prints
 * (the caller frees it). Returns an exit status. */
struct pp_plot_options;
struct json_t;
int pp_plot_results(const char *dir, const struct pp_plot_options *o, struct json_t **json);
int pp_cmd_run(int argc, char **argv);
int pp_cmd_plan(int argc, char **argv);
/* plan --mission: the plan per phase of mi on m, printed (json: one
 * object). Returns an exit status (3: no schedule keeps the reserve). */
struct pp_model;
struct pp_plan_options;
struct pp_mission;
int pp_cli_plan_phases(const struct pp_model *m, const struct pp_plan_options *o,
                       const struct pp_mission *mi, int json);
/* powprof layers profile|model|predict (src/cli_layers.c) */
int pp_cmd_layers(int argc, char **argv);

#endif
