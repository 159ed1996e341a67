/* powprof/device.h - power sources: open one and read its rails.
 *
 * A device is one power source of this machine: a Jetson's INA3221
 * monitors, an ODROID's INA231, a laptop battery, hwmon, RAPL, NVML, or an
 * estimate from CPU utilization (procstat) when there are no sensors.
 * Readings are in watts, one value per rail. Some rails contain others (a
 * board's input contains the CPU rail): pp_device_total_w adds only those
 * no other rail contains.
 *
 *   pp_device *d;
 *   double w[PP_DEVICE_MAX_RAILS];
 *   if (pp_device_open("auto", NULL, &d) == 0) {
 *       pp_device_read_now(d, w);
 *       printf("%s %.3f W\n", pp_device_rail_name(d, 0), w[0]);
 *       pp_device_close(d);
 *   }
 *
 * Threads (powprof.h): one call at a time on a pp_device (a device is not
 * checked for its kind: give these functions only what
 * pp_device_open gave).
 */
#ifndef POWPROF_DEVICE_H
#define POWPROF_DEVICE_H

#include "deprecated.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_DEVICE_MAX_RAILS 64

typedef struct pp_device pp_device;

/* Open the source called name: "auto" (the most direct one present),
 * "jetson", "odroid", "battery", "hwmon", "rapl", "nvml" or "procstat"
 * (`powprof devices` lists them). sysfs_root moves /sys and /proc (NULL:
 * "/"). 0 and *out (close it with pp_device_close), or a negative errno:
 * -ENOENT for an unknown name, -ENODEV when the source is absent. */
int pp_device_open(const char *name, const char *sysfs_root, pp_device **out);
void pp_device_close(pp_device *dev);
/* 0.1's name of pp_device_open. */
int pp_device_open_by_name(const char *name, const char *sysfs_root, pp_device **out)
    PP_DEPRECATED("pp_device_open");

/* The back-end's name ("jetson", "procstat", ...). */
const char *pp_device_source(const pp_device *dev);

/* The rails: how many, each one's name (the sensor's label, e.g. "VDD_IN"),
 * whether it is an estimate rather than a measurement, and whether it
 * counts in the total (no other rail contains it). */
size_t pp_device_rail_count(const pp_device *dev);
const char *pp_device_rail_name(const pp_device *dev, size_t rail);
int pp_device_rail_estimated(const pp_device *dev, size_t rail);
int pp_device_rail_in_total(const pp_device *dev, size_t rail);

/* Read every rail now into power_w[0 .. rail count - 1], in watts. For
 * sources that count energy (RAPL) or time (procstat) a reading is the mean
 * power since the previous reading (or since the open); the first reading
 * of such a source waits until 250 ms after the open, as `powprof devices`
 * does (straight after the open, procstat's counters have not moved and
 * its estimate is the idle floor). 0 or -errno. */
int pp_device_read_now(pp_device *dev, double *power_w);

/* The device's total power in a reading: the rails no other rail contains. */
double pp_device_total_w(const pp_device *dev, const double *power_w);

#ifdef __cplusplus
}
#endif

#endif
