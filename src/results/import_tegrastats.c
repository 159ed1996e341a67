/* import_tegrastats.c - Jetson tegrastats logs (import_tegrastats.h). Calls the
 * shared checks of import.c (import.h); nothing calls back. */
#include "import_tegrastats.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
        if (pp_import_check_rail(path, line_no, 0, tok[i], names, k) < 0)
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
    if (pp_import_check_time(t, path, line_no, ts) < 0)
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
    FILE *fp = pp_import_open(path); /* a FIFO or a device refused (logged) */
    char *line = NULL;
    size_t cap = 0;
    long line_no = 0, index = 0;
    double t0 = 0;
    int rc = 0, have_header = 0, stamps = -1;
    tegra_rec rec = {NULL, 0, 0, 0, 0};

    memset(t, 0, sizeof *t);
    if (!fp)
        return -errno;
    for (;;) {
        ssize_t got = pp_import_getline(&line, &cap, fp, path, line_no + 1);
        char *s = line;
        double stamp = 0;
        int starts = 0, stamp_len = 0;

        if (got == -2) { /* a line without end: said with the file and line */
            rc = -EINVAL;
            break;
        }
        if (got >= 0) {
            line_no++;
            pp_import_chomp(line);
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
    return pp_import_finish(t, path, rc);
}
