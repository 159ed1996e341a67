#include "harness.h"

#include "src/sweep/sampler.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>

/* A device whose reading k is k watts, failing at reading fail_at (if > 0). */
typedef struct fake_state {
    int reads;
    int fail_at;
    int64_t last_t;
} fake_state;

static int fake_read(pp_device *dev, int64_t t_ns, double *p)
{
    fake_state *s = dev->priv;
    s->reads++;
    s->last_t = t_ns;
    if (s->fail_at && s->reads >= s->fail_at)
        return -ENODEV;
    p[0] = s->reads;
    return 0;
}

static pp_device_ops fake_ops = {"fake", "test device", 0, NULL, NULL, fake_read, NULL};

/* Reading 3 has no valid value (a counter reset): -EAGAIN, once. */
static int again_read(pp_device *dev, int64_t t_ns, double *p)
{
    fake_state *s = dev->priv;
    s->reads++;
    s->last_t = t_ns;
    p[0] = s->reads;
    return s->reads == 3 ? -EAGAIN : 0;
}

static pp_device_ops again_ops = {"again", "test device", 0, NULL, NULL, again_read, NULL};
static pp_device_ops fake_interval_ops = {"fake-interval", "test device", PP_DEVICE_INTERVAL,
                                          NULL, NULL, fake_read, NULL};

static void make_fake(pp_device *dev, fake_state *st, const pp_device_ops *ops)
{
    memset(dev, 0, sizeof *dev);
    memset(st, 0, sizeof *st);
    dev->ops = ops;
    dev->priv = st;
    pp_device_add_rail(dev, "FAKE", 0);
}

/* A fake device sampled on a fake clock (fc set by the caller: its start
 * and late wake-ups), its statistics and trace after the run. */
typedef struct rig {
    pp_device dev;
    fake_state st;
    pp_fake_clock fc;
    pp_clock clk;
    pp_sampler *s;
    pp_sampler_stats stats;
    pp_trace t;
} rig;

/* Sample r's device (ops, failing from reading fail_at when > 0) n times
 * at rate_hz (n = 0: until it stops): pp_sampler_run's result, or -1 when
 * the sampler could not be made (a failed check). */
static int rig_run(rig *r, const pp_device_ops *ops, int fail_at, double rate_hz, uint64_t n)
{
    int rc;

    make_fake(&r->dev, &r->st, ops);
    r->st.fail_at = fail_at;
    r->clk = pp_fake_clock_make(&r->fc);
    CHECK_INT(pp_sampler_create(&r->dev, &r->clk, rate_hz, n, &r->s), 0);
    if (!r->s)
        return -1;
    rc = pp_sampler_run(r->s);
    pp_sampler_get_stats(r->s, &r->stats);
    CHECK_INT(pp_sampler_trace(r->s, &r->t), 0);
    return rc;
}

static void rig_free(rig *r)
{
    pp_trace_free(&r->t);
    pp_sampler_destroy(r->s);
}

void test_sampler_grid_on_fake_clock(void);
void test_sampler_grid_on_fake_clock(void)
{
    rig r = {.fc = {.now_ns = 5000000000}};

    CHECK_INT(rig_run(&r, &fake_ops, 0, 1000.0, 10000), 0);
    CHECK_INT(r.stats.n_samples, 10000); /* crosses two storage blocks */
    CHECK_INT(r.stats.n_missed, 0);
    CHECK_NEAR(r.stats.achieved_hz, 1000.0, 1e-6);
    CHECK_NEAR(r.stats.jitter_p99_us, 0.0, 0);
    CHECK_INT(r.t.n_samples, 10000);
    CHECK_NEAR(r.t.t_s[0], 0.0, 0);
    CHECK_NEAR(r.t.t_s[1], 0.001, 1e-12);
    CHECK_NEAR(r.t.t_s[9999], 9.999, 1e-9);
    CHECK_NEAR(pp_trace_at(&r.t, 9999, 0), 10000.0, 0);
    CHECK(!r.t.interval_average);
    /* it slept once per sample after the first, to the absolute deadline */
    CHECK_INT(r.fc.n_sleeps, 9999);
    rig_free(&r);
}

/* Wake up late: every 10th sleep overshoots by 2.5 periods. */
static int64_t late_every_10th(pp_fake_clock *fc, int64_t deadline)
{
    (void)deadline;
    return fc->n_sleeps % 10 == 9 ? 2500000 : 0;
}

void test_sampler_counts_missed_deadlines(void);
void test_sampler_counts_missed_deadlines(void)
{
    rig r = {.fc = {.now_ns = 0, .on_sleep = late_every_10th}};

    CHECK_INT(rig_run(&r, &fake_ops, 0, 1000.0, 1000), 0);
    CHECK_INT(r.stats.n_samples, 1000);
    /* each late wake-up costs the two deadlines it overslept */
    CHECK(r.stats.n_missed > 150 && r.stats.n_missed < 250);
    CHECK_INT(r.stats.n_expected, r.stats.n_samples + r.stats.n_missed);
    CHECK_NEAR(r.stats.jitter_max_us, 2500.0, 1e-9);
    CHECK_NEAR(r.stats.jitter_p50_us, 0.0, 0);
    /* one sample in ten is 2.5 ms late: the histogram's p99, to 1/16 octave */
    CHECK_NEAR(r.stats.jitter_p99_us, 2500.0, 2500.0 / 16);
    /* the grid is kept: every sample time is a whole number of periods */
    for (size_t i = 0; i < r.t.n_samples; i++) {
        double k = r.t.t_s[i] / 0.001;
        if (fabs(k - floor(k + 0.5)) > 1e-6 &&
            fabs(r.t.t_s[i] * 1e3 - floor(r.t.t_s[i] * 1e3) - 0.5) > 1e-6) {
            pp_test_fail(__FILE__, __LINE__, "sample %zu at %.9f s is off the grid", i, r.t.t_s[i]);
            break;
        }
    }
    rig_free(&r);
}

void test_sampler_interval_device_primes(void);
void test_sampler_interval_device_primes(void)
{
    rig r = {.fc = {.now_ns = 0}};

    CHECK_INT(rig_run(&r, &fake_interval_ops, 0, 10.0, 5), 0);
    CHECK_INT(r.st.reads, 6); /* the priming reading is not stored */
    CHECK_INT(r.t.n_samples, 5);
    CHECK_NEAR(r.t.t_s[0], 0.1, 1e-12);
    CHECK_NEAR(pp_trace_at(&r.t, 0, 0), 2.0, 0);
    CHECK(r.t.interval_average);
    CHECK_NEAR(pp_trace_duration_s(&r.t), 0.5, 1e-12);
    rig_free(&r);
}

void test_sampler_keeps_samples_on_error(void);
void test_sampler_keeps_samples_on_error(void)
{
    rig r = {.fc = {.now_ns = 0}};

    CHECK_INT(rig_run(&r, &fake_ops, 8, 100.0, 0), -ENODEV);
    CHECK_INT(r.stats.error, -ENODEV);
    CHECK_INT(r.stats.n_samples, 7);
    /* it went on through the failures, and stopped after a second's worth */
    CHECK_INT(r.stats.n_failed, pp_sampler_fail_limit(100.0));
    CHECK_INT(pp_sampler_fail_limit(100.0), 100);
    CHECK_INT(pp_sampler_fail_limit(0.5), PP_SAMPLER_FAIL_MIN);
    CHECK_CONTAINS(test_log(), "100 readings in a row failed, from 0.070 s to 1.060 s");
    CHECK_INT(r.t.n_samples, 7);
    rig_free(&r);
}

/* -EAGAIN drops that deadline's sample (a gap), without retrying at once
 * (a retry microseconds later would be a meaningless interval), and goes
 * on. */
void test_sampler_drops_a_sample_on_eagain(void);
void test_sampler_drops_a_sample_on_eagain(void)
{
    rig r = {.fc = {.now_ns = 0}};

    CHECK_INT(rig_run(&r, &again_ops, 0, 100.0, 6), 0);
    CHECK_INT(r.stats.n_failed, 1);
    CHECK_INT(r.stats.n_retried, 0);
    CHECK_INT(r.stats.n_gaps, 1);
    CHECK_INT(r.st.reads, 7); /* 6 samples and the dropped one, no retry */
    CHECK_INT(r.t.n_samples, 6);
    CHECK_NEAR(pp_trace_at(&r.t, 2, 0), 4.0, 0); /* reading 3 is not there */
    rig_free(&r);
}

void test_sampler_rejects_bad_rates(void);
void test_sampler_rejects_bad_rates(void)
{
    pp_device dev;
    fake_state st;
    pp_sampler *s;
    const double bad[] = {0.0, -1.0, 1e9, NAN, INFINITY, 0.001};

    make_fake(&dev, &st, &fake_ops);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_log_clear();
        CHECK_INT(pp_sampler_create(&dev, NULL, bad[i], 0, &s), -EINVAL);
        CHECK(s == NULL);
        CHECK_CONTAINS(test_log(), "out of range");
    }
}

/* On the real clock: started on its thread, stopped from outside, with a
 * last sample at the stop. No timing is asserted beyond sanity. */
void test_sampler_thread_stops(void);
void test_sampler_thread_stops(void)
{
    pp_device dev;
    fake_state st;
    pp_sampler *s;
    pp_sampler_stats stats;
    struct timespec ts = {0, 200000000};

    make_fake(&dev, &st, &fake_ops);
    CHECK_INT(pp_sampler_create(&dev, NULL, 0.5, 0, &s), 0); /* 2 s period */
    CHECK_INT(pp_sampler_start(s), 0);
    nanosleep(&ts, NULL);
    CHECK_INT(pp_sampler_stop(s), 0); /* returns well before the next deadline */
    pp_sampler_get_stats(s, &stats);
    CHECK_INT(stats.n_samples, 2);  /* t = 0 and the stop */
    CHECK(stats.wall_s < 1.0);
    pp_sampler_destroy(s);
}

/* A Jetson rail file that empties mid-run (at the 21st sleep): the error
 * names the file, and the 21 samples before it stay. */
static int64_t empty_file_at_21st_sleep(pp_fake_clock *fc, int64_t deadline)
{
    (void)deadline;
    if (fc->n_sleeps == 20)
        write_file(fc->user, "");
    return 0;
}

/* A copy of the fake Jetson TX2 tree, opened; path gets its first rail's
 * power file (the tests change it). NULL when it cannot be opened. */
pp_device *test_jetson_copy(char *path, size_t cap);
pp_device *test_jetson_copy(char *path, size_t cap)
{
    const char *root = fixture_copy("jetson-tx2-iio");
    pp_device_options o;
    pp_device *dev = NULL;

    snprintf(path, cap, "%s/sys/bus/i2c/drivers/ina3221x/0-0040/iio:device0/in_power1_input",
             root);
    pp_device_options_init(&o);
    o.sysfs_root = root;
    CHECK_INT(pp_device_open_with("jetson", &o, &dev), 0);
    return dev;
}

void test_sampler_sensor_fails_mid_run(void);
void test_sampler_sensor_fails_mid_run(void)
{
    char path[1024];
    pp_device *dev = test_jetson_copy(path, sizeof path);
    pp_fake_clock fc = {.now_ns = 0, .on_sleep = empty_file_at_21st_sleep, .user = path};
    pp_clock clk = pp_fake_clock_make(&fc);
    pp_sampler *s;
    pp_trace t;

    if (!dev)
        return;
    CHECK_INT(pp_sampler_create(dev, &clk, 100.0, 0, &s), 0);
    CHECK_INT(pp_sampler_run(s), -EINVAL);
    CHECK_CONTAINS(test_log(), path);
    CHECK_CONTAINS(test_log(), "empty value");
    CHECK_INT(pp_sampler_trace(s, &t), 0);
    CHECK_INT(t.n_samples, 21);
    CHECK_NEAR(pp_trace_at(&t, 20, 0), 1.234, 1e-12);
    pp_trace_free(&t);
    pp_sampler_destroy(s);
    pp_device_close(dev);
}
