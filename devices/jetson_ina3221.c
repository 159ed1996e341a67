/* Jetson INA3221 power monitors.
 *
 * Two kernel drivers, both supported:
 *  - the old L4T IIO driver "ina3221x" (TX1, TX2, Nano on L4T <= 32):
 *      /sys/bus/i2c/drivers/ina3221x/<bus-addr>/iio:device<N>/
 *        rail_name_<c>        label of channel c (0..2)
 *        in_power<c>_input    power in mW
 *  - the mainline hwmon driver "ina3221" (Xavier, Orin, L4T >= 34):
 *      /sys/bus/i2c/drivers/ina3221/<bus-addr>/hwmon/hwmon<N>/
 *        in<c>_label          label of channel c (1..3); "NC" = not connected
 *        in<c>_input          bus voltage in mV
 *        curr<c>_input        current in mA
 *      (in4..in6 are shunt voltages, in7/curr4 the shunt-sum channel: never
 *      read, so nothing is counted twice.)
 * Rails are named by their labels; the one ending in "_IN" is the board input
 * and contains the others (pp_device_mark_board_input).
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

#define IIO_GLOB "/sys/bus/i2c/drivers/ina3221x/*/iio:device*"
#define HWMON_GLOB "/sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*"

/* Sanity limits: far beyond any Jetson module, small enough to catch garbage. */
#define MAX_POWER_MW 1000000  /* 1 kW */
#define MAX_BUS_MV 40000      /* the INA3221 bus input is rated to 26 V */
#define MIN_CURR_MA -100000
#define MAX_CURR_MA 100000

typedef struct ina_channel {
    int hwmon;             /* 0: IIO power in mW; 1: hwmon voltage x current */
    pp_sysfs_attr power;   /* IIO */
    pp_sysfs_attr voltage; /* hwmon */
    pp_sysfs_attr current; /* hwmon */
} ina_channel;

typedef struct ina_priv {
    size_t n;
    ina_channel ch[PP_DEVICE_MAX_RAILS];
} ina_priv;

static int ina_probe(const pp_device_options *opts, char *why, size_t cap)
{
    if (pp_sysfs_count(opts->sysfs_root, IIO_GLOB "/in_power[012]_input") > 0 ||
        pp_sysfs_count(opts->sysfs_root, HWMON_GLOB "/curr[123]_input") > 0)
        return 0;
    if (why)
        pp_text(why, cap, "no INA3221 under %s/sys/bus/i2c/drivers/ina3221{x,}",
                 strcmp(opts->sysfs_root, "/") ? opts->sysfs_root : "");
    return -ENODEV;
}

/* "<dir>/../.." basename: the i2c bus-address, for unlabelled channels. */
static void device_tag(const char *dir, int up, char *out, size_t cap)
{
    char tmp[PP_PATH_MAX];
    char *slash;

    pp_text(tmp, sizeof tmp, "%s", dir); /* fits: a folder found under PP_PATH_MAX */
    for (int i = 0; i < up; i++) {
        slash = strrchr(tmp, '/');
        if (slash)
            *slash = '\0';
    }
    slash = strrchr(tmp, '/');
    pp_text(out, cap, "%s", slash ? slash + 1 : tmp); /* a label's start */
}

static int add_channel(pp_device *dev, ina_priv *p, const char *label)
{
    int idx = pp_device_add_rail(dev, label, 0);
    if (idx < 0)
        return idx;
    p->ch[idx].power.fd = p->ch[idx].voltage.fd = p->ch[idx].current.fd = -1;
    p->n = (size_t)idx + 1;
    return idx;
}

static int open_iio(const char *dir, void *ctx)
{
    pp_device *dev = ctx;
    ina_priv *p = dev->priv;
    char path[PP_PATH_MAX], label[PP_RAIL_NAME_MAX], tag[64];

    device_tag(dir, 1, tag, sizeof tag);
    for (int c = 0; c < 3; c++) {
        int idx, rc;

        if (pp_sysfs_at(path, sizeof path, dir, "in_power%d_input", c) < 0)
            return -ENAMETOOLONG; /* the longest of the two */
        if (access(path, F_OK) != 0)
            continue;
        pp_sysfs_at(path, sizeof path, dir, "rail_name_%d", c);
        if (pp_sysfs_read_string(path, label, sizeof label) < 0 || !label[0])
            pp_text(label, sizeof label, "%s-ch%d", tag, c); /* a bus address: short */
        if (strcmp(label, "NC") == 0)
            continue;
        idx = add_channel(dev, p, label);
        if (idx < 0)
            return idx;
        pp_sysfs_at(path, sizeof path, dir, "in_power%d_input", c); /* fitted above */
        rc = pp_sysfs_attr_open(&p->ch[idx].power, path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int open_hwmon(const char *dir, void *ctx)
{
    pp_device *dev = ctx;
    ina_priv *p = dev->priv;
    char path[PP_PATH_MAX], label[PP_RAIL_NAME_MAX], tag[64];

    device_tag(dir, 2, tag, sizeof tag);
    for (int c = 1; c <= 3; c++) {
        int64_t enabled;
        int idx, rc;

        if (pp_sysfs_at(path, sizeof path, dir, "curr%d_input", c) < 0)
            return -ENAMETOOLONG; /* the longest of the four */
        if (access(path, F_OK) != 0)
            continue;
        pp_sysfs_at(path, sizeof path, dir, "in%d_enable", c);
        if (pp_sysfs_read_i64(path, &enabled) == 0 && enabled == 0)
            continue;
        pp_sysfs_at(path, sizeof path, dir, "in%d_label", c);
        if (pp_sysfs_read_string(path, label, sizeof label) < 0 || !label[0])
            pp_text(label, sizeof label, "%s-ch%d", tag, c); /* a bus address: short */
        if (strcmp(label, "NC") == 0)
            continue;
        idx = add_channel(dev, p, label);
        if (idx < 0)
            return idx;
        p->ch[idx].hwmon = 1;
        pp_sysfs_at(path, sizeof path, dir, "in%d_input", c);
        rc = pp_sysfs_attr_open(&p->ch[idx].voltage, path);
        if (rc < 0)
            return rc;
        pp_sysfs_at(path, sizeof path, dir, "curr%d_input", c);
        rc = pp_sysfs_attr_open(&p->ch[idx].current, path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void ina_close(pp_device *dev)
{
    ina_priv *p = dev->priv;

    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        pp_sysfs_attr_close(&p->ch[i].power);
        pp_sysfs_attr_close(&p->ch[i].voltage);
        pp_sysfs_attr_close(&p->ch[i].current);
    }
    free(p);
    dev->priv = NULL;
}

static int ina_open(pp_device *dev)
{
    int rc;

    dev->priv = calloc(1, sizeof(ina_priv));
    if (!dev->priv)
        return -ENOMEM;
    rc = pp_sysfs_foreach(dev->root, IIO_GLOB, open_iio, dev);
    if (rc == 0)
        rc = pp_sysfs_foreach(dev->root, HWMON_GLOB, open_hwmon, dev);
    if (rc < 0) {
        ina_close(dev);
        return rc;
    }
    pp_device_mark_board_input(dev);
    return 0;
}

static int ina_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    ina_priv *p = dev->priv;

    (void)t_ns;
    for (size_t i = 0; i < p->n; i++) {
        ina_channel *c = &p->ch[i];
        int64_t a, b;
        int rc;

        if (!c->hwmon) {
            rc = pp_sysfs_attr_read_i64(&c->power, 0, MAX_POWER_MW, "mW", &a);
            if (rc < 0)
                return rc;
            power_w[i] = (double)a * 1e-3;
        } else {
            rc = pp_sysfs_attr_read_i64(&c->voltage, 0, MAX_BUS_MV, "mV", &a);
            if (rc == 0)
                rc = pp_sysfs_attr_read_i64(&c->current, MIN_CURR_MA, MAX_CURR_MA, "mA", &b);
            if (rc < 0)
                return rc;
            power_w[i] = (double)a * (double)b * 1e-6;
        }
    }
    return 0;
}

const pp_device_ops pp_device_jetson_ina3221 = {
    .name = "jetson",
    .summary = "NVIDIA Jetson INA3221 rail monitors (ina3221x IIO or ina3221 hwmon driver)",
    .flags = 0,
    .probe = ina_probe,
    .open = ina_open,
    .read = ina_read,
    .close = ina_close,
};
