/* powprof/meter.h - the energy of one command on this machine's power
 * source, as `powprof meter` measures it: the source sampled at a fixed
 * rate while the command runs (from an argv, never through a shell), the
 * samples streamed to a trace file when one is asked for.
 *
 * Where the source is an estimate (procstat: CPU utilization, no sensor),
 * the report says so, and says when the estimate sat at its ceiling (every
 * core busy: it measured the machine, not the command) or when the run was
 * too short to measure; the same warnings are logged (powprof/log.h) as
 * `powprof meter` prints them.
 *
 * Threads (powprof.h): pp_meter_command runs one command at a time per
 * process; the sampler is a thread of its own, which logs on that thread;
 * other calls (a prediction) run meanwhile.
 */
#ifndef POWPROF_METER_H
#define POWPROF_METER_H

#include "device.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_meter_report {
    int exit_status;           /* the command's: its exit code, or 128 + signal */
    double duration_s;         /* from its start to its end */
    char source[32];           /* the back-end sampled ("jetson", "procstat", ...) */
    size_t n_samples;
    size_t n_rails;
    char rail[PP_DEVICE_MAX_RAILS][64];
    double rail_mean_w[PP_DEVICE_MAX_RAILS], rail_energy_j[PP_DEVICE_MAX_RAILS];
    double mean_w, energy_j;   /* the total: rails no other rail contains */
    int estimated;             /* 1: the rails are an estimate, not a measurement */
    int saturated;             /* 1: the estimate sat at its ceiling (ceiling_w) */
    double ceiling_w;          /* NAN unless the source has a ceiling */
    int short_run;             /* 1: fewer than 5 samples or 5 sampling periods */
} pp_meter_report;

/* Run argv (argv[0] a path or a name searched in PATH; NULL-terminated)
 * while sampling device ("auto", or a name as in pp_device_open;
 * NULL: "auto"; sysfs_root moves /sys and /proc, NULL: "/") at rate_hz (0: 10 Hz;
 * otherwise 0.01 to 10000 Hz, NaN or a negative rate refused), writing the samples to
 * trace_path when not NULL. 0 when the command ran and was sampled
 * throughout (out->exit_status says how it ended); -ENOENT/-ENODEV (no
 * such source), -EINVAL (a bad rate), the spawn error (the command could
 * not start: out->exit_status 126 or 127), or the sampler's or the trace
 * writer's error (out holds what was measured); every error logged. */
int pp_meter_command(const char *device, const char *sysfs_root, double rate_hz,
                     const char *trace_path, char *const argv[], pp_meter_report *out);

/* The same around code of one's own instead of a command: sampling from
 * pp_meter_start (arguments as pp_meter_command's) until pp_meter_stop,
 * which fills out (exit_status 0), logs the same warnings and frees m.
 * start: 0 and *out, or -errno (logged); stop: 0, or the sampler's or the
 * trace writer's error (out holds what was measured). */
typedef struct pp_meter pp_meter;
int pp_meter_start(const char *device, const char *sysfs_root, double rate_hz,
                   const char *trace_path, pp_meter **out);
int pp_meter_stop(pp_meter *m, pp_meter_report *out);

/* The same, the report as the document `powprof meter --json` prints
 * (src/api/meter_doc.h: command, device, estimated, exit_status,
 * duration_s, samples, rails [{name, mean_w, energy_j, min_w, max_w,
 * estimated, board_input}], total_mean_w, total_energy_j, saturated,
 * short_run, ...; a block's command is []): 0 and *json_out (free it with
 * pp_free), or the errors above (*json_out NULL). The warnings are
 * logged as by pp_meter_command and pp_meter_stop. */
int pp_meter_command_json(const char *device, const char *sysfs_root, double rate_hz,
                          const char *trace_path, char *const argv[], char **json_out);
int pp_meter_stop_json(pp_meter *m, char **json_out);

#ifdef __cplusplus
}
#endif

#endif
