/* The public facade (include/powprof/), as a program using the library sees
 * it: only the public headers here. */
#include "harness.h"

#include <powprof.h> /* the staged public headers: -I$(O)/include */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void test_api_device_trace_battery(void);
void test_api_device_trace_battery(void)
{
    double w[PP_DEVICE_MAX_RAILS];
    char path[600];
    pp_device *dev;
    pp_trace *t;
    pp_battery_params *b;
    pp_battery_summary s1, s2;
    size_t in = 99;

    CHECK_INT(pp_device_open("jetson", fixture("jetson-tx2-iio"), &dev), 0);
    CHECK_STR(pp_device_source(dev), "jetson");
    CHECK_INT(pp_device_rail_count(dev), 6);
    CHECK_INT(pp_device_read_now(dev, w), 0);
    for (size_t r = 0; r < pp_device_rail_count(dev); r++)
        if (strcmp(pp_device_rail_name(dev, r), "VDD_IN") == 0)
            in = r;
    CHECK(in < 6 && pp_device_rail_in_total(dev, in) && !pp_device_rail_estimated(dev, in));
    CHECK_NEAR(pp_device_total_w(dev, w), w[in], 1e-12);
    CHECK(pp_device_rail_name(dev, 6) == NULL);
    pp_device_close(dev);
    CHECK_INT(pp_device_open("quantum", NULL, &dev), -ENOENT);

    snprintf(path, sizeof path, "%s/t.csv", test_tmpdir());
    write_file(path, "t_s,A_w,B_w\n0,2,1\n1,4,1\n2,4,1\n");
    CHECK_INT(pp_trace_open(path, &t), 0);
    CHECK_INT(pp_trace_sample_count(t), 3);
    CHECK_INT(pp_trace_rail_count(t), 2);
    CHECK_STR(pp_trace_rail_name(t, 1), "B");
    CHECK_NEAR(pp_trace_time_s(t, 2), 2, 0);
    CHECK_NEAR(pp_trace_power_w(t, 1, 0), 4, 0);
    CHECK(isnan(pp_trace_power_w(t, 3, 0)));
    CHECK_NEAR(pp_trace_energy_j(t, 0), 3 + 4, 1e-12); /* trapezoids */
    CHECK_NEAR(pp_trace_duration_s(t), 2, 0);
    CHECK_NEAR(pp_trace_mean_w(t, 0), 3.5, 1e-12);

    CHECK_INT(pp_battery_new(NULL, &b), 0);
    CHECK_INT(pp_battery_drain_trace(b, t, &s1), 0);
    CHECK(s1.soc_drained_frac > 0 && s1.soc_drained_frac < 1e-3);
    CHECK_NEAR(s1.soc_end_frac, s1.soc_start_frac - s1.soc_drained_frac, 1e-12);
    CHECK(s1.time_to_cutoff_s > 0);
    CHECK_INT(pp_battery_set_base_power(b, -1), -EINVAL);
    CHECK_INT(pp_battery_set_base_power(b, 100), 0);
    CHECK_INT(pp_battery_drain_trace(b, t, &s2), 0);
    CHECK(s2.soc_drained_frac > 10 * s1.soc_drained_frac); /* 100 W of motors beside 5 W */
    CHECK(s2.time_to_cutoff_s < s1.time_to_cutoff_s);
    pp_battery_close(b);
    CHECK_INT(pp_battery_new("drone-6s-10000", &b), 0);
    pp_battery_close(b);
    test_log_clear();
    CHECK_INT(pp_battery_new("drone-99s", &b), -ENOENT);
    CHECK_CONTAINS(test_log(), "battery 'drone-99s': neither a preset");
    CHECK_INT(pp_battery_new("configs/drone-4s.cfg", &b), 0);
    pp_battery_close(b);
    pp_trace_close(t);
    CHECK(pp_trace_open("/nonexistent.csv", &t) < 0 && t == NULL);
}

/* Issue 32, item 9: the first reading of a source that averages since the
 * previous one (procstat) waits for an interval worth averaging, 250 ms
 * after the open, as `powprof devices` does: straight after the open it
 * was the idle floor (1.5 W where devices showed 2.7 W). */
void test_api_first_reading_waits(void);
void test_api_first_reading_waits(void)
{
    double w[PP_DEVICE_MAX_RAILS];
    struct timespec a, b;
    pp_device *dev;

    CHECK_INT(pp_device_open("procstat", fixture("procstat"), &dev), 0);
    clock_gettime(CLOCK_MONOTONIC, &a);
    CHECK_INT(pp_device_read_now(dev, w), 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    CHECK((b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec) >= 0.2);
    CHECK(pp_device_rail_estimated(dev, 0));
    CHECK_INT(pp_device_read_now(dev, w), 0);
    pp_device_close(dev);
}
