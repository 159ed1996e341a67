#include "sysfs.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

int pp_sysfs_path(char *out, size_t cap, const char *root, const char *rel)
{
    return pp_path_join(out, cap, root && *root ? root : "/", rel);
}

int pp_sysfs_at(char *out, size_t cap, const char *dir, const char *fmt, ...)
{
    char attr[256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(attr, sizeof attr, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof attr && pp_fmt(out, cap, "%s/%s", dir, attr) == 0)
        return 0;
    pp_log_error("%.80s...: a folder's path too long for %s in it", dir, attr);
    return -ENAMETOOLONG;
}

int pp_sysfs_glob(const char *root, const char *pattern, glob_t *g)
{
    char buf[2 * PP_PATH_MAX];
    size_t n = 0;
    int rc;

    memset(g, 0, sizeof *g);
    if (!root || !*root)
        root = "/";
    for (const char *s = root; *s; s++) {
        if (n + 3 >= sizeof buf)
            return -ENAMETOOLONG;
        if (strchr("*?[]\\", *s))
            buf[n++] = '\\';
        buf[n++] = *s;
    }
    while (n > 0 && buf[n - 1] == '/')
        n--;
    if (pattern[0] != '/' && n + 1 < sizeof buf)
        buf[n++] = '/';
    if (n + strlen(pattern) + 1 > sizeof buf)
        return -ENAMETOOLONG;
    strcpy(buf + n, pattern);
    rc = glob(buf, 0, NULL, g);
    if (rc == GLOB_NOMATCH)
        return 0;
    if (rc != 0)
        return rc == GLOB_NOSPACE ? -ENOMEM : -EIO;
    return (int)g->gl_pathc;
}

int pp_sysfs_count(const char *root, const char *pattern)
{
    glob_t g;
    int n = pp_sysfs_glob(root, pattern, &g);

    globfree(&g);
    return n;
}

int pp_sysfs_foreach(const char *root, const char *pattern, int (*fn)(const char *path, void *ctx),
                     void *ctx)
{
    glob_t g;
    int n = pp_sysfs_glob(root, pattern, &g), rc = 0;

    for (int i = 0; i < n && rc == 0; i++)
        rc = fn(g.gl_pathv[i], ctx);
    globfree(&g);
    return n < 0 ? n : rc;
}

int pp_sysfs_attr_open(pp_sysfs_attr *a, const char *path)
{
    if (pp_strlcpy(a->path, path, sizeof a->path) < 0) {
        a->fd = -1;
        return -ENAMETOOLONG;
    }
    a->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (a->fd < 0) {
        int err = -errno;
        if (err == -EACCES || err == -EPERM)
            pp_log_error("%s: permission denied: run as root, or grant read access "
                         "(sudo chmod a+r %s)", path, path);
        else
            pp_log_error("%s: cannot open: %s", path, strerror(-err));
        return err;
    }
    return 0;
}

void pp_sysfs_attr_close(pp_sysfs_attr *a)
{
    if (a->fd >= 0)
        close(a->fd);
    a->fd = -1;
}

/* pread the value into buf; 0 or -errno, logged. */
static int attr_read_text(pp_sysfs_attr *a, char *buf, size_t cap)
{
    ssize_t n;

    do
        n = pread(a->fd, buf, cap - 1, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        int err = errno;
        if (err == ENODEV || err == ENOENT || err == EIO || err == ENXIO) {
            pp_log_error("%s: sensor disappeared (%s)", a->path, strerror(err));
            return -ENODEV;
        }
        pp_log_error("%s: cannot read: %s", a->path, strerror(err));
        return -err;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r'))
        n--;
    buf[n] = '\0';
    if (n == 0) {
        pp_log_error("%s: empty value", a->path);
        return -EINVAL;
    }
    return 0;
}

int pp_sysfs_attr_read_i64(pp_sysfs_attr *a, int64_t min, int64_t max, const char *unit,
                           int64_t *out)
{
    char buf[64];
    int64_t v;
    int rc = attr_read_text(a, buf, sizeof buf);

    if (rc < 0)
        return rc;
    rc = pp_parse_int64(buf, &v);
    if (rc < 0) {
        pp_log_error("%s: '%s' is not an integer (%s expected)", a->path, buf, unit);
        return -EINVAL;
    }
    if (v < min || v > max) {
        pp_log_error("%s: %lld %s is out of range [%lld, %lld]", a->path, (long long)v, unit,
                     (long long)min, (long long)max);
        return -ERANGE;
    }
    *out = v;
    return 0;
}

int pp_sysfs_attr_read_double(pp_sysfs_attr *a, double min, double max, const char *unit,
                              double *out)
{
    char buf[64];
    double v;
    int rc = attr_read_text(a, buf, sizeof buf);

    if (rc < 0)
        return rc;
    rc = pp_parse_double(buf, &v);
    if (rc < 0) {
        pp_log_error("%s: '%s' is not a number (%s expected)", a->path, buf, unit);
        return -EINVAL;
    }
    if (v < min || v > max) {
        pp_log_error("%s: %g %s is out of range [%g, %g]", a->path, v, unit, min, max);
        return -ERANGE;
    }
    *out = v;
    return 0;
}

int pp_sysfs_read_string(const char *path, char *buf, size_t cap)
{
    int rc = pp_read_small_file(path, buf, cap);
    return rc < 0 ? rc : 0;
}

int pp_sysfs_read_i64(const char *path, int64_t *out)
{
    char buf[64];
    int rc = pp_read_small_file(path, buf, sizeof buf);

    if (rc < 0)
        return rc;
    return pp_parse_int64(buf, out);
}
