/* clocks.c - finding the clock domains, reading them and setting them
 * (clocks.h). */
#include "clocks.h"
#include "sysfs.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPUFREQ "/sys/devices/system/cpu/cpufreq/policy[0-9]*"
#define DEVFREQ "/sys/class/devfreq/*"
#define EMC "/sys/kernel/debug/bpmp/debug/clk/emc"

/* The GPU devfreq nodes of the Jetson boards, by the end of their name. */
static const char *const gpu_names[] = {"gk20a", "gm20b", "gp10b", "gv11b", "ga10b", ".gpu", NULL};

const char *pp_clock_kind_name(pp_clock_kind k)
{
    static const char *const names[] = {"cpu", "gpu", "emc"};
    return k < PP_CLOCK_KINDS ? names[k] : "?";
}

/* dir/name as text; 0, -ENOENT when absent, or -errno (logged). */
static int read_text(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[PP_PATH_MAX];
    int rc;

    if ((rc = pp_path_join(path, sizeof path, dir, name)) < 0)
        return rc;
    rc = pp_sysfs_read_string(path, buf, cap);
    if (rc < 0 && rc != -ENOENT)
        pp_log_error("%s: cannot read: %s", path, strerror(-rc));
    return rc;
}

/* dir/name as a frequency in unit_hz (1000 for kHz), in MHz. */
static int read_mhz(const char *dir, const char *name, double unit_hz, double *mhz)
{
    char buf[64], *end;
    double v;
    int rc = read_text(dir, name, buf, sizeof buf);

    if (rc < 0)
        return rc;
    errno = 0;
    v = strtod(buf, &end);
    if (end == buf || *end || !(v >= 0) || !isfinite(v)) {
        pp_log_error("%s/%s: '%s' is not a frequency", dir, name, buf);
        return -EINVAL;
    }
    *mhz = v * unit_hz / 1e6;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A table "f1 f2 ..." in unit_hz into d (sorted, duplicates dropped). */
static void parse_table(const char *text, double unit_hz, pp_clock_domain *d)
{
    char *end;
    size_t n = 0;

    for (const char *s = text; *s && n < PP_CLOCKS_MAX_FREQS; s = end) {
        double v = strtod(s, &end);
        if (end == s)
            break;
        if (v > 0 && isfinite(v))
            d->freqs_mhz[n++] = v * unit_hz / 1e6;
    }
    qsort(d->freqs_mhz, n, sizeof *d->freqs_mhz, cmp_double);
    d->n_freqs = 0;
    for (size_t i = 0; i < n; i++)
        if (!d->n_freqs || d->freqs_mhz[i] > d->freqs_mhz[d->n_freqs - 1])
            d->freqs_mhz[d->n_freqs++] = d->freqs_mhz[i];
    if (d->n_freqs) {
        d->min_mhz = d->freqs_mhz[0];
        d->max_mhz = d->freqs_mhz[d->n_freqs - 1];
    }
}

static int probe_cpu(const char *root, pp_clock_domain *d)
{
    char buf[4096];
    glob_t g;
    int n = pp_sysfs_glob(root, CPUFREQ, &g), rc = 0;

    if (n > PP_CLOCKS_MAX_POLICIES) { /* setting some of them only would be a lie */
        pp_log_warn("%s: %d cpufreq policies; powprof sets at most %d: the CPU clock is left "
                    "alone", g.gl_pathv[0], n, PP_CLOCKS_MAX_POLICIES);
        n = 0;
    }
    for (int i = 0; i < n && d->n_dirs < PP_CLOCKS_MAX_POLICIES; i++) {
        const char *dir = g.gl_pathv[i], *base = strrchr(dir, '/') + 1;
        if (d->n_dirs == 0) {
            if ((rc = read_text(dir, "scaling_governor", d->governor, sizeof d->governor)) < 0 ||
                (rc = read_mhz(dir, "cpuinfo_min_freq", 1e3, &d->min_mhz)) < 0 ||
                (rc = read_mhz(dir, "cpuinfo_max_freq", 1e3, &d->max_mhz)) < 0)
                break;
            if (read_text(dir, "scaling_available_frequencies", buf, sizeof buf) == 0)
                parse_table(buf, 1e3, d);
            d->has_userspace = read_text(dir, "scaling_available_governors", buf, sizeof buf) == 0 &&
                               strstr(buf, "userspace") != NULL;
        }
        if ((rc = pp_path_copy(d->dirs[d->n_dirs++], dir, PP_PATH_MAX)) < 0)
            break;
        pp_text(d->name + strlen(d->name), sizeof d->name - strlen(d->name), "%s%s",
                d->n_dirs > 1 ? "," : "", base); /* shown: policy0,policy4,... */
    }
    globfree(&g);
    d->present = rc == 0 && d->n_dirs > 0;
    return n < 0 ? n : rc;
}

/* 1 when the devfreq node's name is a Jetson GPU's. */
static int is_gpu(const char *dir)
{
    const char *base = strrchr(dir, '/') + 1;
    size_t len = strlen(base);

    for (size_t i = 0; gpu_names[i]; i++) {
        size_t k = strlen(gpu_names[i]);
        if (len >= k && strcmp(base + len - k, gpu_names[i]) == 0)
            return 1;
    }
    return 0;
}

static int probe_gpu(const char *root, pp_clock_domain *d)
{
    char buf[4096];
    glob_t g;
    int n = pp_sysfs_glob(root, DEVFREQ, &g), rc = 0;

    for (int i = 0; i < n && !d->present; i++) {
        const char *dir = g.gl_pathv[i];
        if (!is_gpu(dir))
            continue;
        if ((rc = pp_path_copy(d->dirs[0], dir, PP_PATH_MAX)) < 0)
            break;
        pp_text(d->name, sizeof d->name, "%s", strrchr(dir, '/') + 1); /* shown */
        d->n_dirs = 1;
        if ((rc = read_text(dir, "governor", d->governor, sizeof d->governor)) < 0 ||
            (rc = read_text(dir, "available_frequencies", buf, sizeof buf)) < 0)
            break;
        parse_table(buf, 1, d);
        d->present = d->n_freqs > 0;
        if (!d->present)
            pp_log_error("%s/available_frequencies: no frequency in '%s'", dir, buf);
    }
    globfree(&g);
    return n < 0 ? n : rc;
}

static int probe_emc(const char *root, pp_clock_domain *d)
{
    char dir[PP_PATH_MAX], buf[4096];
    int rc;

    if ((rc = pp_sysfs_path(dir, sizeof dir, root, EMC)) < 0)
        return rc;
    if (read_text(dir, "rate", buf, sizeof buf) < 0)
        return 0; /* no debugfs, or not mounted: no EMC domain */
    memcpy(d->dirs[0], dir, sizeof dir); /* the same size */
    memcpy(d->name, "emc", sizeof "emc");
    d->n_dirs = 1;
    if (read_text(dir, "possible_rates", buf, sizeof buf) == 0)
        parse_table(buf, 1, d);
    if (!d->n_freqs && ((rc = read_mhz(dir, "min_rate", 1, &d->min_mhz)) < 0 ||
                        (rc = read_mhz(dir, "max_rate", 1, &d->max_mhz)) < 0))
        return rc;
    d->present = 1;
    return 0;
}

int pp_clocks_probe(const char *root, pp_clocks *c)
{
    int rc;

    memset(c, 0, sizeof *c);
    if ((rc = pp_path_copy(c->root, root && *root ? root : "/", sizeof c->root)) < 0)
        return rc;
    if ((rc = probe_cpu(c->root, &c->dom[PP_CLOCK_CPU])) < 0 ||
        (rc = probe_gpu(c->root, &c->dom[PP_CLOCK_GPU])) < 0)
        return rc;
    return probe_emc(c->root, &c->dom[PP_CLOCK_EMC]);
}

int pp_clocks_read_mhz(const pp_clocks *c, pp_clock_kind k, double *mhz)
{
    const pp_clock_domain *d = &c->dom[k];
    int rc;

    if (!d->present)
        return -ENODEV;
    if (k == PP_CLOCK_GPU)
        return read_mhz(d->dirs[0], "cur_freq", 1, mhz);
    if (k == PP_CLOCK_EMC)
        return read_mhz(d->dirs[0], "rate", 1, mhz);
    *mhz = INFINITY;
    for (size_t i = 0; i < d->n_dirs; i++) {
        double v;
        if ((rc = read_mhz(d->dirs[i], "scaling_cur_freq", 1e3, &v)) < 0)
            return rc;
        *mhz = fmin(*mhz, v);
    }
    return 0;
}

void pp_clocks_table_text(const pp_clock_domain *d, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = 0;
    if (!d->n_freqs) {
        pp_text(buf, cap, "%g-%g", d->min_mhz, d->max_mhz);
        return;
    }
    for (size_t i = 0; i < d->n_freqs && len + 1 < cap; i++) {
        pp_text(buf + len, cap - len, "%s%g", i ? " " : "", d->freqs_mhz[i]);
        len += strlen(buf + len);
    }
}

int pp_clocks_check_mhz(const pp_clocks *c, pp_clock_kind k, double mhz, char *why, size_t cap)
{
    const pp_clock_domain *d = &c->dom[k];
    char table[1024];

    if (!d->present) {
        pp_text(why, cap, "%s_mhz: this board (root %s) has no %s clock powprof can set",
                pp_clock_kind_name(k), c->root, pp_clock_kind_name(k));
        return -ENODEV;
    }
    for (size_t i = 0; i < d->n_freqs; i++)
        if (fabs(d->freqs_mhz[i] - mhz) <= 0.5)
            return 0;
    if (!d->n_freqs && mhz >= d->min_mhz - 0.5 && mhz <= d->max_mhz + 0.5)
        return 0;
    pp_clocks_table_text(d, table, sizeof table);
    pp_text(why, cap, "%s_mhz = %g: not a frequency of %s (%s MHz)", pp_clock_kind_name(k), mhz,
            d->name, table);
    return -EINVAL;
}

int pp_clocks_holds(double set_mhz, double read_mhz)
{
    return fabs(read_mhz - set_mhz) <= fmax(0.5, 0.01 * set_mhz);
}

/* Setting a clock domain: the files written, whether they can be, and the
 * writes. */

/* The two files of a domain's pair in dir (setspeed's governor, min and
 * max, the EMC lock and rate). */
static void pair_of(const pp_clock_domain *d, pp_clock_kind k, const char **first,
                    const char **second)
{
    if (k == PP_CLOCK_CPU && d->has_userspace) {
        *first = "scaling_governor";
        *second = "scaling_setspeed";
    } else if (k == PP_CLOCK_CPU) {
        *first = "scaling_min_freq";
        *second = "scaling_max_freq";
    } else if (k == PP_CLOCK_GPU) {
        *first = "min_freq";
        *second = "max_freq";
    } else {
        *first = "mrq_rate_locked";
        *second = "rate";
    }
}

size_t pp_clocks_files(const pp_clocks *c, pp_clock_kind k, char (*paths)[PP_PATH_MAX], size_t cap)
{
    const pp_clock_domain *d = &c->dom[k];
    const char *first, *second;
    size_t n = 0;

    if (!d->present)
        return 0;
    pair_of(d, k, &first, &second);
    for (size_t i = 0; i < d->n_dirs && n + 2 <= cap; i++) {
        pp_path_join(paths[n++], PP_PATH_MAX, d->dirs[i], first);
        pp_path_join(paths[n++], PP_PATH_MAX, d->dirs[i], second);
    }
    return n;
}

void pp_clocks_write_error(const char *path, const char *text, int err, char *why, size_t cap)
{
    const char *cause;

    switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
        cause = "permission denied: setting a clock needs root (run powprof as root, or "
                "give this user write access to the file)";
        break;
    case EBUSY:
        cause = "busy: the kernel holds this clock (another governor, nvpmodel or a "
                "thermal limit); nothing was changed";
        break;
    case EINVAL:
        cause = "the kernel refused the value";
        break;
    case ENOENT:
        cause = "no such file: the board's kernel does not expose it";
        break;
    default:
        cause = strerror(err);
    }
    if (text[0])
        pp_text(why, cap, "%s: cannot write '%s': %s", path, text, cause);
    else
        pp_text(why, cap, "%s: cannot be written: %s", path, cause);
}

int pp_clocks_write(const char *path, const char *text, char *why, size_t cap)
{
    size_t len = strlen(text);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err = 0;

    if (fd < 0) {
        err = errno;
    } else {
        ssize_t n;
        do
            n = write(fd, text, len);
        while (n < 0 && errno == EINTR);
        if (n < 0 || (size_t)n != len)
            err = n < 0 ? errno : EIO;
        if (close(fd) < 0 && !err)
            err = errno;
    }
    if (err)
        pp_clocks_write_error(path, text, err, why, cap);
    return -err;
}

int pp_clocks_writable(const pp_clocks *c, pp_clock_kind k, char *why, size_t cap)
{
    char paths[2 * PP_CLOCKS_MAX_POLICIES][PP_PATH_MAX];
    size_t n = pp_clocks_files(c, k, paths, PP_ARRAY_SIZE(paths));

    if (!c->dom[k].present) {
        pp_text(why, cap, "this board (root %s) has no %s clock powprof can set", c->root,
                pp_clock_kind_name(k));
        return -ENODEV;
    }
    for (size_t i = 0; i < n; i++)
        if (access(paths[i], W_OK) < 0) {
            int err = errno;
            pp_clocks_write_error(paths[i], "", err, why, cap);
            return -err;
        }
    return 0;
}

/* The table's entry nearest mhz (the value as the kernel writes it). */
static double snap_mhz(const pp_clock_domain *d, double mhz)
{
    double best = mhz, dist = 0.5;

    for (size_t i = 0; i < d->n_freqs; i++)
        if (fabs(d->freqs_mhz[i] - mhz) <= dist) {
            dist = fabs(d->freqs_mhz[i] - mhz);
            best = d->freqs_mhz[i];
        }
    return best;
}

/* min = max = value in dir: the upper bound first unless value is below
 * the current lower bound, so that min <= max at every step. */
static int set_range(const char *dir, const char *min_name, const char *max_name, long long value,
                     char *why, size_t cap)
{
    char min_path[PP_PATH_MAX], max_path[PP_PATH_MAX], text[32], now[64];
    long long cur_min = 0;
    int rc;

    pp_path_join(min_path, sizeof min_path, dir, min_name);
    pp_path_join(max_path, sizeof max_path, dir, max_name);
    if (pp_fmt(text, sizeof text, "%lld", value) < 0)
        return -ERANGE; /* never: 20 digits */
    if (pp_read_small_file(min_path, now, sizeof now) >= 0)
        cur_min = strtoll(now, NULL, 10);
    if (value < cur_min) {
        if ((rc = pp_clocks_write(min_path, text, why, cap)) < 0)
            return rc;
        return pp_clocks_write(max_path, text, why, cap);
    }
    if ((rc = pp_clocks_write(max_path, text, why, cap)) < 0)
        return rc;
    return pp_clocks_write(min_path, text, why, cap);
}

/* Two writes in dir: first = a, then second = b. */
static int set_two(const char *dir, const char *first, const char *a, const char *second,
                   const char *b, char *why, size_t cap)
{
    char path[PP_PATH_MAX];
    int rc;

    pp_path_join(path, sizeof path, dir, first);
    if ((rc = pp_clocks_write(path, a, why, cap)) < 0)
        return rc;
    pp_path_join(path, sizeof path, dir, second);
    return pp_clocks_write(path, b, why, cap);
}

int pp_clocks_set(const pp_clocks *c, pp_clock_kind k, double mhz, char *why, size_t cap)
{
    const pp_clock_domain *d = &c->dom[k];
    double f = snap_mhz(d, mhz);
    char text[32];
    int rc;

    if ((rc = pp_clocks_check_mhz(c, k, mhz, why, cap)) < 0)
        return rc;
    if (k == PP_CLOCK_EMC) {
        if (pp_fmt(text, sizeof text, "%lld", llround(f * 1e6)) < 0)
            return -ERANGE; /* never: 20 digits */
        return set_two(d->dirs[0], "mrq_rate_locked", "1", "rate", text, why, cap);
    }
    for (size_t i = 0; i < d->n_dirs; i++) {
        if (k == PP_CLOCK_GPU)
            rc = set_range(d->dirs[i], "min_freq", "max_freq", llround(f * 1e6), why, cap);
        else if (d->has_userspace) {
            rc = pp_fmt(text, sizeof text, "%lld", llround(f * 1e3)) < 0
                 ? -ERANGE /* never: 20 digits */
                 : set_two(d->dirs[i], "scaling_governor", "userspace", "scaling_setspeed", text,
                           why, cap);
        } else
            rc = set_range(d->dirs[i], "scaling_min_freq", "scaling_max_freq", llround(f * 1e3),
                           why, cap);
        if (rc < 0)
            return rc;
    }
    return 0;
}
