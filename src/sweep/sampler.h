/* sampler.h - reads a device at a fixed rate on its own thread.
 *
 * The loop sleeps to absolute deadlines t0 + k * period on the injected
 * clock (for the real one, a timed wait on CLOCK_MONOTONIC that a stop
 * request interrupts at once), never spins, and hands each sample (time in
 * seconds since t0, power per rail) to a sink (trace.h): by default it is
 * kept in memory for pp_sampler_trace (short runs, tests); a trace stream
 * (trace_stream.h) writes it to a file from another thread; with no sink
 * nothing is kept. Whatever the sink, the sampler keeps running sums (energy,
 * mean, min and max per rail and of the total) and the lateness of the
 * readings in a fixed histogram: its memory does not grow with the run.
 * Deadlines that have already passed when the loop wakes are skipped and
 * counted as missed, keeping the grid of the schedule.
 *
 * Instantaneous devices are sampled at t0 (t = 0) and then on the grid.
 * Interval devices (PP_DEVICE_INTERVAL: energy counters, utilization) get a
 * priming reading at t0 that is discarded, so each stored sample is the mean
 * power over (previous sample, this sample]. Stopping takes one last sample
 * at the stop time, so the trace covers [0, stop].
 *
 * A reading that fails is tried again at once, up to PP_SAMPLER_RETRIES
 * times; when every try fails the deadline has no sample, the sink is told
 * of a gap (a gap row in a trace file) and the loop goes on to the next
 * deadline. Only pp_sampler_fail_limit() failed deadlines in a row stop it,
 * and a run that ends while readings fail is incomplete too: either way the
 * error of the last reading is the loop's result. The first failure of
 * a gap is logged as a warning with the device's reason, the end of the gap
 * as a warning with its length, the stop as an error.
 */
#ifndef PP_SAMPLER_H
#define PP_SAMPLER_H

#include "src/base/clock.h"
#include "src/traces/trace.h"

#include "devices/device.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define PP_SAMPLER_MIN_HZ 0.01
#define PP_SAMPLER_MAX_HZ 10000.0
#define PP_SAMPLER_RETRIES 2        /* immediate retries of a failed reading */
#define PP_SAMPLER_FAIL_MIN 10      /* failed deadlines in a row that stop it, at least */
#define PP_SAMPLER_FAIL_S 1.0       /* ... and at least this long a run of them */

typedef struct pp_sampler pp_sampler;

typedef struct pp_sampler_stats {
    uint64_t n_samples;    /* samples taken (given to the sink) */
    uint64_t n_expected;   /* deadlines in the run: what a perfect sampler takes */
    uint64_t n_missed;     /* deadlines skipped because the loop woke too late */
    uint64_t n_failed;     /* deadlines whose reading failed (every retry) */
    uint64_t n_retried;    /* readings that succeeded on a retry */
    uint64_t n_gaps;       /* runs of failed deadlines */
    double longest_gap_s;  /* longest span joined over a gap (sample to sample) */
    double requested_hz;
    double achieved_hz;    /* (n_samples - 1) / (last - first sample time) */
    double jitter_p50_us;  /* lateness of a reading after its deadline (from a */
    double jitter_p99_us;  /* histogram: 1 us bins to 256 us, 1/16 octave above) */
    double jitter_max_us;  /* exact */
    double wall_s;         /* span of the loop */
    double cpu_s;          /* CPU time of the sampling thread */
    double cpu_share;      /* cpu_s / wall_s: share of one core */
    int error;             /* 0, or the -errno that stopped it */
} pp_sampler_stats;

/* Check a rate: finite and within [PP_SAMPLER_MIN_HZ, PP_SAMPLER_MAX_HZ].
 * Returns 0 or -EINVAL (logged, naming what). */
int pp_sampler_check_rate(double rate_hz, const char *what);

/* Failed deadlines in a row that stop a sampler at rate_hz:
 * max(PP_SAMPLER_FAIL_MIN, PP_SAMPLER_FAIL_S * rate_hz). */
uint64_t pp_sampler_fail_limit(double rate_hz);

/* A sampler of dev at rate_hz on clock (NULL: the real monotonic clock).
 * max_samples > 0 stops the loop by itself after that many samples (tests,
 * benchmarks). The device stays owned by the caller and must outlive the
 * sampler. Samples are kept in memory until pp_sampler_set_sink says
 * otherwise. Returns 0 or -errno. */
int pp_sampler_create(pp_device *dev, const pp_clock *clock, double rate_hz, uint64_t max_samples,
                      pp_sampler **out);
void pp_sampler_destroy(pp_sampler *s);

/* Before the loop starts: send the samples to sink (copied; its context
 * must outlive the loop) instead of keeping them, or with NULL keep none.
 * Either way pp_sampler_trace then has nothing to give. */
void pp_sampler_set_sink(pp_sampler *s, const pp_trace_sink *sink);

/* Run the loop on the calling thread until stopped, max_samples, a sink
 * error or too many failed readings (kept in the stats; the samples before
 * are kept too). Returns 0 or that error. */
int pp_sampler_run(pp_sampler *s);

/* Run the loop on a new thread. pp_sampler_stop() asks it to take its last
 * sample, waits for it and returns the loop's result. */
int pp_sampler_start(pp_sampler *s);
int pp_sampler_stop(pp_sampler *s);

/* Ask a running loop to stop (thread-safe; not async-signal-safe). */
void pp_sampler_request_stop(pp_sampler *s);

/* Samples taken so far (thread-safe). */
uint64_t pp_sampler_count(const pp_sampler *s);

/* After the loop ended: the statistics, and the running sums of the samples
 * (rails as the device's; the total adds the rails no other contains). */
void pp_sampler_get_stats(const pp_sampler *s, pp_sampler_stats *out);
void pp_sampler_get_sums(const pp_sampler *s, pp_trace_sums *out);

/* After the loop ended, when the samples were kept (no sink set): a copy as
 * a trace (times in seconds since t0). 0, -ENOMEM, or -ENODATA (logged)
 * when they went to a sink. */
int pp_sampler_trace(const pp_sampler *s, pp_trace *out);

/* Start a helper thread (sampler, trace writer) with the asynchronous
 * signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGALRM,
 * SIGUSR1/2) blocked, so that they reach the program's main thread. Returns
 * 0 or -errno (logged with what). */
int pp_thread_start_quiet(pthread_t *th, void *(*fn)(void *), void *arg, const char *what);

#endif
