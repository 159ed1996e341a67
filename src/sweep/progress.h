/* progress.h - what a sweep reports to its progress callback (sweep.h's
 * pp_sweep_options.progress): the configuration that ends or runs and the
 * pace of its components. A header of its own, with no .c: sweep.c
 * reports it and sweep_progress.c computes it, and neither calls the
 * other back (scripts/check-layout). */
#ifndef PP_SWEEP_PROGRESS_TYPES_H
#define PP_SWEEP_PROGRESS_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* A component's pace in one configuration, for the progress line. */
typedef struct pp_sweep_component_progress {
    const char *name;
    double fps;              /* the rate asked for (0: not paced by fps) */
    double achieved_fps;     /* iterations over its duration, each counted as at least
                                1/fps: fps when it kept up, less when it did not */
    long iterations, late_frames;
} pp_sweep_component_progress;

typedef struct pp_sweep_progress {
    uint64_t done, total;    /* configurations finished (this run) / to run */
    uint64_t id;             /* the one that just finished, or that runs (running) */
    int running;             /* 1: a tick while id runs; the fields below up to
                                components are those of the last one finished */
    double config_elapsed_s; /* running: time since id started */
    double config_estimate_s;/* its lower-bound estimate (0: unknown) */
    const char *status;      /* ok, failed, timeout */
    const char *reason;      /* why, when not ok ("" otherwise) */
    double duration_s, total_mean_w;
    double cpu_share;        /* the workload's CPU, in cores (NAN: unknown) */
    double machine_cpu_share;/* the whole machine's, in cores (NAN: unknown) */
    int saturated;           /* the procstat estimate sat at its ceiling (every core busy)
                                for at least half the samples */
    unsigned failures_in_row;/* configurations in a row failed with this reason */
    size_t n_components;
    const pp_sweep_component_progress *components;
    double elapsed_s, left_s; /* time since the start, estimate of what is left */
} pp_sweep_progress;

#endif
