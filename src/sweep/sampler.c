#include "sampler.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* On an injected clock, a sleep never lasts longer than this, so that a stop
 * request is noticed; it still ends on the absolute deadline. On the real
 * clock a stop wakes the sleeping loop at once (condition variable). */
#define MAX_SLEEP_NS 100000000LL

/* Lateness histogram: 1 us bins below HIST_LINEAR us, then HIST_SUB bins per
 * octave up to 2^47 us. */
#define HIST_LINEAR 256
#define HIST_SUB 16
#define HIST_OCTAVES 40
#define HIST_BINS (HIST_LINEAR + HIST_OCTAVES * HIST_SUB)

struct pp_sampler {
    pp_device *dev;
    pp_clock clock;
    int real_clock;        /* sleep on wake_cond, so that stop is immediate */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake_cond;
    int64_t period_ns;
    double rate_hz;
    uint64_t max_samples;

    pp_trace_sink sink;    /* where samples go; .push NULL: nowhere */
    pp_trace kept;         /* the memory sink's trace (n_rails 0 when unused) */
    pp_trace_sums sums;
    uint64_t hist[HIST_BINS];
    int64_t late_max_ns;

    _Atomic uint64_t count;
    atomic_int stop;

    pthread_t thread;
    int thread_started;
    int result;

    int64_t t0_ns, t_end_ns, first_ns, last_ns;
    uint64_t n_missed, n_deadlines, n_failed, n_retried;
    uint64_t fail_streak, fail_limit;
    int fail_rc;
    double gap_from_s;
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

uint64_t pp_sampler_fail_limit(double rate_hz)
{
    double n = ceil(PP_SAMPLER_FAIL_S * rate_hz);
    return n > PP_SAMPLER_FAIL_MIN ? (uint64_t)n : PP_SAMPLER_FAIL_MIN;
}

static int keep_in_memory(pp_sampler *s)
{
    const char *names[PP_DEVICE_MAX_RAILS];
    int rc;

    for (size_t r = 0; r < s->dev->n_rails; r++)
        names[r] = s->dev->rails[r].name;
    rc = pp_trace_init(&s->kept, s->dev->n_rails, names);
    if (rc < 0)
        return rc;
    s->kept.interval_average = (s->dev->ops->flags & PP_DEVICE_INTERVAL) != 0;
    s->sink = pp_trace_memory_sink(&s->kept);
    return 0;
}

int pp_sampler_create(pp_device *dev, const pp_clock *clock, double rate_hz, uint64_t max_samples,
                      pp_sampler **out)
{
    pp_sampler *s;
    int in_total[PP_DEVICE_MAX_RAILS];
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
    s->fail_limit = pp_sampler_fail_limit(rate_hz);
    for (size_t r = 0; r < dev->n_rails; r++)
        in_total[r] = dev->rails[r].parent < 0;
    pp_trace_sums_init(&s->sums, dev->n_rails, in_total,
                       (dev->ops->flags & PP_DEVICE_INTERVAL) != 0);
    atomic_init(&s->count, 0);
    atomic_init(&s->stop, 0);
    if ((rc = keep_in_memory(s)) < 0) {
        pp_sampler_destroy(s);
        return rc;
    }
    *out = s;
    return 0;
}

void pp_sampler_destroy(pp_sampler *s)
{
    if (!s)
        return;
    if (s->thread_started)
        pp_sampler_stop(s);
    pp_trace_free(&s->kept);
    pthread_cond_destroy(&s->wake_cond);
    pthread_mutex_destroy(&s->wake_lock);
    free(s);
}

void pp_sampler_set_sink(pp_sampler *s, const pp_trace_sink *sink)
{
    pp_trace_free(&s->kept);
    s->kept.n_rails = 0;
    memset(&s->sink, 0, sizeof s->sink);
    if (sink)
        s->sink = *sink;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t hist_bin(int64_t late_ns)
{
    uint64_t us = (uint64_t)(late_ns / 1000);
    int e;
    size_t b;

    if (us < HIST_LINEAR)
        return (size_t)us;
    e = 63 - __builtin_clzll(us); /* >= 8 */
    b = HIST_LINEAR + (size_t)(e - 8) * HIST_SUB + (size_t)((us >> (e - 4)) & (HIST_SUB - 1));
    return b < HIST_BINS ? b : HIST_BINS - 1;
}

/* A value in bin b, in us: exact below HIST_LINEAR, the middle above. */
static double hist_value_us(size_t b)
{
    size_t e, sub;

    if (b < HIST_LINEAR)
        return (double)b;
    e = 8 + (b - HIST_LINEAR) / HIST_SUB;
    sub = (b - HIST_LINEAR) % HIST_SUB;
    return ldexp((double)(HIST_SUB + sub) + 0.5, (int)e - 4);
}

/* The value of rank (0-based) among the n recorded latenesses. */
static double hist_rank_us(const uint64_t *hist, uint64_t rank)
{
    uint64_t seen = 0;

    for (size_t b = 0; b < HIST_BINS; b++) {
        seen += hist[b];
        if (seen > rank)
            return hist_value_us(b);
    }
    return 0.0;
}

/* Read the device, trying again at once up to PP_SAMPLER_RETRIES times
 * (not after -EAGAIN: the device says this deadline has no valid reading,
 * e.g. a RAPL counter reset, and the next one will). The messages of the failed tries are held back; the first goes to why. */
static int read_retry(pp_sampler *s, int64_t *t, double *power_w, char *why, size_t cap)
{
    int rc = 0;

    pp_log_hold_begin(why, cap);
    for (int k = 0; k <= PP_SAMPLER_RETRIES; k++) {
        *t = pp_clock_now_ns(&s->clock);
        rc = pp_device_read(s->dev, *t, power_w);
        if (rc == 0) {
            s->n_retried += k > 0;
            break;
        }
        if (rc == -EAGAIN) /* no valid reading this time (device.h): no retry, a gap */
            break;
    }
    pp_log_hold_end();
    return rc;
}

/* Every try failed: a missing sample, a gap, and the stop after fail_limit
 * of them in a row. Returns 0 or rc. */
static int reading_failed(pp_sampler *s, double t_s, int rc, const char *why)
{
    s->n_failed++;
    s->fail_rc = rc;
    if (s->fail_streak++ == 0) {
        s->gap_from_s = t_s;
        pp_log_warn("sampler: the reading at %.3f s failed (%s); trying again at the next "
                    "deadlines, a gap in the trace until one succeeds", t_s,
                    why[0] ? why : strerror(-rc));
        if (s->sink.gap)
            s->sink.gap(s->sink.ctx, t_s);
        pp_trace_sums_gap(&s->sums);
    }
    if (s->fail_streak < s->fail_limit)
        return 0;
    pp_log_error("sampler: %llu readings in a row failed, from %.3f s to %.3f s (%s): sampling "
                 "stopped", (unsigned long long)s->fail_streak, s->gap_from_s, t_s,
                 why[0] ? why : strerror(-rc));
    return rc;
}

/* One deadline: read, and give the sample to the sink and the sums. 0 or
 * -errno (a sink error, or too many failed readings). */
static int take_sample(pp_sampler *s, int64_t deadline_ns)
{
    double p[PP_DEVICE_MAX_RAILS], t_s;
    char why[512];
    int64_t t, late;
    int rc = read_retry(s, &t, p, why, sizeof why);

    t_s = pp_ns_to_s(t - s->t0_ns);
    if (rc < 0)
        return reading_failed(s, t_s, rc, why);
    if (s->fail_streak) {
        pp_log_warn("sampler: readings back at %.3f s after %llu failed since %.3f s (a gap in "
                    "the trace)", t_s, (unsigned long long)s->fail_streak, s->gap_from_s);
        s->fail_streak = 0;
    }
    rc = s->sink.push ? s->sink.push(s->sink.ctx, t_s, p) : 0;
    if (rc < 0)
        return rc;
    pp_trace_sums_add(&s->sums, t_s, p);
    late = t > deadline_ns ? t - deadline_ns : 0;
    s->hist[hist_bin(late)]++;
    if (late > s->late_max_ns)
        s->late_max_ns = late;
    if (atomic_load(&s->count) == 0)
        s->first_ns = t;
    s->last_ns = t;
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

/* The priming reading of an interval device (discarded). 0 or -errno. */
static int prime(pp_sampler *s)
{
    double scratch[PP_DEVICE_MAX_RAILS];
    char why[512];
    int64_t t;
    int rc = read_retry(s, &t, scratch, why, sizeof why);

    if (rc < 0)
        pp_log_error("sampler: the first reading failed: %s", why[0] ? why : strerror(-rc));
    return rc;
}

int pp_sampler_run(pp_sampler *s)
{
    double cpu0 = thread_cpu_s();
    int64_t deadline;
    uint64_t k = 0;
    int rc = 0;

    s->t0_ns = pp_clock_now_ns(&s->clock);
    deadline = s->t0_ns;
    if (s->dev->ops->flags & PP_DEVICE_INTERVAL) {
        rc = prime(s);
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
    if (rc == 0 && s->fail_streak) { /* the end of the run has no samples */
        pp_log_error("sampler: readings were failing when the run ended (%llu since %.3f s): "
                     "the trace has no samples after that", (unsigned long long)s->fail_streak,
                     s->gap_from_s);
        rc = s->fail_rc;
    }
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

int pp_thread_start_quiet(pthread_t *th, void *(*fn)(void *), void *arg, const char *what)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                               SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2};
    sigset_t block, old;
    int rc;

    sigemptyset(&block);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&block, sigs[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old); /* the new thread inherits it */
    rc = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pp_log_error("%s: cannot start its thread: %s", what, strerror(rc));
        return -rc;
    }
    return 0;
}

int pp_sampler_start(pp_sampler *s)
{
    int rc = pp_thread_start_quiet(&s->thread, thread_main, s, "sampler");

    if (rc == 0)
        s->thread_started = 1;
    return rc;
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

void pp_sampler_get_stats(const pp_sampler *s, pp_sampler_stats *st)
{
    uint64_t n = atomic_load(&s->count);

    memset(st, 0, sizeof *st);
    st->n_samples = n;
    st->n_missed = s->n_missed;
    st->n_expected = s->n_deadlines;
    st->n_failed = s->n_failed;
    st->n_retried = s->n_retried;
    st->n_gaps = s->sums.n_gaps;
    st->longest_gap_s = s->sums.longest_gap_s;
    st->requested_hz = s->rate_hz;
    st->wall_s = pp_ns_to_s(s->t_end_ns - s->t0_ns);
    st->cpu_s = s->cpu_s;
    st->cpu_share = st->wall_s > 0 ? st->cpu_s / st->wall_s : 0.0;
    st->error = s->result;
    if (n > 1 && s->last_ns > s->first_ns)
        st->achieved_hz = (double)(n - 1) / pp_ns_to_s(s->last_ns - s->first_ns);
    if (n > 0) {
        st->jitter_p50_us = hist_rank_us(s->hist, (n - 1) / 2);
        st->jitter_p99_us = hist_rank_us(s->hist, (uint64_t)((double)(n - 1) * 0.99));
        st->jitter_max_us = (double)s->late_max_ns * 1e-3;
    }
}

void pp_sampler_get_sums(const pp_sampler *s, pp_trace_sums *out) { *out = s->sums; }

int pp_sampler_trace(const pp_sampler *s, pp_trace *out)
{
    const char *names[PP_TRACE_MAX_RAILS];
    int rc;

    memset(out, 0, sizeof *out);
    if (s->kept.n_rails == 0) {
        pp_log_error("sampler: the samples went to a sink, none were kept");
        return -ENODATA;
    }
    for (size_t r = 0; r < s->kept.n_rails; r++)
        names[r] = s->kept.names[r];
    rc = pp_trace_init(out, s->kept.n_rails, names);
    out->interval_average = s->kept.interval_average;
    out->n_gaps = s->kept.n_gaps;
    for (size_t i = 0; rc == 0 && i < s->kept.n_samples; i++)
        rc = pp_trace_append(out, s->kept.t_s[i], s->kept.power_w + i * s->kept.n_rails);
    if (rc < 0)
        pp_trace_free(out);
    return rc;
}
