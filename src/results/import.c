/* import.c - what the readers of import.h share: the options, the checks
 * of a value, a time, a rail name and the end of a file, and file-name
 * patterns. The format readers (import_powprofiler.c, import_tegrastats.c,
 * import_csv.c, import_jtop.c) call these; nothing here calls them. */
#include "import.h"

#include "src/base/file.h"
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

FILE *pp_import_open(const char *path)
{
    return pp_file_fopen_regular(path);
}

ssize_t pp_import_getline(char **line, size_t *cap, FILE *fp, const char *path, long line_no)
{
    ssize_t len = pp_file_getline_max(line, cap, fp, PP_TRACE_LINE_MAX);

    if (len == -2)
        pp_log_error("%s:%ld: a line longer than %zu bytes: not a power record", path, line_no,
                     (size_t)PP_TRACE_LINE_MAX);
    return len;
}

void pp_import_chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

char *pp_import_trim(char *s)
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
int pp_import_power_value(const char *path, long line, size_t col, const char *text, double scale,
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

int pp_import_check_time(const pp_trace *t, const char *path, long line, double ts)
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
int pp_import_check_rail(const char *path, long line, size_t col, const char *name,
                         const char *const *names, size_t n)
{
    char what[PP_PATH_MAX];

    if (col)
        pp_text(what, sizeof what, "%s:%ld: column %zu: rail", path, line, col);
    else
        pp_text(what, sizeof what, "%s:%ld: rail", path, line);
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

int pp_import_finish(pp_trace *t, const char *path, int rc)
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

/* {name:C} writes the decimal point of its value as C (5-8 for 5.8 with
 * {fps:-}): the one C in text becomes '.'; two are no number (-1). */
static int decimal_point(char *text, char c)
{
    char *at = c == '.' ? NULL : strchr(text, c);

    if (at && strchr(at + 1, c))
        return -1;
    if (at)
        *at = '.';
    return 0;
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
                end = pp_fmt(needle, sizeof needle, "%.*s", (int)lit_len, lit) == 0
                      ? strstr(s, needle) : NULL; /* a literal too long matches nothing */
            }
            if (!end || end == s || n == max) {
                pp_log_error("%s: the name does not match --pattern '%s'", path, pattern);
                return -EINVAL;
            }
            const char *colon = memchr(p, ':', (size_t)(close - p));
            if (pp_fmt(names[n], 64, "%.*s", (int)((colon ? colon : close) - p - 1), p + 1) < 0 ||
                (colon && close - colon != 2) ||
                pp_name_check(names[n], "--pattern: the name of {...}") < 0) {
                pp_log_error("--pattern '%s': {%.*s} is not a parameter name of at most 63 "
                             "characters", pattern, (int)(close - p - 1), p + 1);
                return -EINVAL;
            }
            if (pp_fmt(text, sizeof text, "%.*s", (int)(end - s), s) < 0 ||
                decimal_point(text, colon ? colon[1] : '.') < 0 ||
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
