#include "harness.h"

#include "devices/device.h"
#include "src/api/devices_doc.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pp_device *open_at(const char *name, const char *root)
{
    pp_device_options o;
    pp_device *dev = NULL;

    pp_device_options_init(&o);
    o.sysfs_root = root;
    CHECK_INT(pp_device_open_with(name, &o, &dev), 0);
    return dev;
}

static int rail_index(const pp_device *dev, const char *name)
{
    for (size_t i = 0; i < dev->n_rails; i++)
        if (strcmp(dev->rails[i].name, name) == 0)
            return (int)i;
    pp_test_fail(__FILE__, __LINE__, "no rail %s", name);
    return 0;
}

void test_jetson_iio_rails_and_watts(void);
void test_jetson_iio_rails_and_watts(void)
{
    pp_device *dev = open_at("jetson", fixture("jetson-tx2-iio"));
    double p[PP_DEVICE_MAX_RAILS];
    int in;

    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 6);
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    in = rail_index(dev, "VDD_IN");
    CHECK(dev->rails[in].flags & PP_RAIL_BOARD_INPUT);
    CHECK_NEAR(p[in], 5.263, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "VDD_SYS_GPU")], 1.234, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "VDD_SYS_CPU")], 0.987, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "VDD_4V0_WIFI")], 0.038, 1e-12);
    CHECK_INT(dev->rails[rail_index(dev, "VDD_SYS_DDR")].parent, in);
    /* the total is the board input, never the input plus the rails inside it */
    CHECK_NEAR(pp_device_total_w(dev, p), 5.263, 1e-12);
    CHECK(!pp_device_is_estimated(dev));
    pp_device_close(dev);
}

void test_jetson_hwmon_rails_and_watts(void);
void test_jetson_hwmon_rails_and_watts(void)
{
    pp_device *dev = open_at("jetson", fixture("jetson-orin-hwmon"));
    double p[PP_DEVICE_MAX_RAILS];

    if (!dev)
        return;
    /* NC, the disabled channel and the shunt-sum channel are not rails */
    CHECK_INT(dev->n_rails, 4);
    for (size_t i = 0; i < dev->n_rails; i++) {
        CHECK(strcmp(dev->rails[i].name, "NC") != 0);
        CHECK(strcmp(dev->rails[i].name, "VDD_DISABLED") != 0);
        CHECK(strstr(dev->rails[i].name, "sum") == NULL);
    }
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    CHECK_NEAR(p[rail_index(dev, "VDD_IN")], 19.136 * 0.404, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "VDD_CPU_GPU_CV")], 19.128 * 0.104, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "VDD_SOC")], 19.136 * 0.152, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "VDD_5V0_SYS")], 5.008 * 0.200, 1e-12);
    CHECK(dev->rails[rail_index(dev, "VDD_IN")].flags & PP_RAIL_BOARD_INPUT);
    CHECK_NEAR(pp_device_total_w(dev, p), 19.136 * 0.404, 1e-12);
    pp_device_close(dev);
}

void test_board_input_labels(void);
void test_board_input_labels(void)
{
    CHECK(pp_rail_is_board_input("VDD_IN"));
    CHECK(pp_rail_is_board_input("POM_5V_IN"));
    CHECK(!pp_rail_is_board_input("VDD_SYS_CPU"));
    CHECK(!pp_rail_is_board_input("POM_5V_GPU"));
    CHECK(!pp_rail_is_board_input("_IN"));
}

void test_sysfs_bad_values(void);
void test_sysfs_bad_values(void)
{
    const char *root = fixture_copy("jetson-tx2-iio");
    char path[1024];
    pp_device *dev = open_at("jetson", root);
    double p[PP_DEVICE_MAX_RAILS];
    static const struct {
        const char *text, *msg;
        int err;
    } cases[] = {
        {"", "empty value", -EINVAL},
        {"12abc\n", "'12abc' is not an integer", -EINVAL},
        {"-5\n", "-5 mW is out of range", -ERANGE},
        {"99999999999\n", "out of range", -ERANGE},
    };

    if (!dev)
        return;
    snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/ina3221x/0-0041/iio:device1/in_power0_input",
             root);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_log_clear();
        CHECK_INT(write_file(path, cases[i].text), 0);
        CHECK_INT(pp_device_read(dev, 0, p), cases[i].err);
        CHECK_CONTAINS(test_log(), path);
        CHECK_CONTAINS(test_log(), cases[i].msg);
    }
    CHECK_INT(write_file(path, "5000\n"), 0); /* back to normal */
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    CHECK_NEAR(p[rail_index(dev, "VDD_IN")], 5.0, 1e-12);
    pp_device_close(dev);
}

void test_odroid_enables_and_reads(void);
void test_odroid_enables_and_reads(void)
{
    const char *root = fixture_copy("odroid-xu3");
    char path[1024], *s;
    pp_device *dev = open_at("odroid", root);
    double p[PP_DEVICE_MAX_RAILS];

    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 4);
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    CHECK_NEAR(p[rail_index(dev, "A15")], 1.234567, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "MEM")], 0.21, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "GPU")], 0.456789, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "A7")], 0.098765, 1e-12);
    CHECK_NEAR(pp_device_total_w(dev, p), 1.234567 + 0.21 + 0.456789 + 0.098765, 1e-12);
    snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/INA231/3-0044/enable", root);
    s = slurp(path);
    CHECK(s && s[0] == '1');
    free(s);
    snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/INA231/3-0040/sensor_W", root);
    write_file(path, "watts\n");
    test_log_clear();
    CHECK_INT(pp_device_read(dev, 0, p), -EINVAL);
    CHECK_CONTAINS(test_log(), "'watts' is not a number");
    pp_device_close(dev);
}

void test_rapl_power_from_counters(void);
void test_rapl_power_from_counters(void)
{
    const char *root = fixture_copy("rapl");
    char pkg[1024], core[1024], dram[1024];
    pp_device *dev = open_at("rapl", root);
    double p[PP_DEVICE_MAX_RAILS];
    int ipkg, icore, idram;

    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 3);
    ipkg = rail_index(dev, "package-0");
    icore = rail_index(dev, "package-0-core");
    idram = rail_index(dev, "package-0.dram");
    CHECK_INT(dev->rails[icore].parent, ipkg);
    CHECK_INT(dev->rails[idram].parent, -1); /* DRAM is outside the package */
    CHECK(dev->ops->flags & PP_DEVICE_INTERVAL);
    snprintf(pkg, sizeof pkg, "%s/sys/class/powercap/intel-rapl:0/energy_uj", root);
    snprintf(core, sizeof core, "%s/sys/class/powercap/intel-rapl:0:0/energy_uj", root);
    snprintf(dram, sizeof dram, "%s/sys/class/powercap/intel-rapl:0:1/energy_uj", root);
    CHECK_INT(pp_device_read(dev, 1000000000, p), 0); /* priming reading at t = 1 s */
    write_file(pkg, "6000000\n");  /* +5 J */
    write_file(core, "2500000\n"); /* +2 J */
    write_file(dram, "700000\n");  /* +0.5 J */
    CHECK_INT(pp_device_read(dev, 1500000000, p), 0); /* over 0.5 s */
    CHECK_NEAR(p[ipkg], 10.0, 1e-9);
    CHECK_NEAR(p[icore], 4.0, 1e-9);
    CHECK_NEAR(p[idram], 1.0, 1e-9);
    CHECK_NEAR(pp_device_total_w(dev, p), 11.0, 1e-9);
    /* the package counter wraps at max_energy_range_uj: 262143328850; a
     * jump to near the end in 1 s (262 kJ, 262 kW) is no power: dropped */
    write_file(pkg, "262142328850\n");
    CHECK_INT(pp_device_read(dev, 2500000000, p), -EAGAIN);
    write_file(pkg, "1000000\n"); /* 1 J before the wrap + 1 J after */
    CHECK_INT(pp_device_read(dev, 3500000000, p), 0);
    CHECK_NEAR(p[ipkg], 2.0, 1e-9);
    write_file(pkg, "262143328851\n"); /* beyond the range: garbage */
    test_log_clear();
    CHECK_INT(pp_device_read(dev, 4500000000, p), -ERANGE);
    CHECK_CONTAINS(test_log(), pkg);
    pp_device_close(dev);
}

/* A counter that drops from mid-range back to ~0 was reset, not wrapped:
 * the difference would be most of the range (issue 12: 262 kJ, 87 kW).
 * Above 10x the zone's power limit (25 W here: 250 W) or, without one,
 * 2 kW, the sample is dropped with a warning; the next one is good. */
void test_rapl_counter_reset(void);
void test_rapl_counter_reset(void)
{
    const char *root = fixture_copy("rapl");
    char pkg[1024], core[1024];
    pp_device *dev = open_at("rapl", root);
    double p[PP_DEVICE_MAX_RAILS];
    int ipkg, icore;

    if (!dev)
        return;
    ipkg = rail_index(dev, "package-0");
    icore = rail_index(dev, "package-0-core");
    snprintf(pkg, sizeof pkg, "%s/sys/class/powercap/intel-rapl:0/energy_uj", root);
    snprintf(core, sizeof core, "%s/sys/class/powercap/intel-rapl:0:0/energy_uj", root);
    write_file(pkg, "131000000000\n"); /* mid-range */
    CHECK_INT(pp_device_read(dev, 1000000000, p), 0);
    write_file(pkg, "131010000000\n"); /* +10 J in 1 s */
    CHECK_INT(pp_device_read(dev, 2000000000, p), 0);
    CHECK_NEAR(p[ipkg], 10.0, 1e-9);
    write_file(pkg, "3000000\n"); /* reset: back to 3 J */
    test_log_clear();
    CHECK_INT(pp_device_read(dev, 3000000000, p), -EAGAIN);
    CHECK_CONTAINS(test_log(), "intel-rapl:0/energy_uj: 3000000 uJ after 131010000000 uJ in 1.000 s");
    CHECK_CONTAINS(test_log(), "above the 250 W a zone can draw: a counter reset, not a wrap");
    write_file(pkg, "5000000\n"); /* +2 J in 0.5 s from the reset */
    CHECK_INT(pp_device_read(dev, 3500000000, p), 0);
    CHECK_NEAR(p[ipkg], 4.0, 1e-9);
    /* 300 W from the package: above its limit x 10, dropped */
    write_file(pkg, "305000000\n");
    CHECK_INT(pp_device_read(dev, 4500000000, p), -EAGAIN);
    /* the core has no limit of its own: 1 kW passes, 3 kW does not */
    write_file(core, "1000500000\n");
    CHECK_INT(pp_device_read(dev, 5500000000, p), 0);
    CHECK_NEAR(p[icore], 1000.0, 1e-6);
    write_file(core, "4000500000\n");
    CHECK_INT(pp_device_read(dev, 6500000000, p), -EAGAIN);
    /* a fast reading (1 ms) of a few counter ticks is no reset */
    write_file(core, "4000600000\n");
    CHECK_INT(pp_device_read(dev, 6501000000, p), 0);
    CHECK_NEAR(p[icore], 100.0, 1e-6);
    pp_device_close(dev);
}

/* Since Linux 5.10 energy_uj is root-only: a user without access is told
 * which file and how to grant it. Needs root to set the file up. */
void test_rapl_permission_message(void);
void test_rapl_permission_message(void)
{
    const char *root;
    char pkg[1024], why[1024];
    pid_t pid;
    int st;

    if (geteuid() != 0) {
        fprintf(stderr, "    (skipped: needs root to make a root-only file)\n");
        return;
    }
    root = fixture_copy("rapl");
    snprintf(pkg, sizeof pkg, "%s/sys/class/powercap/intel-rapl:0/energy_uj", root);
    chmod(pkg, 0400);
    {
        char *argv[] = {"chmod", "-R", "a+rX", (char *)test_tmpdir(), NULL};
        run_argv(argv, NULL, NULL);
    }
    chmod(pkg, 0400);
    pid = fork();
    if (pid == 0) {
        pp_device_options o;
        int rc;
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(3);
        pp_device_options_init(&o);
        o.sysfs_root = root;
        rc = pp_device_find("rapl")->probe(&o, why, sizeof why);
        if (rc != -EACCES)
            _exit(4);
        if (!strstr(why, pkg) || !strstr(why, "root only") || !strstr(why, "chmod"))
            _exit(5);
        _exit(0);
    }
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 0);
}

void test_hwmon_power_inputs(void);
void test_hwmon_power_inputs(void)
{
    pp_device *dev = open_at("hwmon", fixture("hwmon"));
    double p[PP_DEVICE_MAX_RAILS];

    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 2); /* acpitz has no power */
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    CHECK_NEAR(p[rail_index(dev, "VBUS")], 2.5, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "amdgpu-power1")], 15.0, 1e-12);
    pp_device_close(dev);
}

void test_battery_power(void);
void test_battery_power(void)
{
    pp_device *dev = open_at("battery", fixture("battery"));
    double p[PP_DEVICE_MAX_RAILS];

    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 2); /* the mains adapter is no battery */
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    CHECK_NEAR(p[rail_index(dev, "BAT0")], 12.345, 1e-12);
    CHECK_NEAR(p[rail_index(dev, "BAT1")], 1.0 * 11.4, 1e-12);
    pp_device_close(dev);
}

void test_battery_charging_warns(void);
void test_battery_charging_warns(void)
{
    const char *root = fixture_copy("battery");
    char path[1024];
    pp_device *dev;

    snprintf(path, sizeof path, "%s/sys/class/power_supply/BAT0/status", root);
    write_file(path, "Charging\n");
    dev = open_at("battery", root);
    CHECK_CONTAINS(test_log(), "'Charging', not 'Discharging'");
    pp_device_close(dev);
}

#define TICK_NS (1000000000LL / sysconf(_SC_CLK_TCK))

void test_procstat_estimate(void);
void test_procstat_estimate(void)
{
    const char *root = fixture_copy("procstat");
    char path[1024];
    pp_device_options o;
    pp_device *dev = NULL;
    double p[1];

    pp_device_options_init(&o);
    o.sysfs_root = root;
    o.procstat_idle_w = 2.0;
    o.procstat_core_w = 3.0;
    CHECK_INT(pp_device_open_with("procstat", &o, &dev), 0);
    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 1);
    CHECK(dev->rails[0].flags & PP_RAIL_ESTIMATED);
    CHECK(pp_device_is_estimated(dev));
    CHECK(dev->ops->flags & PP_DEVICE_INTERVAL);
    snprintf(path, sizeof path, "%s/proc/stat", root);
    CHECK_INT(pp_device_read(dev, 0, p), 0); /* priming: no change yet */
    /* cpu0: 75 busy of 100 jiffies (user+system+irq+steal); cpu1: 25 of 100 (iowait counts idle) */
    write_file(path, "cpu  0 0 0 0 0 0 0 0 0 0\n"
                     "cpu0 1050 0 510 8525 0 10 0 5 0 0\n"
                     "cpu1 1025 0 500 8550 25 0 0 0 0 0\n");
    CHECK_INT(pp_device_read(dev, TICK_NS, p), 0);
    CHECK_NEAR(p[0], 2.0 + 3.0 * (0.75 + 0.25), 1e-12);
    /* within the same tick the file is not even read: the estimate holds */
    write_file(path, "cpu0 garbage\n");
    CHECK_INT(pp_device_read(dev, TICK_NS + TICK_NS / 2, p), 0);
    CHECK_NEAR(p[0], 5.0, 1e-12);
    /* a tick later with counters that have not moved: held too, not idle */
    write_file(path, "cpu0 1050 0 510 8525 0 10 0 5 0 0\n"
                     "cpu1 1025 0 500 8550 25 0 0 0 0 0\n");
    CHECK_INT(pp_device_read(dev, 3 * TICK_NS, p), 0);
    CHECK_NEAR(p[0], 5.0, 1e-12);
    /* cpu0 all idle, cpu1 half busy since */
    write_file(path, "cpu0 1050 0 510 8625 0 10 0 5 0 0\n"
                     "cpu1 1050 0 525 8600 25 0 0 0 0 0\n");
    CHECK_INT(pp_device_read(dev, 4 * TICK_NS, p), 0);
    CHECK_NEAR(p[0], 2.0 + 3.0 * 0.5, 1e-12);
    write_file(path, "cpu0 garbage\n");
    test_log_clear();
    CHECK_INT(pp_device_read(dev, 5 * TICK_NS, p), -EINVAL);
    CHECK_CONTAINS(test_log(), ":1: cannot parse");
    pp_device_close(dev);
    /* coefficients must be sane */
    o.procstat_core_w = -1.0;
    test_log_clear();
    CHECK_INT(pp_device_open_with("procstat", &o, &dev), -EINVAL);
    CHECK_CONTAINS(test_log(), "coefficients");
}

/* Sampled ten times a tick, a busy core reads busy: an interval without a
 * tick holds the last share (counting it idle made the estimate 10x low). */
void test_procstat_faster_than_the_tick(void);
void test_procstat_faster_than_the_tick(void)
{
    const char *root = fixture_copy("procstat");
    char path[1024], text[256];
    pp_device_options o;
    pp_device *dev = NULL;
    double p[1], energy_j = 0;
    int64_t step_ns = TICK_NS / 10;

    pp_device_options_init(&o);
    o.sysfs_root = root;
    o.procstat_idle_w = 1.5;
    o.procstat_core_w = 0.6;
    snprintf(path, sizeof path, "%s/proc/stat", root);
    write_file(path, "cpu0 0 0 0 0 0 0 0 0\n");
    CHECK_INT(pp_device_open_with("procstat", &o, &dev), 0);
    if (!dev)
        return;
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    /* cpu0 busy throughout: its user count moves by one each tick */
    for (int k = 1; k <= 1000; k++) {
        snprintf(text, sizeof text, "cpu0 %d 0 0 0 0 0 0 0\n", (int)(k * step_ns / TICK_NS));
        write_file(path, text);
        CHECK_INT(pp_device_read(dev, k * step_ns, p), 0);
        energy_j += p[0] * (double)step_ns * 1e-9;
    }
    /* 2.1 W throughout but for the 9 samples before the first tick, which
     * read idle (the one tick of delay) */
    CHECK_NEAR(energy_j / (1000 * step_ns * 1e-9), (9 * 1.5 + 991 * 2.1) / 1000, 1e-9);
    pp_device_close(dev);
}

void test_replay_sample_and_hold(void);
void test_replay_sample_and_hold(void)
{
    char path[512];
    pp_device_options o;
    pp_device *dev = NULL;
    double p[2];

    snprintf(path, sizeof path, "%s/t.csv", test_tmpdir());
    write_file(path, "t_s,VDD_IN_w,GPU_w\n0,5,1\n0.1,6,2\n0.2,7,3\n");
    pp_device_options_init(&o);
    o.replay_path = path;
    CHECK_INT(pp_device_open_with("replay", &o, &dev), 0);
    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 2);
    CHECK(dev->rails[0].flags & PP_RAIL_BOARD_INPUT);
    CHECK_INT(pp_device_read(dev, 1000000000, p), 0); /* the first reading is t = 0 */
    CHECK_NEAR(p[0], 5, 0);
    CHECK_INT(pp_device_read(dev, 1150000000, p), 0); /* 0.15 s: holds the 0.1 s sample */
    CHECK_NEAR(p[0], 6, 0);
    CHECK_NEAR(p[1], 2, 0);
    CHECK_INT(pp_device_read(dev, 1200000000, p), 0);
    CHECK_NEAR(p[0], 7, 0);
    CHECK_INT(pp_device_read(dev, 1300000000, p), -ENODATA);
    CHECK_CONTAINS(test_log(), "ended at 0.200 s");
    pp_device_close(dev);
}

void test_nvml_fake_library(void);
void test_nvml_fake_library(void)
{
    const char *lib = getenv("POWPROF_FAKE_NVML");
    pp_device_options o;
    pp_device *dev = NULL;
    double p[PP_DEVICE_MAX_RAILS];
    char why[512];

    CHECK(lib != NULL);
    if (!lib)
        return;
    pp_device_options_init(&o);
    o.nvml_library = lib;
    setenv("FAKE_NVML_MW", "61234", 1);
    CHECK_INT(pp_device_find("nvml")->probe(&o, why, sizeof why), 0);
    CHECK_INT(pp_device_open_with("nvml", &o, &dev), 0);
    if (!dev)
        return;
    CHECK_INT(dev->n_rails, 2);
    CHECK_STR(dev->rails[0].name, "GPU0");
    CHECK_INT(pp_device_read(dev, 0, p), 0);
    CHECK_NEAR(p[0], 61.234, 1e-12);
    CHECK_NEAR(p[1], 62.234, 1e-12);
    pp_device_close(dev);
    setenv("FAKE_NVML_MW", "20000000", 1); /* 20 kW: garbage */
    CHECK_INT(pp_device_open_with("nvml", &o, &dev), 0);
    if (dev) {
        CHECK_INT(pp_device_read(dev, 0, p), -ERANGE);
        pp_device_close(dev);
    }
    setenv("FAKE_NVML_INIT_FAIL", "1", 1);
    CHECK_INT(pp_device_find("nvml")->probe(&o, why, sizeof why), -ENODEV);
    CHECK_CONTAINS(why, "Driver Not Loaded");
}

void test_nvml_absent(void);
void test_nvml_absent(void)
{
    pp_device_options o;
    pp_device *dev = NULL;
    char why[512];

    pp_device_options_init(&o);
    o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    /* absent is no error for probing (auto, devices)... */
    CHECK_INT(pp_device_find("nvml")->probe(&o, why, sizeof why), -ENODEV);
    CHECK_CONTAINS(why, "cannot load /nonexistent/libnvidia-ml.so.1");
    CHECK_STR(test_log(), "");
    /* ...but it is when asked for */
    CHECK(pp_device_open_with("nvml", &o, &dev) < 0);
    CHECK(dev == NULL);
    CHECK_CONTAINS(test_log(), "nvml: cannot load");
}

void test_auto_order(void);
void test_auto_order(void)
{
    static const struct {
        const char *tree, *pick;
    } cases[] = {
        {"jetson-tx2-iio", "jetson"}, {"jetson-orin-hwmon", "jetson"}, {"odroid-xu3", "odroid"},
        {"battery", "battery"},       {"hwmon", "hwmon"},               {"rapl", "rapl"},
        {"procstat", "procstat"},
    };
    pp_device_options o;
    const pp_device_ops *ops;

    pp_device_options_init(&o);
    o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        o.sysfs_root = fixture(cases[i].tree);
        ops = NULL;
        CHECK_INT(pp_device_auto(&o, &ops), 0);
        CHECK_STR(ops ? ops->name : NULL, cases[i].pick);
    }
    /* a tree with both a Jetson and /proc/stat: the measured source wins */
    {
        const char *root = fixture_copy("jetson-tx2-iio");
        char cmd_src[1024], cmd_dst[1024];
        char *argv[] = {"cp", "-a", cmd_src, cmd_dst, NULL};
        snprintf(cmd_src, sizeof cmd_src, "%s", fixture("procstat/proc"));
        snprintf(cmd_dst, sizeof cmd_dst, "%s/proc", root);
        CHECK_INT(run_argv(argv, NULL, NULL), 0);
        o.sysfs_root = root;
        CHECK_INT(pp_device_auto(&o, &ops), 0);
        CHECK_STR(ops->name, "jetson");
    }
    /* an empty tree has nothing */
    o.sysfs_root = test_tmpdir();
    CHECK_INT(pp_device_auto(&o, &ops), -ENODEV);
}

void test_unknown_device(void);
void test_unknown_device(void)
{
    pp_device_options o;
    pp_device *dev = (pp_device *)1;

    pp_device_options_init(&o);
    CHECK_INT(pp_device_open_with("ina999", &o, &dev), -ENOENT);
    CHECK(dev == NULL);
    CHECK_CONTAINS(test_log(), "unknown device 'ina999'");
    CHECK_CONTAINS(test_log(), "procstat");
}

/* `powprof devices --json` prints the library's document as it is
 * (src/api/devices_doc.h, issue 40): the fake Jetson present with its
 * rails, picked by auto. */
void test_devices_doc_is_the_clis(void);
void test_devices_doc_is_the_clis(void)
{
    const char *root = fixture("jetson-tx2-iio");
    pp_device_options o;
    json_t *doc, *jetson = NULL;
    char *out = NULL, *mine;

    pp_device_options_init(&o);
    o.sysfs_root = root;
    doc = pp_devices_doc(&o);
    CHECK(doc != NULL);
    CHECK_STR(json_string_value(json_object_get(doc, "auto")), "jetson");
    for (size_t i = 0; i < json_array_size(json_object_get(doc, "sources")); i++) {
        json_t *s = json_array_get(json_object_get(doc, "sources"), i);
        if (strcmp(json_string_value(json_object_get(s, "name")), "jetson") == 0)
            jetson = s;
    }
    CHECK(jetson != NULL);
    CHECK_STR(json_string_value(json_object_get(jetson, "status")), "present");
    CHECK(json_array_size(json_object_get(jetson, "rails")) > 1);
    CHECK_NEAR(json_number_value(json_object_get(jetson, "total_w")), 5.263, 1e-3);
    CHECK_INT(run_powprof(&out, NULL, "devices", "--json", "--sysfs-root", root, NULL), 0);
    mine = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(9));
    CHECK(out && mine && strncmp(out, mine, strlen(mine)) == 0 && out[strlen(mine)] == '\n');
    free(mine);
    free(out);
    json_decref(doc);
}
