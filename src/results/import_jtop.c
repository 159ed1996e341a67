/* import_jtop.c - jetson-stats' jtop logs (import_jtop.h): the CSV that jtop's
 * logger writes with csv.DictWriter from jetson.stats, one row per
 * reading: "time" (Python's str(datetime): "2024-01-31 12:34:56.789012"),
 * then CPU, memory, temperatures and "Power <rail>" columns in mW with
 * "Power TOT", jtop's total. Calls the shared checks of import.c
 * (import.h); nothing calls back. */
#include "import_jtop.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_COLS 512

/* The fields of a CSV line, in place (quotes as Python's csv writes them:
 * a field in double quotes, "" a quote inside). How many, or -1 past
 * MAX_COLS or with a quote left open. */
static int split(char *s, char **f)
{
    int n = 0;

    for (;;) {
        char *out = s;
        if (n == MAX_COLS)
            return -1;
        f[n++] = s;
        if (*s == '"') {
            for (s++;; s++) {
                if (!*s)
                    return -1;
                if (*s == '"' && s[1] != '"')
                    break;
                *out++ = *s == '"' ? *++s : *s;
            }
            s++;
        } else {
            while (*s && *s != ',')
                *out++ = *s++;
        }
        if (*s != ',' && *s)
            return -1;
        if (!*s) {
            *out = '\0';
            return n;
        }
        *out = '\0';
        s++;
    }
}

/* "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC; only differences are used) into
 * *out; 0, or -1 when it is not that. */
static int parse_time(const char *s, double *out)
{
    struct tm tm;
    int y, mo, d, h, mi, se, used = 0;
    double frac = 0;

    if (sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &used) != 6 ||
        used != 19 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    if (s[19] == '.') {
        size_t k = strspn(s + 20, "0123456789");
        if (k == 0 || k > 9 || s[20 + k])
            return -1;
        frac = strtod(s + 19, NULL);
    } else if (s[19]) {
        return -1;
    }
    memset(&tm, 0, sizeof tm);
    tm = (struct tm){.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
                     .tm_min = mi, .tm_sec = se};
    *out = (double)timegm(&tm) + frac;
    return 0;
}

/* The header: the time column, and the power columns with their rails
 * ("Power VDD_GPU" -> VDD_GPU; "Power TOT" -> TOT_IN, the board input that
 * holds the others, unless a rail of the log already ends in _IN: then
 * TOT is left out, said). */
typedef struct jtop_cols {
    int time;
    size_t n;
    int col[PP_TRACE_MAX_RAILS];
    char name[PP_TRACE_MAX_RAILS][PP_TRACE_NAME_MAX];
} jtop_cols;

static int header(const char *path, char **f, int n, jtop_cols *c)
{
    int tot = -1, has_in = 0;

    c->time = -1;
    c->n = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(f[i], "time") == 0)
            c->time = i;
        if (strncmp(f[i], "Power ", 6) != 0)
            continue;
        if (strcmp(f[i] + 6, "TOT") == 0) {
            tot = i;
            continue;
        }
        if (c->n == PP_TRACE_MAX_RAILS ||
            pp_strlcpy(c->name[c->n], f[i] + 6, PP_TRACE_NAME_MAX) < 0) {
            pp_log_error("%s:1: column '%s': too many rails or too long a name", path, f[i]);
            return -EINVAL;
        }
        for (char *p = c->name[c->n]; *p; p++)
            *p = isalnum((unsigned char)*p) || *p == '-' || *p == '.' ? *p : '_';
        has_in |= pp_rail_is_board_input(c->name[c->n]);
        c->col[c->n++] = i;
    }
    if (tot >= 0 && !has_in && c->n < PP_TRACE_MAX_RAILS) {
        memcpy(c->name[c->n], "TOT_IN", sizeof "TOT_IN"); /* fits: PP_TRACE_NAME_MAX */
        c->col[c->n++] = tot;
    } else if (tot >= 0) {
        pp_log_info("%s: 'Power TOT' left out: the log's own board input rail holds the others",
                    path);
    }
    if (c->time < 0 || c->n == 0) {
        pp_log_error("%s:1: not a jtop log: a 'time' column and 'Power <rail>' columns (mW) "
                     "expected", path);
        return -EINVAL;
    }
    return 0;
}

/* One row at line: its time (from t0) and the rails into t. */
static int row(const char *path, long line, char **f, int n, int n_head, const jtop_cols *c,
               double *t0, pp_trace *t)
{
    double ts, w[PP_TRACE_MAX_RAILS];

    if (n != n_head) {
        pp_log_error("%s:%ld: %d fields, the header has %d", path, line, n, n_head);
        return -EINVAL;
    }
    if (parse_time(f[c->time], &ts) < 0) {
        pp_log_error("%s:%ld: time '%.40s': YYYY-MM-DD HH:MM:SS[.ffffff] expected", path, line,
                     f[c->time]);
        return -EINVAL;
    }
    if (t->n_samples == 0)
        *t0 = ts;
    for (size_t r = 0; r < c->n; r++)
        if (pp_import_power_value(path, line, (size_t)c->col[r] + 1, f[c->col[r]], 1e-3, &w[r]) < 0)
            return -EINVAL;
    if (pp_import_check_time(t, path, line, ts - *t0) < 0)
        return -EINVAL;
    return pp_trace_append(t, ts - *t0, w);
}

int pp_import_jtop(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = pp_import_open(path); /* a FIFO or a device refused (logged) */
    char *line = NULL, **f = malloc(MAX_COLS * sizeof *f);
    size_t cap = 0;
    long line_no = 0;
    int rc = f ? 0 : -ENOMEM, n_head = 0;
    double t0 = 0;
    jtop_cols *c = malloc(sizeof *c);
    const char *names[PP_TRACE_MAX_RAILS];

    (void)o;
    memset(t, 0, sizeof *t);
    if (!fp || !c) {
        free(f);
        free(c);
        if (fp)
            fclose(fp);
        return fp ? -ENOMEM : -errno;
    }
    while (rc == 0) {
        ssize_t got = pp_import_getline(&line, &cap, fp, path, line_no + 1);
        int n;
        if (got == -2)
            rc = -EINVAL;
        if (got < 0)
            break;
        line_no++;
        pp_import_chomp(line);
        if (!*line)
            continue;
        if ((n = split(line, f)) < 0) {
            pp_log_error("%s:%ld: not a CSV line (a quote left open, or over %d fields)", path,
                         line_no, MAX_COLS);
            rc = -EINVAL;
        } else if (n_head == 0) {
            n_head = n;
            if ((rc = header(path, f, n, c)) == 0) {
                for (size_t r = 0; r < c->n; r++)
                    names[r] = c->name[r];
                rc = pp_trace_init(t, c->n, names);
            }
        } else {
            rc = row(path, line_no, f, n, n_head, c, &t0, t);
        }
    }
    if (line_no == 0 && rc == 0) {
        pp_log_error("%s: empty file", path);
        rc = -EINVAL;
    }
    free(line);
    free(f);
    free(c);
    fclose(fp);
    return pp_import_finish(t, path, rc);
}
