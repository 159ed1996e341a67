/* meter.h - run one command while sampling a device (`powprof meter`).
 *
 * The samples stream to the trace file as they are taken (trace_stream.h);
 * the report comes from the sampler's running sums, so a run of any length
 * needs the same memory.
 */
#ifndef PP_METER_H
#define PP_METER_H

#include "sampler.h"
#include "src/traces/trace.h"
#include "trace_stream.h"

#include "devices/device.h"

#include <stddef.h>

typedef struct pp_meter_options {
    double rate_hz;
    const char *trace_path;   /* NULL: no trace file */
} pp_meter_options;

typedef struct pp_meter_result {
    int exit_status;          /* the command's: exit code or 128 + signal */
    double duration_s;        /* from the start of the command to its end */
    int measured;             /* 1 when the sampler ran: sums and stats hold */
    pp_trace_sums sums;       /* per rail and total (index sums.n_rails) */
    pp_sampler_stats stats;
    int traced;               /* 1 when a trace file was opened */
    pp_trace_stream_stats write;
    int signal;               /* a signal meter got during the run (0: none) */
} pp_meter_result;

/* Sample dev at o->rate_hz (on the real clock) while argv runs (no shell),
 * streaming the samples to o->trace_path when given. Returns 0 when the
 * command ran, was sampled throughout and the trace was written; the
 * sampler's or the writer's error when either failed part-way (res holds
 * what was measured, the trace has every row written before, and the
 * command is still waited for); or the spawn error, when the command could
 * not start (res->exit_status then says 126 or 127, and a trace file
 * created for it is removed). */
int pp_meter_run(pp_device *dev, const pp_meter_options *o, char *const argv[],
                 pp_meter_result *res);

/* The same without a command: sampling from pp_meter_session_begin (dev
 * must stay open until the end) to pp_meter_session_end, which fills res
 * (duration, stats, sums, the trace's writing; measured = keep; with keep
 * 0 a trace file made is removed) and frees the session. begin: 0 or
 * -errno (logged); end: 0, or the sampler's or the writer's error. */
typedef struct pp_meter_session pp_meter_session;
int pp_meter_session_begin(pp_device *dev, const pp_meter_options *o, pp_meter_session **out);
int pp_meter_session_end(pp_meter_session *ms, int keep, pp_meter_result *res);

/* Run the command up to n_runs times (runs[n_runs]), stopping after a run
 * that failed (an error, or an exit status other than 0) or was
 * interrupted by a signal; *n_done says how many ran. With a trace path and
 * n_runs > 1, run k (from 1) writes pp_meter_trace_path(path, k). Returns
 * the last run's result. */
int pp_meter_repeat(pp_device *dev, const pp_meter_options *o, char *const argv[],
                    size_t n_runs, pp_meter_result *runs, size_t *n_done);

/* The sampling rate of a meter (`meter -r`, the C API's and Python's
 * rate_hz): 0, or -EINVAL with the words every face says it in ("the rate
 * must be between 0.01 and 10000 Hz") in why. */
int pp_meter_rate_check(double rate_hz, char *why, size_t cap);

/* The trace file of run k: "trace.csv" -> "trace.<k>.csv" ("trace" ->
 * "trace.<k>"). 0 or -ENAMETOOLONG. */
int pp_meter_trace_path(const char *path, size_t run, char *buf, size_t cap);

/* Mean, standard deviation (n - 1 in the divisor; 0 for one run), min, max. */
typedef struct pp_meter_spread {
    double mean, sd, min, max;
} pp_meter_spread;

typedef struct pp_meter_summary {
    size_t n_runs, n_rails;
    pp_meter_spread duration_s, total_mean_w, total_energy_j;
    pp_meter_spread mean_w[PP_TRACE_MAX_RAILS], energy_j[PP_TRACE_MAX_RAILS];
} pp_meter_summary;

/* The spread over the runs that were measured. */
void pp_meter_summarize(const pp_meter_result *runs, size_t n_runs, pp_meter_summary *out);

/* What `profile` would warn of in run res on dev: *saturated, a procstat
 * estimate whose mean sits at its ceiling (PP_SWEEP_BUSY_FRAC of every
 * core busy: it measured the machine, not the command; *ceiling_w that
 * ceiling, NaN for another source); *short_run, a run too short to
 * measure (fewer than PP_RESULTS_SHORT_SAMPLES samples or sampling
 * periods, as a profile's short_run). */
void pp_meter_checks(const pp_device *dev, const pp_meter_result *res, int *saturated,
                     int *short_run, double *ceiling_w);

/* For a signal handler (async-signal-safe): note sig, so that repeated runs
 * stop, and with forward pass it on to the command running now (or to the
 * next one as soon as it starts). */
void pp_meter_signal(int sig, int forward);

/* The last signal noted (0: none); pp_meter_signal_reset forgets it. */
int pp_meter_signaled(void);
void pp_meter_signal_reset(void);

#endif
