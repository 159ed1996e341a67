/* sweep_progress.h - what a sweep tells its progress callback (sweep.h:
 * pp_sweep_progress): the configuration that ends or runs, the pace of its
 * components, the failures in a row (max_failures) and the time left. For
 * sweep.c; calls nothing of the sweep. */
#ifndef PP_SWEEP_PROGRESS_H
#define PP_SWEEP_PROGRESS_H

#include "scheduler.h"
#include "sweep.h"
#include "sweep_resume.h"

#include "src/results/results.h"

#include <stdint.h>

/* What one configuration measured: the worst status (with its reason)
 * over its components, each component's, and the CPU time. */
typedef struct pp_sweep_measured {
    pp_run_result overall, each[PP_PROFILE_MAX_COMPONENTS];
    pp_results_cpu cpu;
} pp_sweep_measured;

/* The sweep as it goes, for the progress callback. sweep.c sets p, o, st,
 * sl and t_start, adds to est_total the estimates of what is to run, and
 * sets rep and est_running as each configuration starts. */
typedef struct pp_sweep_state {
    const pp_profile *p;
    const pp_sweep_options *o;
    const pp_sweep_stats *st;
    const pp_sweep_slots *sl;
    unsigned rep;         /* the repeat of the configuration running */
    int64_t t_start;      /* the monotonic clock at the start, in ns */
    double est_total, est_done, est_running; /* to run, finished, the one running */
    pp_sweep_progress pr;
    pp_sweep_component_progress comps[PP_PROFILE_MAX_COMPONENTS];
    char reason[512];
    char streak_key[512]; /* the failures in a row's reason, numbers and labels as '#' */
    struct pp_sweep_clocks *clk; /* the clocks set (sweep_clocks.h); NULL: none */
} pp_sweep_state;

/* Progress while a configuration runs, running_s after it started
 * (pp_crew_ticker's callback; ctx is the pp_sweep_state). */
void pp_sweep_tick(void *ctx, double running_s);

/* Count the failures in a row with the same reason (numbers and this
 * configuration's labels aside): the count, 0 after a success. */
unsigned pp_sweep_streak(pp_sweep_state *r, const double *values, const pp_run_result *res);

/* Progress: configuration id (with its values) has just been saved, with
 * its total mean power and whether its procstat estimate sat at the
 * ceiling. */
void pp_sweep_report_done(pp_sweep_state *r, uint64_t id, const double *values,
                          const pp_sweep_measured *m, double mean_w, int saturated);

#endif
