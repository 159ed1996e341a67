/* profile_adaptive.h - the group adaptive = { ... } of a profile's profile
 * group (profile_adaptive.c), a member of pp_profile (profile.h). */
#ifndef PP_PROFILE_ADAPTIVE_H
#define PP_PROFILE_ADAPTIVE_H

/* adaptive = { target_error = 5.0; budget_s = 600.0; max_configs = 24;
 *             seed = 1; batch = 2; } in the profile group (optional, every
 * key too): the profile is measured adaptively (src/adaptive/adaptive.h),
 * as with `powprof profile --adaptive`, whose options override these. */
typedef struct pp_profile_adaptive {
    int given;               /* the group is there */
    double target_error_pct; /* < 0: not given (then 5); 0: no target */
    double budget_s;         /* < 0: not given; 0: none */
    int max_configs;         /* < 0: not given; 0: none */
    int seed;                /* < 0: not given (then 1) */
    int batch;               /* < 0: not given (then 2) */
} pp_profile_adaptive;

/* The group adaptive of the profile group g (absent: given = 0, every
 * field -1). Errors name the file, the line and the key: -EINVAL. */
struct pp_config;
struct pp_config_setting;
int pp_profile_parse_adaptive(const struct pp_config *cfg, const struct pp_config_setting *g,
                              pp_profile_adaptive *a);

#endif
