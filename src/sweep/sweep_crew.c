/* sweep_crew.c - the threads that run one configuration's components
 * (sweep_crew.h). Called by sweep.c; calls only the scheduler. */
#include "sweep_crew.h"

#include "src/base/clock.h"
#include "src/config/profile.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

/* The components of one configuration on threads: one each when they run
 * together, one for all when they run in turn; running counts the threads
 * not finished. */
typedef struct crew {
    pp_crew_job *jobs;
    pthread_mutex_t lock;
    pthread_cond_t done;
    size_t running;
} crew;

typedef struct worker {
    crew *crew;
    size_t first, n;
    pthread_t thread;
    int started;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;

    for (size_t c = w->first; c < w->first + w->n; c++)
        if (w->crew->jobs[c].ready)
            pp_scheduled_run(&w->crew->jobs[c].sched, &w->crew->jobs[c].res);
    pthread_mutex_lock(&w->crew->lock);
    w->crew->running--;
    pthread_cond_signal(&w->crew->done);
    pthread_mutex_unlock(&w->crew->lock);
    return NULL;
}

/* Wait for the crew's threads, ticking meanwhile. */
static void wait_crew(crew *c, const pp_crew_ticker *tk)
{
    int64_t t0 = pp_clock_now_ns(&pp_clock_monotonic), next = t0;

    pthread_mutex_lock(&c->lock);
    while (c->running > 0) {
        struct timespec ts;
        if (!(tk->tick_s > 0)) {
            pthread_cond_wait(&c->done, &c->lock);
            continue;
        }
        next += (int64_t)llround(tk->tick_s * 1e9);
        ts.tv_sec = (time_t)(next / 1000000000);
        ts.tv_nsec = (long)(next % 1000000000);
        while (c->running > 0 && pthread_cond_timedwait(&c->done, &c->lock, &ts) != ETIMEDOUT)
            ;
        if (c->running > 0) {
            pthread_mutex_unlock(&c->lock);
            tk->fn(tk->ctx, pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic) - t0));
            pthread_mutex_lock(&c->lock);
        }
    }
    pthread_mutex_unlock(&c->lock);
}

/* Run the jobs that are ready, together or in turn, and wait for them. A
 * thread that cannot be created runs its jobs here (without ticks). */
void pp_crew_run(pp_crew_job *jobs, size_t n, int sequential, const pp_crew_ticker *tk)
{
    worker w[PP_PROFILE_MAX_COMPONENTS];
    size_t n_workers = sequential ? 1 : n;
    pthread_condattr_t attr;
    crew c;

    c.jobs = jobs;
    c.running = n_workers;
    pthread_mutex_init(&c.lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&c.done, &attr);
    pthread_condattr_destroy(&attr);
    for (size_t i = 0; i < n_workers; i++) {
        w[i] = (worker){&c, sequential ? 0 : i, sequential ? n : 1, 0, 0};
        w[i].started = pthread_create(&w[i].thread, NULL, worker_main, &w[i]) == 0;
        if (!w[i].started)
            worker_main(&w[i]);
    }
    wait_crew(&c, tk);
    for (size_t i = 0; i < n_workers; i++)
        if (w[i].started)
            pthread_join(w[i].thread, NULL);
    pthread_cond_destroy(&c.done);
    pthread_mutex_destroy(&c.lock);
}
