#include "clock.h"

#include <errno.h>
#include <time.h>

static int64_t mono_now_ns(void *ctx)
{
    struct timespec ts;

    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int mono_sleep_until_ns(void *ctx, int64_t deadline_ns)
{
    struct timespec ts;
    int rc;

    (void)ctx;
    if (deadline_ns < 0)
        return 0;
    ts.tv_sec = (time_t)(deadline_ns / 1000000000);
    ts.tv_nsec = (long)(deadline_ns % 1000000000);
    do
        rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    while (rc == EINTR);
    return -rc;
}

const pp_clock pp_clock_monotonic = {mono_now_ns, mono_sleep_until_ns, NULL};

static int64_t fake_now_ns(void *ctx) { return ((pp_fake_clock *)ctx)->now_ns; }

static int fake_sleep_until_ns(void *ctx, int64_t deadline_ns)
{
    pp_fake_clock *fc = ctx;
    int64_t late_ns = fc->on_sleep ? fc->on_sleep(fc, deadline_ns) : 0;

    fc->n_sleeps++;
    if (deadline_ns > fc->now_ns)
        fc->now_ns = deadline_ns;
    fc->now_ns += late_ns;
    return 0;
}

pp_clock pp_fake_clock_make(pp_fake_clock *fc)
{
    pp_clock c = {fake_now_ns, fake_sleep_until_ns, fc};
    return c;
}
