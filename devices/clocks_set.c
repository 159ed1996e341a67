/* clocks_set.c - setting a clock domain (clocks.h): the files written,
 * whether they can be, and the writes. */
#include "clocks.h"

#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
