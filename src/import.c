#include "import.h"

#include "log.h"
#include "results.h"
#include "util.h"

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

/* "MM-DD-YYYY HH:MM:SS" at s: seconds since the epoch (UTC; only
 * differences are used), or -1. */
static double parse_stamp(const char *s)
{
    struct tm tm;
    int mo, d, y, h, mi, se;

    if (sscanf(s, "%2d-%2d-%4d %2d:%2d:%2d", &mo, &d, &y, &h, &mi, &se) != 6)
        return -1;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    return (double)timegm(&tm);
}

/* "1234/1234" or "1234mW/1234mW": the instant value in mW, or -1. */
static double rail_value(const char *tok)
{
    char *end;
    double v;

    if (!isdigit((unsigned char)tok[0]))
        return -1;
    v = strtod(tok, &end);
    if (strncmp(end, "mW", 2) == 0)
        end += 2;
    if (*end != '/' || !isdigit((unsigned char)end[1]))
        return -1;
    strtod(end + 1, &end);
    if (strncmp(end, "mW", 2) == 0)
        end += 2;
    return *end == '\0' ? v : -1;
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

int pp_import_tegrastats(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL, *rec = NULL;
    size_t cap = 0, rec_len = 0, rec_cap = 0;
    long line_no = 0, rec_line = 0, index = 0;
    double t0 = -1, rec_stamp = -1;
    int rc = 0, have_header = 0, stamps = -1;

    memset(t, 0, sizeof *t);
    if (!fp) {
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        return -errno;
    }
    for (;;) {
        ssize_t got = getline(&line, &cap, fp);
        char *s = NULL;
        double stamp = -1;
        int starts = 0;

        if (got >= 0) {
            line_no++;
            chomp(line);
            s = line;
            while (isspace((unsigned char)*s))
                s++;
            stamp = parse_stamp(s);
            starts = stamp >= 0 || strncmp(s, "RAM ", 4) == 0;
            if (!*s)
                continue;
        }
        /* a record ends where the next one starts, or at the end of the file */
        if ((got < 0 || starts) && rec_len > 0) {
            double ts;
            if (o->interval_ms > 0 || stamps == 0)
                ts = (double)index * (o->interval_ms > 0 ? o->interval_ms : 1000.0) * 1e-3;
            else
                ts = rec_stamp - t0;
            rc = tegra_record(path, rec_line, rec, ts, t, &have_header);
            if (rc < 0)
                break;
            index++;
            rec_len = 0;
        }
        if (got < 0)
            break;
        if (!starts && rec_len == 0) {
            pp_log_error("%s:%ld: not a tegrastats record (one starts with 'RAM' or a "
                         "'MM-DD-YYYY HH:MM:SS' time)", path, line_no);
            rc = -EINVAL;
            break;
        }
        if (starts) {
            if (stamps < 0)
                stamps = stamp >= 0;
            else if (stamps != (stamp >= 0)) {
                pp_log_error("%s:%ld: some records have a time and some not", path, line_no);
                rc = -EINVAL;
                break;
            }
            rec_line = line_no;
            rec_stamp = stamp;
            if (stamp >= 0 && t0 < 0)
                t0 = stamp;
            if (stamp >= 0)
                s += 19; /* past the time */
        }
        {
            size_t add = strlen(s) + 2;
            if (rec_len + add > rec_cap) {
                char *p = realloc(rec, rec_len + add + 1024);
                if (!p) {
                    rc = -ENOMEM;
                    break;
                }
                rec = p;
                rec_cap = rec_len + add + 1024;
            }
            rec[rec_len++] = ' ';
            memcpy(rec + rec_len, s, add - 1);
            rec_len += add - 2;
            rec[rec_len] = '\0';
        }
    }
    if (line_no == 0 && rc == 0) {
        pp_log_error("%s: empty file", path);
        rc = -EINVAL;
    }
    free(rec);
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

int pp_import_csv(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL, *f[2 * PP_TRACE_MAX_RAILS + 2];
    size_t cap = 0, n;
    ssize_t len;
    long line_no = 1;
    int rc = 0, time_col = -1;
    double time_scale = 1.0;
    struct {
        int col_p, col_a, col_v;
        double scale_p, scale_a, scale_v;
        char name[PP_TRACE_NAME_MAX];
    } rails[PP_TRACE_MAX_RAILS];
    size_t n_rails = 0;

    memset(t, 0, sizeof *t);
    if (!fp) {
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        return -errno;
    }
    if (getline(&line, &cap, fp) < 0) {
        pp_log_error("%s:1: empty file (a header with a time column and power columns is "
                     "expected)", path);
        rc = -EINVAL;
        goto out;
    }
    chomp(line);
    n = pp_csv_split(line, f, 2 * PP_TRACE_MAX_RAILS + 2);
    if (n > 2 * PP_TRACE_MAX_RAILS + 1) {
        pp_log_error("%s:1: too many columns (%zu)", path, n);
        rc = -EINVAL;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        char *col = trim(f[i]), base[PP_TRACE_NAME_MAX + 16], kind;
        double scale;
        size_t r;

        if ((o->time_col && strcmp(col, o->time_col) == 0) ||
            (!o->time_col && (strcasecmp(col, "t_s") == 0 || strcasecmp(col, "time") == 0 ||
                              strcasecmp(col, "time_s") == 0 || strcasecmp(col, "timestamp") == 0 ||
                              strcasecmp(col, "time_ms") == 0 || strcasecmp(col, "t_ms") == 0))) {
            time_col = (int)i;
            time_scale = strstr(col, "ms") ? 1e-3 : 1.0;
            continue;
        }
        scale = column_unit(col, base, sizeof base, &kind);
        if (scale == 0) {
            if (!(o->unit_scale > 0)) {
                pp_log_error("%s:1: column %zu '%s' has no unit (_w, _mw, _uw, _a, _v, ...): "
                             "name it, or give --unit", path, i + 1, col);
                rc = -EINVAL;
                goto out;
            }
            scale = o->unit_scale;
        }
        for (r = 0; r < n_rails && strcmp(rails[r].name, base) != 0; r++)
            ;
        if (r == n_rails) {
            if (n_rails == PP_TRACE_MAX_RAILS || strlen(base) >= PP_TRACE_NAME_MAX || !base[0]) {
                pp_log_error("%s:1: column %zu '%s': too many rails or a bad name", path, i + 1, col);
                rc = -EINVAL;
                goto out;
            }
            memset(&rails[r], 0, sizeof rails[r]);
            rails[r].col_p = rails[r].col_a = rails[r].col_v = -1;
            pp_strlcpy(rails[r].name, base, sizeof rails[r].name);
            n_rails++;
        }
        if (kind == 'p') {
            rails[r].col_p = (int)i;
            rails[r].scale_p = scale;
        } else if (kind == 'a') {
            rails[r].col_a = (int)i;
            rails[r].scale_a = scale;
        } else {
            rails[r].col_v = (int)i;
            rails[r].scale_v = scale;
        }
    }
    if (time_col < 0) {
        pp_log_error("%s:1: no time column (t_s, time, time_s, time_ms, timestamp, or --time-col)",
                     path);
        rc = -EINVAL;
        goto out;
    }
    for (size_t r = 0; r < n_rails; r++)
        if (rails[r].col_p < 0 && (rails[r].col_a < 0 || rails[r].col_v < 0)) {
            pp_log_error("%s:1: '%s' has a %s column but no %s column to multiply it with", path,
                         rails[r].name, rails[r].col_a >= 0 ? "current" : "voltage",
                         rails[r].col_a >= 0 ? "voltage" : "current");
            rc = -EINVAL;
            goto out;
        }
    if (n_rails == 0) {
        pp_log_error("%s:1: no power column", path);
        rc = -EINVAL;
        goto out;
    }
    {
        const char *names[PP_TRACE_MAX_RAILS];
        for (size_t r = 0; r < n_rails; r++)
            names[r] = rails[r].name;
        if ((rc = pp_trace_init(t, n_rails, names)) < 0)
            goto out;
    }
    while ((len = getline(&line, &cap, fp)) >= 0) {
        double row[PP_TRACE_MAX_RAILS], ts;
        size_t m;

        line_no++;
        if (pp_trace_csv_line_cut(path, line_no, line, len, n))
            break; /* cut short by a crash: read up to here (warned) */
        chomp(line);
        if (!line[0])
            continue;
        m = pp_csv_split(line, f, 2 * PP_TRACE_MAX_RAILS + 2);
        if (m != n) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, m, n);
            rc = -EINVAL;
            goto out;
        }
        if (pp_trace_csv_row_is_gap(f, m, (size_t)time_col)) { /* trace.h: a gap row */
            pp_log_warn("%s:%ld: a gap in the readings (a row without values): the samples on "
                        "either side are joined", path, line_no);
            continue;
        }
        if (pp_parse_double(f[time_col], &ts) < 0) {
            pp_log_error("%s:%ld: time '%s' is not a finite number", path, line_no, f[time_col]);
            rc = -EINVAL;
            goto out;
        }
        ts *= time_scale;
        if ((rc = check_time(t, path, line_no, ts)) < 0)
            goto out;
        for (size_t r = 0; r < n_rails; r++) {
            if (rails[r].col_p >= 0) {
                rc = power_value(path, line_no, (size_t)rails[r].col_p + 1, f[rails[r].col_p],
                                 rails[r].scale_p, &row[r]);
            } else {
                double a, v;
                rc = power_value(path, line_no, (size_t)rails[r].col_a + 1, f[rails[r].col_a],
                                 rails[r].scale_a, &a);
                if (rc == 0)
                    rc = power_value(path, line_no, (size_t)rails[r].col_v + 1,
                                     f[rails[r].col_v], rails[r].scale_v, &v);
                row[r] = a * v;
            }
            if (rc < 0)
                goto out;
        }
        if ((rc = pp_trace_append(t, ts, row)) < 0)
            goto out;
    }
out:
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
            pp_fmt(names[n], 64, "%.*s", (int)(close - p - 1), p + 1);
            pp_fmt(text, sizeof text, "%.*s", (int)(end - s), s);
            if (pp_parse_double(text, &values[n]) < 0) {
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
