/* onboard: what a program on a drone's companion computer does with
 * libpowprof. It opens a power source and reads its rails once, then drains
 * a modelled battery with a recorded trace: how much charge the trace takes
 * and how long the battery would last if the load went on.
 *
 *   cc onboard.c $(pkg-config --cflags --libs powprof) -o onboard
 *   ./onboard auto trace.csv                      this machine, default battery
 *   ./onboard jetson trace.csv drone-6s-10000 150 a preset, 150 W of motors
 *
 * usage: onboard DEVICE TRACE.csv [BATTERY [BASE_POWER_W]]
 * The environment variable POWPROF_SYSFS_ROOT moves /sys and /proc (tests).
 */
#include <powprof.h>

#include <stdio.h>
#include <stdlib.h>

static int read_rails(const char *name)
{
    double w[PP_DEVICE_MAX_RAILS];
    pp_device *dev;

    if (pp_device_open(name, getenv("POWPROF_SYSFS_ROOT"), &dev) < 0)
        return 1;
    if (pp_device_read_now(dev, w) < 0) {
        pp_device_close(dev);
        return 1;
    }
    printf("device %s\n", pp_device_source(dev));
    for (size_t r = 0; r < pp_device_rail_count(dev); r++)
        printf("rail %s %.3f W%s%s\n", pp_device_rail_name(dev, r), w[r],
               pp_device_rail_estimated(dev, r) ? " estimated" : "",
               pp_device_rail_in_total(dev, r) ? "" : " (inside another rail)");
    printf("total %.3f W\n", pp_device_total_w(dev, w));
    pp_device_close(dev);
    return 0;
}

static int drain(const char *trace_path, const char *battery, const char *base_w)
{
    pp_battery_params *b;
    pp_battery_summary s;
    pp_trace *t;
    int rc = 1;

    if (pp_trace_open(trace_path, &t) < 0)
        return 1;
    if (pp_battery_new(battery, &b) == 0) {
        if ((!base_w || pp_battery_set_base_power(b, atof(base_w)) == 0) &&
            pp_battery_drain_trace(b, t, &s) == 0) {
            printf("trace %.3f s, %.3f J on rail %s\n", pp_trace_duration_s(t),
                   pp_trace_energy_j(t, 0), pp_trace_rail_name(t, 0));
            printf("battery drained %.9f of its charge, %.9f left, lowest %.3f V%s\n",
                   s.soc_drained_frac, s.soc_end_frac, s.min_voltage_v,
                   s.brownout ? ", BROWN-OUT" : "");
            printf("cutoff after %.1f s with the trace repeated\n", s.time_to_cutoff_s);
            rc = 0;
        }
        pp_battery_close(b);
    }
    pp_trace_close(t);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: onboard DEVICE TRACE.csv [BATTERY [BASE_POWER_W]]\n");
        return 2;
    }
    if (read_rails(argv[1]) != 0)
        return 1;
    return drain(argv[2], argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL);
}
