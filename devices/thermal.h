/* thermal.h - the temperature of the board: the thermal zones of
 * /sys/class/thermal under a replaceable root (temp in millidegrees). */
#ifndef PP_THERMAL_H
#define PP_THERMAL_H

#include <stddef.h>

/* The highest temperature over the zones now, in degrees Celsius, and that
 * zone's type (NULL allowed). A zone that cannot be read (some sensors
 * answer EINVAL or ENODATA while off) or reads outside [-60, 250] degrees
 * is left out. 0, or -ENODEV when no zone could be read. */
int pp_thermal_max_c(const char *root, double *max_c, char *zone, size_t cap);

#endif
