/* Sampler benchmark (issue 2): 1 kHz for 10 s on procstat (this machine's
 * /proc/stat) and on the fake Jetson TX2 tree, against a busy-loop sampler
 * like the original tool's, measured in the same run.
 *
 * Figures: share of the requested samples obtained, achieved rate, p50/p99
 * lateness after each deadline, CPU time of the sampling thread as a share
 * of one core. Targets: >= 99.5 % of samples, p99 <= 100 us, <= 1 % of a
 * core on the Jetson tree.
 *
 * Environment: POWPROF_FIXTURES (default tests/fixtures), BENCH_SECONDS
 * (default 10).
 */
#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/sweep/sampler.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RATE_HZ 1000.0

static int open_dev(const char *name, const char *root, pp_device **dev)
{
    pp_device_options o;

    pp_device_options_init(&o);
    o.sysfs_root = root;
    return pp_device_open_with(name, &o, dev);
}

static int bench_ours(const char *label, pp_device *dev, double seconds, double *cpu_share)
{
    pp_sampler *s;
    pp_sampler_stats st;
    uint64_t n = (uint64_t)(seconds * RATE_HZ);
    double share;
    int rc = pp_sampler_create(dev, NULL, RATE_HZ, n, &s);

    if (rc < 0)
        return rc;
    pp_sampler_set_sink(s, NULL); /* the statistics only: nothing kept */
    rc = pp_sampler_start(s);
    if (rc == 0) {
        while (pp_sampler_count(s) < n) {
            struct timespec ts = {0, 50000000};
            nanosleep(&ts, NULL);
        }
        rc = pp_sampler_stop(s);
    }
    pp_sampler_get_stats(s, &st);
    share = st.n_expected ? (double)st.n_samples / (double)st.n_expected : 0.0;
    printf("%-22s %8llu samples in %6.3f s  %6.2f%% of requested (target >= 99.5%%)  %9.3f Hz\n",
           label, (unsigned long long)st.n_samples, st.wall_s, 100.0 * share, st.achieved_hz);
    printf("%-22s lateness p50 %6.1f us  p99 %6.1f us (target <= 100)  max %8.1f us  missed %llu\n",
           "", st.jitter_p50_us, st.jitter_p99_us, st.jitter_max_us,
           (unsigned long long)st.n_missed);
    printf("%-22s sampler CPU %.4f s = %.3f%% of one core\n", "", st.cpu_s, 100.0 * st.cpu_share);
    *cpu_share = st.cpu_share;
    pp_sampler_destroy(s);
    return rc;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The original tool's way: spin on the clock until the next deadline. */
static double bench_busy_loop(pp_device *dev, double seconds)
{
    double p[PP_DEVICE_MAX_RAILS];
    int64_t period = (int64_t)(1e9 / RATE_HZ), t0 = pp_clock_now_ns(&pp_clock_monotonic);
    double cpu0 = thread_cpu_s();
    uint64_t n = (uint64_t)(seconds * RATE_HZ);

    for (uint64_t k = 0; k < n; k++) {
        while (pp_clock_now_ns(&pp_clock_monotonic) < t0 + (int64_t)k * period)
            ;
        if (pp_device_read(dev, pp_clock_now_ns(&pp_clock_monotonic), p) < 0)
            return -1.0;
    }
    return (thread_cpu_s() - cpu0) / pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic) - t0);
}

int main(void)
{
    const char *fixtures = getenv("POWPROF_FIXTURES") ? getenv("POWPROF_FIXTURES") : "tests/fixtures";
    double seconds = getenv("BENCH_SECONDS") ? atof(getenv("BENCH_SECONDS")) : 10.0;
    char jetson_root[4096];
    pp_device *procstat = NULL, *jetson = NULL;
    double share_procstat = 0, share_jetson = 0, share_busy;
    int failed = 0;

    snprintf(jetson_root, sizeof jetson_root, "%s/jetson-tx2-iio", fixtures);
    if (open_dev("procstat", "/", &procstat) < 0 || open_dev("jetson", jetson_root, &jetson) < 0) {
        fprintf(stderr, "bench_sampler: cannot open the devices\n");
        return 1;
    }
    printf("sampler at %.0f Hz for %.0f s\n", RATE_HZ, seconds);
    failed |= bench_ours("procstat (/proc/stat)", procstat, seconds, &share_procstat) < 0;
    failed |= bench_ours("jetson (fake TX2 tree)", jetson, seconds, &share_jetson) < 0;
    share_busy = bench_busy_loop(jetson, seconds / 5.0);
    printf("%-22s busy-loop baseline on the Jetson tree: %.1f%% of one core\n", "", 100.0 * share_busy);
    printf("%-22s ratio busy-loop / powprof CPU share: %.0fx (target: powprof <= 1%% of a core)\n",
           "", share_jetson > 0 ? share_busy / share_jetson : 0.0);
    pp_device_close(procstat);
    pp_device_close(jetson);
    return failed;
}
