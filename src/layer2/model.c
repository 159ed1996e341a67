#include "model.h"

#include "lapack.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pp_model_options_init(pp_model_options *o)
{
    o->method = PP_METHOD_AUTO;
    o->h = -1;
    o->value_space = -1;
    o->only = NULL;
    o->keep_held = 0;
    o->derivation = -1;
}

static int wanted(const pp_model *m, size_t k)
{
    if (!m->opts.only)
        return 1;
    for (const char *const *n = m->opts.only; *n; n++)
        if (strcmp(*n, m->sum.metrics[k]) == 0)
            return 1;
    return 0;
}

void pp_model_drop_fits(pp_model_group *g, size_t n_metrics)
{
    for (size_t k = 0; g->fits && k < n_metrics; k++) {
        pp_est_free(&g->fits[k].est);
        pp_choice_free(&g->fits[k].choice);
    }
    free(g->fits);
    g->fits = NULL;
}

void pp_model_free_group(pp_model_group *g, size_t n_metrics)
{
    pp_model_drop_fits(g, n_metrics);
    free(g->rows);
    free(g->members);
    free(g->member_start);
    pp_surface_free(&g->surf);
}

static int same_labels(const pp_model *m, const double *label, size_t row)
{
    for (size_t k = 0; k < m->sum.n_params; k++)
        if (label[k] >= 0 && m->sum.x[row * m->sum.n_params + k] != label[k])
            return 0;
    return 1;
}

/* The groups: one per combination of labels, in order of first row. */
static int make_groups(pp_model *m)
{
    const pp_summary *s = &m->sum;
    size_t *group_of = malloc(s->n_rows * sizeof *group_of);

    if (!group_of)
        return -ENOMEM;
    m->groups = calloc(s->n_rows, sizeof *m->groups); /* at most one per row */
    if (!m->groups) {
        free(group_of);
        return -ENOMEM;
    }
    for (size_t i = 0; i < s->n_rows; i++) {
        size_t g = 0;
        while (g < m->n_groups && !same_labels(m, m->groups[g].label, i))
            g++;
        if (g == m->n_groups) {
            for (size_t k = 0; k < s->n_params; k++)
                m->groups[g].label[k] = s->param[k].kind == PP_PARAM_CATEGORICAL
                                            ? s->x[i * s->n_params + k] : -1;
            m->n_groups++;
        }
        group_of[i] = g;
        m->groups[g].n_rows++;
    }
    for (size_t g = 0; g < m->n_groups; g++) {
        m->groups[g].rows = malloc(m->groups[g].n_rows * sizeof *m->groups[g].rows);
        if (!m->groups[g].rows) {
            free(group_of);
            return -ENOMEM;
        }
        m->groups[g].n_rows = 0;
    }
    for (size_t i = 0; i < s->n_rows; i++) {
        pp_model_group *g = &m->groups[group_of[i]];
        g->rows[g->n_rows++] = i;
    }
    free(group_of);
    return 0;
}

/* Summary rows by their parameters, then node, repeat and row. */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
    const pp_summary *s = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;

    for (size_t k = 0; k < s->n_params; k++) {
        double u = s->x[i * s->n_params + k], v = s->x[j * s->n_params + k];
        if (u != v)
            return u < v ? -1 : 1;
    }
    if (s->node[i] != s->node[j])
        return s->node[i] < s->node[j] ? -1 : 1;
    if (s->repeat[i] != s->repeat[j])
        return s->repeat[i] < s->repeat[j] ? -1 : 1;
    return (i > j) - (i < j);
}

static int same_config(const pp_summary *s, size_t i, size_t j)
{
    return memcmp(s->x + i * s->n_params, s->x + j * s->n_params, s->n_params * sizeof *s->x) == 0;
}

/* Configuration order: by first row. */
static int cmp_first(const void *a, const void *b, void *ctx)
{
    const size_t *first = ctx, i = *(const size_t *)a, j = *(const size_t *)b;
    return (first[i] > first[j]) - (first[i] < first[j]);
}

/* Group g's rows (all of them in g->rows) as configurations, in order of
 * first appearance: g->members holds each one's rows together. */
static int collapse(const pp_summary *s, pp_model_group *g)
{
    size_t n = g->n_rows, c = 0, *start = malloc((n + 1) * sizeof *start);
    size_t *first = malloc((n + 1) * sizeof *first), *order = malloc((n + 1) * sizeof *order);
    size_t *members = malloc((n + 1) * sizeof *members), at = 0;
    int rc = start && first && order && members ? 0 : -ENOMEM;

    if (rc == 0) {
        qsort_r(g->rows, n, sizeof *g->rows, cmp_rows, (void *)s);
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || !same_config(s, g->rows[i - 1], g->rows[i])) {
                start[c] = i;
                first[c] = g->rows[i];
                order[c] = c;
                c++;
            }
            first[c - 1] = g->rows[i] < first[c - 1] ? g->rows[i] : first[c - 1];
        }
        start[c] = n;
        qsort_r(order, c, sizeof *order, cmp_first, first);
        g->member_start = malloc((c + 1) * sizeof *g->member_start);
        rc = g->member_start ? 0 : -ENOMEM;
    }
    for (size_t r = 0; rc == 0 && r < c; r++) {
        g->member_start[r] = at;
        for (size_t i = start[order[r]]; i < start[order[r] + 1]; i++)
            members[at++] = g->rows[i];
    }
    if (rc == 0) {
        for (size_t r = 0; r < c; r++)
            g->rows[r] = members[g->member_start[r]];
        g->member_start[c] = n;
        g->members = members;
        g->replicated = c < n;
        g->n_rows = c;
        members = NULL;
    }
    free(start);
    free(first);
    free(order);
    free(members);
    return rc;
}

double pp_model_config_mean(const pp_model *m, const pp_model_group *g, size_t r, size_t k,
                            size_t skip)
{
    const pp_summary *s = &m->sum;
    double over_nodes = 0, in_node = 0;
    size_t n_nodes = 0, n_in = 0, cur = SIZE_MAX;

    for (size_t j = g->member_start[r]; j <= g->member_start[r + 1]; j++) {
        size_t row = j < g->member_start[r + 1] ? g->members[j] : SIZE_MAX;
        double v;
        if (row == SIZE_MAX || s->node[row] != cur) {
            if (n_in) {
                over_nodes += in_node / (double)n_in;
                n_nodes++;
            }
            if (row == SIZE_MAX)
                break;
            cur = s->node[row];
            in_node = 0;
            n_in = 0;
        }
        v = s->y[row * s->n_metrics + k];
        if (cur != skip && !isnan(v)) {
            in_node += v;
            n_in++;
        }
    }
    return n_nodes ? over_nodes / (double)n_nodes : NAN;
}

/* The group's surface over the numeric parameters, its rows' weights. */
static int group_surface(const pp_model *m, pp_model_group *g)
{
    const pp_summary *s = &m->sum;
    double *x = malloc((g->n_rows * m->n_num + 1) * sizeof *x);
    double *w = malloc(g->n_rows * sizeof *w);
    int log_scale[PP_SUMMARY_MAX_PARAMS], rc = -ENOMEM;

    if (x && w) {
        for (size_t j = 0; j < m->n_num; j++)
            log_scale[j] = s->log_scale[m->num[j]];
        for (size_t r = 0; r < g->n_rows; r++) {
            for (size_t j = 0; j < m->n_num; j++)
                x[r * m->n_num + j] = s->x[g->rows[r] * s->n_params + m->num[j]];
            w[r] = 0;
            for (size_t i = g->member_start[r]; i < g->member_start[r + 1]; i++)
                w[r] += s->weight[g->members[i]];
        }
        rc = pp_surface_init(&g->surf, x, g->n_rows, m->n_num, log_scale);
        if (rc == 0)
            rc = pp_surface_set_weights(&g->surf, w);
    }
    free(x);
    free(w);
    return rc;
}

double *pp_model_column(const pp_model *m, const pp_model_group *g, size_t k)
{
    double *y = malloc((g->n_rows + 1) * sizeof *y);

    for (size_t r = 0; y && r < g->n_rows; r++)
        y[r] = pp_model_config_mean(m, g, r, k, SIZE_MAX);
    return y;
}

/* 1 for a metric that is interpolated rather than chosen by auto: the
 * achieved rates (<component>.achieved_fps / _hz), which the planner
 * checks requests against and which must not be smoothed past a machine's
 * limit: local-linear at the narrowest bandwidth, linear values (at a
 * measured configuration its value, between two the line through them). */
static int interpolated(const char *metric) { return strstr(metric, ".achieved_") != NULL; }

int pp_model_choose_options(const pp_model *m, const pp_model_group *g, size_t k,
                            pp_choose_options *co, double **rep)
{
    size_t n = g->member_start[g->n_rows];

    pp_choose_options_init(co);
    co->method = m->opts.method;
    co->h = m->opts.h;
    co->value_space = m->opts.value_space;
    if (interpolated(m->sum.metrics[k]) && co->method == PP_METHOD_AUTO) {
        co->method = PP_METHOD_LOCLIN;
        co->h = pp_est_narrowest_h(&g->surf);
        co->value_space = 0;
    }
    *rep = NULL;
    if (!g->replicated)
        return 0;
    if (!(*rep = malloc((n + 1) * sizeof **rep)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        (*rep)[i] = m->sum.y[g->members[i] * m->sum.n_metrics + k];
    co->rep_start = g->member_start;
    co->rep_value = *rep;
    return 0;
}

int pp_model_fit_column(const pp_model *m, pp_model_group *g, pp_model_fit *f, size_t k,
                        const double *y, int chosen)
{
    pp_choose_options co;
    double *rep = NULL;
    int rc;

    f->n_values = 0;
    f->y_min = INFINITY;
    f->y_max = -INFINITY;
    for (size_t r = 0; r < g->n_rows; r++)
        if (!isnan(y[r])) {
            f->n_values++;
            f->constant = y[r];
            f->y_min = fmin(f->y_min, y[r]);
            f->y_max = fmax(f->y_max, y[r]);
        }
    if (f->n_values < 2)
        return 0;
    if (!chosen) {
        if ((rc = pp_model_choose_options(m, g, k, &co, &rep)) == 0) {
            co.keep_held = 1;
            rc = pp_choose(&g->surf, y, &co, &f->choice);
        }
        free(rep);
        if (rc < 0) {
            f->n_values = 0;
            return rc == -ENOMEM ? rc : 0;
        }
    }
    pp_band_range_of(&g->surf, y, &f->choice.range);
    rc = pp_est_fit(&f->est, &g->surf, y, &f->choice.spec);
    if (rc == -EINVAL) { /* e.g. a saved log choice on values that now include 0 */
        f->n_values = 0;
        return 0;
    }
    return rc;
}

/* The fits are independent: workers take (group, metric) pairs in turn. */
typedef struct build_queue {
    pp_model *m;
    atomic_size_t next;
    atomic_int rc;
} build_queue;

static void *build_worker(void *arg)
{
    build_queue *q = arg;
    pp_model *m = q->m;
    size_t total = m->n_groups * m->sum.n_metrics, job;

    while ((job = atomic_fetch_add(&q->next, 1)) < total && atomic_load(&q->rc) == 0) {
        pp_model_group *g = &m->groups[job / m->sum.n_metrics];
        size_t k = job % m->sum.n_metrics;
        double *y;
        int rc;
        if (!wanted(m, k))
            continue;
        y = pp_model_column(m, g, k);
        rc = y ? pp_model_fit_column(m, g, &g->fits[k], k, y, 0) : -ENOMEM;
        free(y);
        if (rc < 0)
            atomic_store(&q->rc, rc);
    }
    return NULL;
}

/* Choose and fit every metric of every group, on up to BUILD_THREADS
 * threads, OpenBLAS on one thread each (the systems are small: its own
 * threads cost more than they give). */
int pp_model_build_fits(pp_model *m)
{
    enum { BUILD_THREADS = 4 };
    pthread_t th[BUILD_THREADS];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = cores > 1 ? (size_t)(cores < BUILD_THREADS ? cores : BUILD_THREADS) : 1, started = 0;
    build_queue q = {m, 0, 0};

    for (size_t g = 0; g < m->n_groups; g++)
        if (!(m->groups[g].fits = calloc(m->sum.n_metrics + 1, sizeof *m->groups[g].fits)))
            return -ENOMEM;
    pp_lapack_single_thread();
    while (started < n - 1 && pthread_create(&th[started], NULL, build_worker, &q) == 0)
        started++;
    build_worker(&q);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    return atomic_load(&q.rc);
}

void pp_model_fits_release(pp_model *m)
{
    for (size_t g = 0; g < m->n_groups; g++)
        for (size_t k = 0; m->groups[g].fits && k < m->sum.n_metrics; k++)
            pp_choice_free(&m->groups[g].fits[k].choice);
}

const pp_model_fit *pp_model_fit_of(const pp_model *m, size_t g, size_t metric)
{
    if (g >= m->n_groups || metric >= m->sum.n_metrics || !m->groups[g].fits)
        return NULL;
    return &m->groups[g].fits[metric];
}

/* The point's numeric parameters, normalized on group g's surface. */
static void normalize(const pp_model *m, size_t g, const pp_model_point *pt, double *xn)
{
    double raw[PP_SUMMARY_MAX_PARAMS];

    for (size_t j = 0; j < m->n_num; j++)
        raw[j] = pt->raw[m->num[j]];
    pp_surface_normalize(&m->groups[g].surf, raw, xn);
}

/* The group with the point's labels: 0, or -ENOENT. */
static int find_group(const pp_model *m, const pp_model_point *pt, size_t *g)
{
    for (*g = 0; *g < m->n_groups; ++*g) {
        size_t k = 0;
        while (k < m->sum.n_params &&
               (m->groups[*g].label[k] < 0 || m->groups[*g].label[k] == pt->raw[k]))
            k++;
        if (k == m->sum.n_params)
            return 0;
    }
    pp_log_debug("model: no configuration with these labels was measured");
    return -ENOENT;
}

/* The list of parameter k's labels, or of every parameter's name (k < 0),
 * into buf: what an error about a value names. */
static void names_of(const pp_summary *s, int k, char *buf, size_t cap)
{
    size_t n = k < 0 ? s->n_params : s->param[k].n_labels, used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, " %s",
                                 k < 0 ? s->params[i] : s->param[k].labels[i]);
}

int pp_model_point_set(const pp_summary *s, const char *name, const char *value,
                       pp_model_point *pt, int *k_out)
{
    char list[2048];
    int k = pp_summary_param(s, name);

    if (k < 0) {
        names_of(s, -1, list, sizeof list);
        pp_log_error("no parameter '%s' (the parameters:%s)", name, list);
        return -ENOENT;
    }
    if (s->param[k].kind == PP_PARAM_CATEGORICAL) {
        int at = pp_summary_label(s, (size_t)k, value);
        if (at < 0) {
            names_of(s, k, list, sizeof list);
            pp_log_error("%s: '%s' is not one of its labels:%s", name, value, list);
            return -EINVAL;
        }
        pt->raw[k] = at;
    } else if (pp_parse_double(value, &pt->raw[k]) < 0 || (s->log_scale[k] && !(pt->raw[k] > 0))) {
        pp_log_error("%s: '%s' is not a %snumber", name, value, s->log_scale[k] ? "positive " : "");
        return -EINVAL;
    }
    if (k_out)
        *k_out = k;
    return 0;
}

int pp_model_locate(const pp_model *m, const pp_model_point *pt, pp_model_where *w)
{
    double xn[PP_SUMMARY_MAX_PARAMS];
    const pp_surface *s;

    memset(w, 0, sizeof *w);
    if (find_group(m, pt, &w->group) < 0)
        return -ENOENT;
    s = &m->groups[w->group].surf;
    normalize(m, w->group, pt, xn);
    w->distance = INFINITY;
    for (size_t r = 0; r < s->n; r++) {
        double g2 = 0;
        for (size_t j = 0; j < s->d; j++)
            g2 += (xn[j] - s->x[r * s->d + j]) * (xn[j] - s->x[r * s->d + j]);
        if (g2 < w->distance) {
            w->distance = g2;
            w->nearest_row = m->groups[w->group].rows[r];
        }
    }
    w->distance = sqrt(w->distance);
    for (size_t j = 0; j < m->n_num; j++) {
        double only = pp_surface_denormalize(s, j, 0), v = pt->raw[m->num[j]];
        w->outside[m->num[j]] = xn[j] < -1e-9 || xn[j] > 1 + 1e-9;
        if (!(s->hi[j] > s->lo[j])) /* measured at one value: any other lies outside */
            w->outside[m->num[j]] = !(fabs(v - only) <= 1e-9 * fmax(fabs(only), 1e-300));
        w->any_outside |= w->outside[m->num[j]];
    }
    return 0;
}

double pp_model_blend(double own, double derived, double weight)
{
    if (!(weight > 0))
        return own;
    if (weight >= 1)
        return derived;
    if (own > 0 && derived > 0)
        return exp((1 - weight) * log(own) + weight * log(derived));
    return (1 - weight) * own + weight * derived;
}

/* Fit f's blend weight at xn: outside the measured range, the weight of
 * the dimension along which xn lies farthest out (in its last step). */
static double weight_at(const pp_model_fit *f, const double *xn)
{
    const pp_band_range *r = &f->choice.range;
    double far = 0, w = f->weight;

    for (size_t j = 0; f->edge_weighted && j < r->d; j++) {
        double o = fmax(r->lo[j] - xn[j], xn[j] - r->hi[j]);
        double step = xn[j] < r->lo[j] ? r->step_lo[j] : r->step_hi[j];
        o = isfinite(step) && step > 0 ? o / step : o;
        if (o > far) {
            far = o;
            w = isnan(f->weight_edge[j]) ? f->weight : f->weight_edge[j];
        }
    }
    return w;
}

/* The value of fit f of group g at xn: its estimator's, blended with the
 * product or quotient of the two it is derived from (model.h); depth:
 * how many blends up (past 2, which no file pp_model_derive wrote has, a
 * fit's own value: a hand-made cycle ends). */
static double value_of(const pp_model *m, size_t g, const pp_model_fit *f, const double *xn,
                       int depth)
{
    size_t self = (size_t)(f - m->groups[g].fits);
    double own = pp_est_predict(&f->est, xn), v[2];

    if (!f->derived || depth > 2)
        return own;
    for (int i = 0; i < 2; i++) {
        const pp_model_fit *a = pp_model_fit_of(m, g, f->from[i]);
        int with = a->derived && (a->from[0] == self || a->from[1] == self);
        v[i] = a->n_values == 1 ? a->constant
               : with           ? pp_est_predict(&a->est, xn)
                                : value_of(m, g, a, xn, depth + 1);
    }
    return pp_model_blend(own, f->divide ? v[0] / v[1] : v[0] * v[1], weight_at(f, xn));
}

/* value_of as a pp_band_value_fn (band.c) */
typedef struct value_ctx {
    const pp_model *m;
    size_t g;
    const pp_model_fit *f;
} value_ctx;

static double value_at(const void *ctx, const double *xn)
{
    const value_ctx *v = ctx;
    return value_of(v->m, v->g, v->f, xn, 0);
}

/* An achieved rate (<component>.achieved_<unit>) never above the rate
 * requested (the parameter <component>.<unit>, when there is one). */
static void cap_rate(const pp_model *m, size_t metric, const pp_model_point *pt, pp_prediction *p)
{
    const char *name = m->sum.metrics[metric], *at = strstr(name, ".achieved_");
    char param[PP_SUMMARY_NAME_MAX];
    int k;

    if (!at)
        return;
    if (pp_fmt(param, sizeof param, "%.*s.%s", (int)(at - name), name,
               at + strlen(".achieved_")) < 0) /* too long for any parameter's name */
        return;
    if ((k = pp_summary_param(&m->sum, param)) < 0 || m->sum.param[k].kind == PP_PARAM_CATEGORICAL)
        return;
    p->value = fmin(p->value, pt->raw[k]);
    p->lo = fmin(p->lo, pt->raw[k]);
    p->hi = fmin(p->hi, pt->raw[k]);
}

/* The range a metric can physically take: a state of charge, a drain and
 * a fraction (soc_end, soc_drain, machine_cpu_share, *_frac) in [0, 1];
 * powers, energies, times, counts, rates and CPU shares >= 0; else none. */
static void physical_range(const char *name, double *lo, double *hi)
{
    static const char *const unit01[] = {"soc_end", "soc_drain", "machine_cpu_share", "_frac"};
    static const char *const nonneg[] = {"_w", "_j", "_s", "_v", "_a", "_hz", "_fps",
                                         "iterations", "late_frames", "samples", "cpu_share"};
    size_t n = strlen(name);

    *lo = -INFINITY;
    *hi = INFINITY;
    for (size_t i = 0; i < PP_ARRAY_SIZE(unit01); i++)
        if (n >= strlen(unit01[i]) && strcmp(name + n - strlen(unit01[i]), unit01[i]) == 0)
            *lo = 0, *hi = 1;
    for (size_t i = 0; i < PP_ARRAY_SIZE(nonneg) && *hi == INFINITY; i++)
        if (n >= strlen(nonneg[i]) && strcmp(name + n - strlen(nonneg[i]), nonneg[i]) == 0)
            *lo = 0;
}

/* The value and its band inside the metric's physical range (a band of
 * soc_end reached 1.00006). */
static void clamp_physical(const pp_model *m, size_t metric, pp_prediction *p)
{
    double lo, hi, *v[] = {&p->value, &p->lo, &p->hi};

    physical_range(m->sum.metrics[metric], &lo, &hi);
    for (size_t i = 0; i < 3; i++)
        if (!isnan(*v[i])) /* NaN stays unknown (fmin would drop it) */
            *v[i] = fmin(fmax(*v[i], lo), hi);
}

/* 1 when value lies beyond PP_MODEL_BEYOND_FACTOR times fit f's measured
 * range (pp_prediction.beyond); 0 without a range. */
static int beyond(const pp_model_fit *f, double value)
{
    double span;

    if (!(f->y_max >= f->y_min) || isnan(value))
        return 0;
    if (f->y_min > 0)
        return value < f->y_min / PP_MODEL_BEYOND_FACTOR ||
               value > f->y_max * PP_MODEL_BEYOND_FACTOR;
    span = fmax(f->y_max - f->y_min, fmax(fabs(f->y_min), fabs(f->y_max)));
    return value < f->y_min - PP_MODEL_BEYOND_FACTOR * span ||
           value > f->y_max + PP_MODEL_BEYOND_FACTOR * span;
}

int pp_model_predict(const pp_model *m, size_t metric, const pp_model_point *pt,
                     pp_prediction *p)
{
    double xn[PP_SUMMARY_MAX_PARAMS];
    const pp_model_fit *f;
    size_t g;

    p->value = p->lo = p->hi = p->honest_mape = NAN;
    p->beyond = 0;
    if (find_group(m, pt, &g) < 0)
        return -ENOENT;
    f = pp_model_fit_of(m, g, metric);
    if (!f || f->n_values == 0)
        return -EINVAL;
    if (f->n_values == 1) {
        p->value = f->constant;
    } else {
        normalize(m, g, pt, xn);
        value_ctx v = {m, g, f};
        p->value = value_of(m, g, f, xn, 0);
        p->honest_mape = f->choice.between.n ? f->choice.between.mape : f->choice.honest.mape;
        /* outside the range the weighted average (flat there) gives way to
         * the trend of the last levels, and any band holds both */
        pp_band_beyond(&f->choice, !f->derived && f->choice.spec.method == PP_METHOD_NW,
                       value_at, &v, xn, &p->value, &p->lo, &p->hi);
    }
    cap_rate(m, metric, pt, p);
    p->beyond = beyond(f, p->value);
    if (m->node_factor) { /* aimed at one node: its factor (NaN: unknown) */
        p->value *= m->node_factor[metric];
        p->lo *= m->node_factor[metric];
        p->hi *= m->node_factor[metric];
        if (isnan(p->value))
            return -EINVAL;
    }
    clamp_physical(m, metric, p);
    return 0;
}

long pp_model_first_beyond(const pp_model *m, const pp_model_point *pt, size_t from,
                           pp_prediction *p)
{
    for (size_t k = from; k < m->sum.n_metrics; k++)
        if (pp_model_predict(m, k, pt, p) == 0 && p->beyond)
            return (long)k;
    return -1;
}

int pp_model_build_groups(pp_model *m)
{
    int rc = make_groups(m);

    for (size_t g = 0; rc == 0 && g < m->n_groups; g++)
        if ((rc = collapse(&m->sum, &m->groups[g])) == 0)
            rc = group_surface(m, &m->groups[g]);
    return rc;
}
