#include "trace.h"

#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/util.h"


#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pp_rail_is_board_input(const char *label)
{
    size_t n = strlen(label);
    return n > 3 && strcmp(label + n - 3, "_IN") == 0;
}

int pp_trace_init(pp_trace *t, size_t n_rails, const char *const *names)
{
    memset(t, 0, sizeof *t);
    if (n_rails == 0 || n_rails > PP_TRACE_MAX_RAILS)
        return -EINVAL;
    for (size_t i = 0; i < n_rails; i++)
        if (!names[i] || !names[i][0] || pp_strlcpy(t->names[i], names[i], PP_TRACE_NAME_MAX) < 0)
            return -EINVAL;
    t->n_rails = n_rails;
    return 0;
}

void pp_trace_free(pp_trace *t)
{
    free(t->t_s);
    free(t->power_w);
    t->t_s = t->power_w = NULL;
    t->n_samples = t->cap = 0;
}

int pp_trace_append(pp_trace *t, double t_s, const double *power_w)
{
    if (t->n_samples == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        double *ts = realloc(t->t_s, cap * sizeof *ts);
        double *pw;
        if (!ts)
            return -ENOMEM;
        t->t_s = ts;
        pw = realloc(t->power_w, cap * t->n_rails * sizeof *pw);
        if (!pw)
            return -ENOMEM;
        t->power_w = pw;
        t->cap = cap;
    }
    t->t_s[t->n_samples] = t_s;
    memcpy(t->power_w + t->n_samples * t->n_rails, power_w, t->n_rails * sizeof *power_w);
    t->n_samples++;
    return 0;
}

/* Energy between two samples dt apart: an interval reading holds over the
 * interval it ends; instantaneous readings are joined by a straight line. */
static double step_j(int interval_average, double p_prev, double p, double dt)
{
    return interval_average ? p * dt : 0.5 * (p_prev + p) * dt;
}

double pp_trace_energy_j(const pp_trace *t, size_t rail)
{
    double e = 0.0;

    for (size_t i = 0; i < t->n_samples; i++) {
        if (i == 0 && !t->interval_average)
            continue;
        e += step_j(t->interval_average, i ? pp_trace_at(t, i - 1, rail) : 0.0,
                    pp_trace_at(t, i, rail), t->t_s[i] - (i ? t->t_s[i - 1] : 0.0));
    }
    return e;
}

double pp_trace_duration_s(const pp_trace *t)
{
    if (t->n_samples == 0)
        return 0.0;
    if (t->interval_average)
        return t->t_s[t->n_samples - 1];
    return t->t_s[t->n_samples - 1] - t->t_s[0];
}

double pp_trace_mean_w(const pp_trace *t, size_t rail)
{
    double d = pp_trace_duration_s(t);

    if (t->n_samples == 0)
        return 0.0;
    if (d <= 0.0) {
        double sum = 0.0;
        for (size_t i = 0; i < t->n_samples; i++)
            sum += pp_trace_at(t, i, rail);
        return sum / (double)t->n_samples;
    }
    return pp_trace_energy_j(t, rail) / d;
}

int pp_trace_rail_is_inside(const pp_trace *t, size_t r)
{
    const char *name = t->names[r];

    for (size_t k = 0; k < t->n_rails; k++) {
        const char *other = t->names[k];
        size_t len = strlen(other);
        if (k == r)
            continue;
        if (pp_rail_is_board_input(other) && !pp_rail_is_board_input(name))
            return 1;
        if (strcmp(other, "psys") == 0)
            return 1;
        if (strncmp(name, other, len) == 0 && name[len] == '-')
            return 1;
    }
    return 0;
}

void pp_trace_total_series(const pp_trace *t, double *out)
{
    int top[PP_TRACE_MAX_RAILS];

    for (size_t r = 0; r < t->n_rails; r++)
        top[r] = !pp_trace_rail_is_inside(t, r);
    for (size_t i = 0; i < t->n_samples; i++) {
        double sum = 0.0;
        for (size_t r = 0; r < t->n_rails; r++)
            if (top[r])
                sum += pp_trace_at(t, i, r);
        out[i] = sum;
    }
}

/* ---- Formatting ---------------------------------------------------------- */

int pp_trace_format_header(char *buf, size_t cap, size_t n_rails, const char *const *names)
{
    size_t len = 0;
    int n = snprintf(buf, cap, "t_s");

    for (size_t r = 0;; r++) {
        if (n < 0 || (len += (size_t)n) + 1 >= cap)
            return -1;
        if (r == n_rails)
            break;
        n = snprintf(buf + len, cap - len, ",%s_w", names[r]);
    }
    buf[len++] = '\n';
    buf[len] = '\0';
    return (int)len;
}

/* %.6f keeps microseconds and microwatts; values too large for it to stay
 * short (a replayed 1e300) keep their 17 significant digits instead. */
static int format_value(char *buf, size_t cap, const char *sep, double v)
{
    return snprintf(buf, cap, fabs(v) < 1e12 ? "%s%.6f" : "%s%.17g", sep, v);
}

int pp_trace_format_row(char *buf, size_t cap, double t_s, const double *power_w,
                        size_t n_rails)
{
    size_t len = 0;
    int n = format_value(buf, cap, "", t_s);

    for (size_t r = 0;; r++) {
        if (n < 0 || (len += (size_t)n) + 1 >= cap)
            return -1;
        if (r == n_rails)
            break;
        n = power_w ? format_value(buf + len, cap - len, ",", power_w[r])
                    : snprintf(buf + len, cap - len, ",");
    }
    buf[len++] = '\n';
    buf[len] = '\0';
    return (int)len;
}

int pp_trace_write_csv(const pp_trace *t, const char *path)
{
    const char *names[PP_TRACE_MAX_RAILS];
    char row[PP_TRACE_ROW_MAX];
    pp_atomic_file af;
    int rc;

    for (size_t r = 0; r < t->n_rails; r++)
        names[r] = t->names[r];
    if (pp_trace_format_header(row, sizeof row, t->n_rails, names) < 0) {
        pp_log_error("%s: the rail names are too long for a header", path);
        return -EINVAL;
    }
    rc = pp_atomic_file_open(&af, path);
    if (rc < 0)
        return rc;
    fputs(row, af.fp);
    for (size_t i = 0; i < t->n_samples; i++) {
        pp_trace_format_row(row, sizeof row, t->t_s[i], t->power_w + i * t->n_rails, t->n_rails);
        fputs(row, af.fp);
    }
    return pp_atomic_file_commit(&af);
}

/* ---- Reading --------------------------------------------------------------- */

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static int field_is_empty(const char *f)
{
    f += strspn(f, " \t");
    return *f == '\0';
}

int pp_trace_csv_row_is_gap(char *const *fields, size_t n, size_t time_col)
{
    if (n < 2)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (i != time_col && !field_is_empty(fields[i]))
            return 0;
    return 1;
}

/* A whole row: n_fields fields, every one a number (or a gap row). */
static int whole_row(const char *line, size_t len, size_t n_fields)
{
    char *copy = malloc(len + 1), *fields[PP_TRACE_MAX_RAILS * 2 + 2];
    size_t m;
    int ok = 0;
    double v;

    if (!copy)
        return 0;
    memcpy(copy, line, len);
    copy[len] = '\0';
    chomp(copy);
    m = pp_csv_split(copy, fields, PP_ARRAY_SIZE(fields));
    if (m == n_fields && m <= PP_ARRAY_SIZE(fields)) {
        ok = 1;
        for (size_t i = 0; i < m && ok; i++)
            ok = pp_parse_double(fields[i], &v) == 0;
        if (!ok)
            ok = pp_trace_csv_row_is_gap(fields, m, 0) && pp_parse_double(fields[0], &v) == 0;
    }
    free(copy);
    return ok;
}

int pp_trace_csv_line_cut(const char *path, long line_no, const char *line, ssize_t len,
                          size_t n_fields)
{
    int nul = len > 0 && memchr(line, '\0', (size_t)len) != NULL;

    if (len <= 0 || (line[len - 1] == '\n' && !nul))
        return 0;
    if (!nul && whole_row(line, (size_t)len, n_fields)) {
        pp_log_warn("%s:%ld: the last line has no newline (was the file cut short?); it is a "
                    "whole row and is read", path, line_no);
        return 0;
    }
    pp_log_warn("%s:%ld: the file ends with an incomplete line (cut short by a crash or a "
                "power loss?): read up to line %ld", path, line_no, line_no - 1);
    return 1;
}

/* A trace file read row by row: the header into head (names only). */
typedef struct reader {
    const char *path;
    FILE *fp;
    char *line;
    size_t line_cap;
    long line_no;
    pp_trace head;
    double last_t;
    size_t n_rows, n_gaps;
} reader;

static void reader_close(reader *r)
{
    if (r->n_gaps > 1)
        pp_log_warn("%s: %zu gaps in the readings, joined over", r->path, r->n_gaps);
    free(r->line);
    if (r->fp)
        fclose(r->fp);
    r->fp = NULL;
    r->line = NULL;
}

static int reader_header(reader *r)
{
    char *fields[PP_TRACE_MAX_RAILS + 2];
    const char *names[PP_TRACE_MAX_RAILS];
    size_t n;

    chomp(r->line);
    n = pp_csv_split(r->line, fields, PP_ARRAY_SIZE(fields));
    if (n < 2 || n > PP_TRACE_MAX_RAILS + 1 || strcmp(fields[0], "t_s") != 0) {
        pp_log_error("%s:1: header must be 't_s' then 1 to %d '<rail>_w' columns", r->path,
                     PP_TRACE_MAX_RAILS);
        return -EINVAL;
    }
    for (size_t i = 1; i < n; i++) {
        size_t len = strlen(fields[i]);
        if (len < 3 || strcmp(fields[i] + len - 2, "_w") != 0 || len - 2 >= PP_TRACE_NAME_MAX) {
            pp_log_error("%s:1: column %zu '%s' is not '<rail>_w'", r->path, i + 1, fields[i]);
            return -EINVAL;
        }
        fields[i][len - 2] = '\0';
        names[i - 1] = fields[i];
    }
    if (pp_trace_init(&r->head, n - 1, names) < 0) {
        pp_log_error("%s:1: bad header", r->path);
        return -EINVAL;
    }
    return 0;
}

static int reader_open(reader *r, const char *path)
{
    int rc;

    memset(r, 0, sizeof *r);
    r->path = path;
    r->fp = pp_file_fopen_regular(path); /* a FIFO or a device refused, never waited on */
    if (!r->fp)
        return -errno;
    r->line_no = 1;
    if ((rc = (int)pp_file_getline_max(&r->line, &r->line_cap, r->fp, PP_TRACE_LINE_MAX)) < 0) {
        if (rc == -2)
            pp_log_error("%s:1: the header is longer than %zu bytes: not a trace", path,
                         (size_t)PP_TRACE_LINE_MAX);
        else
            pp_log_error("%s:1: empty file (a header 't_s,<rail>_w,...' is expected)", path);
        rc = -EINVAL;
    } else {
        rc = reader_header(r);
    }
    if (rc < 0)
        reader_close(r);
    return rc;
}

static int reader_time(reader *r, const char *field, double *t_s)
{
    if (pp_parse_double(field, t_s) < 0) {
        pp_log_error("%s:%ld: field 1 '%s' is not a finite number", r->path, r->line_no, field);
        return -EINVAL;
    }
    if (r->n_rows > 0 && *t_s < r->last_t) {
        pp_log_error("%s:%ld: time goes backwards (%.6f s after %.6f s)", r->path, r->line_no,
                     *t_s, r->last_t);
        return -EINVAL;
    }
    r->last_t = *t_s;
    r->n_rows++;
    return 0;
}

/* The next sample into *t_s and row[n_rails]: 1, 0 at the end, or -errno
 * (logged). Gap rows are counted and skipped. */
static int reader_next(reader *r, double *t_s, double *row)
{
    char *fields[PP_TRACE_MAX_RAILS + 2];
    size_t n = r->head.n_rails + 1, m;
    ssize_t len;

    while ((len = pp_file_getline_max(&r->line, &r->line_cap, r->fp, PP_TRACE_LINE_MAX)) != -1) {
        r->line_no++;
        if (len == -2) {
            pp_log_error("%s:%ld: a line longer than %zu bytes: not a trace row", r->path,
                         r->line_no, (size_t)PP_TRACE_LINE_MAX);
            return -EINVAL;
        }
        if (pp_trace_csv_line_cut(r->path, r->line_no, r->line, len, n))
            return 0;
        chomp(r->line);
        if (r->line[0] == '\0')
            continue;
        m = pp_csv_split(r->line, fields, PP_ARRAY_SIZE(fields));
        if (m != n) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", r->path, r->line_no, m, n);
            return -EINVAL;
        }
        if (pp_trace_csv_row_is_gap(fields, m, 0)) {
            if (reader_time(r, fields[0], t_s) < 0)
                return -EINVAL;
            if (r->n_gaps++ == 0)
                pp_log_warn("%s:%ld: a gap in the readings at %.6f s (a row without values): "
                            "the samples on either side are joined", r->path, r->line_no, *t_s);
            continue;
        }
        for (size_t i = 1; i < m; i++) {
            if (pp_parse_double(fields[i], &row[i - 1]) < 0) {
                pp_log_error("%s:%ld: field %zu '%s' is not a finite number", r->path, r->line_no,
                             i + 1, fields[i]);
                return -EINVAL;
            }
        }
        return reader_time(r, fields[0], t_s) < 0 ? -EINVAL : 1;
    }
    return 0;
}

int pp_trace_read_csv(const char *path, pp_trace *t)
{
    reader r;
    double ts, row[PP_TRACE_MAX_RAILS];
    int rc;

    memset(t, 0, sizeof *t);
    rc = reader_open(&r, path);
    if (rc < 0)
        return rc;
    *t = r.head;
    while ((rc = reader_next(&r, &ts, row)) > 0)
        if ((rc = pp_trace_append(t, ts, row)) < 0)
            break;
    t->n_gaps = r.n_gaps;
    if (rc == 0 && t->n_samples == 0) {
        pp_log_error("%s: no samples after the header", path);
        rc = -EINVAL;
    }
    reader_close(&r);
    if (rc < 0) {
        pp_trace_free(t);
        memset(t, 0, sizeof *t);
    }
    return rc;
}

/* ---- The load of a trace --------------------------------------------------- */

/* Lines of the file (a last one without newline counted). 0 or -errno. */
static int count_lines(const char *path, uint64_t *n)
{
    FILE *fp = pp_file_fopen_regular(path);
    static const size_t chunk = 1 << 20;
    char *buf = malloc(chunk);
    size_t got;
    char last = '\n';
    int rc = 0;

    *n = 0;
    if (!fp || !buf) {
        rc = fp ? -ENOMEM : -errno;
        goto out;
    }
    while ((got = fread(buf, 1, chunk, fp)) > 0) {
        for (const char *p = buf; (p = memchr(p, '\n', got - (size_t)(p - buf))) != NULL; p++)
            (*n)++;
        last = buf[got - 1];
    }
    if (ferror(fp))
        rc = -EIO;
    *n += last != '\n';
out:
    free(buf);
    if (fp)
        fclose(fp);
    return rc;
}

/* MemAvailable of /proc/meminfo in bytes, 0 when unknown. */
static uint64_t mem_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;

    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(fp);
    return (uint64_t)kb * 1024;
}

static int load_fits(const char *path, uint64_t rows, uint64_t max_bytes)
{
    uint64_t avail = max_bytes ? max_bytes : mem_available();
    double need = (double)rows * (double)PP_TRACE_LOAD_BYTES_PER_SAMPLE;

    if (avail == 0 || need <= (double)avail)
        return 0;
    pp_log_error("%s: %" PRIu64 " samples need %.1f MB in memory (%zu bytes a sample) and "
                 "%.1f MB is available%s: it will not fit; cut the trace into parts, or use a "
                 "machine with more memory", path, rows, need / 1e6,
                 (size_t)PP_TRACE_LOAD_BYTES_PER_SAMPLE, (double)avail / 1e6,
                 max_bytes ? "" : " (MemAvailable)");
    return -ENOMEM;
}

/* Which rails add up to the load: one named rail, or the top-level ones. */
static int load_rails(const reader *r, const char *rail, int *use)
{
    for (size_t k = 0; k < r->head.n_rails; k++)
        use[k] = rail ? strcmp(r->head.names[k], rail) == 0 : !pp_trace_rail_is_inside(&r->head, k);
    for (size_t k = 0; rail && k < r->head.n_rails; k++)
        if (use[k])
            return 0;
    if (rail) {
        pp_log_error("%s has no rail '%s'", r->path, rail);
        return -ENOENT;
    }
    return 0;
}

int pp_trace_read_load(const char *path, const char *rail, uint64_t max_bytes,
                       pp_trace_load *out)
{
    reader r;
    uint64_t lines = 0;
    double ts, row[PP_TRACE_MAX_RAILS];
    int use[PP_TRACE_MAX_RAILS];
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = reader_open(&r, path)) < 0)
        return rc;
    if ((rc = load_rails(&r, rail, use)) < 0 || (rc = count_lines(path, &lines)) < 0 ||
        (rc = load_fits(path, lines - 1, max_bytes)) < 0)
        goto out;
    out->t_s = malloc((lines ? lines : 1) * sizeof *out->t_s);
    out->p_w = malloc((lines ? lines : 1) * sizeof *out->p_w);
    if (!out->t_s || !out->p_w) {
        rc = -ENOMEM;
        pp_log_error("%s: out of memory for %" PRIu64 " samples", path, lines - 1);
        goto out;
    }
    while (out->n < lines && (rc = reader_next(&r, &ts, row)) > 0) {
        double p = 0.0;
        for (size_t k = 0; k < r.head.n_rails; k++)
            p += use[k] ? row[k] : 0.0;
        out->t_s[out->n] = ts;
        out->p_w[out->n++] = p;
    }
    out->n_gaps = r.n_gaps;
    if (rc == 0 && out->n == 0) {
        pp_log_error("%s: no samples after the header", path);
        rc = -EINVAL;
    }
out:
    reader_close(&r);
    if (rc < 0)
        pp_trace_load_free(out);
    return rc < 0 ? rc : 0;
}

void pp_trace_load_free(pp_trace_load *l)
{
    free(l->t_s);
    free(l->p_w);
    memset(l, 0, sizeof *l);
}

/* ---- Sinks and sums ------------------------------------------------------- */

static int memory_push(void *ctx, double t_s, const double *power_w)
{
    return pp_trace_append(ctx, t_s, power_w);
}

static void memory_gap(void *ctx, double t_s)
{
    pp_trace *t = ctx;
    (void)t_s;
    t->n_gaps++;
}

pp_trace_sink pp_trace_memory_sink(pp_trace *t)
{
    pp_trace_sink s = {memory_push, memory_gap, t};
    return s;
}

void pp_trace_sums_init(pp_trace_sums *s, size_t n_rails, const int *in_total,
                        int interval_average)
{
    memset(s, 0, sizeof *s);
    s->n_rails = n_rails < PP_TRACE_MAX_RAILS ? n_rails : PP_TRACE_MAX_RAILS;
    s->interval_average = interval_average;
    for (size_t r = 0; r < s->n_rails; r++)
        s->in_total[r] = in_total ? in_total[r] != 0 : 1;
    for (size_t r = 0; r <= s->n_rails; r++) {
        s->min_w[r] = INFINITY;
        s->max_w[r] = -INFINITY;
    }
}

void pp_trace_sums_gap(pp_trace_sums *s)
{
    if (!s->in_gap)
        s->n_gaps++;
    s->in_gap = 1;
}

void pp_trace_sums_add(pp_trace_sums *s, double t_s, const double *power_w)
{
    double prev_t = s->n_samples ? s->t_last_s : 0.0, total = 0.0;
    int integrate = s->n_samples > 0 || s->interval_average;

    for (size_t r = 0; r < s->n_rails; r++)
        total += s->in_total[r] ? power_w[r] : 0.0;
    if (s->in_gap && s->n_samples) {
        s->gap_s += t_s - prev_t;
        if (t_s - prev_t > s->longest_gap_s)
            s->longest_gap_s = t_s - prev_t;
    }
    s->in_gap = 0;
    for (size_t r = 0; r <= s->n_rails; r++) {
        double v = r < s->n_rails ? power_w[r] : total;
        if (integrate)
            s->energy_j[r] += step_j(s->interval_average, s->last_w[r], v, t_s - prev_t);
        if (v < s->min_w[r])
            s->min_w[r] = v;
        if (v > s->max_w[r])
            s->max_w[r] = v;
        s->sum_w[r] += v;
        s->last_w[r] = v;
    }
    if (s->n_samples == 0)
        s->t_first_s = t_s;
    s->t_last_s = t_s;
    s->n_samples++;
}

double pp_trace_sums_duration_s(const pp_trace_sums *s)
{
    if (s->n_samples == 0)
        return 0.0;
    return s->interval_average ? s->t_last_s : s->t_last_s - s->t_first_s;
}

double pp_trace_sums_mean_w(const pp_trace_sums *s, size_t r)
{
    double d = pp_trace_sums_duration_s(s);

    if (s->n_samples == 0)
        return 0.0;
    return d > 0.0 ? s->energy_j[r] / d : s->sum_w[r] / (double)s->n_samples;
}
