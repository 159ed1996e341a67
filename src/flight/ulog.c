#include "ulog.h"

#include "src/base/file.h"
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
    uint64_t offset;           /* of its 'F' message, for errors */
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
    uint32_t *index;  /* open addressing on the name: fmt slot + 1, 0 empty */
    size_t index_size; /* a power of two, at least twice n_fmt */
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
        pp_ulog_samples_free(&f->bat[b]);
    pp_ulog_topics_free(&f->topics);
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

static uint64_t name_hash(const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */

    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 1099511628211ULL;
    return h;
}

/* The slot of name in the index: where it is, or the empty one it goes to. */
static size_t index_slot(const parser *p, const char *name, size_t len)
{
    size_t mask = p->index_size - 1, i = (size_t)name_hash(name, len) & mask;

    while (p->index[i]) {
        const format *fm = &p->fmt[p->index[i] - 1];
        if (fm->name_len == len && memcmp(fm->name, name, len) == 0)
            break;
        i = (i + 1) & mask;
    }
    return i;
}

/* The first format of that name, in time independent of the number of
 * formats (a linear search made a log of many formats quadratic). */
static const format *find_format(const parser *p, const char *name, size_t len)
{
    size_t i;

    if (!p->index_size)
        return NULL;
    i = index_slot(p, name, len);
    return p->index[i] ? &p->fmt[p->index[i] - 1] : NULL;
}

/* Format k into the index (a name defined again keeps its first
 * definition, as the linear search did); grown at half full. */
static int index_add(parser *p, size_t k)
{
    size_t i;

    if (2 * (k + 1) > p->index_size) {
        size_t size = p->index_size ? 2 * p->index_size : 256;
        uint32_t *n = calloc(size, sizeof *n);
        if (!n)
            return -ENOMEM;
        free(p->index);
        p->index = n;
        p->index_size = size;
        for (size_t j = 0; j < k; j++) {
            i = index_slot(p, p->fmt[j].name, p->fmt[j].name_len);
            if (!p->index[i])
                p->index[i] = (uint32_t)(j + 1);
        }
    }
    i = index_slot(p, p->fmt[k].name, p->fmt[k].name_len);
    if (!p->index[i])
        p->index[i] = (uint32_t)(k + 1);
    return 0;
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

/* Sample values no battery has: 0 when plausible, else which (counted). */
static int implausible(pp_ulog_flight *f, const double *v)
{
    if (!isfinite(v[F_TS]) || !isfinite(v[F_V]) || !isfinite(v[F_I])) {
        f->n_nonfinite++;
        return 1;
    }
    if (v[F_I] == -1.0) { /* PX4's "not measured" */
        f->n_unmeasured++;
        return 1;
    }
    if (!(v[F_V] > 0 && v[F_V] <= PP_ULOG_MAX_VOLTAGE_V) ||
        !(fabs(v[F_I]) <= PP_ULOG_MAX_CURRENT_A)) { /* as the CSV reader (flight_log.c): a
                                                       current below -1 A (regeneration, an
                                                       offset) is measured */
        f->n_implausible++;
        return 1;
    }
    return 0;
}

/* A sample of battery slot b from data d (len bytes). 0, -1 when short. */
static int add_sample(parser *p, size_t b, const uint8_t *d, size_t len)
{
    pp_ulog_battery *bat = &p->f->bat[b];
    double v[N_FIELDS];
    int bad = 0;

    for (size_t w = 0; w < N_FIELDS; w++) {
        if (p->fld[w].type && p->fld[w].offset + (size_t)p->fld[w].type > len)
            return -1;
        v[w] = p->fld[w].type ? value(d, &p->fld[w]) : NAN;
    }
    if (implausible(p->f, v))
        return 0;
    if (bat->n_logged && !(v[F_TS] / 1e6 > bat->last_t_s)) {
        p->f->n_backwards++;
        return 0;
    }
    double s[5] = {v[F_TS] / 1e6, v[F_V], v[F_I], v[F_MAH], v[F_REM]};
    int rc = pp_ulog_samples_add(bat, s);
    if (rc < 0)
        return -2;
    p->f->n_zero_sag += (size_t)rc;
    /* a cell count is a small whole number: anything else (3e9, inf, 2.5)
     * is left out, never converted (out of int's range that is undefined) */
    if (!isnan(v[F_CELLS]) && v[F_CELLS] >= 1 && v[F_CELLS] <= PP_ULOG_MAX_CELLS &&
        v[F_CELLS] == floor(v[F_CELLS]))
        bat->cell_count = (int)v[F_CELLS];
    else if (!isnan(v[F_CELLS]) && v[F_CELLS] != 0)
        bad = 1;
    if (v[F_CAP] > 0 && v[F_CAP] <= PP_ULOG_MAX_CAPACITY_MAH)
        bat->capacity_mah = v[F_CAP];
    else if (!isnan(v[F_CAP]) && v[F_CAP] != 0)
        bad = 1;
    p->f->n_bad_cells += (size_t)bad;
    return 0;
}

/* battery_status's layout, once its format is there: 1, or -1 when it does
 * not parse or lacks a field the reader needs (logged with the file and the
 * format's offset, as ulog.h promises). */
static int battery_layout(parser *p)
{
    const format *fm = find_format(p, TOPIC, strlen(TOPIC));
    size_t size, work = 0;
    int parsed;

    if (p->layout_done || !fm)
        return p->layout_done ? p->layout_done : -1;
    memset(p->fld, 0, sizeof p->fld);
    parsed = layout(p, fm, 0, &size, p->fld, &work) == 0;
    p->layout_done = parsed && p->fld[F_TS].type && p->fld[F_V].type && p->fld[F_I].type ? 1 : -1;
    if (!parsed)
        pp_log_error("%s: offset %llu: the format of " TOPIC " does not parse (a type of no "
                     "format or defined in terms of itself, nested deeper than %d, an array "
                     "size outside 1..65535, or more than 65535 bytes)", p->name,
                     (unsigned long long)fm->offset, MAX_DEPTH);
    else if (p->layout_done < 0)
        pp_log_error("%s: offset %llu: the format of " TOPIC " has no %s field of a number "
                     "type: its samples cannot be read", p->name,
                     (unsigned long long)fm->offset,
                     !p->fld[F_TS].type ? "timestamp" : !p->fld[F_V].type ? "voltage_v"
                                                                         : "current_a");
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
    if (!(fm = pp_grow(p->fmt, &p->cap_fmt, p->n_fmt, sizeof *fm, 64)))
        return -ENOMEM;
    p->fmt = fm;
    fm = &p->fmt[p->n_fmt++];
    *fm = (format){(const char *)d, (const char *)colon + 1, (size_t)(colon - d),
                   (size_t)(d + len - colon - 1), off};
    if (p->n_fmt >= UINT32_MAX || index_add(p, p->n_fmt - 1) < 0)
        return -ENOMEM;
    if (fm->name_len == strlen(TOPIC) && memcmp(d, TOPIC, fm->name_len) == 0)
        p->f->battery_defined = 1;
    return 0;
}

/* 'A': 0, 1 when corrupt (a name of no format), -EINVAL when it subscribes
 * to a battery_status whose format cannot be read (logged). */
static int on_subscribe(parser *p, const uint8_t *d, size_t len)
{
    const format *fm;
    int multi, id;

    if (len < 4 || !find_format(p, (const char *)d + 3, len - 3))
        return 1;
    multi = d[0];
    id = (int)le(d + 1, 2);
    p->sub[id] = -1;
    fm = find_format(p, (const char *)d + 3, len - 3);
    if (pp_ulog_topics_subscribe(&p->f->topics, (unsigned)id, multi, (const char *)d + 3, len - 3,
                                 fm->fields_len >= 18 && memcmp(fm->fields, "uint64_t timestamp",
                                                                18) == 0) < 0)
        return -ENOMEM;
    if (len - 3 != strlen(TOPIC) || memcmp(d + 3, TOPIC, len - 3) != 0)
        return 0;
    if (battery_layout(p) < 0)
        return -EINVAL;
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
        pp_ulog_topics_data(&p->f->topics, (unsigned)le(d, 2), d + 2, len - 2);
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

/* Say which samples were left out and why (never silently). */
static void report_left_out(const char *name, pp_ulog_flight *f)
{
    f->n_skipped = f->n_nonfinite + f->n_implausible + f->n_backwards; /* n_unmeasured apart */
    if (f->n_nonfinite)
        pp_log_warn("%s: %zu " TOPIC " samples left out: a time, voltage_v or current_a that "
                    "is not a finite number (NaN, inf)", name, f->n_nonfinite);
    if (f->n_unmeasured)
        pp_log_warn("%s: %zu " TOPIC " samples left out: current_a is -1, PX4's \"not "
                    "measured\"", name, f->n_unmeasured);
    if (f->n_implausible)
        pp_log_warn("%s: %zu " TOPIC " samples left out: values no battery has (voltage_v "
                    "outside (0, %g] V or current_a outside [-%g, %g] A)", name,
                    f->n_implausible, PP_ULOG_MAX_VOLTAGE_V, PP_ULOG_MAX_CURRENT_A,
                    PP_ULOG_MAX_CURRENT_A);
    if (f->n_backwards)
        pp_log_warn("%s: %zu " TOPIC " samples left out: their timestamp is not after the "
                    "sample before (the log's time goes back or repeats)", name, f->n_backwards);
    if (f->n_bad_cells)
        pp_log_warn("%s: %zu " TOPIC " samples with a cell_count or capacity no pack has "
                    "(not a whole number in 1..%d cells, not in (0, %g] mAh): left out of the "
                    "sample", name, f->n_bad_cells, PP_ULOG_MAX_CELLS, PP_ULOG_MAX_CAPACITY_MAH);
}

/* pp_ulog_parse_battery with the samples' options (ulog_samples.h). */
static int parse(const uint8_t *buf, size_t len, const char *name, pp_ulog_flight *f, int clean,
                 size_t keep_max)
{
    parser p = {buf, len, name, f, NULL, 0, 0, NULL, 0, NULL, {{0}}, 0, {0}, 0, 0};
    int rc;

    memset(f, 0, sizeof *f);
    for (size_t b = 0; b < PP_ULOG_MAX_BATTERIES; b++)
        f->bat[b].clean = clean, f->bat[b].keep_max = keep_max;
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
    free(p.index);
    for (size_t b = 0; b < PP_ULOG_MAX_BATTERIES; b++)
        if (pp_ulog_samples_end(&f->bat[b]) < 0 && rc == 0)
            rc = -ENOMEM;
    if (rc == 0)
        report_left_out(name, f);
    {
        size_t k = 0; /* keep the instances with samples */
        for (size_t b = 0; b < f->n_batteries; b++) {
            pp_ulog_battery keep = f->bat[b];
            if (keep.n == 0)
                pp_ulog_samples_free(&keep);
            else
                f->bat[k++] = keep;
        }
        for (size_t b = k; b < PP_ULOG_MAX_BATTERIES; b++)
            memset(&f->bat[b], 0, sizeof f->bat[b]);
        f->n_batteries = k;
    }
    return rc;
}

int pp_ulog_parse_battery(const uint8_t *buf, size_t len, const char *name, pp_ulog_flight *f)
{
    return parse(buf, len, name, f, 0, 0);
}

int pp_ulog_read_battery(const char *path, pp_ulog_flight *f)
{
    return pp_ulog_read_battery_opt(path, f, 0, 0);
}

int pp_ulog_read_battery_opt(const char *path, pp_ulog_flight *f, int clean, size_t keep_max)
{
    int fd, rc;
    struct stat st;
    void *map;

    memset(f, 0, sizeof *f);
    if ((fd = pp_file_open_regular(path)) < 0) /* a FIFO or a device refused */
        return fd;
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        pp_log_error("%s: %s", path, strerror(errno));
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
    rc = parse(map, (size_t)st.st_size, path, f, clean, keep_max);
    munmap(map, (size_t)st.st_size);
    return rc;
}

int pp_ulog_is_ulog(const char *path)
{
    uint8_t head[sizeof magic];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), ok;
    struct stat st;

    if (fd < 0)
        return 0;
    ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && /* never a FIFO's or a device's bytes */
         read(fd, head, sizeof head) == (ssize_t)sizeof head && memcmp(head, magic, sizeof head) == 0;
    close(fd);
    return ok;
}
