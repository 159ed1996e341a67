/* sweep_crew.h - the components of one configuration on threads, for
 * sweep.c: one thread each when they run together, one for all when they
 * run in turn, the caller ticking (progress) while it waits. Calls the
 * scheduler (scheduler.h); nothing of the sweep. */
#ifndef PP_SWEEP_CREW_H
#define PP_SWEEP_CREW_H

#include "scheduler.h"

#include <stddef.h>

/* One component of the configuration: set up (ready) or not, and its
 * result once it has run. */
typedef struct pp_crew_job {
    pp_scheduled sched;
    int ready;
    pp_run_result res;
} pp_crew_job;

/* Called every tick while a configuration runs, with the time since it
 * started. */
typedef struct pp_crew_ticker {
    double tick_s; /* 0: never */
    void (*fn)(void *ctx, double running_s);
    void *ctx;
} pp_crew_ticker;

/* Run the jobs that are ready (n at most PP_PROFILE_MAX_COMPONENTS),
 * together or in turn (sequential), and wait for them, calling tk every
 * tick meanwhile. A thread that cannot be created runs its jobs here
 * (without ticks). */
void pp_crew_run(pp_crew_job *jobs, size_t n, int sequential, const pp_crew_ticker *tk);

#endif
