/* import_csv.c - CSV files of other tools: a time column and power (or
 * current and voltage) columns with their unit in the name (import_csv.h).
 * Calls the shared checks of import.c (import.h); nothing calls
 * back. */
#include "import_csv.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* csv: the unit of a column name: its scale to watts, amperes or volts,
 * the name stripped of it into base; 0 when it has none it knows. kind:
 * 'p' power, 'a' current, 'v' voltage, 'x' a unit that is none of these
 * (charge, energy, time, temperature, a fraction: kept out of the trace). */
static double column_unit(const char *col, char *base, size_t cap, char *kind)
{
    static const struct {
        const char *suffix;
        double scale;
        char kind;
    } units[] = {
        {"_uw", 1e-6, 'p'}, {"_mw", 1e-3, 'p'}, {"_w", 1.0, 'p'},   {"[uw]", 1e-6, 'p'},
        {"[mw]", 1e-3, 'p'}, {"[w]", 1.0, 'p'}, {"(uw)", 1e-6, 'p'}, {"(mw)", 1e-3, 'p'},
        {"(w)", 1.0, 'p'},   {"_ma", 1e-3, 'a'}, {"_a", 1.0, 'a'},  {"_mv", 1e-3, 'v'},
        {"_v", 1.0, 'v'},    {"[ma]", 1e-3, 'a'}, {"[a]", 1.0, 'a'}, {"[mv]", 1e-3, 'v'},
        {"[v]", 1.0, 'v'},   {"_mah", 1, 'x'},    {"_ah", 1, 'x'},   {"_wh", 1, 'x'},
        {"_mwh", 1, 'x'},    {"_j", 1, 'x'},      {"_s", 1, 'x'},    {"_ms", 1, 'x'},
        {"_us", 1, 'x'},     {"_c", 1, 'x'},      {"_degc", 1, 'x'}, {"_pct", 1, 'x'},
        {"_percent", 1, 'x'}, {"_frac", 1, 'x'},  {"_hz", 1, 'x'},   {"[mah]", 1, 'x'},
        {"[wh]", 1, 'x'},    {"[s]", 1, 'x'},     {"[%]", 1, 'x'},
    };
    size_t n = strlen(col), best = 0, best_k = 0;

    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t k = strlen(units[i].suffix);
        if (n > k && k > best_k && strcasecmp(col + n - k, units[i].suffix) == 0)
            best = i + 1, best_k = k; /* the longest suffix: _mah before _ah */
    }
    if (best) {
        pp_text(base, cap, "%.*s", (int)(n - best_k), col); /* cut: too long for check_rail */
        {
            char *b = pp_import_trim(base);
            memmove(base, b, strlen(b) + 1);
        }
        *kind = units[best - 1].kind;
        return units[best - 1].scale;
    }
    pp_text(base, cap, "%s", col); /* cut: still too long for check_rail, which says so */
    *kind = 'p';
    return 0;
}

/* base without the words that say what a current or voltage column is
 * ("voltage", "volt", "current", "curr", as words between '_' or ' '), so
 * that PX4's voltage_v and current_a pair as one rail (named "battery"
 * when nothing is left). In place. */
static void strip_quantity_words(char *base, size_t cap)
{
    static const char *const words[] = {"voltage", "volt", "current", "curr"};
    char out[PP_TRACE_NAME_MAX + 16] = "", *save = NULL, *tok;
    char tmp[PP_TRACE_NAME_MAX + 16];

    pp_text(tmp, sizeof tmp, "%s", base); /* fits: the size of base */
    for (tok = strtok_r(tmp, "_ ", &save); tok; tok = strtok_r(NULL, "_ ", &save)) {
        int skip = 0;
        for (size_t i = 0; i < PP_ARRAY_SIZE(words); i++)
            skip |= strcasecmp(tok, words[i]) == 0;
        if (!skip)
            pp_text(out + strlen(out), sizeof out - strlen(out), "%s%s", out[0] ? "_" : "", tok);
    }
    pp_text(base, cap, "%s", out[0] ? out : "battery"); /* fits: no longer than base was */
}

/* 1 when base names a smoothed copy of a reading (PX4's voltage_filtered_v,
 * current_average_a): a word filtered, filt, average, avg or smoothed. */
static int is_smoothed(const char *base)
{
    static const char *const words[] = {"filtered", "filt", "average", "avg", "smoothed"};
    char tmp[PP_TRACE_NAME_MAX + 16], *save = NULL;

    pp_text(tmp, sizeof tmp, "%s", base); /* fits: the size of base */
    for (char *tok = strtok_r(tmp, "_ ", &save); tok; tok = strtok_r(NULL, "_ ", &save))
        for (size_t i = 0; i < PP_ARRAY_SIZE(words); i++)
            if (strcasecmp(tok, words[i]) == 0)
                return 1;
    return 0;
}

typedef struct csv_rail {
    int col[3];       /* power, current, voltage column; -1 when absent */
    double scale[3];  /* to W, A, V */
    char name[PP_TRACE_NAME_MAX];
} csv_rail;

typedef struct csv_layout {
    size_t n_cols;
    int time_col;
    double time_scale;  /* seconds per unit; 0: found from the steps */
    size_t n_rails;
    csv_rail rails[PP_TRACE_MAX_RAILS];
    char left_out[1024]; /* the columns kept out of the trace, for the note */
    int first_unitless;  /* the first column without a unit (1-based), 0: none */
} csv_layout;

/* The time column's name, by the option or the usual names. */
static int is_time_col(const pp_import_options *o, const char *col)
{
    static const char *const names[] = {"t_s",    "time",   "time_s", "timestamp", "time_ms",
                                        "t_ms",   "time_us", "t_us",  "timestamp_us",
                                        "time_ns", "t_ns",   "timestamp_ns"};

    if (o->time_col)
        return strcmp(col, o->time_col) == 0;
    for (size_t i = 0; i < PP_ARRAY_SIZE(names); i++)
        if (strcasecmp(col, names[i]) == 0)
            return 1;
    return 0;
}

/* Seconds per unit of the time column named col: the option, else its
 * unit suffix (_s, _ms, _us, _ns), else 0 (found from the steps). */
static double time_unit_of(const pp_import_options *o, const char *col)
{
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {{"_ns", 1e-9}, {"_us", 1e-6}, {"_ms", 1e-3}, {"_s", 1.0}};
    size_t n = strlen(col);

    if (o->time_scale > 0)
        return o->time_scale;
    for (size_t i = 0; i < PP_ARRAY_SIZE(units); i++) {
        size_t k = strlen(units[i].suffix);
        if (n >= k && strcasecmp(col + n - k, units[i].suffix) == 0)
            return units[i].scale;
    }
    return 0;
}

/* A column kept out of the trace, named in the note of csv_header. */
static void left_out(csv_layout *L, const char *col, const char *why)
{
    size_t n = strlen(L->left_out);
    if (n + strlen(col) + strlen(why) + 8 < sizeof L->left_out)
        pp_text(L->left_out + n, sizeof L->left_out - n, "%s%s (%s)", n ? ", " : "", col, why);
    else if (n + 5 < sizeof L->left_out && !strstr(L->left_out, ", ..."))
        pp_text(L->left_out + n, sizeof L->left_out - n, ", ...");
}

/* The rail of column i (base name, kind p/a/v, scale), created when new.
 * "total" is renamed: summary.csv has total_* columns of its own. */
static int csv_add_column(const char *path, size_t i, const char *col, char *base, char kind,
                          double scale, csv_layout *L)
{
    int k = kind == 'p' ? 0 : kind == 'a' ? 1 : 2;
    size_t r;

    if (strcmp(base, "total") == 0) {
        pp_log_warn("%s:1: column %zu '%s': rail 'total' renamed 'total_rail' (summary.csv "
                    "has total_* columns of its own)", path, i + 1, col);
        memcpy(base, "total_rail", sizeof "total_rail"); /* fits: PP_TRACE_NAME_MAX */
    }
    for (r = 0; r < L->n_rails && strcmp(L->rails[r].name, base) != 0; r++)
        ;
    if (r == L->n_rails) {
        if (L->n_rails == PP_TRACE_MAX_RAILS) {
            pp_log_error("%s:1: column %zu '%s': more than %d rails", path, i + 1, col,
                         PP_TRACE_MAX_RAILS);
            return -EINVAL;
        }
        if (pp_import_check_rail(path, 1, i + 1, base, NULL, 0) < 0)
            return -EINVAL;
        L->rails[r] = (csv_rail){{-1, -1, -1}, {0, 0, 0}, ""};
        if (pp_strlcpy(L->rails[r].name, base, sizeof L->rails[r].name) < 0)
            return -EINVAL; /* never: pp_import_check_rail held it to a rail's name */
        L->n_rails++;
    }
    if (L->rails[r].col[k] >= 0) {
        pp_log_error("%s:1: column %zu '%s': rail '%s' already has this column (column %d)", path,
                     i + 1, col, base, L->rails[r].col[k] + 1);
        return -EINVAL;
    }
    L->rails[r].col[k] = (int)i;
    L->rails[r].scale[k] = scale;
    return 0;
}

/* 1 when a column of this kind (a or v) other than column i is not a
 * smoothed copy: then column i, smoothed, is left out. */
static int has_plain_of_kind(char **f, size_t n, size_t i, char kind)
{
    for (size_t j = 0; j < n; j++) {
        char base[PP_TRACE_NAME_MAX + 16], k;
        if (j != i && column_unit(pp_import_trim(f[j]), base, sizeof base, &k) > 0 && k == kind &&
            !is_smoothed(base))
            return 1;
    }
    return 0;
}

/* Column i, not the time: a rail's power, current or voltage, or left out
 * (a unit that is none of these, no unit, a smoothed copy). */
static int csv_column(const char *path, const pp_import_options *o, char **f, size_t n, size_t i,
                      csv_layout *L)
{
    char *col = pp_import_trim(f[i]), base[PP_TRACE_NAME_MAX + 16], kind;
    double scale = column_unit(col, base, sizeof base, &kind);

    if (scale == 0 && !((scale = o->unit_scale) > 0)) {
        if (!L->first_unitless)
            L->first_unitless = (int)i + 1;
        left_out(L, col, "no unit");
        return 0;
    }
    if (kind == 'x') {
        left_out(L, col, "not power, current or voltage");
        return 0;
    }
    if (kind != 'p' && is_smoothed(base) && has_plain_of_kind(f, n, i, kind)) {
        left_out(L, col, "a smoothed copy");
        return 0;
    }
    if (kind != 'p')
        strip_quantity_words(base, sizeof base);
    return csv_add_column(path, i, col, base, kind, scale, L);
}

/* Every rail has a power, or a current and a voltage; at least one rail. */
static int csv_check_rails(const char *path, char **f, const csv_layout *L)
{
    for (size_t r = 0; r < L->n_rails; r++) {
        const csv_rail *cr = &L->rails[r];
        if (cr->col[0] < 0 && (cr->col[1] < 0 || cr->col[2] < 0)) {
            pp_log_error("%s:1: '%s' has a %s column but no %s column to multiply it with", path,
                         cr->name, cr->col[1] >= 0 ? "current" : "voltage",
                         cr->col[1] >= 0 ? "voltage" : "current");
            return -EINVAL;
        }
    }
    if (L->n_rails == 0 && L->first_unitless) {
        pp_log_error("%s:1: column %d '%s' has no unit (_w, _mw, _uw, _a, _v, ...) and no "
                     "other column is power: name it, or give --unit", path, L->first_unitless,
                     pp_import_trim(f[L->first_unitless - 1]));
        return -EINVAL;
    }
    if (L->n_rails == 0) {
        pp_log_error("%s:1: no power column", path);
        return -EINVAL;
    }
    if (L->left_out[0])
        pp_log_info("%s: columns kept out of the trace: %s%s", path, L->left_out,
                    L->first_unitless ? "; give --unit W|mW|uW if those without a unit are power"
                                      : "");
    return 0;
}

static int csv_header(const char *path, const pp_import_options *o, char **f, size_t n,
                      csv_layout *L)
{
    memset(L, 0, sizeof *L);
    L->n_cols = n;
    L->time_col = -1;
    for (size_t i = 0; i < n; i++) {
        char *col = pp_import_trim(f[i]);

        if (is_time_col(o, col)) {
            if (L->time_col >= 0) {
                pp_log_error("%s:1: column %zu '%s': a second time column", path, i + 1, col);
                return -EINVAL;
            }
            L->time_col = (int)i;
            L->time_scale = time_unit_of(o, col);
            continue;
        }
        if (csv_column(path, o, f, n, i, L) < 0)
            return -EINVAL;
    }
    if (L->time_col < 0) {
        pp_log_error("%s:1: no time column (t_s, time, time_s, time_ms, time_us, timestamp, or "
                     "--time-col)", path);
        return -EINVAL;
    }
    return csv_check_rails(path, f, L);
}

/* One data row (already split into L->n_cols fields) into the trace. */
static int csv_row(const char *path, long line_no, char **f, const csv_layout *L, pp_trace *t)
{
    double row[PP_TRACE_MAX_RAILS], ts;

    if (pp_parse_double(f[L->time_col], &ts) < 0) {
        pp_log_error("%s:%ld: time '%s' is not a finite number", path, line_no, f[L->time_col]);
        return -EINVAL;
    }
    if (L->time_scale > 0)
        ts *= L->time_scale; /* else scaled at the end (csv_fix_time) */
    if (pp_import_check_time(t, path, line_no, ts) < 0)
        return -EINVAL;
    for (size_t r = 0; r < L->n_rails; r++) {
        const csv_rail *cr = &L->rails[r];
        double v[3] = {0, 0, 0};
        for (int k = cr->col[0] >= 0 ? 0 : 1; k < (cr->col[0] >= 0 ? 1 : 3); k++)
            if (pp_import_power_value(path, line_no, (size_t)cr->col[k] + 1, f[cr->col[k]],
                                      cr->scale[k], &v[k]) < 0)
                return -EINVAL;
        row[r] = cr->col[0] >= 0 ? v[0] : v[1] * v[2];
        if (!isfinite(row[r])) {
            pp_log_error("%s:%ld: %s: the power is out of range", path, line_no, cr->name);
            return -EINVAL;
        }
    }
    return pp_trace_append(t, ts, row);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the positive steps between t's samples (0 when none). */
static double median_step(const pp_trace *t)
{
    double *d = malloc(t->n_samples * sizeof *d), m = 0;
    size_t n = 0;

    if (!d)
        return 0;
    for (size_t i = 1; i < t->n_samples; i++)
        if (t->t_s[i] > t->t_s[i - 1])
            d[n++] = t->t_s[i] - t->t_s[i - 1];
    if (n) {
        qsort(d, n, sizeof *d, cmp_double);
        m = d[n / 2];
    }
    free(d);
    return m;
}

/* A time column without a unit (time, timestamp): the largest of s, ms,
 * us, ns in which the median step is at most 5 s (PX4's ulog2csv writes
 * microseconds since boot: a 10 Hz log's step of 100000 is 0.1 s, not
 * 28 hours), said in a note. */
static double detect_time_unit(const char *path, const pp_trace *t, const char *col)
{
    static const struct {
        double scale;
        const char *name;
    } units[] = {{1.0, "seconds"}, {1e-3, "milliseconds"}, {1e-6, "microseconds"},
                 {1e-9, "nanoseconds"}};
    double step = median_step(t);
    size_t u = 0;

    while (u + 1 < PP_ARRAY_SIZE(units) && step * units[u].scale > 5.0)
        u++;
    if (u > 0)
        pp_log_info("%s: the time column '%s' has no unit: read as %s (its median step %g is "
                    "%g s so, %g s in seconds); --time-unit s|ms|us|ns to choose", path, col,
                    units[u].name, step, step * units[u].scale, step);
    return units[u].scale;
}

/* The times in seconds from the first sample (rebased), their unit found
 * when the column names none, and a warning when the span or the step is
 * implausible for a power log (a unit taken wrongly). */
static void csv_fix_time(const char *path, const pp_trace *t, const char *col, double scale)
{
    double t0, span_s, step_s;

    if (t->n_samples == 0)
        return;
    if (!(scale > 0))
        scale = detect_time_unit(path, t, col);
    else
        scale = 1.0; /* already in seconds */
    t0 = t->t_s[0];
    for (size_t i = 0; i < t->n_samples; i++)
        t->t_s[i] = (t->t_s[i] - t0) * scale;
    span_s = t->t_s[t->n_samples - 1];
    step_s = median_step(t);
    if (span_s > 7 * 86400.0 || step_s > 60.0 || (step_s > 0 && step_s < 1e-5))
        pp_log_warn("%s: %zu samples over %.6g s (%.3g days), one every %.6g s: implausible for "
                    "a power log; is the time unit right? (--time-unit s|ms|us|ns)", path,
                    t->n_samples, span_s, span_s / 86400.0, step_s);
}

int pp_import_csv(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = pp_import_open(path); /* a FIFO or a device refused (logged) */
    char *line = NULL, *f[2 * PP_TRACE_MAX_RAILS + 2];
    const char *names[PP_TRACE_MAX_RAILS];
    size_t cap = 0, n;
    ssize_t len;
    long line_no = 1;
    int rc = -EINVAL;
    char time_name[128] = "";
    csv_layout *L = malloc(sizeof *L);

    memset(t, 0, sizeof *t);
    if (!fp || !L) {
        rc = fp ? -ENOMEM : -errno;
        free(L);
        if (fp)
            fclose(fp);
        return rc;
    }
    if ((len = pp_import_getline(&line, &cap, fp, path, 1)) < 0) {
        if (len == -1)
            pp_log_error("%s:1: empty file (a header with a time column and power columns is "
                         "expected)", path);
        goto out;
    }
    pp_import_chomp(line);
    n = pp_csv_split(line, f, PP_ARRAY_SIZE(f));
    if (n > PP_ARRAY_SIZE(f) - 1) {
        pp_log_error("%s:1: too many columns (%zu)", path, n);
        goto out;
    }
    if (csv_header(path, o, f, n, L) < 0)
        goto out;
    pp_text(time_name, sizeof time_name, "%s", pp_import_trim(f[L->time_col])); /* for messages */
    for (size_t r = 0; r < L->n_rails; r++)
        names[r] = L->rails[r].name;
    if ((rc = pp_trace_init(t, L->n_rails, names)) < 0)
        goto out;
    while ((len = pp_import_getline(&line, &cap, fp, path, line_no + 1)) != -1) {
        line_no++;
        if (len == -2) {
            rc = -EINVAL;
            break;
        }
        if (pp_trace_csv_line_cut(path, line_no, line, len, L->n_cols))
            break; /* cut short by a crash: read up to here (warned) */
        pp_import_chomp(line);
        if (!line[0])
            continue;
        n = pp_csv_split(line, f, PP_ARRAY_SIZE(f));
        if (n != L->n_cols) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, n, L->n_cols);
            rc = -EINVAL;
            goto out;
        }
        if (pp_trace_csv_row_is_gap(f, n, (size_t)L->time_col)) { /* trace.h: a gap row */
            pp_log_warn("%s:%ld: a gap in the readings (a row without values): the samples on "
                        "either side are joined", path, line_no);
            continue;
        }
        if ((rc = csv_row(path, line_no, f, L, t)) < 0)
            goto out;
    }
    if (rc == 0)
        csv_fix_time(path, t, time_name, L->time_scale);
out:
    free(L);
    free(line);
    fclose(fp);
    return pp_import_finish(t, path, rc);
}
