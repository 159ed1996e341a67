/* powprof/battery.h - drain a modelled battery with a load: the state of
 * charge at the end, the lowest voltage, and how long the battery lasts if
 * the load goes on (the trace repeated) until its cutoff.
 *
 * Models and parameters are those of `powprof battery` (SUNDIALS CVODE):
 * presets "drone-4s-3200" (the default), "drone-3s-2200", "drone-6s-10000",
 * or the battery group of a configuration file (configs/drone-4s.cfg
 * documents every key). Units: seconds, watts, joules, volts; state of
 * charge as a fraction (1 = full).
 *
 * Threads (powprof.h): one call at a time on a pp_battery_params (and on
 * a pp_trace drained); calls on other handles meanwhile.
 */
#ifndef POWPROF_BATTERY_H
#define POWPROF_BATTERY_H

#include "deprecated.h"
#include "trace.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_battery_params pp_battery_params;

/* A battery from a preset name or a configuration file's path (NULL: the
 * default preset). 0 and *out (free it with pp_battery_close), or -errno:
 * -ENOENT for an unknown preset or a missing file, -EINVAL for bad keys
 * (logged with the file and line). */
int pp_battery_new(const char *preset_or_file, pp_battery_params **out);
void pp_battery_close(pp_battery_params *b);
/* 0.1's name of pp_battery_close. */
void pp_battery_free(pp_battery_params *b) PP_DEPRECATED("pp_battery_close");

/* A constant load beside the trace, drawn from the pack (the motors). 0, or
 * -EINVAL when negative or not finite. */
int pp_battery_set_base_power(pp_battery_params *b, double base_power_w);

typedef struct pp_battery_summary {
    double duration_s;        /* one pass of the load */
    double energy_j;          /* drawn from the battery over that pass */
    double soc_start_frac, soc_end_frac, soc_drained_frac;
    double min_voltage_v;     /* lowest terminal voltage */
    double time_to_cutoff_s;  /* the load repeated until a cutoff; NAN when none in 48 h */
    int brownout;             /* 1 when the load asked for more than the battery can give */
} pp_battery_summary;

/* Drain b with n samples of load: times t_s (seconds, increasing) and power
 * p_w (watts, >= 0, linear between samples). 0 or -errno (logged). */
int pp_battery_drain(const pp_battery_params *b, const double *t_s, const double *p_w, size_t n,
                     pp_battery_summary *out);

/* The same with a trace's total power (the rails no other rail contains). */
int pp_battery_drain_trace(const pp_battery_params *b, const pp_trace *t,
                           pp_battery_summary *out);

/* The pack fitted to flight logs, as `powprof battery fit LOG... --json`
 * (its help and man page say how). Fields as its options; init sets the
 * defaults. */
typedef struct pp_battery_fit_request {
    const char *model;     /* "thevenin" (default) or "rint" */
    double train_frac;     /* of each flight fitted, (0, 1] (default 0.5) */
    double train_s;        /* > 0: the first train_s seconds instead (0: not) */
    int instance;          /* the battery instance, 0..255 (-1: the first) */
    int cells;             /* 1..1000 (0: the log's, else from the voltage) */
    const char *ocv;       /* "auto" (default), "pack", "lipo" or "liion" */
    const char *config;    /* the pack replaced: a configuration file's battery group */
    const char *preset;    /* or a preset (NULL both: the one `battery LOG` uses) */
    const char *output;    /* write the fitted pack there as a battery group (NULL: not) */
    int force;             /* write it even where battery fit refuses to */
} pp_battery_fit_request;

void pp_battery_fit_request_init(pp_battery_fit_request *q);

/* Fit the n_logs flight logs (PX4 .ulg, or ulog2csv's battery_status CSV)
 * and check the fit on their held-out parts (q NULL: the defaults): 0 and
 * *json_out, the document of `battery fit --json` (free it with pp_free),
 * or -errno (logged with the file and value): -EINVAL for bad logs or
 * options, -ENOENT, -EPERM where output is refused without force (the fit
 * is degenerate, does not follow the log, is no better than the pack it
 * replaces, or not decisively better ahead: the command's reason, as
 * "refused" in the document says), -EIO, -ENOMEM. */
int pp_battery_fit_logs_json(const char *const *logs, size_t n_logs,
                             const pp_battery_fit_request *q, char **json_out);

/* What the flight log at path (PX4 .ulg) holds before it is imported or
 * fitted, as `powprof ulog info LOG --json` prints it: file, version,
 * messages, duration_s, topics [{name, instance, messages, rate_hz,
 * first_s, last_s}] (the log's timestamps, s; null where untimed) and
 * batteries [{instance, samples, duration_s, voltage_min_v, voltage_max_v,
 * current_min_a, current_max_a, cell_count, capacity_mah}]. 0 and
 * *json_out (free it with pp_free), or -errno (logged with the file and
 * the offset): -EINVAL for what is not a ULog, -ENOENT, -ENOMEM. */
int pp_ulog_info_json(const char *path, char **json_out);

#ifdef __cplusplus
}
#endif

#endif
