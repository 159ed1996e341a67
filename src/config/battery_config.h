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

/* Write p as a configuration file's "battery" group to path (atomically:
 * the old file stays whole until the new one is), every line of text first
 * as a comment. p is checked first. 0, or -EINVAL / -EIO (logged). */
int pp_battery_config_write(const char *path, const pp_battery_params *p, const char *text);

/* What a command or a program asked of the battery; every field may be
 * left as pp_battery_choice_init sets it. */
typedef struct pp_battery_choice {
    const char *preset;         /* a preset's name (NULL: none) */
    const char *file;           /* a configuration file: its 'battery' group (NULL: none) */
    const char *preset_or_file; /* a preset when it names one, else a file (NULL: none) */
    const char *model;          /* "rint" or "thevenin" (NULL: the pack's) */
    int base_given;             /* base_power_w replaces the pack's (checked) */
    double base_power_w;        /* the load beside the computer (motors, ...) */
    double min_soc_frac;        /* >= 0: a reserve to keep, below the start; < 0: none */
} pp_battery_choice;

void pp_battery_choice_init(pp_battery_choice *c);

/* Which parameters win, the one rule of every command and of the public
 * library: the default pack (drone-4s-3200), then the preset, then the
 * file's battery group, then the model and the base load given on their
 * own; the result checked against the physical ranges, and the reserve
 * below the start. 0, or -ENOENT (an unknown preset, no such file) or
 * -EINVAL, logged with the value (and the file's line). */
int pp_battery_choose(const pp_battery_choice *c, pp_battery_params *p);

/* 1 when c states the pack's capacity (a preset, or a file whose battery
 * group gives capacity_ah or a preset), 0 when it is the default's, or a
 * negative errno (the file unreadable, logged). */
int pp_battery_choice_capacity_given(const pp_battery_choice *c);

#endif
