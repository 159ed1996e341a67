/* RAPL through the powercap framework (Intel, and AMD Zen):
 *   /sys/class/powercap/intel-rapl:<p>[:<s>]/energy_uj            counter, uJ
 *   /sys/class/powercap/intel-rapl:<p>[:<s>]/max_energy_range_uj  wrap point
 *   /sys/class/powercap/intel-rapl:<p>[:<s>]/name  package-N, core, uncore, dram, psys
 * A reading is the mean power since the previous one, from the counter
 * difference (with wrap-around) over the sampler's time difference.
 * A counter that goes down has wrapped, or was reset (a CPU hot-plug, a
 * suspend, a firmware reset: it restarts from ~0 anywhere in its range).
 * Both look alike, but a reset taken as a wrap adds most of the range
 * (262 kJ): so a difference that implies more than a plausible power is
 * refused. Plausible: 10 x the zone's largest constraint_*_power_limit_uw
 * (its TDP-like limits) when it has one, else RAPL_CEILING_W; the time
 * difference is taken as at least 10 ms (the counters tick about every
 * 1 ms: at high rates a short interval can see two ticks). The read then
 * logs a warning, restarts every zone's difference from this reading and
 * returns -EAGAIN: the sample is dropped, the next one is good.
 * Since Linux 5.10 energy_uj is readable by root only (CVE-2020-8694).
 * Containment: core and uncore are inside their package; dram is not (on
 * servers it is a separate domain), so it stays top-level; psys, when
 * present, is the platform input and contains the packages.
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

#define RAPL_GLOB "/sys/class/powercap/intel-rapl:*"
#define RAPL_CEILING_W 2000.0    /* no RAPL zone of any machine draws this */
#define RAPL_LIMIT_FACTOR 10.0   /* x the zone's power limit */
#define RAPL_MIN_INTERVAL_NS 10000000LL

typedef struct rapl_zone {
    pp_sysfs_attr energy;
    double ceiling_w;      /* more is a counter reset, not power */
    int64_t max_range_uj;
    int64_t last_uj;
    int64_t last_t_ns;
    double last_w;
} rapl_zone;

typedef struct rapl_priv {
    size_t n;
    int have_time;
    rapl_zone z[PP_DEVICE_MAX_RAILS];
} rapl_priv;

static int rapl_probe(const pp_device_options *opts, char *why, size_t cap)
{
    glob_t g;
    int n = pp_sysfs_glob(opts->sysfs_root, RAPL_GLOB "/energy_uj", &g);
    int rc = -ENODEV;

    if (n <= 0) {
        if (why)
            pp_text(why, cap, "no RAPL zones under %s/sys/class/powercap",
                     strcmp(opts->sysfs_root, "/") ? opts->sysfs_root : "");
        globfree(&g);
        return -ENODEV;
    }
    if (access(g.gl_pathv[0], R_OK) == 0) {
        rc = 0;
    } else {
        rc = -errno;
        if (why && (rc == -EACCES || rc == -EPERM))
            pp_text(why, cap,
                     "%s is readable by root only (Linux >= 5.10): run as root, or "
                     "sudo chmod a+r %s/sys/class/powercap/intel-rapl:*/energy_uj",
                     g.gl_pathv[0], strcmp(opts->sysfs_root, "/") ? opts->sysfs_root : "");
        else if (why)
            pp_text(why, cap, "%s: %s", g.gl_pathv[0], strerror(-rc));
    }
    globfree(&g);
    return rc;
}

static void rapl_close(pp_device *dev)
{
    rapl_priv *p = dev->priv;

    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        pp_sysfs_attr_close(&p->z[i].energy);
    free(p);
    dev->priv = NULL;
}

/* Zone id "0" or "0:1" from ".../intel-rapl:0:1". */
static const char *zone_id(const char *dir)
{
    const char *c = strrchr(dir, '/');
    c = c ? c + 1 : dir;
    c = strchr(c, ':');
    return c ? c + 1 : "";
}

/* The ceiling of a zone: 10 x its largest power limit, else the fixed one. */
static double zone_ceiling_w(const char *dir)
{
    char pattern[PP_PATH_MAX];
    double limit_w = 0;
    glob_t g;

    if (pp_fmt(pattern, sizeof pattern, "%s/constraint_*_power_limit_uw", dir) < 0)
        return RAPL_CEILING_W; /* never: rapl_open refused a folder that long */
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++) {
            int64_t uw;
            if (pp_sysfs_read_i64(g.gl_pathv[i], &uw) == 0 && uw > 0 && uw * 1e-6 > limit_w)
                limit_w = (double)uw * 1e-6;
        }
    globfree(&g);
    return limit_w > 0 ? RAPL_LIMIT_FACTOR * limit_w : RAPL_CEILING_W;
}

/* The rail's name of the zone at dir (id its "N" or "N:M"; name its own):
 * a subzone "<package>-<part>", DRAM "<package>.dram". *parent: the
 * package's rail among the zones seen so far, or -1. */
static void zone_rail(const pp_device *dev, char ids[][16], const char *id, const char *name,
                      char *rail, size_t cap, int *parent)
{
    const char *sub = strchr(id, ':');

    *parent = -1;
    if (!sub) {
        pp_text(rail, cap, "%s", name);
        return;
    }
    for (size_t k = 0; k < dev->n_rails; k++)
        if (strncmp(ids[k], id, (size_t)(sub - id)) == 0 && ids[k][sub - id] == '\0')
            *parent = (int)k;
    pp_text(rail, cap, "%s%s%s", *parent >= 0 ? dev->rails[*parent].name : "zone",
            strcmp(name, "dram") == 0 ? "." : "-", name);
}

/* The zone at dir as a rail of dev: 0, or a negative errno (logged). A
 * folder without an energy counter is passed over (0, no rail). */
static int open_zone(pp_device *dev, rapl_priv *p, char ids[][16], const char *dir)
{
    char path[PP_PATH_MAX], name[PP_RAIL_NAME_MAX], rail[PP_RAIL_NAME_MAX];
    const char *id = zone_id(dir);
    int idx, parent, rc;
    rapl_zone *z;

    if ((rc = pp_sysfs_at(path, sizeof path, dir, "constraint_*_power_limit_uw")) < 0)
        return rc; /* longer than every file read below: they fit */
    pp_sysfs_at(path, sizeof path, dir, "energy_uj");
    if (access(path, F_OK) != 0)
        return 0;
    pp_sysfs_at(path, sizeof path, dir, "name");
    if (pp_sysfs_read_string(path, name, sizeof name) < 0 || !name[0])
        pp_text(name, sizeof name, "zone%s", id);
    zone_rail(dev, ids, id, name, rail, sizeof rail, &parent);
    if ((idx = pp_device_add_rail(dev, rail, 0)) < 0)
        return idx;
    if (pp_fmt(ids[idx], sizeof ids[idx], "%s", id) < 0) {
        pp_log_error("%s: a zone id longer than %zu characters", dir, sizeof ids[idx] - 1);
        return -EINVAL;
    }
    if (strcmp(name, "dram") != 0)
        dev->rails[idx].parent = parent;
    z = &p->z[idx];
    z->energy.fd = -1;
    z->ceiling_w = zone_ceiling_w(dir);
    p->n = (size_t)idx + 1;
    pp_sysfs_at(path, sizeof path, dir, "max_energy_range_uj");
    if (pp_sysfs_read_i64(path, &z->max_range_uj) < 0 || z->max_range_uj <= 0) {
        pp_log_error("%s: missing or invalid counter range", path);
        return -EINVAL;
    }
    pp_sysfs_at(path, sizeof path, dir, "energy_uj");
    rc = pp_sysfs_attr_open(&z->energy, path);
    if (rc == 0)
        rc = pp_sysfs_attr_read_i64(&z->energy, 0, z->max_range_uj, "uJ", &z->last_uj);
    return rc;
}

/* psys, the board's input, contains every package. */
static void link_psys(pp_device *dev)
{
    for (size_t k = 0; k < dev->n_rails; k++) {
        if (strcmp(dev->rails[k].name, "psys") != 0)
            continue;
        dev->rails[k].flags |= PP_RAIL_BOARD_INPUT;
        for (size_t j = 0; j < dev->n_rails; j++)
            if (j != k && dev->rails[j].parent < 0)
                dev->rails[j].parent = (int)k;
    }
}

static int rapl_open(pp_device *dev)
{
    rapl_priv *p = calloc(1, sizeof *p);
    char ids[PP_DEVICE_MAX_RAILS][16];
    glob_t g;
    int n, rc = 0;

    if (!p)
        return -ENOMEM;
    dev->priv = p;
    n = pp_sysfs_glob(dev->root, RAPL_GLOB, &g);
    for (int i = 0; i < n && rc == 0; i++)
        rc = open_zone(dev, p, ids, g.gl_pathv[i]);
    globfree(&g);
    if (n < 0)
        rc = n;
    if (rc == 0)
        link_psys(dev);
    if (rc < 0)
        rapl_close(dev);
    return rc;
}

static int rapl_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    rapl_priv *p = dev->priv;
    int reset = 0;

    for (size_t i = 0; i < p->n; i++) {
        rapl_zone *z = &p->z[i];
        int64_t uj, delta, dt_ns = t_ns - z->last_t_ns;
        int rc = pp_sysfs_attr_read_i64(&z->energy, 0, z->max_range_uj, "uJ", &uj);

        if (rc < 0)
            return rc;
        delta = uj >= z->last_uj ? uj - z->last_uj : z->max_range_uj - z->last_uj + uj;
        if (p->have_time && (double)delta * 1e-6 >
                                z->ceiling_w * (double)(dt_ns > RAPL_MIN_INTERVAL_NS
                                                            ? dt_ns
                                                            : RAPL_MIN_INTERVAL_NS) * 1e-9) {
            pp_log_warn("%s: %lld uJ after %lld uJ in %.3f s would be %.0f W, above the %.0f W "
                        "a zone can draw: a counter reset, not a wrap; sample dropped",
                        z->energy.path, (long long)uj, (long long)z->last_uj, dt_ns * 1e-9,
                        (double)delta * 1e-6 / ((dt_ns > 0 ? dt_ns : 1) * 1e-9), z->ceiling_w);
            reset = 1;
        } else if (p->have_time && dt_ns > 0) {
            z->last_w = (double)delta * 1e-6 / ((double)dt_ns * 1e-9);
        }
        z->last_uj = uj;
        z->last_t_ns = t_ns;
        power_w[i] = p->have_time ? z->last_w : 0.0;
    }
    p->have_time = 1;
    return reset ? -EAGAIN : 0;
}

const pp_device_ops pp_device_rapl = {
    .name = "rapl",
    .summary = "Intel/AMD RAPL energy counters (powercap)",
    .flags = PP_DEVICE_INTERVAL,
    .probe = rapl_probe,
    .open = rapl_open,
    .read = rapl_read,
    .close = rapl_close,
};
