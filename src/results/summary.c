#include "summary.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FIELDS (PP_SUMMARY_MAX_PARAMS + PP_SUMMARY_MAX_METRICS + 64)

/* Where the columns are. */
typedef struct columns {
    size_t n, status, samples, short_run, iterations, late; /* 0: absent (column 0 is id) */
    size_t node, repeat;
    size_t metric[PP_SUMMARY_MAX_METRICS];
} columns;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Distinct values of column k (sorted) into v; their count. */
static size_t distinct(const pp_summary *s, size_t k, double *v)
{
    size_t n = 0;

    for (size_t i = 0; i < s->n_rows; i++)
        v[i] = s->x[i * s->n_params + k];
    qsort(v, s->n_rows, sizeof *v, cmp_double);
    for (size_t i = 0; i < s->n_rows; i++)
        if (n == 0 || v[i] != v[n - 1])
            v[n++] = v[i];
    return n;
}

/* Distinct values (sorted), at least 3, all > 0, each ratio between
 * neighbours a whole power (within 1 %) of the smallest one, which is at
 * least 1.5: a geometric sequence, or one with values left out (dropping
 * a level must not switch the scale: issue 31). */
static int looks_geometric(const double *v, size_t n)
{
    double r = INFINITY;
    int geo = n >= 3 && v[0] > 0;

    for (size_t i = 1; geo && i < n; i++)
        r = fmin(r, log(v[i] / v[i - 1]));
    geo = geo && r >= log(1.5);
    for (size_t i = 1; geo && i < n; i++) {
        double q = log(v[i] / v[i - 1]) / r;
        geo = fabs(q - round(q)) < 0.01 * round(q);
    }
    return geo;
}

/* Scales and integer flags, once the rows are read. */
static int finish_params(pp_summary *s)
{
    double *v = malloc((s->n_rows + 1) * sizeof *v);

    if (!v)
        return -ENOMEM;
    for (size_t k = 0; k < s->n_params; k++) {
        pp_summary_param_info *p = &s->param[k];
        size_t n = distinct(s, k, v);
        if (p->kind == PP_PARAM_CATEGORICAL) {
            s->log_scale[k] = 0;
            p->integer = 1;
            continue;
        }
        if (p->kind == PP_PARAM_UNKNOWN)
            s->log_scale[k] = looks_geometric(v, n);
        else
            s->log_scale[k] = p->kind == PP_PARAM_EXPONENTIAL;
        p->integer = 1;
        for (size_t i = 0; i < n; i++)
            p->integer &= v[i] == floor(v[i]);
        for (size_t i = 0; i < p->n_swept; i++)
            p->integer &= p->swept[i] == floor(p->swept[i]);
    }
    free(v);
    return 0;
}

/* One parameter's entry of run.json's "params": its kind and values. */
static int json_param(const char *path, json_t *o, pp_summary_param_info *p)
{
    static const char *const kinds[] = {"", "fixed", "linear", "exponential", "list", "categorical"};
    json_t *kind = json_object_get(o, "kind"), *values = json_object_get(o, "values"), *v;
    const char *name = json_string_value(kind ? kind : json_object_get(o, "scale"));
    size_t i;

    for (int k = 1; name && k <= PP_PARAM_CATEGORICAL; k++)
        if (strcmp(name, kinds[k]) == 0)
            p->kind = (pp_param_kind)k;
    if (!json_is_array(values))
        return 0;
    if (p->kind == PP_PARAM_CATEGORICAL) {
        p->labels = calloc(json_array_size(values) + 1, sizeof *p->labels);
        if (!p->labels)
            return -ENOMEM;
        json_array_foreach(values, i, v) {
            const char *label = json_string_value(v);
            if (!label || !pp_label_ok(label)) {
                pp_log_error("%s: parameter %s: value %zu is not a label (letters, digits and "
                             "_ . - + / :)", path, p->name, i + 1);
                return -EINVAL;
            }
            memcpy(p->labels[p->n_labels++], label, strlen(label) + 1); /* fits: pp_label_ok */
        }
        return 0;
    }
    p->swept = calloc(json_array_size(values) + 1, sizeof *p->swept);
    if (!p->swept)
        return -ENOMEM;
    json_array_foreach(values, i, v)
        if (json_is_number(v))
            p->swept[p->n_swept++] = json_number_value(v);
    return 0;
}

/* dir/name opened for reading (flags: PP_SUMMARY_NO_LINKS), path its
 * name. The file descriptor, or -errno (-ENOENT not logged). */
static int open_in(const char *dir, const char *name, int flags, const char *path)
{
    int dfd, fd;

    if (!(flags & PP_SUMMARY_NO_LINKS)) {
        fd = pp_open_regular(path);
    } else if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        fd = -errno;
    } else {
        fd = pp_open_inside(dfd, name);
        close(dfd);
    }
    if (fd == -ELOOP)
        pp_log_error("%s: a symbolic link: refused (a results folder received from someone else "
                     "must not make powprof read outside it)", path);
    else if (fd == -EISDIR || fd == -EINVAL)
        pp_log_error("%s: not a regular file", path);
    else if (fd < 0 && fd != -ENOENT)
        pp_log_error("%s: cannot open: %s", path, strerror(-fd));
    return fd;
}

/* run.json's "params", when there is a run.json. */
static int read_run_json(const char *dir, int flags, pp_summary *s)
{
    char path[PP_PATH_MAX];
    json_error_t err;
    json_t *root, *params;
    int rc = 0, fd;

    pp_text(path, sizeof path, "%s/run.json", dir); /* for messages: open_in opens it */
    if ((fd = open_in(dir, "run.json", flags, path)) < 0)
        return fd == -ENOENT ? 0 : -EINVAL;
    root = json_loadfd(fd, 0, &err);
    close(fd);
    if (!root) {
        if (err.line > 0) /* there, but not JSON: say so, go on from the values */
            pp_log_warn("%s:%d: %s (parameter kinds taken from the values)", path, err.line,
                        err.text);
        return 0;
    }
    params = json_object_get(root, "params");
    for (size_t k = 0; k < s->n_params && rc == 0 && json_is_object(params); k++) {
        json_t *o = json_object_get(params, s->params[k]);
        if (json_is_object(o))
            rc = json_param(path, o, &s->param[k]);
    }
    json_decref(root);
    return rc;
}

/* Columns that are no metric of a configuration: counts, the reason, the
 * node and repeat of a row, and the whole machine's CPU at the time (other
 * programs' load, not the configuration's). */
static int is_count_column(const char *name)
{
    static const char *const ends[] = {"iterations", "late_frames", "samples", "short_run"};
    size_t len = strlen(name);

    if (strcmp(name, "reason") == 0 || strcmp(name, "node") == 0 || strcmp(name, "repeat") == 0 ||
        strcmp(name, "machine_cpu_share") == 0)
        return 1;
    for (size_t i = 0; i < PP_ARRAY_SIZE(ends); i++) {
        size_t n = strlen(ends[i]);
        if (strcmp(name, ends[i]) == 0 || (len > n && name[len - n - 1] == '.' &&
                                           strcmp(name + len - n, ends[i]) == 0))
            return 1;
    }
    return 0;
}

/* The header's names: each a safe name (util.h) that no other column has. */
static int check_header(const char *path, char **f, size_t n)
{
    char what[PP_PATH_MAX];

    for (size_t c = 0; c < n; c++) {
        pp_text(what, sizeof what, "%s:1: column %zu", path, c + 1);
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

/* The header: parameters, status, metrics, the short-run columns. */
static int read_header(const char *path, char *line, pp_summary *s, columns *c)
{
    char *f[MAX_FIELDS];
    size_t n = pp_csv_split(line, f, MAX_FIELDS);

    memset(c, 0, sizeof *c);
    if (n > MAX_FIELDS || strcmp(f[0], "id") != 0) {
        pp_log_error("%s:1: not a powprof summary (its first column must be 'id')", path);
        return -EINVAL;
    }
    if (check_header(path, f, n) < 0)
        return -EINVAL;
    c->n = n;
    _Static_assert(PP_SUMMARY_NAME_MAX >= PP_NAME_MAX, "check_header's names fit");
    for (c->status = 1; c->status < n && strcmp(f[c->status], "status") != 0; c->status++) {
        if (s->n_params == PP_SUMMARY_MAX_PARAMS) {
            pp_log_error("%s:1: more than %d parameters", path, PP_SUMMARY_MAX_PARAMS);
            return -EINVAL;
        }
        memcpy(s->params[s->n_params], f[c->status], strlen(f[c->status]) + 1);
        memcpy(s->param[s->n_params++].name, f[c->status], strlen(f[c->status]) + 1);
    }
    if (c->status == n) {
        pp_log_error("%s:1: no 'status' column", path);
        return -EINVAL;
    }
    for (size_t k = c->status + 1; k < n; k++) {
        if (strcmp(f[k], "samples") == 0)
            c->samples = k;
        else if (strcmp(f[k], "short_run") == 0)
            c->short_run = k;
        else if (strcmp(f[k], "iterations") == 0)
            c->iterations = k;
        else if (strcmp(f[k], "late_frames") == 0)
            c->late = k;
        else if (strcmp(f[k], "node") == 0)
            c->node = k;
        else if (strcmp(f[k], "repeat") == 0)
            c->repeat = k;
        if (is_count_column(f[k]) || s->n_metrics == PP_SUMMARY_MAX_METRICS)
            continue;
        c->metric[s->n_metrics] = k;
        memcpy(s->metrics[s->n_metrics++], f[k], strlen(f[k]) + 1);
    }
    return 0;
}

/* A new label of parameter p (without run.json): its index, or -1. */
static int add_label(pp_summary_param_info *p, const char *label)
{
    if (p->n_labels % 16 == 0) {
        void *l = realloc(p->labels, (p->n_labels + 16) * sizeof *p->labels);
        if (!l)
            return -1;
        p->labels = l;
    }
    if (pp_strlcpy(p->labels[p->n_labels], label, PP_SUMMARY_LABEL_MAX) < 0)
        return -1; /* never: its cell is a label (pp_label_ok) */
    return (int)p->n_labels++;
}

/* A parameter's cell into x: a number, or a label's index. */
static int param_cell(const char *path, long line_no, pp_summary *s, size_t k, const char *cell,
                      int store, double *x)
{
    pp_summary_param_info *p = &s->param[k];
    int at;

    if (p->kind != PP_PARAM_CATEGORICAL) {
        if (pp_parse_double(cell, x) == 0)
            return 0;
        pp_log_error("%s:%ld: %s '%s' is not a number", path, line_no, p->name, cell);
        return -EINVAL;
    }
    if (!pp_label_ok(cell)) {
        pp_log_error("%s:%ld: %s '%s' is not a label (1 to %d letters, digits and _ . - + / :)",
                     path, line_no, p->name, cell, PP_SUMMARY_LABEL_MAX - 1);
        return -EINVAL;
    }
    at = pp_summary_label(s, k, cell);
    if (at < 0 && p->labels_from_values && !store)
        return 0; /* a row not kept (status not ok): checked, its label not added */
    if (at < 0 && p->labels_from_values) {
        if (p->n_labels == PP_SUMMARY_MAX_LABELS) {
            pp_log_error("%s:%ld: %s: more than %d labels", path, line_no, p->name,
                         PP_SUMMARY_MAX_LABELS);
            return -EINVAL;
        }
        if ((at = add_label(p, cell)) < 0)
            return -ENOMEM;
    }
    if (at < 0) {
        pp_log_error("%s:%ld: %s '%s' is not one of the labels run.json lists", path, line_no,
                     p->name, cell);
        return -EINVAL;
    }
    *x = at;
    return 0;
}

static int grow(pp_summary *s, size_t *cap)
{
    size_t nc = *cap ? *cap * 2 : 256, np = s->n_params ? s->n_params : 1;
    double *x = realloc(s->x, nc * np * sizeof *x);
    double *y = x ? realloc(s->y, nc * (s->n_metrics + 1) * sizeof *y) : NULL;
    long *ids = y ? realloc(s->ids, nc * sizeof *ids) : NULL;
    long *samples = ids ? realloc(s->samples, nc * sizeof *samples) : NULL;
    long *it = samples ? realloc(s->iterations, nc * sizeof *it) : NULL;
    long *late = it ? realloc(s->late_frames, nc * sizeof *late) : NULL;
    int *short_run = late ? realloc(s->short_run, nc * sizeof *short_run) : NULL;
    size_t *node = short_run ? realloc(s->node, nc * sizeof *node) : NULL;
    long *repeat = node ? realloc(s->repeat, nc * sizeof *repeat) : NULL;

    s->x = x ? x : s->x;
    s->y = y ? y : s->y;
    s->ids = ids ? ids : s->ids;
    s->samples = samples ? samples : s->samples;
    s->iterations = it ? it : s->iterations;
    s->late_frames = late ? late : s->late_frames;
    s->short_run = short_run ? short_run : s->short_run;
    s->node = node ? node : s->node;
    if (!repeat)
        return -ENOMEM;
    s->repeat = repeat;
    *cap = nc;
    return 0;
}

/* The node cell of row r: its index among the nodes (a new one added). */
static int node_cell(const char *path, long line_no, pp_summary *s, const char *cell, size_t r,
                     int store)
{
    char what[4300];
    int at = pp_summary_node(s, cell);

    if (at < 0 && *cell) {
        pp_text(what, sizeof what, "%s:%ld: node", path, line_no);
        if (pp_name_check(cell, what) < 0)
            return -EINVAL;
    }
    if (!store)
        return 0;
    if (at < 0) {
        if (s->n_nodes % 16 == 0) {
            void *n = realloc(s->nodes, (s->n_nodes + 16) * sizeof *s->nodes);
            if (!n)
                return -ENOMEM;
            s->nodes = n;
        }
        if (pp_strlcpy(s->nodes[s->n_nodes], cell, PP_NODE_NAME_MAX) < 0)
            return -EINVAL; /* never: pp_name_check held it to a name's length */
        at = (int)s->n_nodes++;
    }
    s->node[r] = (size_t)at;
    return 0;
}

/* A count cell (samples, short_run, repeat, ...): a whole number from 0 to
 * max, or -1 when empty. */
static int count_cell(const char *path, long line_no, const char *name, const char *cell,
                      double max, long *v)
{
    double d;

    *v = -1;
    if (!*cell)
        return 0;
    if (pp_parse_double(cell, &d) < 0 || !(d >= 0 && d <= max) || d != floor(d)) {
        pp_log_error("%s:%ld: %s '%s' is not a count (a whole number from 0 to %.15g)", path,
                     line_no, name, cell, max);
        return -EINVAL;
    }
    *v = (long)d;
    return 0;
}

/* The cells of row r that are neither parameters nor metrics: node,
 * repeat and the counts. */
static int other_cells(const char *path, long line_no, char **f, pp_summary *s, const columns *c,
                       size_t r, int store)
{
    long flag = 0;
    int rc;

    s->samples[r] = s->iterations[r] = s->late_frames[r] = -1;
    s->repeat[r] = 0;
    if ((rc = node_cell(path, line_no, s, c->node ? f[c->node] : "", r, store)) < 0 ||
        (c->repeat && (rc = count_cell(path, line_no, "repeat", f[c->repeat],
                                       PP_SUMMARY_MAX_REPEAT, &s->repeat[r])) < 0) ||
        (c->samples && (rc = count_cell(path, line_no, "samples", f[c->samples],
                                        PP_SUMMARY_MAX_COUNT, &s->samples[r])) < 0) ||
        (c->short_run && (rc = count_cell(path, line_no, "short_run", f[c->short_run], 1,
                                          &flag)) < 0) ||
        (c->iterations && (rc = count_cell(path, line_no, "iterations", f[c->iterations],
                                           PP_SUMMARY_MAX_COUNT, &s->iterations[r])) < 0) ||
        (c->late && (rc = count_cell(path, line_no, "late_frames", f[c->late],
                                     PP_SUMMARY_MAX_COUNT, &s->late_frames[r])) < 0))
        return rc;
    s->repeat[r] = s->repeat[r] > 0 ? s->repeat[r] : 0;
    s->short_run[r] = flag > 0;
    return 0;
}

/* One row into the arrays at s->n_rows, checked by the one set of rules
 * whatever its status; kept (n_rows counted) when its status is ok. */
static int read_row(const char *path, long line_no, char **f, pp_summary *s, const columns *c)
{
    size_t r = s->n_rows;
    int store = strcmp(f[c->status], "ok") == 0, rc;
    int64_t id;

    if (pp_parse_int64(f[0], &id) < 0 || id < 0 || id > LONG_MAX) {
        pp_log_error("%s:%ld: id '%s' is not a whole number >= 0", path, line_no, f[0]);
        return -EINVAL;
    }
    s->ids[r] = (long)id;
    for (size_t k = 0; k < s->n_params; k++)
        if ((rc = param_cell(path, line_no, s, k, f[k + 1], store,
                             &s->x[r * s->n_params + k])) < 0)
            return rc;
    if (pp_name_why(f[c->status], NULL, 0) < 0) {
        pp_log_error("%s:%ld: status '%s' is not a status (ok, failed, timeout, interrupted)", path, line_no,
                     f[c->status]);
        return -EINVAL;
    }
    for (size_t k = 0; k < s->n_metrics; k++) {
        double v = NAN;
        const char *cell = f[c->metric[k]];
        if (*cell && pp_parse_double(cell, &v) < 0) {
            pp_log_error("%s:%ld: %s '%s' is not a number", path, line_no, s->metrics[k], cell);
            return -EINVAL;
        }
        s->y[r * s->n_metrics + k] = v;
    }
    if ((rc = other_cells(path, line_no, f, s, c, r, store)) < 0)
        return rc;
    if (!store) {
        s->n_left_out++;
        return 0;
    }
    s->max_repeat = s->repeat[r] > s->max_repeat ? s->repeat[r] : s->max_repeat;
    s->n_short += s->short_run[r];
    s->n_rows++;
    return 0;
}

/* Where a pass over the rows reports them. */
typedef struct each {
    pp_summary_row_fn fn;
    void *ctx;
} each;

/* A line that does not end with a line end is the last, cut short by a
 * crash while it was written (a sweep writes a row and its newline at
 * once): left out, said. 1 when line is such a line. */
static int cut_short(const char *path, long line_no, const char *line, ssize_t len, int pass)
{
    if (len > 0 && line[len - 1] == '\n')
        return 0;
    if (pass == 1)
        pp_log_warn("%s:%ld: cut short (no line end: a crash while writing?): left out", path,
                    line_no);
    return 1;
}

/* Pass 1's row: checked and kept by read_row, then given to e. */
static int row_pass(const char *path, long line_no, char **f, const char *raw, pp_summary *s,
                    const columns *c, const each *e)
{
    size_t r = s->n_rows;
    pp_summary_row row;
    int rc = read_row(path, line_no, f, s, c);

    if (rc < 0 || !e->fn)
        return rc;
    row = (pp_summary_row){line_no, raw, s->ids[r], strcmp(f[c->status], "ok") == 0,
                           c->node ? f[c->node] : "", s->repeat[r]};
    return e->fn(e->ctx, &row);
}

/* Pass 0: a parameter's cell that is not a number makes it categorical
 * (when run.json does not describe it). */
static void find_categorical(pp_summary *s, char **f)
{
    for (size_t k = 0; k < s->n_params; k++) {
        double v;
        pp_summary_param_info *p = &s->param[k];
        if (p->kind != PP_PARAM_CATEGORICAL && pp_parse_double(f[k + 1], &v) < 0) {
            p->kind = PP_PARAM_CATEGORICAL;
            p->labels_from_values = 1;
        }
    }
}

/* Every line after the header: pass 0 only finds the categorical
 * parameters that run.json does not describe; pass 1 reads the rows. */
static int read_rows(FILE *fp, const char *path, pp_summary *s, const columns *c, int pass,
                     const each *e)
{
    char *line = NULL, *raw = NULL, *f[MAX_FIELDS];
    size_t cap = 0, cap_rows = 0;
    long line_no = 1;
    ssize_t len;
    int rc = 0;

    while (rc == 0 && (len = getline(&line, &cap, fp)) >= 0) {
        size_t m;
        line_no++;
        if (cut_short(path, line_no, line, len, pass))
            break;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        free(raw);
        if (!(raw = strdup(line))) {
            rc = -ENOMEM;
            break;
        }
        m = pp_csv_split(line, f, MAX_FIELDS);
        if (m != c->n) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, m, c->n);
            rc = -EINVAL;
        } else if (pass == 0) {
            find_categorical(s, f);
        } else if (s->n_rows < cap_rows || (rc = grow(s, &cap_rows)) == 0) {
            rc = row_pass(path, line_no, f, raw, s, c, e);
        }
    }
    free(line);
    free(raw);
    return rc;
}

static void weigh(pp_summary *s)
{
    for (size_t i = 0; i < s->n_rows; i++) {
        double k = s->samples[i] > 0 ? (double)s->samples[i] : 1.0;
        s->weight[i] = s->short_run[i] ? fmax(0.2, fmin(1.0, (k / 5.0) * (k / 5.0))) : 1.0;
    }
}

/* The header, run.json and every row of fp (path). */
static int read_all(FILE *fp, const char *dir, const char *path, int flags, pp_summary *s,
                    const each *e)
{
    char *line = NULL;
    size_t cap = 0;
    columns c;
    int rc;

    if (getline(&line, &cap, fp) < 0) {
        pp_log_error("%s:1: empty file", path);
        free(line);
        return -EINVAL;
    }
    line[strcspn(line, "\r\n")] = '\0';
    if ((rc = read_header(path, line, s, &c)) < 0 || (rc = read_run_json(dir, flags, s)) < 0 ||
        (rc = read_rows(fp, path, s, &c, 0, e)) < 0)
        goto out;
    rewind(fp);
    if (getline(&line, &cap, fp) < 0 || (rc = read_rows(fp, path, s, &c, 1, e)) < 0)
        goto out;
    if (s->n_rows == 0 && !e->fn) {
        pp_log_error("%s: no row with status ok", path);
        rc = -EINVAL;
        goto out;
    }
    if (!(s->weight = malloc((s->n_rows + 1) * sizeof *s->weight))) {
        rc = -ENOMEM;
        goto out;
    }
    weigh(s);
    rc = finish_params(s);
out:
    free(line);
    return rc;
}

int pp_summary_read_each(const char *dir, int flags, pp_summary *s, pp_summary_row_fn fn,
                         void *ctx)
{
    char path[PP_PATH_MAX];
    each e = {fn, ctx};
    FILE *fp;
    int rc, fd;

    memset(s, 0, sizeof *s);
    pp_text(path, sizeof path, "%s/summary.csv", dir); /* for messages: open_in opens it */
    if ((fd = open_in(dir, "summary.csv", flags, path)) < 0) {
        if (fd == -ENOENT)
            pp_log_error("%s: cannot open: %s (a results folder of powprof profile or import is "
                         "expected)", path, strerror(ENOENT));
        return fd == -ELOOP || fd == -EISDIR ? -EINVAL : fd;
    }
    if (!(fp = fdopen(fd, "r"))) {
        close(fd);
        return -ENOMEM;
    }
    rc = read_all(fp, dir, path, flags, s, &e);
    fclose(fp);
    if (rc < 0)
        pp_summary_free(s);
    return rc;
}

int pp_summary_read(const char *dir, pp_summary *s)
{
    return pp_summary_read_each(dir, 0, s, NULL, NULL);
}

void pp_summary_free(pp_summary *s)
{
    for (size_t k = 0; k < PP_SUMMARY_MAX_PARAMS; k++) {
        free(s->param[k].swept);
        free(s->param[k].labels);
    }
    free(s->x);
    free(s->y);
    free(s->ids);
    free(s->samples);
    free(s->iterations);
    free(s->late_frames);
    free(s->short_run);
    free(s->weight);
    free(s->nodes);
    free(s->node);
    free(s->repeat);
    memset(s, 0, sizeof *s);
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

int pp_summary_node(const pp_summary *s, const char *name)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (strcmp(s->nodes[i], name) == 0)
            return (int)i;
    return -1;
}

int pp_summary_label(const pp_summary *s, size_t k, const char *label)
{
    for (size_t i = 0; i < s->param[k].n_labels; i++)
        if (strcmp(s->param[k].labels[i], label) == 0)
            return (int)i;
    return -1;
}

void pp_summary_value_text(const pp_summary *s, size_t k, double v, char *buf, size_t cap)
{
    if (s->param[k].kind == PP_PARAM_CATEGORICAL && v >= 0 && (size_t)v < s->param[k].n_labels)
        pp_text(buf, cap, "%s", s->param[k].labels[(size_t)v]);
    else
        pp_text(buf, cap, "%g", v);
}
