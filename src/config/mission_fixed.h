/* mission_fixed.h - the top-level fixed list of a mission group,
 * fixed = ["NAME=VALUE", ...]: parameters held at one value in the plan,
 * read once here for `run` (the profile's mission) and `plan --mission
 * FILE` alike (mission.c calls it); the names and values are checked by
 * their users against the profile (src/api) or the results (src/plan). */
#ifndef PP_MISSION_FIXED_H
#define PP_MISSION_FIXED_H

#include "config.h"

#include <stddef.h>

#define PP_MISSION_MAX_FIXED 32
#define PP_MISSION_FIXED_NAME_MAX 160

/* One element. */
typedef struct pp_mission_fixed {
    char name[PP_MISSION_FIXED_NAME_MAX];
    char value[64];                   /* a number or a label, checked by the user */
    int line;
} pp_mission_fixed;

/* The fixed list of mission group g into out[0 .. *n) (at most
 * PP_MISSION_MAX_FIXED; *n 0 without one): 0, or -EINVAL (logged with
 * file:line: not a list, an element not a "NAME=VALUE" string, a name
 * twice, more than PP_MISSION_MAX_FIXED). */
int pp_mission_fixed_from_config(const pp_config *cfg, const pp_config_setting *g,
                                 pp_mission_fixed *out, size_t *n);

#endif
