/* profile_adaptive.c - the group adaptive = { ... } of a profile's profile
 * group (profile_adaptive.h). */
#include "profile_adaptive.h"

#include "config.h"

#include <errno.h>
#include <math.h>

static const char *const adaptive_keys[] = {"target_error", "budget_s", "max_configs", "seed",
                                            "batch", NULL};

/* An integer key in [lo, hi]: 0 (absent or valid) or -EINVAL (logged). */
static int int_in(const pp_config *cfg, const pp_config_setting *g, const char *key, int lo, int hi,
                  int *out)
{
    int rc = pp_config_get_int(cfg, g, key, out);

    if (rc < 0)
        return rc;
    if (rc == 0 && (*out < lo || *out > hi))
        return pp_config_error(cfg, g, key, "must be a whole number from %d to %d (got %d)", lo,
                               hi, *out);
    return 0;
}

int pp_profile_parse_adaptive(const pp_config *cfg, const pp_config_setting *g,
                              pp_profile_adaptive *a)
{
    const pp_config_setting *ad = NULL;

    *a = (pp_profile_adaptive){0, -1, -1, -1, -1, -1};
    if (pp_config_get_group(cfg, g, "adaptive", &ad) < 0)
        return -EINVAL;
    if (!ad)
        return 0;
    a->given = 1;
    if (pp_config_check_keys(cfg, ad, adaptive_keys) < 0 ||
        pp_config_get_double(cfg, ad, "target_error", &a->target_error_pct) < 0 ||
        pp_config_get_double(cfg, ad, "budget_s", &a->budget_s) < 0 ||
        int_in(cfg, ad, "max_configs", 0, 100000000, &a->max_configs) < 0 ||
        int_in(cfg, ad, "seed", 0, 2000000000, &a->seed) < 0 ||
        int_in(cfg, ad, "batch", 1, 1000, &a->batch) < 0)
        return -EINVAL;
    if (pp_config_member(ad, "target_error") &&
        !(a->target_error_pct >= 0 && a->target_error_pct < 1000))
        return pp_config_error(cfg, ad, "target_error", "must be a percentage in [0, 1000) "
                               "(0: no target; got %g)", a->target_error_pct);
    if (pp_config_member(ad, "budget_s") && !(a->budget_s >= 0 && isfinite(a->budget_s)))
        return pp_config_error(cfg, ad, "budget_s", "must be seconds >= 0 (0: no budget; got %g)",
                               a->budget_s);
    return 0;
}
