/* Reading layers.csv and networks.csv back (src/dnn/layers_model.h). */
#include "layers_data.h"
#include "layers_profile.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 64

/* A CSV file being read: its header's columns, then one row at a time. */
typedef struct csv_reader {
    char path[PP_PATH_MAX];
    char *text, *next;
    int line;
    size_t n_cols;
    char header[4096];
    char *cols[MAX_COLS];
    char *f[MAX_COLS]; /* the current row's fields */
} csv_reader;

static int csv_open(csv_reader *r, const char *dir, const char *name)
{
    memset(r, 0, sizeof *r);
    if (pp_path_join(r->path, sizeof r->path, dir, name) < 0)
        return -ENAMETOOLONG;
    if (!(r->text = pp_read_file(r->path))) {
        pp_log_error("%s: cannot read: %s (profile with 'powprof layers profile -o %s')", r->path,
                     strerror(errno), dir);
        return -ENOENT;
    }
    r->next = r->text;
    return 0;
}

/* The next non-empty line, NUL-terminated in place; NULL at the end. */
static char *csv_line(csv_reader *r)
{
    while (*r->next) {
        char *line = r->next;
        size_t len = strcspn(line, "\n");
        r->next += len + (line[len] == '\n');
        line[len] = '\0';
        if (len && line[len - 1] == '\r')
            line[len - 1] = '\0';
        r->line++;
        if (line[0])
            return line;
    }
    return NULL;
}

/* The next row split into r->f; 1 at the end, 0, or -EINVAL. */
static int csv_row(csv_reader *r)
{
    char *line = csv_line(r);
    size_t n;

    if (!line)
        return 1;
    n = pp_csv_split(line, r->f, MAX_COLS);
    if (n != r->n_cols) {
        pp_log_error("%s:%d: %zu fields, the header has %zu", r->path, r->line, n, r->n_cols);
        return -EINVAL;
    }
    return 0;
}

/* Read the header; it must be exactly expected. */
static int csv_header(csv_reader *r, const char *expected)
{
    char *line = csv_line(r);

    if (line && pp_strlcpy(r->header, line, sizeof r->header) == 0 &&
        strcmp(r->header, expected) == 0) {
        r->n_cols = pp_csv_split(r->header, r->cols, MAX_COLS);
        return 0;
    }
    pp_log_error("%s:1: not a file written by 'powprof layers profile' of this version (header "
                 "expected: %.300s)", r->path, expected);
    return -EINVAL;
}


static int col(const csv_reader *r, const char *name)
{
    for (size_t i = 0; i < r->n_cols; i++)
        if (strcmp(r->cols[i], name) == 0)
            return (int)i;
    return -1; /* cannot happen: the header was checked */
}

/* The number in column name: "nan" (when nan_ok), or within [lo, hi]. */
static int num_in(const csv_reader *r, const char *name, double lo, double hi, int nan_ok,
                  double *out)
{
    const char *v = r->f[col(r, name)];

    if (nan_ok && (strcmp(v, "nan") == 0 || strcmp(v, "-nan") == 0)) {
        *out = NAN;
        return 0;
    }
    if (pp_parse_double(v, out) < 0) {
        pp_log_error("%s:%d: column %s: '%s' is not a number", r->path, r->line, name, v);
        return -EINVAL;
    }
    if (!(*out >= lo && *out <= hi)) {
        pp_log_error("%s:%d: column %s: %s is out of range (%g to %g)", r->path, r->line, name, v,
                     lo, hi);
        return -EINVAL;
    }
    return 0;
}

#define MAX_FLOPS 1e18 /* per layer or network and frame */
#define MAX_BYTES 1e15

static int num(const csv_reader *r, const char *name, double *out)
{
    return num_in(r, name, 0, strstr(name, "flops") ? MAX_FLOPS : MAX_BYTES, 0, out);
}

/* A measured value per frame: nan or 0 (left out of fits), or a time from
 * a picosecond to 10^6 s, an energy from a femtojoule to 10^9 J (a value
 * outside is an edited or broken file, and would break the least squares). */
static int measured(const csv_reader *r, const char *name, double *out)
{
    int joules = strstr(name, "energy") != NULL;
    int rc = num_in(r, name, 0, joules ? 1e9 : 1e6, 1, out);

    if (rc == 0 && *out > 0 && *out < (joules ? 1e-15 : 1e-12)) {
        pp_log_error("%s:%d: column %s: %s is out of range (0, or %g to %g)", r->path, r->line,
                     name, r->f[col(r, name)], joules ? 1e-15 : 1e-12, joules ? 1e9 : 1e6);
        rc = -EINVAL;
    }
    return rc;
}

/* The text of column name (or text, when given) into dst: 0, or -EINVAL
 * and said (file, line, column) when it does not fit. */
static int cell_copy(const csv_reader *r, const char *name, const char *text, char *dst,
                     size_t cap)
{
    if (pp_strlcpy(dst, text ? text : r->f[col(r, name)], cap) == 0)
        return 0;
    pp_log_error("%s:%d: column %s: '%.40s...' is longer than %zu characters", r->path, r->line,
                 name, text ? text : r->f[col(r, name)], cap - 1);
    return -EINVAL;
}

static int inum(const csv_reader *r, const char *name, int lo, int hi, int *out)
{
    double v;
    int rc = num_in(r, name, lo, hi, 0, &v);

    if (rc == 0 && v != floor(v)) {
        pp_log_error("%s:%d: column %s: '%s' is not a whole number", r->path, r->line, name,
                     r->f[col(r, name)]);
        rc = -EINVAL;
    }
    if (rc == 0)
        *out = (int)v;
    return rc;
}

#define MAX_DIM 65536
#define MAX_CHANNELS (1 << 24)

static int read_network(const csv_reader *r, pp_network_sample *n)
{
    static const char *const keys[PP_LQ_COUNT] = {"cpu_s", "time_s", "energy_j"};
    static const char *const sums[PP_LQ_COUNT] = {"layers_cpu_s", "layers_time_s",
                                                  "layers_energy_j"};
    int layers = 0, rc = 0;

    memset(n, 0, sizeof *n);
    n->first = SIZE_MAX;
    if (pp_strlcpy(n->name, r->f[col(r, "network")], sizeof n->name) < 0 ||
        pp_strlcpy(n->device, r->f[col(r, "device")], sizeof n->device) < 0) {
        pp_log_error("%s:%d: a name too long", r->path, r->line);
        return -EINVAL;
    }
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++)
        if ((rc = measured(r, keys[q], &n->y[q])) == 0)
            rc = measured(r, sums[q], &n->layers_y[q]);
    if (rc < 0 || (rc = inum(r, "width", 1, MAX_DIM, &n->width)) < 0 ||
        (rc = inum(r, "height", 1, MAX_DIM, &n->height)) < 0 ||
        (rc = inum(r, "layers", 1, PP_LAYER_MAX, &layers)) < 0 ||
        (rc = num(r, "flops", &n->flops)) < 0 ||
        (rc = num_in(r, "idle_w", 0, 1e4, 1, &n->idle_w)) < 0 ||
        (rc = inum(r, "estimated", 0, 1, &n->estimated)) < 0)
        return rc;
    n->n_layers = (size_t)layers;
    return 0;
}

static int read_desc(const csv_reader *r, pp_layer_desc *d, int *index)
{
    static const struct {
        const char *name;
        int lo, hi;
    } ints[] = {{"line", 0, 100000000},  {"in_w", 0, MAX_DIM},        {"in_h", 0, MAX_DIM},
                {"in_c", 0, MAX_CHANNELS}, {"out_w", 0, MAX_DIM},     {"out_h", 0, MAX_DIM},
                {"out_c", 0, MAX_CHANNELS}, {"filters", 0, MAX_CHANNELS}, {"size", 0, 1024},
                {"stride", -1024, 1024},  {"groups", 0, MAX_CHANNELS}, {"batch_normalize", 0, 1}};
    int *dst[] = {&d->line, &d->in_w, &d->in_h, &d->in_c, &d->out_w, &d->out_h, &d->out_c,
                  &d->filters, &d->size, &d->stride, &d->groups, &d->batch_normalize};
    const char *type = r->f[col(r, "type")], *act = r->f[col(r, "activation")];
    int kind = pp_layer_kind_from_name(type), rc;
    double nweights = 0;

    memset(d, 0, sizeof *d);
    if (kind < 0) {
        pp_log_error("%s:%d: type '%s' is not a layer kind powprof models", r->path, r->line, type);
        return -EINVAL;
    }
    d->kind = (pp_layer_kind)kind;
    for (size_t i = 0; i < PP_ARRAY_SIZE(ints); i++)
        if ((rc = inum(r, ints[i].name, ints[i].lo, ints[i].hi, dst[i])) < 0)
            return rc;
    if ((rc = inum(r, "layer", 0, PP_LAYER_MAX - 1, index)) < 0 ||
        (rc = num(r, "flops", &d->flops)) < 0 || (rc = num(r, "param_bytes", &d->param_bytes)) < 0 ||
        (rc = num(r, "in_bytes", &d->in_bytes)) < 0 || (rc = num(r, "out_bytes", &d->out_bytes)) < 0)
        return rc;
    if ((rc = cell_copy(r, "activation", strcmp(act, "-") == 0 ? "" : act, d->activation,
                        sizeof d->activation)) < 0)
        return rc;
    d->inputs = (long)(d->in_bytes / 4);
    d->outputs = (long)(d->out_bytes / 4);
    if (d->kind == PP_LAYER_CONVOLUTIONAL && d->groups > 0)
        nweights = (double)(d->in_c / d->groups) * d->filters * d->size * d->size;
    else if (d->kind == PP_LAYER_CONNECTED)
        nweights = (double)d->inputs * d->filters;
    if (nweights > INT32_MAX) { /* darknet's l.nweights is an int */
        pp_log_error("%s:%d: %.0f weights (in_c, groups, filters, size): more than darknet can "
                     "hold", r->path, r->line, nweights);
        return -EINVAL;
    }
    d->nweights = (long)nweights;
    return 0;
}

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
    void *p;

    if (n < *cap)
        return 0;
    if (!(p = realloc(*arr, (*cap ? *cap * 2 : 64) * size)))
        return -ENOMEM;
    *arr = p;
    *cap = *cap ? *cap * 2 : 64;
    return 0;
}

static int read_networks(const char *dir, pp_layers_data *d, size_t *cap)
{
    csv_reader r;
    int rc = csv_open(&r, dir, "networks.csv");

    if (rc == 0)
        rc = csv_header(&r, pp_networks_csv_header);
    while (rc == 0 && (rc = csv_row(&r)) == 0) {
        if ((rc = grow((void **)&d->networks, d->n_networks, cap, sizeof *d->networks)) < 0)
            break;
        if ((rc = read_network(&r, &d->networks[d->n_networks])) == 0)
            d->n_networks++;
    }
    free(r.text);
    return rc < 0 ? rc : 0;
}

/* The layers samples[first ..] of one run (n of them) go to the first
 * network of the same name and size (at or after from) still without
 * layers and of that many layers. */
static void attach_run(pp_layers_data *d, size_t from, const char *name, int w, int h,
                       size_t first, size_t n, const char *path)
{
    for (size_t i = from; i < d->n_networks; i++) {
        pp_network_sample *net = &d->networks[i];
        if (net->first == SIZE_MAX && net->n_layers == n && net->width == w &&
            net->height == h && strcmp(net->name, name) == 0) {
            net->first = first;
            for (size_t k = 0; k < n; k++)
                d->samples[first + k].net = i;
            return;
        }
    }
    pp_log_warn("%s: the %zu layers of %s at %dx%d have no row in networks.csv (an interrupted "
                "profile?): left out", path, n, name, w, h);
    d->n_samples = first;
}

static int read_layer_row(const csv_reader *r, pp_layer_sample *s, int *index)
{
    static const char *const keys[PP_LQ_COUNT] = {"cpu_s", "time_s", "energy_j"};
    int rc = read_desc(r, &s->d, index);

    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++)
        rc = measured(r, keys[q], &s->y[q]);
    s->line = r->line;
    return rc;
}

static int read_layers(const char *dir, pp_layers_data *d, size_t from, size_t *cap)
{
    csv_reader r;
    char name[64] = "";
    int rc = csv_open(&r, dir, "layers.csv"), w = 0, h = 0, index;
    size_t first = d->n_samples;

    if (rc == 0)
        rc = csv_header(&r, pp_layers_csv_header);
    while (rc == 0 && (rc = csv_row(&r)) == 0) {
        pp_layer_sample *s;
        if ((rc = grow((void **)&d->samples, d->n_samples, cap, sizeof *d->samples)) < 0 ||
            (rc = read_layer_row(&r, s = &d->samples[d->n_samples], &index)) < 0)
            break;
        if (index == 0 && d->n_samples > first) { /* a new run: the previous one is whole */
            attach_run(d, from, name, w, h, first, d->n_samples - first, r.path);
            memmove(&d->samples[d->n_samples], s, sizeof *s); /* no-op unless it was cut */
            first = d->n_samples;
            s = &d->samples[d->n_samples];
        }
        if ((size_t)index != d->n_samples - first) {
            pp_log_error("%s:%d: layer %d follows layer %zu", r.path, r.line, index,
                         d->n_samples - first - 1);
            rc = -EINVAL;
            break;
        }
        s->file = d->n_files - 1;
        if ((rc = cell_copy(&r, "network", NULL, name, sizeof name)) < 0 ||
            (rc = inum(&r, "width", 1, MAX_DIM, &w)) < 0 ||
            (rc = inum(&r, "height", 1, MAX_DIM, &h)) < 0)
            break;
        d->n_samples++;
    }
    if (rc >= 0 && d->n_samples > first)
        attach_run(d, from, name, w, h, first, d->n_samples - first, r.path);
    free(r.text);
    return rc < 0 ? rc : 0;
}

/* Networks without layers (the profile stopped between the two files)
 * are dropped. */
static void drop_unattached(pp_layers_data *d, size_t from)
{
    size_t k = from;

    for (size_t i = from; i < d->n_networks; i++) {
        if (d->networks[i].first == SIZE_MAX)
            continue;
        if (k != i) {
            d->networks[k] = d->networks[i];
            for (size_t j = 0; j < d->networks[k].n_layers; j++)
                d->samples[d->networks[k].first + j].net = k;
        }
        k++;
    }
    d->n_networks = k;
}

/* dir/layers.csv into d->files: what messages name a sample's row by. */
static int add_file(pp_layers_data *d, const char *dir)
{
    char path[PP_PATH_MAX], **files;

    if (pp_path_join(path, sizeof path, dir, "layers.csv") < 0)
        return -ENAMETOOLONG;
    if (!(files = realloc(d->files, sizeof *files * (d->n_files + 1))))
        return -ENOMEM;
    d->files = files;
    if (!(files[d->n_files] = strdup(path)))
        return -ENOMEM;
    d->n_files++;
    return 0;
}

int pp_layers_data_read(const char *dir, pp_layers_data *d)
{
    size_t from = d->n_networks, ncap = d->n_networks, scap = d->n_samples;
    int rc;

    /* the arrays grow from their current size: capacities start at it */
    if ((rc = read_networks(dir, d, &ncap)) < 0 || (rc = add_file(d, dir)) < 0 ||
        (rc = read_layers(dir, d, from, &scap)) < 0)
        return rc;
    drop_unattached(d, from);
    return 0;
}

void pp_layers_data_free(pp_layers_data *d)
{
    for (size_t i = 0; i < d->n_files; i++)
        free(d->files[i]);
    free(d->files);
    free(d->samples);
    free(d->networks);
    memset(d, 0, sizeof *d);
}
