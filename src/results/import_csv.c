/* import_csv.c - CSV files of other tools: a time column and power (or
 * current and voltage) columns with their unit in the name (import.h).
 * Calls the shared checks of import.c (import_read.h); nothing calls
 * back. */
#include "import.h"
#include "import_read.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* csv: the unit of a column name: its scale to watts, the name stripped
 * of it into base; 0 when it has none it knows. kind: 'p' power, 'a'
 * current, 'v' voltage. */
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
        {"[v]", 1.0, 'v'},
    };
    size_t n = strlen(col);

    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t k = strlen(units[i].suffix);
        if (n > k && strcasecmp(col + n - k, units[i].suffix) == 0) {
            pp_fmt(base, cap, "%.*s", (int)(n - k), col);
            {
                char *b = pp_import_trim(base);
                memmove(base, b, strlen(b) + 1);
            }
            *kind = units[i].kind;
            return units[i].scale;
        }
    }
    pp_strlcpy(base, col, cap);
    *kind = 'p';
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
    double time_scale;
    size_t n_rails;
    csv_rail rails[PP_TRACE_MAX_RAILS];
} csv_layout;

/* The time column's name, by the option or the usual names. */
static int is_time_col(const pp_import_options *o, const char *col)
{
    static const char *const names[] = {"t_s", "time", "time_s", "timestamp", "time_ms", "t_ms"};

    if (o->time_col)
        return strcmp(col, o->time_col) == 0;
    for (size_t i = 0; i < PP_ARRAY_SIZE(names); i++)
        if (strcasecmp(col, names[i]) == 0)
            return 1;
    return 0;
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
        pp_strlcpy(base, "total_rail", PP_TRACE_NAME_MAX);
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
        pp_strlcpy(L->rails[r].name, base, sizeof L->rails[r].name);
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

static int csv_header(const char *path, const pp_import_options *o, char **f, size_t n,
                      csv_layout *L)
{
    memset(L, 0, sizeof *L);
    L->n_cols = n;
    L->time_col = -1;
    for (size_t i = 0; i < n; i++) {
        char *col = pp_import_trim(f[i]), base[PP_TRACE_NAME_MAX + 16], kind;
        double scale;

        if (is_time_col(o, col)) {
            if (L->time_col >= 0) {
                pp_log_error("%s:1: column %zu '%s': a second time column", path, i + 1, col);
                return -EINVAL;
            }
            L->time_col = (int)i;
            L->time_scale = strstr(col, "ms") ? 1e-3 : 1.0;
            continue;
        }
        scale = column_unit(col, base, sizeof base, &kind);
        if (scale == 0 && !((scale = o->unit_scale) > 0)) {
            pp_log_error("%s:1: column %zu '%s' has no unit (_w, _mw, _uw, _a, _v, ...): "
                         "name it, or give --unit", path, i + 1, col);
            return -EINVAL;
        }
        if (csv_add_column(path, i, col, base, kind, scale, L) < 0)
            return -EINVAL;
    }
    if (L->time_col < 0) {
        pp_log_error("%s:1: no time column (t_s, time, time_s, time_ms, timestamp, or --time-col)",
                     path);
        return -EINVAL;
    }
    for (size_t r = 0; r < L->n_rails; r++) {
        const csv_rail *cr = &L->rails[r];
        if (cr->col[0] < 0 && (cr->col[1] < 0 || cr->col[2] < 0)) {
            pp_log_error("%s:1: '%s' has a %s column but no %s column to multiply it with", path,
                         cr->name, cr->col[1] >= 0 ? "current" : "voltage",
                         cr->col[1] >= 0 ? "voltage" : "current");
            return -EINVAL;
        }
    }
    if (L->n_rails == 0) {
        pp_log_error("%s:1: no power column", path);
        return -EINVAL;
    }
    return 0;
}

/* One data row (already split into L->n_cols fields) into the trace. */
static int csv_row(const char *path, long line_no, char **f, const csv_layout *L, pp_trace *t)
{
    double row[PP_TRACE_MAX_RAILS], ts;

    if (pp_parse_double(f[L->time_col], &ts) < 0) {
        pp_log_error("%s:%ld: time '%s' is not a finite number", path, line_no, f[L->time_col]);
        return -EINVAL;
    }
    ts *= L->time_scale;
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

int pp_import_csv(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = pp_import_open(path); /* a FIFO or a device refused (logged) */
    char *line = NULL, *f[2 * PP_TRACE_MAX_RAILS + 2];
    const char *names[PP_TRACE_MAX_RAILS];
    size_t cap = 0, n;
    ssize_t len;
    long line_no = 1;
    int rc = -EINVAL;
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
out:
    free(L);
    free(line);
    fclose(fp);
    return pp_import_finish(t, path, rc);
}
