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

/* The length of the decimal number at the start of s: [+-] digits [. digits]
 * [e [+-] digits], at least one digit before the exponent; 0 when there is
 * none. No hexadecimal, inf or nan: what strtod takes beyond this is refused. */
static size_t decimal_len(const char *s)
{
    size_t i = 0, digits = 0;

    if (s[i] == '+' || s[i] == '-')
        i++;
    for (; isdigit((unsigned char)s[i]); i++)
        digits++;
    if (s[i] == '.')
        for (i++; isdigit((unsigned char)s[i]); i++)
            digits++;
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (!isdigit((unsigned char)s[j]))
            return 0;
        while (isdigit((unsigned char)s[j]))
            j++;
        i = j;
    }
    return i;
}

int pp_parse_double(const char *s, double *out)
{
    char *end;
    double v;
    size_t len;

    s = skip_blank(s);
    if (*s == '\0' || *s == '\n')
        return -EINVAL;
    if ((len = decimal_len(s)) == 0 || !only_blank_left(s + len))
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

/* fd, opened non-blocking, if it is a regular file: made blocking again
 * and returned; else closed, -EISDIR (a folder) or -EINVAL (a FIFO, a
 * device, a socket: what a read could hang on or never end). */
static int keep_regular(int fd)
{
    struct stat st = {0};

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        close(fd);
        return rc;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int pp_open_regular(const char *path)
{
    return keep_regular(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
}

/* -ELOOP when name in dirfd is a symbolic link, else err. */
static int link_or(int dirfd, const char *name, int err)
{
    struct stat st;

    return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) ? -ELOOP
                                                                                      : err;
}

int pp_open_inside(int dirfd, const char *rel)
{
    char name[PP_PATH_MAX];
    int fd = dirfd, next;

    for (;;) {
        size_t len = strcspn(rel, "/");
        if (len == 0 || len >= sizeof name) {
            next = -EINVAL;
            break;
        }
        memcpy(name, rel, len);
        name[len] = '\0';
        if (rel[len] == '\0') {
            next = keep_regular(openat(fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
            next = next == -ELOOP ? -ELOOP : next < 0 ? link_or(fd, name, next) : next;
            break;
        }
        next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            next = link_or(fd, name, -errno);
            break;
        }
        if (fd != dirfd)
            close(fd);
        fd = next;
        rel += len + 1;
    }
    if (fd != dirfd)
        close(fd);
    return next;
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
        err = errno ? -errno : -EIO; /* ENOSPC from the write that failed, mostly */
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

int pp_path_in(char *out, size_t cap, const char *dir, const char *file)
{
    if (pp_fmt(out, cap, "%s/%s", dir, file) == 0)
        return 0;
    pp_log_error("%.80s...: a folder's path too long for %s in it (%zu characters, at most %zu)",
                 dir, file, strlen(dir), cap > strlen(file) + 1 ? cap - strlen(file) - 2 : 0);
    return -ENAMETOOLONG;
}

int pp_path_copy(char *dst, const char *path, size_t cap)
{
    if (pp_strlcpy(dst, path, cap) == 0)
        return 0;
    pp_log_error("%.80s...: a path of %zu characters, at most %zu", path, strlen(path),
                 cap ? cap - 1 : 0);
    return -ENAMETOOLONG;
}

const char *pp_vtext(char *buf, size_t cap, const char *fmt, va_list ap)
{
    int n = vsnprintf(buf, cap, fmt, ap);

    if (n < 0 && cap > 0)
        buf[0] = '\0';
    else if ((size_t)n >= cap && cap >= 4) /* cut: said so at its end */
        memcpy(buf + cap - 4, "...", 4);
    return buf;
}

const char *pp_text(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pp_vtext(buf, cap, fmt, ap);
    va_end(ap);
    return buf;
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

/* ---- Names from data ---------------------------------------------------- */

/* name for a message: bytes outside printable ASCII as \xNN, cut long. */
static void printable(const char *name, char *out, size_t cap)
{
    size_t len = 0;

    for (const unsigned char *c = (const unsigned char *)name; *c && len + 8 < cap; c++) {
        if (c - (const unsigned char *)name == 80) {
            len += (size_t)snprintf(out + len, cap - len, "...");
            break;
        }
        if (*c >= 0x20 && *c < 0x7f)
            out[len++] = (char)*c;
        else
            len += (size_t)snprintf(out + len, cap - len, "\\x%02x", *c);
    }
    out[len] = '\0';
}

static int name_char_ok(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '+';
}

int pp_label_ok(const char *label)
{
    size_t n = strlen(label);

    if (n == 0 || n >= PP_LABEL_MAX)
        return 0;
    for (const char *c = label; *c; c++)
        if (!name_char_ok((unsigned char)*c) && *c != '/' && *c != ':')
            return 0;
    return 1;
}

int pp_name_why(const char *name, char *why, size_t cap)
{
    size_t n = strlen(name);
    char shown[16];

    if (n == 0) {
        if (why)
            pp_text(why, cap, "an empty name (%s)", PP_NAME_RULE);
        return -EINVAL;
    }
    if (n >= PP_NAME_MAX) {
        if (why)
            pp_text(why, cap, "%zu characters, at most %d", n, PP_NAME_MAX - 1);
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (name_char_ok(c) && !(i == 0 && (c == '.' || c == '-')))
            continue;
        if (why) {
            char one[2] = {(char)c, '\0'};
            printable(one, shown, sizeof shown);
            pp_text(why, cap, "character '%s' at position %zu is not allowed (%s)", shown, i + 1,
                    PP_NAME_RULE);
        }
        return -EINVAL;
    }
    return 0;
}

int pp_name_check(const char *name, const char *what)
{
    char why[256], shown[512];

    if (pp_name_why(name, why, sizeof why) == 0)
        return 0;
    printable(name, shown, sizeof shown);
    pp_log_error("%s '%s': %s", what, shown, why);
    return -EINVAL;
}

/* Output of the formatters below: a buffer or a stream. */
typedef struct sink {
    char *buf;
    size_t cap, len;
    FILE *fp;
    int err;
} sink;

static void sink_put(sink *k, const char *s, size_t n)
{
    if (k->err)
        return;
    if (k->fp) {
        if (fwrite(s, 1, n, k->fp) != n)
            k->err = -EIO;
        return;
    }
    if (k->len + n >= k->cap) {
        k->err = -ENAMETOOLONG;
        return;
    }
    memcpy(k->buf + k->len, s, n);
    k->len += n;
    k->buf[k->len] = '\0';
}

/* One numeric conversion spec (flags, width, precision, length, type). */
static int put_number(sink *k, const char *spec, size_t n, va_list *ap)
{
    char fmt[32], out[512];
    char type = spec[n - 1];
    int longs = 0, size_t_len = 0;

    if (n >= sizeof fmt)
        return -EINVAL;
    memcpy(fmt, spec, n);
    fmt[n] = '\0';
    for (size_t i = 0; i < n; i++) {
        longs += spec[i] == 'l';
        size_t_len |= spec[i] == 'z';
    }
    if (type == 'g' || type == 'f' || type == 'e')
        snprintf(out, sizeof out, fmt, va_arg(*ap, double));
    else if (type == 'c' && n == 2)
        snprintf(out, sizeof out, fmt, va_arg(*ap, int));
    else if (type != 'd' && type != 'i' && type != 'u')
        return -EINVAL;
    else if (size_t_len)
        snprintf(out, sizeof out, fmt, va_arg(*ap, size_t));
    else if (longs == 2)
        snprintf(out, sizeof out, fmt, va_arg(*ap, long long));
    else if (longs == 1)
        snprintf(out, sizeof out, fmt, va_arg(*ap, long));
    else
        snprintf(out, sizeof out, fmt, va_arg(*ap, int));
    sink_put(k, out, strlen(out));
    return 0;
}

/* printf with the %s arguments handed to put_str. */
static int expand(sink *k, const char *fmt, va_list *ap, int (*put_str)(sink *, const char *))
{
    while (*fmt && !k->err) {
        const char *spec = fmt;
        size_t n;
        int rc;

        if (*fmt != '%') {
            n = strcspn(fmt, "%");
            sink_put(k, fmt, n);
            fmt += n;
            continue;
        }
        if (fmt[1] == '%') {
            sink_put(k, "%", 1);
            fmt += 2;
            continue;
        }
        n = 1 + strspn(fmt + 1, "-+ #0123456789.lz");
        if (!fmt[n])
            return -EINVAL;
        n++;
        rc = spec[n - 1] == 's' && n == 2 ? put_str(k, va_arg(*ap, const char *))
                                          : put_number(k, spec, n, ap);
        if (rc < 0)
            return rc;
        fmt += n;
    }
    return k->err;
}

static int put_name(sink *k, const char *name)
{
    if (pp_name_check(name, "a name in a file name") < 0)
        return -EINVAL;
    sink_put(k, name, strlen(name));
    return 0;
}

int pp_path_fmt(char *out, size_t cap, const char *dir, const char *fmt, ...)
{
    sink k = {out, cap, 0, NULL, 0};
    va_list ap;
    int rc;

    if (cap == 0)
        return -ENAMETOOLONG;
    out[0] = '\0';
    sink_put(&k, dir, strlen(dir));
    if (k.len == 0 || out[k.len - 1] != '/')
        sink_put(&k, "/", 1);
    va_start(ap, fmt);
    rc = expand(&k, fmt, &ap, put_name);
    va_end(ap);
    if (rc < 0)
        out[0] = '\0';
    if (rc == -ENAMETOOLONG)
        pp_log_error("%s/...: the path is too long", dir);
    return rc;
}

static int put_gp_string(sink *k, const char *s)
{
    char open = 0; /* the quote now open: '\'', '"' or none */

    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char want = *c >= 0x20 && *c < 0x7f && *c != '\'' ? '\'' : '"';
        if (open != want) {
            if (open)
                sink_put(k, &open, 1);
            if (c != (const unsigned char *)s)
                sink_put(k, ".", 1);
            sink_put(k, &want, 1);
            open = want;
        }
        if (want == '"') {
            char esc[8];
            snprintf(esc, sizeof esc, "\\%03o", *c);
            sink_put(k, esc, 4);
        } else {
            sink_put(k, (const char *)c, 1);
        }
    }
    if (open)
        sink_put(k, &open, 1);
    else
        sink_put(k, "''", 2);
    return k->err;
}

int pp_gp_quote(char *out, size_t cap, const char *s)
{
    sink k = {out, cap, 0, NULL, 0};

    if (cap == 0)
        return -ENAMETOOLONG;
    out[0] = '\0';
    if (put_gp_string(&k, s) < 0) {
        if (pp_strlcpy(out, "''", cap) < 0) /* no room even for an empty quote */
            out[0] = '\0';
        return -ENAMETOOLONG;
    }
    return 0;
}

int pp_gp_printf(FILE *fp, const char *fmt, ...)
{
    sink k = {NULL, 0, 0, fp, 0};
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = expand(&k, fmt, &ap, put_gp_string);
    va_end(ap);
    return rc;
}

/* ---- durations and fractions as people write them ---------------------- */

int pp_parse_fraction(const char *s, double *out)
{
    size_t len = strlen(s);
    char buf[64];

    while (len && (s[len - 1] == ' ' || s[len - 1] == '\n'))
        len--;
    if (len && s[len - 1] == '%' && len < sizeof buf) {
        memcpy(buf, s, len - 1);
        buf[len - 1] = '\0';
        if (pp_parse_double(buf, out) < 0)
            return -EINVAL;
        *out /= 100;
        return 0;
    }
    return pp_parse_double(s, out);
}

void pp_format_duration(double s, char *buf, size_t cap)
{
    if (!isfinite(s)) {
        snprintf(buf, cap, "%s", s > 0 ? "forever" : "unknown");
    } else if (s < 60) {
        snprintf(buf, cap, "%.1f s", s);
    } else if (s < 3600) {
        snprintf(buf, cap, "%.1f min", s / 60);
    } else {
        double min = round(s / 60);
        snprintf(buf, cap, "%.0f h %.0f min", floor(min / 60), fmod(min, 60));
    }
}

void *pp_grow(void *items, size_t *cap, size_t n, size_t elem, size_t first)
{
    size_t want = *cap ? 2 * *cap : first;
    void *q;

    if (n < *cap)
        return items;
    if (want > SIZE_MAX / elem || !(q = realloc(items, want * elem)))
        return NULL;
    *cap = want;
    return q;
}
