/* mission_settings.h - which mission settings win, for every command that
 * flies a mission (plan, layers predict): what the caller gives (the
 * command line) over what a results folder's profile.cfg says (its
 * mission group: duration, reserve, base load, maximize; its battery
 * group when no file is named), over the battery group of the file named,
 * over the default pack; the battery itself is pp_battery_choose's
 * (battery_config.h). */
#ifndef PP_MISSION_SETTINGS_H
#define PP_MISSION_SETTINGS_H

#include "battery_config.h"

#include "src/base/util.h"

#include "battery/battery.h"

typedef struct pp_mission_settings {
    double mission_s;    /* -1 until given */
    double min_soc_frac; /* -1: the battery's soc_cutoff */
    double base_power_w; /* -1: the battery's */
    const char *config;  /* a file with a battery group; NULL: the default battery */
    int risk_mean;       /* plan on the prediction, not its band's upper end */
    char folder_cfg[PP_PATH_MAX]; /* the results folder's profile.cfg, when read */
    int battery_from_folder, base_from_folder; /* taken from it, not given */
    int folder_phases;     /* its mission group is in phases (plan --mission it) */
    char maximize[160];    /* its mission's maximize ("" none) */
} pp_mission_settings;

/* Nothing given: every number -1, no file. */
void pp_mission_settings_init(pp_mission_settings *m);

/* What m asks of the battery: config's battery group, the base load, the
 * reserve (pp_battery_choose decides). */
void pp_mission_settings_choice(const pp_mission_settings *m, pp_battery_choice *c);
/* The battery m flies: 0, or -1 (logged: a bad file, a reserve not below
 * the start). */
int pp_mission_settings_battery(const pp_mission_settings *m, pp_battery_params *b);

/* What m leaves unsaid, from the results folder dir: its profile.cfg
 * (every sweep copies its profile there) gives the battery (its battery
 * group, unless m names a file) and its mission group the duration, base
 * load, reserve and maximize. 0, or -1 (logged: a bad file). */
int pp_mission_settings_from_results(pp_mission_settings *m, const char *dir);

#endif
