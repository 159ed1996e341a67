#include "summary.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


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

/* run.json's "params": {"<name>": {"scale": "exponential", ...}, ...}
 * (written by `powprof profile`); without it, or without the parameter,
 * the scale is guessed from the values. */
static void read_scales(const char *dir, pp_summary *s)
{
    char path[4096];
    json_t *root, *params;

    pp_fmt(path, sizeof path, "%s/run.json", dir);
    root = access(path, F_OK) == 0 ? json_load_file(path, 0, NULL) : NULL;
    if (!root && access(path, F_OK) == 0)
        pp_log_warn("%s: not valid JSON: parameter scales guessed from their values", path);
    params = json_object_get(root, "params");
    for (size_t k = 0; k < s->n_params; k++) {
        json_t *scale = json_object_get(json_object_get(params, s->params[k]), "scale");
        if (json_is_string(scale))
            s->log_scale[k] = strcmp(json_string_value(scale), "exponential") == 0;
        else
            s->log_scale[k] = looks_geometric(s, k);
    }
    json_decref(root);
}

/* The header's names: each a safe name (util.h) that no other column has. */
static int check_header(const char *path, char **f, size_t n)
{
    char what[4200];

    for (size_t c = 0; c < n; c++) {
        pp_fmt(what, sizeof what, "%s:1: column %zu", path, c + 1);
        if (pp_name_check(f[c], what) < 0)
            return -EINVAL;
        for (size_t d = 0; d < c; d++)
            if (strcmp(f[c], f[d]) == 0) {
                pp_log_error("%s:1: column %zu '%s' repeats column %zu", path, c + 1, f[c], d + 1);
                return -EINVAL;
            }
    }
    return 0;
}

/* The header: parameters up to "status", then the metrics (numeric
 * columns; iteration and late-frame counts and the reason are not). */
static int read_header(const char *path, char **f, size_t n, pp_summary *s, size_t *status_col,
                       size_t *metric_col)
{
    size_t c;

    if (strcmp(f[0], "id") != 0) {
        pp_log_error("%s:1: not a powprof summary (its first column must be 'id')", path);
        return -EINVAL;
    }
    if (check_header(path, f, n) < 0)
        return -EINVAL;
    for (c = 1; c < n && strcmp(f[c], "status") != 0; c++) {
        if (s->n_params == PP_SUMMARY_MAX_PARAMS) {
            pp_log_error("%s:1: more than %d parameters", path, PP_SUMMARY_MAX_PARAMS);
            return -EINVAL;
        }
        pp_strlcpy(s->params[s->n_params++], f[c], PP_SUMMARY_NAME_MAX);
    }
    if (c == n) {
        pp_log_error("%s:1: no 'status' column", path);
        return -EINVAL;
    }
    *status_col = c;
    for (c++; c < n && s->n_metrics < PP_SUMMARY_MAX_METRICS; c++) {
        const char *name = f[c];
        size_t len = strlen(name);
        if (strcmp(name, "reason") == 0 || strcmp(name, "late_frames") == 0 ||
            (len > 12 && strcmp(name + len - 12, ".late_frames") == 0) ||
            strcmp(name, "iterations") == 0 || (len > 11 && strcmp(name + len - 11, ".iterations") == 0))
            continue;
        metric_col[s->n_metrics] = c;
        pp_strlcpy(s->metrics[s->n_metrics++], name, PP_SUMMARY_NAME_MAX);
    }
    return 0;
}

/* Room for one more row. */
static int grow_rows(pp_summary *s, size_t *cap_rows)
{
    size_t nc = *cap_rows ? *cap_rows * 2 : 256;
    double *x = realloc(s->x, nc * (s->n_params ? s->n_params : 1) * sizeof *x);
    double *y = x ? realloc(s->y, nc * (s->n_metrics ? s->n_metrics : 1) * sizeof *y) : NULL;
    long *ids = y ? realloc(s->ids, nc * sizeof *ids) : NULL;

    if (x)
        s->x = x;
    if (y)
        s->y = y;
    if (!ids)
        return -ENOMEM;
    s->ids = ids;
    *cap_rows = nc;
    return 0;
}

/* A row with status ok (its fields in f) as row s->n_rows. */
static int read_row(const char *path, long line_no, char **f, const size_t *metric_col,
                    pp_summary *s)
{
    int64_t id;

    if (pp_parse_int64(f[0], &id) < 0 || id < 0 || id > LONG_MAX) {
        pp_log_error("%s:%ld: id '%s' is not a whole number >= 0", path, line_no, f[0]);
        return -EINVAL;
    }
    s->ids[s->n_rows] = (long)id;
    for (size_t k = 0; k < s->n_params; k++)
        if (pp_parse_double(f[k + 1], &s->x[s->n_rows * s->n_params + k]) < 0) {
            pp_log_error("%s:%ld: %s '%s' is not a number", path, line_no, s->params[k], f[k + 1]);
            return -EINVAL;
        }
    for (size_t k = 0; k < s->n_metrics; k++) {
        double v = NAN;
        const char *cell = f[metric_col[k]];
        if (*cell && pp_parse_double(cell, &v) < 0) {
            pp_log_error("%s:%ld: %s '%s' is not a number", path, line_no, s->metrics[k], cell);
            return -EINVAL;
        }
        s->y[s->n_rows * s->n_metrics + k] = v;
    }
    s->n_rows++;
    return 0;
}

int pp_summary_read(const char *dir, pp_summary *s)
{
    char path[4096], *line = NULL, *f[PP_SUMMARY_MAX_PARAMS + PP_SUMMARY_MAX_METRICS + 16];
    size_t cap = 0, n, m, status_col = 0, cap_rows = 0;
    size_t metric_col[PP_SUMMARY_MAX_METRICS];
    long line_no = 1;
    FILE *fp;
    int rc = -EINVAL;

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
        goto out;
    }
    line[strcspn(line, "\r\n")] = '\0';
    n = pp_csv_split(line, f, PP_ARRAY_SIZE(f));
    if (n > PP_ARRAY_SIZE(f)) {
        pp_log_error("%s:1: %zu columns, at most %zu", path, n, PP_ARRAY_SIZE(f));
        goto out;
    }
    if (read_header(path, f, n, s, &status_col, metric_col) < 0)
        goto out;
    while (getline(&line, &cap, fp) >= 0) {
        line_no++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        if ((m = pp_csv_split(line, f, PP_ARRAY_SIZE(f))) != n) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, m, n);
            rc = -EINVAL;
            goto out;
        }
        if (strcmp(f[status_col], "ok") != 0) {
            s->n_left_out++;
            continue;
        }
        if ((s->n_rows == cap_rows && (rc = grow_rows(s, &cap_rows)) < 0) ||
            (rc = read_row(path, line_no, f, metric_col, s)) < 0)
            goto out;
    }
    rc = 0;
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
