/* profile_clocks.h - clocks and power modes as parameters of a profile
 * (issue 44):
 *
 *   clocks = { cpu_mhz = [1190.4, 2265.6]; gpu_mhz = [420.75, 828.75, 1377];
 *              emc_mhz = "available"; nvpmodel = [0, 2];
 *              nvpmodel_command = "/usr/sbin/nvpmodel"; };
 *
 * (nvpmodel may also stand at the top level: nvpmodel = [0, 2];). Each is
 * a parameter like a component's (a number, a list, a range; "available":
 * the board's own table, read under the profile's sysfs_root when it is
 * loaded), named clocks.cpu_mhz, clocks.gpu_mhz, clocks.emc_mhz,
 * clocks.nvpmodel in every output, after the components' parameters. The
 * sweep sets them before each configuration (src/sweep/sweep_clocks.h);
 * whether the board has them is checked there (a profile is also loaded
 * where it is modelled, away from the board). */
#ifndef PP_PROFILE_CLOCKS_H
#define PP_PROFILE_CLOCKS_H

#include "config.h"

#include "components/component.h"
#include "src/base/util.h"

#include <stddef.h>

/* What a clock parameter sets: a clock domain (devices/clocks.h's
 * pp_clock_kind: cpu 0, gpu 1, emc 2) or the power mode. */
#define PP_PROFILE_NVPMODEL 3
#define PP_PROFILE_CLOCK_PARAMS 4

typedef struct pp_profile_clocks {
    size_t n_params;
    pp_param_spec params[PP_PROFILE_CLOCK_PARAMS];
    int sets[PP_PROFILE_CLOCK_PARAMS]; /* per parameter: a pp_clock_kind or PP_PROFILE_NVPMODEL */
    char nvpmodel_command[PP_PATH_MAX];
} pp_profile_clocks;

/* How a parameter's value node is read (profile.c's: number, list, range). */
typedef int (*pp_profile_param_parser)(const pp_config *cfg, const pp_config_setting *node,
                                       const char *comp, pp_param_spec *ps);

/* The group "clocks" and the key "nvpmodel" of root (both optional) into
 * out, beside the n components comps. Errors (unknown key, a label, a
 * frequency not above 0, a mode not a whole number >= 0, nvpmodel given
 * twice, "available" on a board without that clock, a relative
 * nvpmodel_command, a component also called "clocks") are logged with the
 * file, the line and the key: -EINVAL. */
int pp_profile_parse_clocks(const pp_config *cfg, const pp_config_setting *root,
                            const char *sysfs_root, pp_profile_param_parser parse,
                            const pp_component_spec *comps, size_t n, pp_profile_clocks *out);

#endif
