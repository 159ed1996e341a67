/* Laptop battery (Documentation/ABI/testing/sysfs-class-power):
 *   /sys/class/power_supply/BAT<N>/power_now    uW
 *   /sys/class/power_supply/BAT<N>/current_now  uA  } when power_now is absent:
 *   /sys/class/power_supply/BAT<N>/voltage_now  uV  } P = I x U
 *   /sys/class/power_supply/BAT<N>/status       Discharging, Charging, Full, ...
 * Only while discharging is the battery's power the machine's draw; opening
 * a battery in any other state logs a warning.
 */
#include "device.h"
#include "power_supply.h"
#include "sysfs.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BAT_GLOB "/sys/class/power_supply/BAT*"
#define MAX_UW 1000000000LL     /* 1 kW */
#define MAX_UA 100000000LL      /* 100 A */
#define MAX_UV 100000000LL      /* 100 V */

typedef struct bat_priv {
    size_t n;
    struct {
        int has_power;
        pp_sysfs_attr power, current, voltage;
    } b[PP_DEVICE_MAX_RAILS];
} bat_priv;

static int has_file(const char *dir, const char *name)
{
    char path[PP_PATH_MAX];
    return pp_sysfs_at(path, sizeof path, dir, "%s", name) == 0 && access(path, F_OK) == 0;
}

static int usable(const char *dir)
{
    return has_file(dir, "power_now") || (has_file(dir, "current_now") && has_file(dir, "voltage_now"));
}

static int found_usable(const char *dir, void *ctx)
{
    (void)ctx;
    return usable(dir);
}

static int bat_probe(const pp_device_options *opts, char *why, size_t cap)
{
    if (pp_sysfs_foreach(opts->sysfs_root, BAT_GLOB, found_usable, NULL) > 0)
        return 0;
    if (why)
        pp_text(why, cap,
                "no battery with power_now or current_now under %s/sys/class/power_supply",
                strcmp(opts->sysfs_root, "/") ? opts->sysfs_root : "");
    return -ENODEV;
}

static void bat_close(pp_device *dev)
{
    bat_priv *p = dev->priv;

    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        pp_sysfs_attr_close(&p->b[i].power);
        pp_sysfs_attr_close(&p->b[i].current);
        pp_sysfs_attr_close(&p->b[i].voltage);
    }
    free(p);
    dev->priv = NULL;
}

static int open_battery(const char *dir, void *ctx)
{
    pp_device *dev = ctx;
    bat_priv *p = dev->priv;
    char path[PP_PATH_MAX], status[32];
    const char *base = strrchr(dir, '/');
    int idx, rc;

    if (!usable(dir))
        return 0;
    base = base ? base + 1 : dir;
    idx = pp_device_add_rail(dev, base, 0);
    if (idx < 0)
        return idx;
    p->b[idx].power.fd = p->b[idx].current.fd = p->b[idx].voltage.fd = -1;
    p->n = (size_t)idx + 1;
    if (pp_sysfs_at(path, sizeof path, dir, "status") < 0)
        return -ENAMETOOLONG;
    if (pp_sysfs_read_string(path, status, sizeof status) == 0 && strcmp(status, "Discharging") != 0)
        pp_log_warn("%s: battery is '%s', not 'Discharging': its power is not the machine's draw "
                    "until the charger is unplugged", path, status);
    if (has_file(dir, "power_now")) {
        p->b[idx].has_power = 1;
        rc = pp_sysfs_at(path, sizeof path, dir, "power_now");
        return rc < 0 ? rc : pp_sysfs_attr_open(&p->b[idx].power, path);
    }
    rc = pp_sysfs_at(path, sizeof path, dir, "current_now");
    if (rc == 0)
        rc = pp_sysfs_attr_open(&p->b[idx].current, path);
    if (rc == 0)
        rc = pp_sysfs_at(path, sizeof path, dir, "voltage_now");
    return rc < 0 ? rc : pp_sysfs_attr_open(&p->b[idx].voltage, path);
}

static int bat_open(pp_device *dev)
{
    int rc;

    dev->priv = calloc(1, sizeof(bat_priv));
    if (!dev->priv)
        return -ENOMEM;
    rc = pp_sysfs_foreach(dev->root, BAT_GLOB, open_battery, dev);
    if (rc < 0)
        bat_close(dev);
    return rc;
}

static int bat_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    bat_priv *p = dev->priv;

    (void)t_ns;
    for (size_t i = 0; i < p->n; i++) {
        int64_t a, b;
        int rc;

        if (p->b[i].has_power) {
            rc = pp_sysfs_attr_read_i64(&p->b[i].power, 0, MAX_UW, "uW", &a);
            if (rc < 0)
                return rc;
            power_w[i] = (double)a * 1e-6;
            continue;
        }
        /* Some drivers report a discharge current as negative. */
        rc = pp_sysfs_attr_read_i64(&p->b[i].current, -MAX_UA, MAX_UA, "uA", &a);
        if (rc == 0)
            rc = pp_sysfs_attr_read_i64(&p->b[i].voltage, 0, MAX_UV, "uV", &b);
        if (rc < 0)
            return rc;
        power_w[i] = (double)(a < 0 ? -a : a) * 1e-6 * (double)b * 1e-6;
    }
    return 0;
}

const pp_device_ops pp_device_power_supply = {
    .name = "battery",
    .summary = "laptop battery discharge power (power_supply power_now, or current x voltage)",
    .flags = 0,
    .probe = bat_probe,
    .open = bat_open,
    .read = bat_read,
    .close = bat_close,
};

/* ---- the state for the governor (power_supply.h) ---------------------- */

typedef struct find_ctx {
    const char *want;
    char dir[PATH_MAX];
    char names[256];
} find_ctx;

static int find_battery(const char *dir, void *ctx)
{
    find_ctx *f = ctx;
    const char *base = strrchr(dir, '/');
    size_t len = strlen(f->names);

    base = base ? base + 1 : dir;
    if (len + strlen(base) + 3 < sizeof f->names)
        snprintf(f->names + len, sizeof f->names - len, "%s%s", len ? ", " : "", base);
    if (f->dir[0] || (f->want && strcmp(base, f->want) != 0) ||
        (!f->want && !has_file(dir, "capacity") && !has_file(dir, "voltage_now")))
        return 0;
    return pp_path_copy(f->dir, dir, sizeof f->dir);
}

/* An optional attribute in [lo, hi] times scale into *out (NaN when the
 * file is not there). 0 or -EINVAL (logged). */
static int optional_attr(const char *dir, const char *file, int64_t lo, int64_t hi, double scale,
                         double *out)
{
    char path[PATH_MAX], text[64];
    int64_t v;

    *out = NAN;
    if (pp_sysfs_at(path, sizeof path, dir, "%s", file) < 0)
        return -EINVAL;
    if (pp_sysfs_read_string(path, text, sizeof text) < 0)
        return 0;
    text[strcspn(text, "\n")] = '\0';
    if (pp_parse_int64(text, &v) < 0 || v < lo || v > hi) {
        pp_log_error("%s: '%s' is not a number in [%lld, %lld]", path, text, (long long)lo,
                     (long long)hi);
        return -EINVAL;
    }
    *out = (double)v * scale;
    return 0;
}

int pp_power_supply_state_read(const char *root, const char *name, pp_power_supply_state *s)
{
    find_ctx f = {name, "", ""};
    char path[PATH_MAX];
    double p_w;
    int rc;

    memset(s, 0, sizeof *s);
    pp_sysfs_foreach(root, BAT_GLOB, find_battery, &f);
    if (!f.dir[0]) {
        pp_log_error("power_supply%s%s: no such battery under %s/sys/class/power_supply (there: "
                     "%s)", name ? ":" : "", name ? name : "", strcmp(root, "/") ? root : "",
                     f.names[0] ? f.names : "none");
        return -ENODEV;
    }
    if (pp_strlcpy(s->name, strrchr(f.dir, '/') + 1, sizeof s->name) < 0) {
        pp_log_error("%s: a battery's name longer than %zu characters", f.dir, sizeof s->name - 1);
        return -ENAMETOOLONG;
    }
    if ((rc = optional_attr(f.dir, "capacity", 0, 100, 0.01, &s->soc_frac)) < 0 ||
        (rc = optional_attr(f.dir, "voltage_now", 0, MAX_UV, 1e-6, &s->voltage_v)) < 0 ||
        (rc = optional_attr(f.dir, "current_now", -MAX_UA, MAX_UA, 1e-6, &s->current_a)) < 0 ||
        (rc = optional_attr(f.dir, "power_now", 0, MAX_UW, 1e-6, &p_w)) < 0)
        return rc;
    s->current_a = fabs(s->current_a);
    if (isnan(s->current_a) && s->voltage_v > 0)
        s->current_a = p_w / s->voltage_v;
    if (pp_sysfs_at(path, sizeof path, f.dir, "status") == 0 &&
        pp_sysfs_read_string(path, s->status, sizeof s->status) == 0)
        s->status[strcspn(s->status, "\n")] = '\0';
    return 0;
}
