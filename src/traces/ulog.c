#include "ulog.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER 16
#define MAX_DEPTH 8
#define MAX_WORK 100000 /* nested formats walked for one layout */
#define TOPIC "battery_status"

static const uint8_t magic[7] = {'U', 'L', 'o', 'g', 0x01, 0x12, 0x35};
static const uint8_t sync_magic[8] = {0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12};

enum { F_TS, F_V, F_I, F_MAH, F_REM, F_CELLS, F_CAP, N_FIELDS };
static const char *const wanted[N_FIELDS] = {"timestamp", "voltage_v", "current_a",
                                              "discharged_mah", "remaining", "cell_count",
                                              "capacity"};

typedef struct format {
    const char *name, *fields; /* into the buffer, not NUL-ended */
    size_t name_len, fields_len;
} format;

typedef struct field {
    int type;    /* 0: absent; else the size; negative: signed; 'f' float, 'd' double */
    char kind;   /* 'u', 'i', 'f', 'b' */
    size_t offset;
} field;

typedef struct parser {
    const uint8_t *buf;
    size_t len;
    const char *name;
    pp_ulog_flight *f;
    format *fmt;
    size_t n_fmt, cap_fmt;
    int32_t *sub;     /* msg_id -> instance slot of battery_status, -1 other, -2 none */
    field fld[N_FIELDS];
    int layout_done;  /* battery_status's layout known (1) or failed (-1) */
    uint64_t seg_end[4];
    size_t n_seg, seg;
} parser;

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;

    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

void pp_ulog_flight_free(pp_ulog_flight *f)
{
    for (size_t b = 0; b < PP_ULOG_MAX_BATTERIES; b++)
        free(f->bat[b].t_s);
    memset(f, 0, sizeof *f);
}

/* The size of a base type, and its kind; 0 when not one. */
static size_t base_type(const char *t, size_t len, char *kind)
{
    static const struct { const char *name; size_t size; char kind; } types[] = {
        {"int8_t", 1, 'i'},  {"uint8_t", 1, 'u'},  {"int16_t", 2, 'i'}, {"uint16_t", 2, 'u'},
        {"int32_t", 4, 'i'}, {"uint32_t", 4, 'u'}, {"int64_t", 8, 'i'}, {"uint64_t", 8, 'u'},
        {"float", 4, 'f'},   {"double", 8, 'f'},   {"bool", 1, 'u'},    {"char", 1, 'u'},
    };

    for (size_t i = 0; i < PP_ARRAY_SIZE(types); i++)
        if (strlen(types[i].name) == len && memcmp(t, types[i].name, len) == 0) {
            *kind = types[i].kind;
            return types[i].size;
        }
    return 0;
}

static const format *find_format(const parser *p, const char *name, size_t len)
{
    for (size_t i = 0; i < p->n_fmt; i++)
        if (p->fmt[i].name_len == len && memcmp(p->fmt[i].name, name, len) == 0)
            return &p->fmt[i];
    return NULL;
}

/* Walk format fm's fields: its size into *size; when fld is not NULL, the
 * wanted fields' offsets. -1 when it does not parse. */
static int layout(const parser *p, const format *fm, int depth, size_t *size, field *fld,
                  size_t *work)
{
    const char *s = fm->fields, *end = fm->fields + fm->fields_len;
    size_t off = 0;

    if (depth > MAX_DEPTH || ++*work > MAX_WORK)
        return -1; /* nested too deep, or too many fields to walk */
    while (s < end) {
        const char *semi = memchr(s, ';', (size_t)(end - s)), *sp, *br;
        size_t tlen, n = 1, esize;
        char kind = 0;
        if (!semi)
            semi = end;
        if (semi == s) {
            s++;
            continue;
        }
        if (!(sp = memchr(s, ' ', (size_t)(semi - s))) || sp == s || sp + 1 >= semi)
            return -1;
        tlen = (size_t)(sp - s);
        if ((br = memchr(s, '[', tlen))) {
            n = strtoul(br + 1, NULL, 10);
            if (n == 0 || n > 65535)
                return -1;
            tlen = (size_t)(br - s);
        }
        if (!(esize = base_type(s, tlen, &kind))) {
            const format *nested = find_format(p, s, tlen);
            if (!nested || layout(p, nested, depth + 1, &esize, NULL, work) < 0)
                return -1;
        }
        for (size_t w = 0; fld && w < N_FIELDS && kind; w++)
            if (n == 1 && strlen(wanted[w]) == (size_t)(semi - sp - 1) &&
                memcmp(sp + 1, wanted[w], strlen(wanted[w])) == 0)
                fld[w] = (field){(int)esize, kind, off};
        off += n * esize;
        if (off > 65535)
            return -1;
        s = semi + 1;
    }
    *size = off;
    return 0;
}

static double value(const uint8_t *d, const field *fl)
{
    uint64_t v = le(d + fl->offset, (size_t)fl->type);
    float f32;
    double f64;

    if (fl->kind == 'f' && fl->type == 4) {
        uint32_t u = (uint32_t)v;
        memcpy(&f32, &u, 4);
        return f32;
    }
    if (fl->kind == 'f') {
        memcpy(&f64, &v, 8);
        return f64;
    }
    if (fl->kind == 'i' && fl->type < 8 && (v >> (8 * fl->type - 1)) & 1)
        return (double)(int64_t)(v | (~0ULL << (8 * fl->type)));
    return fl->kind == 'i' ? (double)(int64_t)v : (double)v;
}

/* A sample of battery slot b from data d (len bytes). 0, -1 when short. */
static int add_sample(parser *p, size_t b, const uint8_t *d, size_t len)
{
    pp_ulog_battery *bat = &p->f->bat[b];
    double v[N_FIELDS];

    for (size_t w = 0; w < N_FIELDS; w++) {
        if (p->fld[w].type && p->fld[w].offset + (size_t)p->fld[w].type > len)
            return -1;
        v[w] = p->fld[w].type ? value(d, &p->fld[w]) : NAN;
    }
    if (!isfinite(v[F_TS]) || !isfinite(v[F_V]) || !isfinite(v[F_I]) ||
        (bat->n && !(v[F_TS] / 1e6 > bat->t_s[bat->n - 1]))) {
        p->f->n_skipped++;
        return 0;
    }
    if (bat->n == bat->cap) {
        size_t cap = bat->cap ? 2 * bat->cap : 256;
        double *a = malloc(5 * cap * sizeof *a);
        if (!a)
            return -2;
        double **cols[5] = {&bat->t_s, &bat->voltage_v, &bat->current_a, &bat->discharged_mah,
                            &bat->remaining};
        for (int k = 0; k < 5; k++) {
            if (bat->n)
                memcpy(a + (size_t)k * cap, *cols[k], bat->n * sizeof *a);
        }
        free(bat->t_s);
        for (int k = 0; k < 5; k++)
            *cols[k] = a + (size_t)k * cap;
        bat->cap = cap;
    }
    bat->t_s[bat->n] = v[F_TS] / 1e6;
    bat->voltage_v[bat->n] = v[F_V];
    bat->current_a[bat->n] = v[F_I];
    bat->discharged_mah[bat->n] = v[F_MAH];
    bat->remaining[bat->n++] = v[F_REM];
    if (!isnan(v[F_CELLS]))
        bat->cell_count = (int)v[F_CELLS];
    if (!isnan(v[F_CAP]))
        bat->capacity_mah = v[F_CAP];
    return 0;
}

/* battery_status's layout, once its format is there. */
static int battery_layout(parser *p)
{
    const format *fm = find_format(p, TOPIC, strlen(TOPIC));
    size_t size, work = 0;

    if (p->layout_done)
        return p->layout_done;
    memset(p->fld, 0, sizeof p->fld);
    if (!fm || layout(p, fm, 0, &size, p->fld, &work) < 0 || !p->fld[F_TS].type || !p->fld[F_V].type ||
        !p->fld[F_I].type)
        p->layout_done = -1;
    else
        p->layout_done = 1;
    return p->layout_done;
}

static int on_format(parser *p, const uint8_t *d, size_t len, uint64_t off)
{
    const uint8_t *colon = memchr(d, ':', len);
    format *fm;

    if (!colon || colon == d) {
        pp_log_error("%s: offset %llu: a format message without \"name:\"", p->name,
                     (unsigned long long)off);
        return -EINVAL;
    }
    if (p->n_fmt == p->cap_fmt) {
        size_t cap = p->cap_fmt ? 2 * p->cap_fmt : 64;
        format *n = realloc(p->fmt, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        p->fmt = n;
        p->cap_fmt = cap;
    }
    fm = &p->fmt[p->n_fmt++];
    *fm = (format){(const char *)d, (const char *)colon + 1, (size_t)(colon - d),
                   (size_t)(d + len - colon - 1)};
    if (fm->name_len == strlen(TOPIC) && memcmp(d, TOPIC, fm->name_len) == 0)
        p->f->battery_defined = 1;
    return 0;
}

/* 'A': 0, 1 when corrupt (a name of no format). */
static int on_subscribe(parser *p, const uint8_t *d, size_t len)
{
    int multi, id;

    if (len < 4 || !find_format(p, (const char *)d + 3, len - 3))
        return 1;
    multi = d[0];
    id = (int)le(d + 1, 2);
    p->sub[id] = -1;
    if (len - 3 != strlen(TOPIC) || memcmp(d + 3, TOPIC, len - 3) != 0 || battery_layout(p) < 0)
        return 0;
    for (size_t b = 0; b < PP_ULOG_MAX_BATTERIES; b++)
        if (b < p->f->n_batteries && p->f->bat[b].instance == multi) {
            p->sub[id] = (int32_t)b;
            return 0;
        }
    if (p->f->n_batteries < PP_ULOG_MAX_BATTERIES) {
        p->f->bat[p->f->n_batteries].instance = multi;
        p->sub[id] = (int32_t)p->f->n_batteries++;
    }
    return 0;
}

/* 'B' at off: 0, or -EINVAL (logged). */
static int on_flags(parser *p, const uint8_t *d, size_t len, uint64_t off)
{
    if (off != HEADER) {
        pp_log_error("%s: offset %llu: flag bits after the first message", p->name,
                     (unsigned long long)off);
        return -EINVAL;
    }
    if (len < 40) {
        pp_log_error("%s: offset %llu: flag bits of %zu bytes, 40 expected", p->name,
                     (unsigned long long)off, len);
        return -EINVAL;
    }
    for (int i = 0; i < 8; i++)
        if (d[8 + i] & (i == 0 ? 0xFE : 0xFF)) {
            pp_log_error("%s: incompatible flag byte %d is 0x%02x: a ULog feature this reader "
                         "does not know", p->name, i, d[8 + i]);
            return -EINVAL;
        }
    for (int i = 0; (d[8] & 1) && i < 3; i++) {
        uint64_t a = le(d + 16 + 8 * i, 8);
        if (a > off && a < p->len && (p->n_seg == 0 || a > p->seg_end[p->n_seg - 1]))
            p->seg_end[p->n_seg++] = a;
    }
    p->f->n_appended = p->n_seg;
    p->seg_end[p->n_seg++] = p->len;
    return 0;
}

/* The next sync marker at or after from, or len. */
static size_t next_sync(const parser *p, size_t from)
{
    const uint8_t *q = from < p->len ? memmem(p->buf + from, p->len - from, sync_magic, 8) : NULL;

    return q ? (size_t)(q - p->buf) - 3 : p->len;
}

/* One message of type t (len bytes at d, at off): 0, 1 corrupt, -errno. */
static int on_message(parser *p, int t, const uint8_t *d, size_t len, uint64_t off)
{
    int rc = 0;

    switch (t) {
    case 'B':
        return on_flags(p, d, len, off);
    case 'F':
        return on_format(p, d, len, off);
    case 'A':
        return on_subscribe(p, d, len);
    case 'R':
        if (len >= 2)
            p->sub[le(d, 2)] = -2;
        return 0;
    case 'D':
        if (len < 2 || p->sub[le(d, 2)] == -2)
            return 1;
        if (p->sub[le(d, 2)] >= 0)
            rc = add_sample(p, (size_t)p->sub[le(d, 2)], d + 2, len - 2);
        return rc == -2 ? -ENOMEM : rc < 0 ? 1 : 0;
    case 'L': case 'C':
        p->f->n_strings++;
        return 0;
    case 'O':
        p->f->n_dropouts++;
        return 0;
    case 'P':
        pp_ulog_on_param(p->f->params, d, len);
        return 0;
    case 'I': case 'M': case 'Q': case 'S':
        return 0;
    default:
        p->f->n_unknown++;
        return 0;
    }
}

/* A torn or corrupt message at off: a warning, and where to go on. */
static size_t skip(parser *p, size_t off, int corrupt)
{
    size_t end = (size_t)p->seg_end[p->seg], next;

    if (corrupt) {
        p->f->n_corrupt++;
        next = next_sync(p, off + 4); /* a marker after this message's start */
        pp_log_warn("%s: offset %zu: a corrupt message (data of no subscription, or shorter "
                    "than its format): %s", p->name, off,
                    next < p->len ? "skipped to the next sync marker"
                                  : "no sync marker after it, the rest of the log left out");
        return next;
    }
    if (end == p->len) {
        p->f->torn = 1;
        p->f->torn_offset = off;
        pp_log_warn("%s: the log ends inside a message at offset %zu (%zu bytes left): every "
                    "complete message before it is kept", p->name, off, p->len - off);
        return p->len;
    }
    pp_log_warn("%s: offset %zu: a message torn where appended data starts (offset %zu): left "
                "out", p->name, off, end);
    return end;
}

static int parse_messages(parser *p)
{
    size_t off = HEADER;
    int rc;

    while (off < p->len) {
        size_t end = (size_t)p->seg_end[p->seg], size;
        int t;
        if (off >= end && p->seg + 1 < p->n_seg) {
            p->seg++; /* appended data from its offset on (never back) */
            continue;
        }
        if (off + 3 > end || off + 3 + (size = le(p->buf + off, 2)) > end) {
            off = skip(p, off, 0);
            continue;
        }
        t = p->buf[off + 2];
        rc = on_message(p, t, p->buf + off + 3, size, off);
        if (rc < 0)
            return rc;
        if (rc == 1) {
            off = skip(p, off, 1);
            while (p->seg + 1 < p->n_seg && off >= p->seg_end[p->seg])
                p->seg++;
            continue;
        }
        p->f->n_messages++;
        off += 3 + size;
    }
    return 0;
}

int pp_ulog_parse_battery(const uint8_t *buf, size_t len, const char *name, pp_ulog_flight *f)
{
    parser p = {buf, len, name, f, NULL, 0, 0, NULL, {{0}}, 0, {0}, 0, 0};
    int rc;

    memset(f, 0, sizeof *f);
    if (len < HEADER || memcmp(buf, magic, sizeof magic) != 0) {
        pp_log_error("%s: %s", name, len >= sizeof magic && memcmp(buf, magic, sizeof magic) == 0
                                         ? "the ULog header is cut short (16 bytes expected)"
                                         : "not a ULog file (no \"ULog\" magic at its start)");
        return -EINVAL;
    }
    f->version = buf[7];
    f->start_us = le(buf + 8, 8);
    if (!(p.sub = malloc(65536 * sizeof *p.sub)))
        return -ENOMEM;
    for (size_t i = 0; i < 65536; i++)
        p.sub[i] = -2;
    p.seg_end[0] = len;
    p.n_seg = 1;
    if (len >= HEADER + 3 && buf[HEADER + 2] == 'B') {
        p.n_seg = 0; /* on_flags sets the segments */
        p.seg_end[0] = len;
    }
    rc = parse_messages(&p);
    free(p.sub);
    free(p.fmt);
    {
        size_t k = 0; /* keep the instances with samples */
        for (size_t b = 0; b < f->n_batteries; b++) {
            pp_ulog_battery keep = f->bat[b];
            if (keep.n == 0)
                free(keep.t_s);
            else
                f->bat[k++] = keep;
        }
        for (size_t b = k; b < PP_ULOG_MAX_BATTERIES; b++)
            memset(&f->bat[b], 0, sizeof f->bat[b]);
        f->n_batteries = k;
    }
    return rc;
}

int pp_ulog_read_battery(const char *path, pp_ulog_flight *f)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
    struct stat st;
    void *map;

    memset(f, 0, sizeof *f);
    if (fd < 0 || fstat(fd, &st) < 0) {
        rc = -errno;
        pp_log_error("%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    if (st.st_size < HEADER) {
        close(fd);
        pp_log_error("%s: %lld bytes: not a ULog file (its header alone is 16)", path,
                     (long long)st.st_size);
        return -EINVAL;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        pp_log_error("%s: %s", path, strerror(errno));
        return -EIO;
    }
    rc = pp_ulog_parse_battery(map, (size_t)st.st_size, path, f);
    munmap(map, (size_t)st.st_size);
    return rc;
}

int pp_ulog_is_ulog(const char *path)
{
    uint8_t head[sizeof magic];
    int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

    if (fd < 0)
        return 0;
    ok = read(fd, head, sizeof head) == (ssize_t)sizeof head && memcmp(head, magic, sizeof head) == 0;
    close(fd);
    return ok;
}
