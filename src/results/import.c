#include "import.h"

#include "src/base/log.h"
#include "results.h"
#include "src/base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void pp_import_options_init(pp_import_options *o)
{
    memset(o, 0, sizeof *o);
    o->rate_hz = 10.0;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}


static char *trim(char *s)
{
    char *e;
    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* A power value at file:line: a finite number >= 0. */
static int power_value(const char *path, long line, size_t col, const char *text, double scale,
                       double *out)
{
    double v;

    if (pp_parse_double(text, &v) < 0) {
        pp_log_error("%s:%ld: column %zu '%s' is not a finite number", path, line, col, text);
        return -EINVAL;
    }
    if (v < 0) {
        pp_log_error("%s:%ld: column %zu: negative power %s", path, line, col, text);
        return -EINVAL;
    }
    *out = v * scale;
    return 0;
}

static int check_time(const pp_trace *t, const char *path, long line, double ts)
{
    if (t->n_samples > 0 && ts < t->t_s[t->n_samples - 1]) {
        pp_log_error("%s:%ld: time goes backwards (%.6f s after %.6f s)", path, line, ts,
                     t->t_s[t->n_samples - 1]);
        return -EINVAL;
    }
    return 0;
}

/* A rail name read at file:line (column col, 0: none): a safe name
 * (util.h) that fits a trace and that no earlier rail of names[0..n-1]
 * has. */
static int check_rail(const char *path, long line, size_t col, const char *name,
                      const char *const *names, size_t n)
{
    char what[4200];

    if (col)
        pp_fmt(what, sizeof what, "%s:%ld: column %zu: rail", path, line, col);
    else
        pp_fmt(what, sizeof what, "%s:%ld: rail", path, line);
    if (pp_name_check(name, what) < 0)
        return -EINVAL;
    if (strlen(name) >= PP_TRACE_NAME_MAX) {
        pp_log_error("%s:%ld: rail '%s': %zu characters, at most %d", path, line, name,
                     strlen(name), PP_TRACE_NAME_MAX - 1);
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) {
            pp_log_error("%s:%ld: rail '%s' appears twice", path, line, name);
            return -EINVAL;
        }
    return 0;
}

static int finish(pp_trace *t, const char *path, int rc)
{
    if (rc == 0 && t->n_samples == 0) {
        pp_log_error("%s: no samples", path);
        rc = -EINVAL;
    } else if (rc == 0 && pp_results_is_short(t, pp_trace_duration_s(t))) {
        pp_log_warn("%s: a short run (%zu samples): its energy is quantized by the sampling "
                    "period; flagged short_run in summary.csv and weighted down in the model",
                    path, t->n_samples);
    }
    if (rc < 0) {
        pp_trace_free(t);
        memset(t, 0, sizeof *t);
    }
    return rc;
}

int pp_import_powprofiler(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL, *f[PP_TRACE_MAX_RAILS + 1];
    const char *names[PP_TRACE_MAX_RAILS];
    double row[PP_TRACE_MAX_RAILS];
    size_t cap = 0, n;
    long line_no = 1, sample = 0;
    int rc = 0;

    memset(t, 0, sizeof *t);
    if (!fp) {
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        return -errno;
    }
    if (!(o->rate_hz > 0)) {
        pp_log_error("--rate-hz %g: must be > 0", o->rate_hz);
        fclose(fp);
        return -EINVAL;
    }
    if (getline(&line, &cap, fp) < 0) {
        pp_log_error("%s:1: empty file (a header of codes such as 100,101,102 is expected)", path);
        rc = -EINVAL;
        goto out;
    }
    chomp(line);
    n = pp_csv_split(line, f, PP_TRACE_MAX_RAILS + 1);
    if (n > PP_TRACE_MAX_RAILS) {
        pp_log_error("%s:1: %zu columns, at most %d", path, n, PP_TRACE_MAX_RAILS);
        rc = -EINVAL;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const char *code = trim(f[i]);
        /* the original tool's codes; the rails of a TX2's INA3221 monitors */
        if (strcmp(code, "100") == 0)
            names[i] = "VDD_IN";
        else if (strcmp(code, "101") == 0)
            names[i] = "VDD_SYS_CPU";
        else if (strcmp(code, "102") == 0)
            names[i] = "VDD_SYS_GPU";
        else {
            pp_log_error("%s:1: unknown header code '%s' (100 total, 101 CPU, 102 GPU)", path, code);
            rc = -EINVAL;
            goto out;
        }
        if ((rc = check_rail(path, 1, i + 1, names[i], names, i)) < 0)
            goto out;
    }
    if ((rc = pp_trace_init(t, n, names)) < 0)
        goto out;
    /* each reading stands for one sampling period: energy = sum / rate */
    t->interval_average = 1;
    while (getline(&line, &cap, fp) >= 0) {
        size_t m;
        line_no++;
        chomp(line);
        if (!line[0])
            continue;
        m = pp_csv_split(line, f, PP_TRACE_MAX_RAILS + 1);
        if (m != n) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, m, n);
            rc = -EINVAL;
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            if ((rc = power_value(path, line_no, i + 1, f[i], 1.0, &row[i])) < 0)
                goto out;
        if ((rc = pp_trace_append(t, (double)(sample + 1) / o->rate_hz, row)) < 0)
            goto out;
        sample++;
    }
out:
    free(line);
    fclose(fp);
    return finish(t, path, rc);
}

/* A "MM-DD-YYYY HH:MM:SS" time at the start of s, parsed by its actual
 * length: returns the length (19) with the seconds since the epoch in *out
 * (UTC; only differences are used); 0 when s does not start like a date
 * (digits then '-'); -1 when it does but is not exactly that form with
 * fields in range. */
static int parse_stamp(const char *s, double *out)
{
    static const char form[] = "NN-NN-NNNN NN:NN:NN";
    size_t i, digits = strspn(s, "0123456789");
    struct tm tm;
    int mo, d, h, mi, se;

    if (digits == 0 || s[digits] != '-')
        return 0;
    for (i = 0; form[i]; i++)
        if (form[i] == 'N' ? !isdigit((unsigned char)s[i]) : s[i] != form[i])
            return -1;
    if (s[i] && s[i] != ' ' && s[i] != '\t')
        return -1;
    mo = (s[0] - '0') * 10 + (s[1] - '0');
    d = (s[3] - '0') * 10 + (s[4] - '0');
    h = (s[11] - '0') * 10 + (s[12] - '0');
    mi = (s[14] - '0') * 10 + (s[15] - '0');
    se = (s[17] - '0') * 10 + (s[18] - '0');
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = (int)strtol(s + 6, NULL, 10) - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    *out = (double)timegm(&tm);
    return (int)i;
}

/* "1234/1234" or "1234mW/1234mW": the instant value in mW, or -1. */
static double rail_value(const char *tok)
{
    static const char num[] = "0123456789.";
    size_t a = strspn(tok, num), b;
    const char *rest = tok + a;

    if (a == 0 || a > 20)
        return -1;
    if (strncmp(rest, "mW", 2) == 0)
        rest += 2;
    if (*rest++ != '/' || (b = strspn(rest, num)) == 0)
        return -1;
    rest += b;
    if (strncmp(rest, "mW", 2) == 0)
        rest += 2;
    return *rest == '\0' ? strtod(tok, NULL) : -1;
}

static int is_rail_name(const char *tok)
{
    if (!isupper((unsigned char)tok[0]))
        return 0;
    for (const char *c = tok; *c; c++)
        if (!(isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_'))
            return 0;
    return 1;
}

/* One record (possibly joined from wrapped lines) into the trace. */
static int tegra_record(const char *path, long line_no, char *rec, double ts, pp_trace *t,
                        int *have_header)
{
    char *tok[512];
    size_t n = 0;
    const char *names[PP_TRACE_MAX_RAILS];
    double vals[PP_TRACE_MAX_RAILS];
    size_t k = 0;

    for (char *save = NULL, *s = strtok_r(rec, " \t", &save); s && n < 512;
         s = strtok_r(NULL, " \t", &save))
        tok[n++] = s;
    for (size_t i = 0; i + 1 < n; i++) {
        double v;
        if (!is_rail_name(tok[i]) || (v = rail_value(tok[i + 1])) < 0)
            continue;
        if (k == PP_TRACE_MAX_RAILS)
            break;
        if (check_rail(path, line_no, 0, tok[i], names, k) < 0)
            return -EINVAL;
        names[k] = tok[i];
        vals[k++] = v * 1e-3;
        i++;
    }
    if (k == 0) {
        pp_log_error("%s:%ld: no power rail (such as 'VDD_IN 5263mW/5263mW') in this record", path,
                     line_no);
        return -EINVAL;
    }
    if (!*have_header) {
        int rc = pp_trace_init(t, k, names);
        if (rc < 0)
            return rc;
        *have_header = 1;
    } else {
        if (k != t->n_rails) {
            pp_log_error("%s:%ld: %zu rails, the first record had %zu", path, line_no, k,
                         t->n_rails);
            return -EINVAL;
        }
        for (size_t r = 0; r < k; r++)
            if (strcmp(names[r], t->names[r]) != 0) {
                pp_log_error("%s:%ld: rail '%s' where the first record had '%s'", path, line_no,
                             names[r], t->names[r]);
                return -EINVAL;
            }
    }
    if (check_time(t, path, line_no, ts) < 0)
        return -EINVAL;
    return pp_trace_append(t, ts, vals);
}

/* A tegrastats record as it is read: its lines joined by blanks. */
typedef struct tegra_rec {
    char *text;
    size_t len, cap;
    long line;      /* where it starts */
    double stamp_s; /* its time, when records have one */
} tegra_rec;

static int rec_append(tegra_rec *r, const char *s)
{
    size_t add = strlen(s) + 1;

    if (r->len + add + 1 > r->cap) {
        char *p = realloc(r->text, r->len + add + 1024);
        if (!p)
            return -ENOMEM;
        r->text = p;
        r->cap = r->len + add + 1024;
    }
    r->text[r->len++] = ' ';
    memcpy(r->text + r->len, s, add);
    r->len += add - 1;
    return 0;
}

/* A line that starts a record (stamp_len > 0: with a time): records all
 * with a time or all without. */
static int rec_start(const char *path, long line_no, int stamp_len, double stamp_s, int *stamps,
                     tegra_rec *r)
{
    if (*stamps < 0)
        *stamps = stamp_len > 0;
    else if (*stamps != (stamp_len > 0)) {
        pp_log_error("%s:%ld: some records have a time and some not", path, line_no);
        return -EINVAL;
    }
    r->line = line_no;
    r->stamp_s = stamp_s;
    return 0;
}

int pp_import_tegrastats(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    long line_no = 0, index = 0;
    double t0 = 0;
    int rc = 0, have_header = 0, stamps = -1;
    tegra_rec rec = {NULL, 0, 0, 0, 0};

    memset(t, 0, sizeof *t);
    if (!fp) {
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        return -errno;
    }
    for (;;) {
        ssize_t got = getline(&line, &cap, fp);
        char *s = line;
        double stamp = 0;
        int starts = 0, stamp_len = 0;

        if (got >= 0) {
            line_no++;
            chomp(line);
            while (isspace((unsigned char)*s))
                s++;
            if (!*s)
                continue;
            if ((stamp_len = parse_stamp(s, &stamp)) < 0) {
                pp_log_error("%s:%ld: malformed time at '%.24s' (MM-DD-YYYY HH:MM:SS expected)",
                             path, line_no, s);
                rc = -EINVAL;
                break;
            }
            starts = stamp_len > 0 || strncmp(s, "RAM ", 4) == 0;
        }
        /* a record ends where the next one starts, or at the end of the file */
        if ((got < 0 || starts) && rec.len > 0) {
            double ts = o->interval_ms > 0 || stamps == 0
                            ? (double)index * (o->interval_ms > 0 ? o->interval_ms : 1000.0) * 1e-3
                            : rec.stamp_s - t0;
            if ((rc = tegra_record(path, rec.line, rec.text, ts, t, &have_header)) < 0)
                break;
            index++;
            rec.len = 0;
        }
        if (got < 0)
            break;
        if (!starts && rec.len == 0) {
            pp_log_error("%s:%ld: not a tegrastats record (one starts with 'RAM' or a "
                         "'MM-DD-YYYY HH:MM:SS' time)", path, line_no);
            rc = -EINVAL;
            break;
        }
        if (starts && (rc = rec_start(path, line_no, stamp_len, stamp, &stamps, &rec)) < 0)
            break;
        if (stamp_len > 0 && index == 0 && rec.len == 0)
            t0 = stamp; /* the first record's time */
        if ((rc = rec_append(&rec, s + stamp_len)) < 0)
            break;
    }
    if (line_no == 0 && rc == 0) {
        pp_log_error("%s: empty file", path);
        rc = -EINVAL;
    }
    free(rec.text);
    free(line);
    fclose(fp);
    return finish(t, path, rc);
}

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
                char *b = trim(base);
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
        if (check_rail(path, 1, i + 1, base, NULL, 0) < 0)
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
        char *col = trim(f[i]), base[PP_TRACE_NAME_MAX + 16], kind;
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
    if (check_time(t, path, line_no, ts) < 0)
        return -EINVAL;
    for (size_t r = 0; r < L->n_rails; r++) {
        const csv_rail *cr = &L->rails[r];
        double v[3] = {0, 0, 0};
        for (int k = cr->col[0] >= 0 ? 0 : 1; k < (cr->col[0] >= 0 ? 1 : 3); k++)
            if (power_value(path, line_no, (size_t)cr->col[k] + 1, f[cr->col[k]], cr->scale[k],
                            &v[k]) < 0)
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
    FILE *fp = fopen(path, "r");
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
        if (!fp)
            pp_log_error("%s: cannot open: %s", path, strerror(errno));
        free(L);
        if (fp)
            fclose(fp);
        return rc;
    }
    if (getline(&line, &cap, fp) < 0) {
        pp_log_error("%s:1: empty file (a header with a time column and power columns is "
                     "expected)", path);
        goto out;
    }
    chomp(line);
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
    while ((len = getline(&line, &cap, fp)) >= 0) {
        line_no++;
        if (pp_trace_csv_line_cut(path, line_no, line, len, L->n_cols))
            break; /* cut short by a crash: read up to here (warned) */
        chomp(line);
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
    return finish(t, path, rc);
}

int pp_import_match_pattern(const char *pattern, const char *path, char names[][64],
                            double *values, size_t max)
{
    const char *base = strrchr(path, '/'), *p = pattern, *s;
    size_t n = 0;

    base = base ? base + 1 : path;
    s = base;
    while (*p) {
        if (*p == '{') {
            const char *close = strchr(p, '}'), *lit = close ? close + 1 : NULL, *end;
            size_t lit_len;
            char text[64];
            if (!close || close == p + 1) {
                pp_log_error("--pattern '%s': a '{' without a name and '}'", pattern);
                return -EINVAL;
            }
            lit_len = strcspn(lit, "{");
            /* the value runs to the next literal (or to the end) */
            if (lit_len == 0)
                end = s + strlen(s);
            else {
                char needle[256];
                pp_fmt(needle, sizeof needle, "%.*s", (int)lit_len, lit);
                end = strstr(s, needle);
            }
            if (!end || end == s || n == max) {
                pp_log_error("%s: the name does not match --pattern '%s'", path, pattern);
                return -EINVAL;
            }
            if (pp_fmt(names[n], 64, "%.*s", (int)(close - p - 1), p + 1) < 0 ||
                pp_name_check(names[n], "--pattern: the name of {...}") < 0) {
                pp_log_error("--pattern '%s': {%.*s} is not a parameter name of at most 63 "
                             "characters", pattern, (int)(close - p - 1), p + 1);
                return -EINVAL;
            }
            if (pp_fmt(text, sizeof text, "%.*s", (int)(end - s), s) < 0 ||
                pp_parse_double(text, &values[n]) < 0) {
                pp_log_error("%s: {%s} is '%s', not a number (--pattern '%s')", path, names[n],
                             text, pattern);
                return -EINVAL;
            }
            n++;
            s = end;
            p = close + 1;
        } else {
            if (*s != *p) {
                pp_log_error("%s: the name does not match --pattern '%s'", path, pattern);
                return -EINVAL;
            }
            s++;
            p++;
        }
    }
    if (*s) {
        pp_log_error("%s: the name does not match --pattern '%s'", path, pattern);
        return -EINVAL;
    }
    return (int)n;
}
