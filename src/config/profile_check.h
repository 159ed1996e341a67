/* profile_check.h - checks of a whole profile once its components are
 * read (profile_check.c; profile.c calls it, it calls nothing of
 * profile.c): a warm-up that would leave no sample. */
#ifndef PP_PROFILE_CHECK_H
#define PP_PROFILE_CHECK_H

#include "config.h"

#include "components/component.h"

#include <stddef.h>

/* warmup_s not shorter than every configuration's run when each of the n
 * components runs for a duration (in sequence, sequential: their sum;
 * else the longest): -EINVAL, logged at the key's line of the profile
 * group of root; else 0. */
int pp_profile_check_warmup(const pp_config *cfg, const pp_config_setting *root,
                            double warmup_s, int sequential, const pp_component_spec *c,
                            size_t n);

#endif
