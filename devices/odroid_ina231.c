/* ODROID-XU3/XU4 INA231 power sensors (Hardkernel's INA231 driver):
 *   /sys/bus/i2c/drivers/INA231/<bus>-<addr>/sensor_W   power in watts (text)
 *   /sys/bus/i2c/drivers/INA231/<bus>-<addr>/enable     "1" to measure
 * Addresses name the rails: 0x40 A15 (big cores), 0x41 memory, 0x44 GPU,
 * 0x45 A7 (little cores). There is no board-input sensor: the rails are
 * independent and the total is their sum. Opening the device switches on
 * the sensors that are off (enable), and logs each one it switched:
 * powprof writes nothing else under /sys.
 */
#include "device.h"
#include "sysfs.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INA231_GLOB "/sys/bus/i2c/drivers/INA231/*-00*"
#define MAX_W 1000.0

typedef struct ina231_priv {
    size_t n;
    pp_sysfs_attr w[PP_DEVICE_MAX_RAILS];
} ina231_priv;

static int ina231_probe(const pp_device_options *opts, char *why, size_t cap)
{
    if (pp_sysfs_count(opts->sysfs_root, INA231_GLOB "/sensor_W") > 0)
        return 0;
    if (why)
        pp_text(why, cap, "no INA231 under %s/sys/bus/i2c/drivers/INA231",
                 strcmp(opts->sysfs_root, "/") ? opts->sysfs_root : "");
    return -ENODEV;
}

static const char *rail_for_address(const char *dir)
{
    const char *base = strrchr(dir, '/');
    const char *addr;

    base = base ? base + 1 : dir;
    addr = strchr(base, '-');
    if (!addr)
        return base;
    if (strcmp(addr, "-0040") == 0)
        return "A15";
    if (strcmp(addr, "-0041") == 0)
        return "MEM";
    if (strcmp(addr, "-0044") == 0)
        return "GPU";
    if (strcmp(addr, "-0045") == 0)
        return "A7";
    return base;
}

/* Switch the sensor on, saying so: the only write powprof makes to sysfs.
 * A sensor already on is left alone (no write, no write access needed). */
static int enable_sensor(const char *dir)
{
    char path[PP_PATH_MAX];
    int64_t on;
    int fd;

    if (pp_sysfs_at(path, sizeof path, dir, "enable") < 0)
        return -ENAMETOOLONG;
    if (pp_sysfs_read_i64(path, &on) == 0 && on == 1)
        return 0;
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "1\n", 2) != 2) {
        int err = errno;
        pp_log_error("%s: cannot enable the sensor: %s (run as root, or echo 1 > %s)", path,
                     strerror(err), path);
        if (fd >= 0)
            close(fd);
        return -err;
    }
    close(fd);
    pp_log_info("odroid: switched the INA231 sensor on: wrote 1 to %s (it was off; it stays on)",
                path);
    return 0;
}

static void ina231_close(pp_device *dev)
{
    ina231_priv *p = dev->priv;

    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        pp_sysfs_attr_close(&p->w[i]);
    free(p);
    dev->priv = NULL;
}

static int open_sensor(const char *dir, void *ctx)
{
    pp_device *dev = ctx;
    ina231_priv *p = dev->priv;
    char path[PP_PATH_MAX];
    int idx, rc;

    if (pp_sysfs_at(path, sizeof path, dir, "sensor_W") < 0)
        return -ENAMETOOLONG;
    if (access(path, F_OK) != 0)
        return 0;
    rc = enable_sensor(dir);
    if (rc < 0)
        return rc;
    idx = pp_device_add_rail(dev, rail_for_address(dir), 0);
    if (idx < 0)
        return idx;
    p->w[idx].fd = -1;
    p->n = (size_t)idx + 1;
    return pp_sysfs_attr_open(&p->w[idx], path);
}

static int ina231_open(pp_device *dev)
{
    int rc;

    dev->priv = calloc(1, sizeof(ina231_priv));
    if (!dev->priv)
        return -ENOMEM;
    rc = pp_sysfs_foreach(dev->root, INA231_GLOB, open_sensor, dev);
    if (rc < 0)
        ina231_close(dev);
    return rc;
}

static int ina231_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    ina231_priv *p = dev->priv;

    (void)t_ns;
    for (size_t i = 0; i < p->n; i++) {
        int rc = pp_sysfs_attr_read_double(&p->w[i], 0.0, MAX_W, "W", &power_w[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

const pp_device_ops pp_device_odroid_ina231 = {
    .name = "odroid",
    .summary = "ODROID-XU3/XU4 INA231 sensors (A15, A7, memory, GPU)",
    .flags = 0,
    .probe = ina231_probe,
    .open = ina231_open,
    .read = ina231_read,
    .close = ina231_close,
};
