/* clock.h - injectable monotonic clock.
 *
 * Everything that measures intervals or sleeps (sampler, scheduler) takes a
 * pp_clock, so tests can drive it with a fake clock. Times are nanoseconds on
 * CLOCK_MONOTONIC (or the fake clock's own time line); never wall-clock time.
 */
#ifndef PP_CLOCK_H
#define PP_CLOCK_H

#include <stdint.h>

typedef struct pp_clock {
    /* Current time in ns. */
    int64_t (*now_ns)(void *ctx);
    /* Sleep until the absolute time deadline_ns (returns at once when it has
     * passed). Returns 0, or a negative errno value. */
    int (*sleep_until_ns)(void *ctx, int64_t deadline_ns);
    void *ctx;
} pp_clock;

/* The real clock: CLOCK_MONOTONIC and clock_nanosleep(TIMER_ABSTIME),
 * restarted after signals. Never spins. */
extern const pp_clock pp_clock_monotonic;

static inline int64_t pp_clock_now_ns(const pp_clock *c) { return c->now_ns(c->ctx); }

/* A fake clock for tests: time stands still until someone sleeps; a sleep
 * jumps to its deadline plus the latency that on_sleep returns (0 when NULL),
 * which lets a test model late wake-ups. */
typedef struct pp_fake_clock {
    int64_t now_ns;
    int64_t (*on_sleep)(struct pp_fake_clock *fc, int64_t deadline_ns);
    void *user;
    uint64_t n_sleeps;
} pp_fake_clock;

/* A pp_clock that drives fc. */
pp_clock pp_fake_clock_make(pp_fake_clock *fc);

/* Nanoseconds as seconds. */
static inline double pp_ns_to_s(int64_t ns) { return (double)ns * 1e-9; }

#endif
