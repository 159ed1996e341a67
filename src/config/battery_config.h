/* battery_config.h - battery parameters from a configuration file.
 *
 * The battery module (battery/battery.h) knows no parser; this is where its
 * parameters meet the configuration files (libconfig syntax, src/config/config.h).
 */
#ifndef PP_BATTERY_CONFIG_H
#define PP_BATTERY_CONFIG_H

#include "config.h"

#include "battery/battery.h"

/* Read the group "battery" of cfg over p (absent group: p unchanged, 0).
 * Unknown keys, wrong types and values outside the physical ranges of
 * pp_battery_params_check are errors naming the file, line, key and range:
 * -EINVAL (logged). */
int pp_battery_params_from_config(const pp_config *cfg, pp_battery_params *p);

/* The same, from the file at path. 0 or -errno (logged). */
int pp_battery_params_load(const char *path, pp_battery_params *p);

#endif
