/* Generic hwmon power sensors (Documentation/hwmon/sysfs-interface):
 *   /sys/class/hwmon/hwmon<N>/power<i>_input    instantaneous power, uW
 *   /sys/class/hwmon/hwmon<N>/power<i>_average  average power, uW (when no _input)
 *   /sys/class/hwmon/hwmon<N>/power<i>_label    rail label (optional)
 *   /sys/class/hwmon/hwmon<N>/name              chip name
 * A rail is named by its label, else by "<name>-power<i>". Rails of different
 * chips are independent: the total is their sum.
 */
#include "device.h"
#include "sysfs.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HWMON_GLOB "/sys/class/hwmon/hwmon*"
#define MAX_UW 1000000000LL /* 1 kW */

typedef struct hwmon_priv {
    size_t n;
    pp_sysfs_attr uw[PP_DEVICE_MAX_RAILS];
} hwmon_priv;

static int hwmon_probe(const pp_device_options *opts, char *why, size_t cap)
{
    if (pp_sysfs_count(opts->sysfs_root, HWMON_GLOB "/power*_input") > 0 ||
        pp_sysfs_count(opts->sysfs_root, HWMON_GLOB "/power*_average") > 0)
        return 0;
    if (why)
        pp_text(why, cap, "no power*_input under %s/sys/class/hwmon",
                 strcmp(opts->sysfs_root, "/") ? opts->sysfs_root : "");
    return -ENODEV;
}

static void hwmon_close(pp_device *dev)
{
    hwmon_priv *p = dev->priv;

    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        pp_sysfs_attr_close(&p->uw[i]);
    free(p);
    dev->priv = NULL;
}

static int open_chip(const char *dir, void *ctx)
{
    pp_device *dev = ctx;
    hwmon_priv *p = dev->priv;
    char path[PP_PATH_MAX], chip[32], label[PP_RAIL_NAME_MAX];

    if (pp_sysfs_at(path, sizeof path, dir, "name") < 0)
        return -ENAMETOOLONG;
    if (pp_sysfs_read_string(path, chip, sizeof chip) < 0 || !chip[0]) {
        const char *base = strrchr(dir, '/');
        pp_text(chip, sizeof chip, "%s", base ? base + 1 : dir); /* a label's start */
    }
    for (int i = 0; i <= 32; i++) {
        int idx, rc;

        if (pp_sysfs_at(path, sizeof path, dir, "power%d_average", i) < 0)
            return -ENAMETOOLONG; /* the longest of the three */
        pp_sysfs_at(path, sizeof path, dir, "power%d_input", i);
        if (access(path, F_OK) != 0) {
            pp_sysfs_at(path, sizeof path, dir, "power%d_average", i);
            if (access(path, F_OK) != 0)
                continue;
        }
        {
            char lpath[PP_PATH_MAX];
            pp_sysfs_at(lpath, sizeof lpath, dir, "power%d_label", i);
            if (pp_sysfs_read_string(lpath, label, sizeof label) < 0 || !label[0])
                pp_text(label, sizeof label, "%s-power%d", chip, i); /* fits: 31 + 8 */
        }
        idx = pp_device_add_rail(dev, label, 0);
        if (idx < 0)
            return idx;
        p->uw[idx].fd = -1;
        p->n = (size_t)idx + 1;
        rc = pp_sysfs_attr_open(&p->uw[idx], path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int hwmon_open(pp_device *dev)
{
    int rc;

    dev->priv = calloc(1, sizeof(hwmon_priv));
    if (!dev->priv)
        return -ENOMEM;
    rc = pp_sysfs_foreach(dev->root, HWMON_GLOB, open_chip, dev);
    if (rc < 0)
        hwmon_close(dev);
    return rc;
}

static int hwmon_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    hwmon_priv *p = dev->priv;

    (void)t_ns;
    for (size_t i = 0; i < p->n; i++) {
        int64_t uw;
        int rc = pp_sysfs_attr_read_i64(&p->uw[i], 0, MAX_UW, "uW", &uw);
        if (rc < 0)
            return rc;
        power_w[i] = (double)uw * 1e-6;
    }
    return 0;
}

const pp_device_ops pp_device_hwmon = {
    .name = "hwmon",
    .summary = "hwmon power sensors (power*_input, uW)",
    .flags = 0,
    .probe = hwmon_probe,
    .open = hwmon_open,
    .read = hwmon_read,
    .close = hwmon_close,
};
