#include "util.h"

#include "log.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *skip_blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int only_blank_left(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return *s == '\0';
}

int pp_parse_double(const char *s, double *out)
{
    char *end;
    double v;

    s = skip_blank(s);
    if (*s == '\0' || *s == '\n')
        return -EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || !only_blank_left(end))
        return -EINVAL;
    if (!isfinite(v))
        return errno == ERANGE ? -ERANGE : -EINVAL;
    if (errno == ERANGE && fabs(v) > 1.0)
        return -ERANGE;
    *out = v;
    return 0;
}

int pp_parse_int64(const char *s, int64_t *out)
{
    char *end;
    long long v;

    s = skip_blank(s);
    if (*s == '\0' || *s == '\n')
        return -EINVAL;
    if (!isdigit((unsigned char)*s) && !((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))
        return -EINVAL;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return -ERANGE;
    if (end == s || !only_blank_left(end))
        return -EINVAL;
    *out = (int64_t)v;
    return 0;
}

int pp_read_small_file(const char *path, char *buf, size_t cap)
{
    int fd, err = 0;
    size_t len = 0;

    if (cap == 0)
        return -EINVAL;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    while (len + 1 < cap) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            err = -errno;
            break;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    if (err)
        return err;
    while (len > 0 && isspace((unsigned char)buf[len - 1]))
        len--;
    buf[len] = '\0';
    return (int)len;
}

char *pp_read_file(const char *path)
{
    FILE *fp = fopen(path, "r");
    char *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (!fp)
        return NULL;
    for (;;) {
        if (cap - len < 4096) {
            char *p = realloc(buf, cap ? cap * 2 : 8192);
            if (!p) {
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = p;
            cap = cap ? cap * 2 : 8192;
        }
        n = fread(buf + len, 1, cap - len - 1, fp);
        len += n;
        if (n == 0)
            break;
    }
    fclose(fp);
    buf[len] = '\0';
    return buf;
}

int pp_path_join(char *out, size_t cap, const char *a, const char *b)
{
    size_t la = strlen(a);
    int n;

    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    if (la == 1 && a[0] == '/')
        n = snprintf(out, cap, "/%s", b);
    else
        n = snprintf(out, cap, "%.*s/%s", (int)la, a, b);
    if (n < 0 || (size_t)n >= cap)
        return -ENAMETOOLONG;
    return 0;
}

int pp_strlcpy(char *dst, const char *src, size_t cap)
{
    size_t n = strlen(src);

    if (cap == 0)
        return -ENAMETOOLONG;
    if (n >= cap) {
        memcpy(dst, src, cap - 1);
        dst[cap - 1] = '\0';
        return -ENAMETOOLONG;
    }
    memcpy(dst, src, n + 1);
    return 0;
}

int pp_atomic_file_open(pp_atomic_file *af, const char *path)
{
    int fd, n;

    memset(af, 0, sizeof *af);
    if (pp_strlcpy(af->path, path, sizeof af->path) < 0)
        return -ENAMETOOLONG;
    n = snprintf(af->tmp_path, sizeof af->tmp_path, "%s.tmp.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof af->tmp_path)
        return -ENAMETOOLONG;
    fd = mkstemp(af->tmp_path);
    if (fd < 0) {
        int err = -errno;
        pp_log_error("%s: cannot create: %s", path, strerror(errno));
        af->tmp_path[0] = '\0';
        return err;
    }
    fchmod(fd, 0644);
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int err = -errno;
        close(fd);
        unlink(af->tmp_path);
        af->tmp_path[0] = '\0';
        return err;
    }
    return 0;
}

int pp_atomic_file_commit(pp_atomic_file *af)
{
    int err = 0;

    if (!af->fp)
        return -EBADF;
    if (fflush(af->fp) != 0 || ferror(af->fp))
        err = -errno;
    else if (fsync(fileno(af->fp)) != 0)
        err = -errno;
    if (fclose(af->fp) != 0 && !err)
        err = -errno;
    af->fp = NULL;
    if (!err && rename(af->tmp_path, af->path) != 0)
        err = -errno;
    if (err) {
        pp_log_error("%s: cannot write: %s", af->path, strerror(-err));
        unlink(af->tmp_path);
    }
    af->tmp_path[0] = '\0';
    return err;
}

void pp_atomic_file_abort(pp_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
    }
    if (af->tmp_path[0]) {
        unlink(af->tmp_path);
        af->tmp_path[0] = '\0';
    }
}

int pp_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

size_t pp_csv_split(char *line, char **fields, size_t cap)
{
    size_t n = 0;

    for (char *s = line;;) {
        char *comma = strchr(s, ',');
        if (n < cap)
            fields[n] = s;
        n++;
        if (!comma)
            break;
        *comma = '\0';
        s = comma + 1;
    }
    return n;
}
