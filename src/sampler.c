#include "sampler.h"

#include "log.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* On an injected clock, a sleep never lasts longer than this, so that a stop
 * request is noticed; it still ends on the absolute deadline. On the real
 * clock a stop wakes the sleeping loop at once (condition variable). */
#define MAX_SLEEP_NS 100000000LL

typedef struct block {
    struct block *next;
    size_t n;
    int64_t t_ns[PP_SAMPLER_BLOCK];
    int64_t late_ns[PP_SAMPLER_BLOCK];
    double *power_w; /* PP_SAMPLER_BLOCK x n_rails */
} block;

struct pp_sampler {
    pp_device *dev;
    pp_clock clock;
    int real_clock;        /* sleep on wake_cond, so that stop is immediate */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake_cond;
    int64_t period_ns;
    double rate_hz;
    uint64_t max_samples;

    block *head, *tail;
    _Atomic uint64_t count;
    atomic_int stop;

    pthread_t thread;
    int thread_started;
    int result;

    int64_t t0_ns, t_end_ns;
    uint64_t n_missed, n_deadlines;
    double cpu_s;
};

int pp_sampler_check_rate(double rate_hz, const char *what)
{
    if (!isfinite(rate_hz) || rate_hz < PP_SAMPLER_MIN_HZ || rate_hz > PP_SAMPLER_MAX_HZ) {
        pp_log_error("%s: rate %g Hz is out of range [%g, %g] Hz", what, rate_hz,
                     PP_SAMPLER_MIN_HZ, PP_SAMPLER_MAX_HZ);
        return -EINVAL;
    }
    return 0;
}

static block *block_new(size_t n_rails)
{
    block *b = calloc(1, sizeof *b);

    if (!b)
        return NULL;
    b->power_w = malloc(PP_SAMPLER_BLOCK * n_rails * sizeof *b->power_w);
    if (!b->power_w) {
        free(b);
        return NULL;
    }
    return b;
}

int pp_sampler_create(pp_device *dev, const pp_clock *clock, double rate_hz, uint64_t max_samples,
                      pp_sampler **out)
{
    pp_sampler *s;
    int rc = pp_sampler_check_rate(rate_hz, "sampler");

    *out = NULL;
    if (rc < 0)
        return rc;
    s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->dev = dev;
    s->clock = clock ? *clock : pp_clock_monotonic;
    s->real_clock = clock == NULL || clock == &pp_clock_monotonic;
    {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&s->wake_cond, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&s->wake_lock, NULL);
    }
    s->rate_hz = rate_hz;
    s->period_ns = (int64_t)llround(1e9 / rate_hz);
    s->max_samples = max_samples;
    s->head = s->tail = block_new(dev->n_rails);
    if (!s->head) {
        free(s);
        return -ENOMEM;
    }
    atomic_init(&s->count, 0);
    atomic_init(&s->stop, 0);
    *out = s;
    return 0;
}

void pp_sampler_destroy(pp_sampler *s)
{
    if (!s)
        return;
    if (s->thread_started)
        pp_sampler_stop(s);
    for (block *b = s->head, *next; b; b = next) {
        next = b->next;
        free(b->power_w);
        free(b);
    }
    pthread_cond_destroy(&s->wake_cond);
    pthread_mutex_destroy(&s->wake_lock);
    free(s);
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read the device into the next slot. 0 or -errno. */
static int take_sample(pp_sampler *s, int64_t deadline_ns)
{
    block *b = s->tail;
    int64_t t;
    int rc;

    if (b->n == PP_SAMPLER_BLOCK) {
        block *nb = block_new(s->dev->n_rails);
        if (!nb) {
            pp_log_error("sampler: out of memory after %llu samples",
                         (unsigned long long)atomic_load(&s->count));
            return -ENOMEM;
        }
        b->next = nb;
        s->tail = b = nb;
    }
    t = pp_clock_now_ns(&s->clock);
    rc = pp_device_read(s->dev, t, b->power_w + b->n * s->dev->n_rails);
    if (rc < 0)
        return rc;
    b->t_ns[b->n] = t;
    b->late_ns[b->n] = t > deadline_ns ? t - deadline_ns : 0;
    b->n++;
    atomic_fetch_add(&s->count, 1);
    return 0;
}

/* Sleep until deadline; returns 1 when a stop was requested. The real clock
 * waits on the condition variable with an absolute CLOCK_MONOTONIC deadline
 * (a stop signals it); an injected clock sleeps in slices of at most
 * MAX_SLEEP_NS. Neither spins. */
static int sleep_until(pp_sampler *s, int64_t deadline_ns)
{
    if (s->real_clock) {
        struct timespec ts = {(time_t)(deadline_ns / 1000000000), (long)(deadline_ns % 1000000000)};
        int stopped;
        pthread_mutex_lock(&s->wake_lock);
        while (!(stopped = atomic_load(&s->stop)) &&
               pthread_cond_timedwait(&s->wake_cond, &s->wake_lock, &ts) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&s->wake_lock);
        return stopped;
    }
    for (;;) {
        int64_t now = pp_clock_now_ns(&s->clock);
        int64_t until;
        if (atomic_load(&s->stop))
            return 1;
        if (now >= deadline_ns)
            return 0;
        until = deadline_ns - now > MAX_SLEEP_NS ? now + MAX_SLEEP_NS : deadline_ns;
        s->clock.sleep_until_ns(s->clock.ctx, until);
    }
}

int pp_sampler_run(pp_sampler *s)
{
    double cpu0 = thread_cpu_s();
    double scratch[PP_DEVICE_MAX_RAILS];
    int64_t deadline;
    uint64_t k = 0;
    int rc = 0;

    s->t0_ns = pp_clock_now_ns(&s->clock);
    deadline = s->t0_ns;
    if (s->dev->ops->flags & PP_DEVICE_INTERVAL) {
        rc = pp_device_read(s->dev, s->t0_ns, scratch); /* priming reading */
        k = 1;
        deadline = s->t0_ns + s->period_ns;
    }
    while (rc == 0) {
        if (sleep_until(s, deadline)) {
            rc = take_sample(s, pp_clock_now_ns(&s->clock)); /* the last sample, at stop */
            break;
        }
        rc = take_sample(s, deadline);
        s->n_deadlines++;
        if (rc < 0 || (s->max_samples && atomic_load(&s->count) >= s->max_samples))
            break;
        /* Next deadline on the grid; skip (and count) the ones already gone. */
        k++;
        deadline = s->t0_ns + (int64_t)k * s->period_ns;
        {
            int64_t now = pp_clock_now_ns(&s->clock);
            if (now > deadline) {
                uint64_t missed = (uint64_t)((now - deadline) / s->period_ns) + 1;
                s->n_missed += missed;
                s->n_deadlines += missed;
                k += missed;
                deadline = s->t0_ns + (int64_t)k * s->period_ns;
            }
        }
    }
    s->t_end_ns = pp_clock_now_ns(&s->clock);
    s->cpu_s = thread_cpu_s() - cpu0;
    s->result = rc;
    return rc;
}

static void *thread_main(void *arg)
{
    /* Wake-ups may be deferred by the thread's timer slack (50 us by
     * default); 1 us keeps each reading on its deadline. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    pp_sampler_run(arg);
    return NULL;
}

int pp_sampler_start(pp_sampler *s)
{
    int rc = pthread_create(&s->thread, NULL, thread_main, s);

    if (rc != 0) {
        pp_log_error("sampler: cannot start its thread: %s", strerror(rc));
        return -rc;
    }
    s->thread_started = 1;
    return 0;
}

void pp_sampler_request_stop(pp_sampler *s)
{
    pthread_mutex_lock(&s->wake_lock);
    atomic_store(&s->stop, 1);
    pthread_cond_signal(&s->wake_cond);
    pthread_mutex_unlock(&s->wake_lock);
}

int pp_sampler_stop(pp_sampler *s)
{
    pp_sampler_request_stop(s);
    if (s->thread_started) {
        pthread_join(s->thread, NULL);
        s->thread_started = 0;
    }
    return s->result;
}

uint64_t pp_sampler_count(const pp_sampler *s) { return atomic_load(&s->count); }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void pp_sampler_get_stats(const pp_sampler *s, pp_sampler_stats *st)
{
    uint64_t n = atomic_load(&s->count);
    int64_t first = 0, last = 0;
    int64_t *late = n ? malloc(n * sizeof *late) : NULL;
    size_t i = 0;

    memset(st, 0, sizeof *st);
    st->n_samples = n;
    st->n_missed = s->n_missed;
    st->n_expected = s->n_deadlines;
    st->requested_hz = s->rate_hz;
    st->wall_s = pp_ns_to_s(s->t_end_ns - s->t0_ns);
    st->cpu_s = s->cpu_s;
    st->cpu_share = st->wall_s > 0 ? st->cpu_s / st->wall_s : 0.0;
    st->error = s->result;
    for (const block *b = s->head; b; b = b->next) {
        for (size_t j = 0; j < b->n; j++) {
            if (i == 0)
                first = b->t_ns[j];
            last = b->t_ns[j];
            if (late)
                late[i] = b->late_ns[j];
            i++;
        }
    }
    if (n > 1 && last > first)
        st->achieved_hz = (double)(n - 1) / pp_ns_to_s(last - first);
    if (late) {
        qsort(late, n, sizeof *late, cmp_i64);
        st->jitter_p50_us = (double)late[(n - 1) / 2] * 1e-3;
        st->jitter_p99_us = (double)late[(size_t)((double)(n - 1) * 0.99)] * 1e-3;
        st->jitter_max_us = (double)late[n - 1] * 1e-3;
        free(late);
    }
}

int pp_sampler_trace(const pp_sampler *s, pp_trace *out)
{
    const char *names[PP_DEVICE_MAX_RAILS];
    int rc;

    for (size_t r = 0; r < s->dev->n_rails; r++)
        names[r] = s->dev->rails[r].name;
    rc = pp_trace_init(out, s->dev->n_rails, names);
    if (rc < 0)
        return rc;
    out->interval_average = (s->dev->ops->flags & PP_DEVICE_INTERVAL) != 0;
    for (const block *b = s->head; b; b = b->next) {
        for (size_t j = 0; j < b->n; j++) {
            rc = pp_trace_append(out, pp_ns_to_s(b->t_ns[j] - s->t0_ns),
                                 b->power_w + j * s->dev->n_rails);
            if (rc < 0) {
                pp_trace_free(out);
                return rc;
            }
        }
    }
    return 0;
}
