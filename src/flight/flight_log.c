/* A recorded flight's battery from a ULog or a ulog2csv CSV (flight_log.h):
 * the CSV that pyulog's ulog2csv writes of battery_status is read here,
 * into the same pp_ulog_flight as a .ulg. */
#include "flight_log.h"
#include "ulog_trace.h"

#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pp_flight_log_is(const char *path) { return pp_ulog_is_ulog(path) || pp_ulog_csv_is(path); }

int pp_flight_log_read(const char *path, pp_ulog_flight *f)
{
    return pp_flight_log_read_max(path, f, 0);
}

/* The dropout rule applied as the samples come (ulog_samples.c): a ULog's
 * instances left with no sample are dropped by its reader. */
int pp_flight_log_read_max(const char *path, pp_ulog_flight *f, size_t keep_max)
{
    return pp_ulog_is_ulog(path) ? pp_ulog_read_battery_opt(path, f, 1, keep_max)
                                 : pp_ulog_csv_read_opt(path, f, 1, keep_max);
}

void pp_flight_log_left_out(const pp_ulog_flight *f, char *buf, size_t cap)
{
    size_t n = f->n_disconnected + f->n_unmeasured + f->n_zero_sag + f->n_duplicate + f->n_skipped;

    if (n == 0) {
        pp_text(buf, cap, "%s", "");
        return;
    }
    pp_text(buf, cap, "%zu samples left out (not fitted or drawn): %zu disconnected (connected = "
            "0), %zu without a measured voltage or current (NaN, empty, or current -1), %zu with "
            "a current of 0 while the voltage sagged, %zu repeating the time before%s", n,
            f->n_disconnected, f->n_unmeasured + f->n_skipped, f->n_zero_sag, f->n_duplicate,
            f->n_skipped ? " or with values no battery has or out of order" : "");
}

int pp_flight_log_load(const char *path, pp_trace_load *out)
{
    pp_ulog_flight f;
    pp_trace t;
    int rc;

    memset(out, 0, sizeof *out);
    rc = pp_flight_log_read(path, &f);
    if (rc == 0)
        rc = pp_ulog_battery_trace(&f, path, &t);
    pp_ulog_flight_free(&f);
    if (rc < 0)
        return rc;
    out->t_s = malloc((t.n_samples ? t.n_samples : 1) * sizeof *out->t_s);
    out->p_w = malloc((t.n_samples ? t.n_samples : 1) * sizeof *out->p_w);
    if (!out->t_s || !out->p_w) {
        pp_trace_load_free(out);
        pp_trace_free(&t);
        return -ENOMEM;
    }
    out->n = t.n_samples;
    memcpy(out->t_s, t.t_s, t.n_samples * sizeof *out->t_s);
    pp_trace_total_series(&t, out->p_w);
    pp_trace_free(&t);
    return 0;
}

/* ---- the battery_status CSV of ulog2csv ---- */

enum { C_TS, C_V, C_I, C_MAH, C_REM, C_CONN, C_CELLS, C_CAP, N_COLS };
static const char *const col_name[N_COLS] = {"timestamp", "voltage_v", "current_a",
                                              "discharged_mah", "remaining", "connected",
                                              "cell_count", "capacity"};
#define N_REQUIRED 3

/* The delimiter of a header line: ulog2csv writes ',' unless -d gives
 * another; the most frequent of , ; tab | is taken. */
/* A header past a UTF-8 byte order mark (spreadsheets write one). */
static char *past_bom(char *line)
{
    return strncmp(line, "\xEF\xBB\xBF", 3) == 0 ? line + 3 : line;
}

static char delimiter_of(const char *header)
{
    static const char cand[] = {',', ';', '\t', '|'};
    size_t best = 0, count[4] = {0};

    for (const char *s = header; *s; s++)
        for (size_t k = 0; k < 4; k++)
            count[k] += *s == cand[k];
    for (size_t k = 1; k < 4; k++)
        if (count[k] > count[best])
            best = k;
    return cand[best];
}

/* Split line (modified) at delim into at most cap fields, each trimmed. */
static size_t split(char *line, char delim, char **field, size_t cap)
{
    size_t n = 0;
    char *s = line;

    line[strcspn(line, "\r\n")] = 0;
    while (n < cap) {
        char *comma = strchr(s, delim);
        if (comma)
            *comma = 0;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strlen(s);
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            s[--len] = 0;
        field[n++] = s;
        if (!comma)
            break;
        s = comma + 1;
    }
    return n;
}

/* The header's columns: idx[c] is the field of column c, or -1. 0 or
 * -EINVAL (logged with the columns found). */
static int header(const char *path, char *line, char delim, int *idx)
{
    char *field[512], *copy = strdup(line);
    size_t n = split(line, delim, field, PP_ARRAY_SIZE(field));

    for (int c = 0; c < N_COLS; c++) {
        idx[c] = -1;
        for (size_t i = 0; i < n; i++)
            if (strcmp(field[i], col_name[c]) == 0 && idx[c] < 0)
                idx[c] = (int)i;
    }
    for (int c = 0; c < N_REQUIRED; c++)
        if (idx[c] < 0) {
            if (copy)
                copy[strcspn(copy, "\r\n")] = 0;
            pp_log_error("%s:1: no '%s' column: a battery_status CSV (pyulog's ulog2csv) has "
                         "timestamp (us), voltage_v and current_a (the header: %.200s)", path,
                         col_name[c], copy ? copy : "?");
            free(copy);
            return -EINVAL;
        }
    free(copy);
    return 0;
}

/* A cell as a number: empty or nan are NaN; anything else not a number is
 * an error (-EINVAL, logged with the file, line and column). */
static int cell(const char *path, size_t line, int c, const char *s, double *out)
{
    char *end;

    if (*s == 0 || strcasecmp(s, "nan") == 0 || strcasecmp(s, "-nan") == 0) {
        *out = NAN;
        return 0;
    }
    if (strcasecmp(s, "true") == 0 || strcasecmp(s, "false") == 0) { /* a bool column */
        *out = strcasecmp(s, "true") == 0;
        return 0;
    }
    errno = 0;
    *out = strtod(s, &end);
    if (*end != 0 || errno == ERANGE) {
        pp_log_error("%s:%zu: column '%s': '%.40s' is not a number", path, line, col_name[c], s);
        return -EINVAL;
    }
    return 0;
}

/* One row's values into the battery, or counted as left out. */
static int add_row(const char *path, size_t line, const double *v, pp_ulog_flight *f,
                   double *last_us)
{
    pp_ulog_battery *b = &f->bat[0];

    if (!isfinite(v[C_TS]) || v[C_TS] < 0) {
        pp_log_error("%s:%zu: timestamp %g: a time in microseconds >= 0 expected", path, line,
                     v[C_TS]);
        return -EINVAL;
    }
    if (v[C_TS] < *last_us) {
        pp_log_error("%s:%zu: timestamp %.0f us goes back (the line before: %.0f us)", path,
                     line, v[C_TS], *last_us);
        return -EINVAL;
    }
    if (v[C_TS] == *last_us) {
        f->n_duplicate++;
        return 0;
    }
    if (v[C_CONN] == 0) {
        f->n_disconnected++;
        return 0;
    }
    if (!isfinite(v[C_V]) || !isfinite(v[C_I]) || v[C_I] == -1) {
        f->n_unmeasured++;
        return 0;
    }
    if (!(v[C_V] > 0 && v[C_V] <= PP_ULOG_MAX_VOLTAGE_V) ||
        !(fabs(v[C_I]) <= PP_ULOG_MAX_CURRENT_A)) { /* no battery has these */
        f->n_implausible++;
        f->n_skipped++;
        return 0;
    }
    *last_us = v[C_TS];
    double s[5] = {v[C_TS] / 1e6, v[C_V], v[C_I], v[C_MAH], v[C_REM]};
    int rc = pp_ulog_samples_add(b, s);
    if (rc < 0)
        return rc;
    f->n_zero_sag += (size_t)rc;
    if (v[C_CELLS] >= 1 && v[C_CELLS] <= PP_ULOG_MAX_CELLS)
        b->cell_count = (int)v[C_CELLS];
    if (v[C_CAP] > 0 && v[C_CAP] <= PP_ULOG_MAX_CAPACITY_MAH)
        b->capacity_mah = v[C_CAP];
    return 0;
}

/* The data rows. 0 or -errno (logged). */
static int rows(const char *path, FILE *fp, char delim, const int *idx, pp_ulog_flight *f)
{
    char *line = NULL, *field[512];
    size_t cap = 0, lineno = 1, need = 0;
    double last_us = -1, v[N_COLS];
    int rc = 0;

    for (int c = 0; c < N_COLS; c++)
        if (idx[c] >= 0 && (size_t)idx[c] + 1 > need)
            need = (size_t)idx[c] + 1;
    ssize_t len;

    while (rc == 0 && (len = pp_file_getline_max(&line, &cap, fp, PP_FILE_LINE_MAX)) != -1) {
        lineno++;
        if (len == -2) {
            pp_log_error("%s:%zu: a line longer than %zu bytes", path, lineno,
                         (size_t)PP_FILE_LINE_MAX);
            rc = -EINVAL;
            break;
        }
        if (line[strspn(line, " \t\r\n")] == 0)
            continue;
        size_t n = split(line, delim, field, PP_ARRAY_SIZE(field));
        if (n < need) {
            pp_log_error("%s:%zu: %zu fields, the header's columns need %zu", path, lineno, n,
                         need);
            rc = -EINVAL;
            break;
        }
        for (int c = 0; c < N_COLS && rc == 0; c++) {
            v[c] = NAN;
            if (idx[c] >= 0)
                rc = cell(path, lineno, c, field[idx[c]], &v[c]);
        }
        if (rc == 0)
            rc = add_row(path, lineno, v, f, &last_us);
    }
    free(line);
    return rc;
}

/* The instance from ulog2csv's file name (..._battery_status_N.csv), else 0. */
static int instance_of(const char *path)
{
    const char *dot = strrchr(path, '.'), *us;
    int k = 0;

    if (!dot || dot == path)
        return 0;
    for (us = dot; us > path && us[-1] >= '0' && us[-1] <= '9'; us--)
        ;
    if (us == dot || us == path || us[-1] != '_' || dot - us > 2)
        return 0;
    for (const char *s = us; s < dot; s++)
        k = 10 * k + (*s - '0');
    return k;
}

int pp_ulog_csv_read(const char *path, pp_ulog_flight *f)
{
    return pp_ulog_csv_read_opt(path, f, 0, 0);
}

int pp_ulog_csv_read_opt(const char *path, pp_ulog_flight *f, int clean, size_t keep_max)
{
    FILE *fp = pp_file_fopen_regular(path); /* a FIFO or a device refused (logged) */
    char *line = NULL, delim = ',';
    size_t cap = 0;
    int idx[N_COLS], rc;

    memset(f, 0, sizeof *f);
    f->from_csv = 1;
    if (!fp)
        return -errno;
    if (pp_file_getline_max(&line, &cap, fp, PP_FILE_LINE_MAX) < 0) {
        pp_log_error("%s:1: empty: a battery_status CSV (ulog2csv) expected", path);
        rc = -EINVAL;
    } else {
        delim = delimiter_of(line);
        rc = header(path, past_bom(line), delim, idx);
    }
    f->battery_defined = 1;
    f->bat[0].instance = instance_of(path);
    f->bat[0].clean = clean, f->bat[0].keep_max = keep_max;
    if (rc == 0)
        rc = rows(path, fp, delim, idx, f);
    free(line);
    fclose(fp);
    if (pp_ulog_samples_end(&f->bat[0]) < 0 && rc == 0)
        rc = -ENOMEM;
    f->n_batteries = f->bat[0].n ? 1 : 0;
    return rc;
}

int pp_ulog_csv_is(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    FILE *fp = NULL;
    char *line = NULL, *field[512];
    size_t cap = 0, n;
    int has[N_REQUIRED] = {0};

    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(fp = fdopen(fd, "r"))))
        close(fd); /* never a FIFO's or a device's bytes */
    if (!fp)
        return 0;
    if (pp_file_getline_max(&line, &cap, fp, PP_FILE_LINE_MAX) >= 0) {
        n = split(past_bom(line), delimiter_of(line), field, PP_ARRAY_SIZE(field));
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < N_REQUIRED; c++)
                has[c] |= strcmp(field[i], col_name[c]) == 0;
    }
    free(line);
    fclose(fp);
    return has[C_TS] && has[C_V];
}
