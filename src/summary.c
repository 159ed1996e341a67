#include "summary.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Distinct values of column k, at least 3, all > 0, a constant ratio. */
static int looks_geometric(const pp_summary *s, size_t k)
{
    double *v = malloc(s->n_rows * sizeof *v);
    size_t n = 0;
    int geo = 1;

    if (!v)
        return 0;
    for (size_t i = 0; i < s->n_rows; i++)
        v[i] = s->x[i * s->n_params + k];
    qsort(v, s->n_rows, sizeof *v, cmp_double);
    for (size_t i = 0; i < s->n_rows; i++)
        if (n == 0 || v[i] != v[n - 1])
            v[n++] = v[i];
    if (n < 3 || v[0] <= 0)
        geo = 0;
    for (size_t i = 2; geo && i < n; i++)
        geo = fabs(log(v[i] / v[i - 1]) - log(v[1] / v[0])) < 0.01 * fabs(log(v[1] / v[0]));
    free(v);
    return geo;
}

static void read_scales(const char *dir, pp_summary *s)
{
    char path[4096], key[PP_SUMMARY_NAME_MAX + 16];
    char *text;

    pp_fmt(path, sizeof path, "%s/run.json", dir);
    text = pp_read_file(path); /* NULL without run.json: scales from the values */
    for (size_t k = 0; k < s->n_params; k++) {
        const char *at;
        pp_fmt(key, sizeof key, "\"%s\":{\"scale\":\"", s->params[k]);
        if (text && (at = strstr(text, key)))
            s->log_scale[k] = strncmp(at + strlen(key), "exponential", 11) == 0;
        else
            s->log_scale[k] = looks_geometric(s, k);
    }
    free(text);
}

int pp_summary_read(const char *dir, pp_summary *s)
{
    char path[4096], *line = NULL, *f[PP_SUMMARY_MAX_PARAMS + PP_SUMMARY_MAX_METRICS + 16];
    size_t cap = 0, n, status_col = 0, cap_rows = 0;
    size_t metric_col[PP_SUMMARY_MAX_METRICS];
    long line_no = 1;
    FILE *fp;
    int rc = 0;

    memset(s, 0, sizeof *s);
    pp_fmt(path, sizeof path, "%s/summary.csv", dir);
    fp = fopen(path, "r");
    if (!fp) {
        pp_log_error("%s: cannot open: %s (a results folder of powprof profile or import is "
                     "expected)", path, strerror(errno));
        return -errno;
    }
    if (getline(&line, &cap, fp) < 0) {
        pp_log_error("%s:1: empty file", path);
        rc = -EINVAL;
        goto out;
    }
    line[strcspn(line, "\r\n")] = '\0';
    n = pp_csv_split(line, f, sizeof f / sizeof f[0]);
    if (n > sizeof f / sizeof f[0] || strcmp(f[0], "id") != 0) {
        pp_log_error("%s:1: not a powprof summary (its first column must be 'id')", path);
        rc = -EINVAL;
        goto out;
    }
    for (status_col = 1; status_col < n && strcmp(f[status_col], "status") != 0; status_col++) {
        if (s->n_params == PP_SUMMARY_MAX_PARAMS) {
            pp_log_error("%s:1: more than %d parameters", path, PP_SUMMARY_MAX_PARAMS);
            rc = -EINVAL;
            goto out;
        }
        pp_strlcpy(s->params[s->n_params++], f[status_col], PP_SUMMARY_NAME_MAX);
    }
    if (status_col == n) {
        pp_log_error("%s:1: no 'status' column", path);
        rc = -EINVAL;
        goto out;
    }
    for (size_t c = status_col + 1; c < n; c++) {
        const char *name = f[c];
        size_t len = strlen(name);
        if (strcmp(name, "reason") == 0 || strcmp(name, "late_frames") == 0 ||
            (len > 12 && strcmp(name + len - 12, ".late_frames") == 0) ||
            strcmp(name, "iterations") == 0 || (len > 11 && strcmp(name + len - 11, ".iterations") == 0))
            continue;
        if (s->n_metrics == PP_SUMMARY_MAX_METRICS)
            break;
        metric_col[s->n_metrics] = c;
        pp_strlcpy(s->metrics[s->n_metrics++], name, PP_SUMMARY_NAME_MAX);
    }
    while (getline(&line, &cap, fp) >= 0) {
        size_t m;
        line_no++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        m = pp_csv_split(line, f, sizeof f / sizeof f[0]);
        if (m != n) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, m, n);
            rc = -EINVAL;
            goto out;
        }
        if (strcmp(f[status_col], "ok") != 0) {
            s->n_left_out++;
            continue;
        }
        if (s->n_rows == cap_rows) {
            size_t nc = cap_rows ? cap_rows * 2 : 256;
            double *x = realloc(s->x, nc * (s->n_params ? s->n_params : 1) * sizeof *x);
            double *y = x ? realloc(s->y, nc * s->n_metrics * sizeof *y) : NULL;
            long *ids = y ? realloc(s->ids, nc * sizeof *ids) : NULL;
            if (x)
                s->x = x;
            if (y)
                s->y = y;
            if (!ids) {
                rc = -ENOMEM;
                goto out;
            }
            s->ids = ids;
            cap_rows = nc;
        }
        s->ids[s->n_rows] = strtol(f[0], NULL, 10);
        for (size_t k = 0; k < s->n_params; k++)
            if (pp_parse_double(f[k + 1], &s->x[s->n_rows * s->n_params + k]) < 0) {
                pp_log_error("%s:%ld: %s '%s' is not a number", path, line_no, s->params[k],
                             f[k + 1]);
                rc = -EINVAL;
                goto out;
            }
        for (size_t k = 0; k < s->n_metrics; k++) {
            double v = NAN;
            const char *cell = f[metric_col[k]];
            if (*cell && pp_parse_double(cell, &v) < 0) {
                pp_log_error("%s:%ld: %s '%s' is not a number", path, line_no, s->metrics[k], cell);
                rc = -EINVAL;
                goto out;
            }
            s->y[s->n_rows * s->n_metrics + k] = v;
        }
        s->n_rows++;
    }
    if (s->n_rows == 0) {
        pp_log_error("%s: no row with status ok", path);
        rc = -EINVAL;
        goto out;
    }
    read_scales(dir, s);
out:
    free(line);
    fclose(fp);
    if (rc < 0)
        pp_summary_free(s);
    return rc;
}

void pp_summary_free(pp_summary *s)
{
    free(s->x);
    free(s->y);
    free(s->ids);
    s->x = s->y = NULL;
    s->ids = NULL;
    s->n_rows = 0;
}

int pp_summary_param(const pp_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_params; k++)
        if (strcmp(s->params[k], name) == 0)
            return (int)k;
    return -1;
}

int pp_summary_metric(const pp_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_metrics; k++)
        if (strcmp(s->metrics[k], name) == 0)
            return (int)k;
    return -1;
}
