/* thermal.c - the hottest thermal zone (thermal.h). */
#include "thermal.h"
#include "sysfs.h"

#include "src/base/util.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

int pp_thermal_max_c(const char *root, double *max_c, char *zone, size_t cap)
{
    glob_t g;
    int n = pp_sysfs_glob(root, "/sys/class/thermal/thermal_zone[0-9]*", &g), found = 0;

    for (int i = 0; i < n; i++) {
        char path[PP_PATH_MAX];
        int64_t milli;
        double c;
        if (pp_path_join(path, sizeof path, g.gl_pathv[i], "temp") < 0 ||
            pp_sysfs_read_i64(path, &milli) < 0)
            continue;
        c = (double)milli / 1000.0;
        if (c < -60 || c > 250 || (found && c <= *max_c))
            continue;
        *max_c = c;
        found = 1;
        if (zone && pp_path_join(path, sizeof path, g.gl_pathv[i], "type") == 0 &&
            pp_sysfs_read_string(path, zone, cap) < 0)
            pp_text(zone, cap, "%s", strrchr(g.gl_pathv[i], '/') + 1); /* shown */
    }
    globfree(&g);
    return found ? 0 : -ENODEV;
}
