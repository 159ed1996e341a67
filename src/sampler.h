/* sampler.h - reads a device at a fixed rate on its own thread.
 *
 * The loop sleeps to absolute deadlines t0 + k * period on the injected
 * clock (for the real one, a timed wait on CLOCK_MONOTONIC that a stop
 * request interrupts at once), never spins,
 * and stores each sample (time, power per rail, lateness) in blocks of
 * PP_SAMPLER_BLOCK samples: one allocation per block, none per sample.
 * Deadlines that have already passed when the loop wakes are skipped and
 * counted as missed, keeping the grid of the schedule.
 *
 * Instantaneous devices are sampled at t0 (t = 0) and then on the grid.
 * Interval devices (PP_DEVICE_INTERVAL: energy counters, utilization) get a
 * priming reading at t0 that is discarded, so each stored sample is the mean
 * power over (previous sample, this sample]. Stopping takes one last sample
 * at the stop time, so the trace covers [0, stop].
 */
#ifndef PP_SAMPLER_H
#define PP_SAMPLER_H

#include "clock.h"
#include "trace.h"

#include "../devices/device.h"

#include <stddef.h>
#include <stdint.h>

#define PP_SAMPLER_BLOCK 4096
#define PP_SAMPLER_MIN_HZ 0.01
#define PP_SAMPLER_MAX_HZ 10000.0

typedef struct pp_sampler pp_sampler;

typedef struct pp_sampler_stats {
    uint64_t n_samples;    /* samples stored */
    uint64_t n_expected;   /* deadlines in the run: what a perfect sampler stores */
    uint64_t n_missed;     /* deadlines skipped because the loop woke too late */
    double requested_hz;
    double achieved_hz;    /* (n_samples - 1) / (last - first sample time) */
    double jitter_p50_us;  /* lateness of a reading after its deadline */
    double jitter_p99_us;
    double jitter_max_us;
    double wall_s;         /* span of the loop */
    double cpu_s;          /* CPU time of the sampling thread */
    double cpu_share;      /* cpu_s / wall_s: share of one core */
    int error;             /* 0, or the -errno of the reading that stopped it */
} pp_sampler_stats;

/* Check a rate: finite and within [PP_SAMPLER_MIN_HZ, PP_SAMPLER_MAX_HZ].
 * Returns 0 or -EINVAL (logged, naming what). */
int pp_sampler_check_rate(double rate_hz, const char *what);

/* A sampler of dev at rate_hz on clock (NULL: the real monotonic clock).
 * max_samples > 0 stops the loop by itself after that many samples (tests,
 * benchmarks). The device stays owned by the caller and must outlive the
 * sampler. Returns 0 or -errno. */
int pp_sampler_create(pp_device *dev, const pp_clock *clock, double rate_hz, uint64_t max_samples,
                      pp_sampler **out);
void pp_sampler_destroy(pp_sampler *s);

/* Run the loop on the calling thread until stopped, max_samples, or a device
 * error (kept in the stats; the samples before it are kept too). Returns 0
 * or that error. */
int pp_sampler_run(pp_sampler *s);

/* Run the loop on a new thread. pp_sampler_stop() asks it to take its last
 * sample, waits for it and returns the loop's result. */
int pp_sampler_start(pp_sampler *s);
int pp_sampler_stop(pp_sampler *s);

/* Ask a running loop to stop (thread-safe; not async-signal-safe). */
void pp_sampler_request_stop(pp_sampler *s);

/* Samples stored so far (thread-safe). */
uint64_t pp_sampler_count(const pp_sampler *s);

/* After the loop ended: the statistics, and the samples as a trace (times in
 * seconds since t0). pp_sampler_trace returns 0 or -ENOMEM. */
void pp_sampler_get_stats(const pp_sampler *s, pp_sampler_stats *out);
int pp_sampler_trace(const pp_sampler *s, pp_trace *out);

#endif
