/* Fitting layer models and predicting with them (src/layers/layers_model.h). */
#include "layers_model.h"

#include "src/layer2/lapack.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const quantity_names[PP_LQ_COUNT] = {"cpu_s", "time_s", "energy_j"};
static const char *const family_names[PP_LF_COUNT] = {"linear", "step", "terms", "power"};
static const int step_widths[] = {2, 4, 8, 16, 32, 64};
#define FLOOR_FRAC 0.1

const char *pp_layers_quantity_name(pp_layers_quantity q)
{
    return (unsigned)q < PP_LQ_COUNT ? quantity_names[q] : "?";
}

const char *pp_layer_family_name(pp_layer_family f)
{
    return (unsigned)f < PP_LF_COUNT ? family_names[f] : "?";
}

/* ---- Features ----------------------------------------------------------- */

/* The kinds that copy data (the pooled fit is made on them), and the kinds
 * the pooled fit stands in for when they were never profiled: those, and
 * the light ones (a detector's activations, layers that do nothing at
 * inference). Pooling, softmax and the layers with FLOPs need their own. */
static int copies_data(pp_layer_kind k)
{
    return k == PP_LAYER_ROUTE || k == PP_LAYER_UPSAMPLE || k == PP_LAYER_REORG ||
           k == PP_LAYER_CROP;
}

static int pooled_applies(pp_layer_kind k)
{
    return copies_data(k) || k == PP_LAYER_SHORTCUT || k == PP_LAYER_YOLO || k == PP_LAYER_REGION ||
           k == PP_LAYER_DETECTION || k == PP_LAYER_DROPOUT || k == PP_LAYER_COST;
}

/* The layer's work: its FLOPs, or the bytes it reads and writes. */
static double work_of(const pp_layer_desc *l)
{
    double w = l->flops > 0 ? l->flops : l->in_bytes + l->out_bytes;
    return w > 0 ? w : 1.0;
}

static double channels_of(const pp_layer_desc *l)
{
    int c = l->kind == PP_LAYER_CONVOLUTIONAL || l->kind == PP_LAYER_CONNECTED ? l->filters
                                                                                : l->out_c;
    return c > 0 ? c : 1;
}

static int exp_activation(const char *a)
{
    return strcmp(a, "logistic") == 0 || strcmp(a, "tanh") == 0 || strcmp(a, "elu") == 0 ||
           strcmp(a, "selu") == 0 || strcmp(a, "loggy") == 0;
}

/* Blackthorn's step template applied to darknet's gemm: the cost of a
 * FLOP changes when a row of the im2col matrix (out_w out_h floats) no
 * longer fits a cache level, and again when the whole matrix (size^2 c_in
 * / groups rows) does not. The knots (bytes) are chosen from these by the
 * least squared error. */
static const double row_knots[] = {8192, 16384, 32768, 65536, 131072, 262144};
static const double matrix_knots[] = {262144, 524288, 1048576, 2097152, 4194304, 8388608,
                                      16777216};

/* The terms of darknet's CPU work (family "terms"); pooled: the generic
 * memory-layer terms whatever the kind. */
static size_t terms_of(const pp_layer_desc *l, const pp_layer_fit *fit, int pooled, double *x)
{
    double out = (double)l->outputs, in = (double)l->inputs;

    x[0] = 1.0;
    if (!pooled && l->kind == PP_LAYER_CONVOLUTIONAL) {
        double n = (double)l->out_w * l->out_h, k = (double)l->size * l->size * l->in_c;
        x[1] = l->flops;
        x[2] = (double)l->nweights;
        x[3] = l->size > 1 ? k * n : 0.0; /* im2col's copy */
        x[4] = out;
        x[5] = exp_activation(l->activation) ? out : 0.0;
        x[6] = 4.0 * n > fit->knot[0] ? l->flops : 0.0;
        x[7] = 4.0 * n * k / (l->groups > 0 ? l->groups : 1) > fit->knot[1] ? l->flops : 0.0;
        return 8;
    }
    if (!pooled && l->kind == PP_LAYER_CONNECTED) {
        x[1] = l->flops;
        x[2] = out;
        return 3;
    }
    if (!pooled && l->kind == PP_LAYER_MAXPOOL) {
        x[1] = out * l->size * l->size;
        x[2] = in;
        return 3;
    }
    x[1] = in;
    x[2] = out;
    return 3;
}

/* Features of l under fit's family and its width or knots, into x; their
 * count. */
static size_t features(const pp_layer_desc *l, const pp_layer_fit *fit, int pooled, double *x)
{
    double c = channels_of(l);
    int w = fit->step_w > 0 ? fit->step_w : 1;

    x[0] = 1.0;
    switch (fit->family) {
    case PP_LF_STEP:
        x[1] = work_of(l) * ceil(c / w) * w / c;
        return 2;
    case PP_LF_TERMS:
        return terms_of(l, fit, pooled, x);
    case PP_LF_POWER:
        x[1] = log(work_of(l));
        return 2;
    default:
        x[1] = work_of(l);
        return 2;
    }
}

static double evaluate(const pp_layer_fit *fit, const pp_layer_desc *l, int pooled)
{
    double x[PP_LAYER_MAX_COEF], v = 0.0;
    size_t n = features(l, fit, pooled, x);

    if (fit->n_coef < n) /* fitted through the origin on too few samples: the rate alone */
        v = fit->coef[0] * x[1];
    else
        for (size_t k = 0; k < n; k++)
            v += fit->coef[k] * x[k];
    if (fit->family == PP_LF_POWER)
        v = exp(v);
    return v > fit->floor ? v : fit->floor;
}

/* ---- Fitting ------------------------------------------------------------ */

/* The samples a fit is made on. */
typedef struct sample_set {
    const pp_layers_data *d;
    const size_t *idx;
    size_t n;
    pp_layers_quantity q;
    int pooled;
} sample_set;

static const pp_layer_desc *desc_of(const sample_set *s, size_t i)
{
    return &s->d->samples[s->idx[i]].d;
}

static double y_of(const sample_set *s, size_t i) { return s->d->samples[s->idx[i]].y[s->q]; }

#define RCOND 1e-9

/* min |A c - b| for A m x p (column-major, overwritten) by dgelsd, on
 * columns scaled to unit norm (features span 1 to 1e10: unscaled, a
 * direction the data do not fix would not be recognized as one), directions
 * with singular values under RCOND of the largest left out. c (p values)
 * into b. 0 or -errno. */
static int lsq(double *a, size_t m, size_t p, double *b)
{
    double norm[PP_LAYER_MAX_COEF];
    int rc;

    for (size_t k = 0; k < p; k++) {
        double s2 = 0.0;
        for (size_t i = 0; i < m; i++)
            s2 += a[k * m + i] * a[k * m + i];
        norm[k] = s2 > 0 ? sqrt(s2) : 1.0;
        for (size_t i = 0; i < m; i++)
            a[k * m + i] /= norm[k];
    }
    rc = pp_lapack_dgelsd((int)m, (int)p, a, (int)m, b, RCOND, NULL);
    for (size_t k = 0; k < p && rc == 0; k++)
        b[k] /= norm[k];
    return rc;
}

/* One least-squares problem over s: row i is the features of sample i
 * divided by w[i] (the power family: the features as they are), its
 * right-hand side rhs[i]; the p coefficients into out. 0 or -errno. */
static int solve_rows(const sample_set *s, const pp_layer_fit *fit, size_t p, int origin,
                      const double *w, const double *rhs, double *out)
{
    size_t m = s->n;
    double x[PP_LAYER_MAX_COEF], *a = malloc(sizeof *a * m * p);
    double *b = malloc(sizeof *b * (m > p ? m : p));
    int rc = a && b ? 0 : -ENOMEM;

    for (size_t i = 0; i < m && rc == 0; i++) {
        features(desc_of(s, i), fit, s->pooled, x);
        for (size_t k = 0; k < p; k++)
            a[k * m + i] = fit->family == PP_LF_POWER ? x[k] : (origin ? x[1] : x[k]) / w[i];
        b[i] = rhs[i];
    }
    if (rc == 0 && (rc = lsq(a, m, p, b)) == 0)
        memcpy(out, b, sizeof *b * p);
    free(a);
    free(b);
    return rc;
}

/* The sum of squared errors of fit on s: relative ones, or (logs) of their
 * logarithms. */
static double sse_of(const sample_set *s, const pp_layer_fit *fit, int logs)
{
    double sse = 0.0;

    for (size_t i = 0; i < s->n; i++) {
        double r = evaluate(fit, desc_of(s, i), s->pooled) / y_of(s, i);
        double e = logs ? log(r) : r - 1.0;
        sse += e * e;
    }
    return sse;
}

/* One Gauss-Newton step on the squared log errors (rows divided by the
 * fitted values, right-hand sides the log errors), halved while it does
 * not lower them (at most 4 times; then fit is left as it was). w and rhs
 * are scratch of s->n values. */
static int gauss_newton(const sample_set *s, size_t p, int origin, double *w, double *rhs,
                        pp_layer_fit *fit)
{
    double step_coef[PP_LAYER_MAX_COEF], before = sse_of(s, fit, 1);
    int rc;

    for (size_t i = 0; i < s->n; i++) {
        w[i] = evaluate(fit, desc_of(s, i), s->pooled);
        rhs[i] = log(y_of(s, i) / w[i]);
    }
    rc = solve_rows(s, fit, p, origin, w, rhs, step_coef);
    for (double step = 1.0; rc == 0 && step > 0.05; step /= 2) {
        pp_layer_fit t = *fit;
        for (size_t k = 0; k < p; k++)
            t.coef[k] += step * step_coef[k];
        if (sse_of(s, &t, 1) < before) {
            *fit = t;
            break;
        }
    }
    return rc;
}

/* Least squares on relative errors of fit's family (with its width or
 * knots) on s: first linear, each row divided by its measured value; that
 * biases the fit low when the values are noisy (a value measured too high
 * weighs less), so Gauss-Newton steps (iterations of them) then minimize
 * the squared log errors, which treat errors up and down alike. Returns
 * the sum of squared relative errors, or NAN (too few samples, no
 * LAPACK). */
static double solve(const sample_set *s, int iterations, pp_layer_fit *fit)
{
    double x[PP_LAYER_MAX_COEF], ymin = INFINITY;
    double *w = malloc(sizeof *w * (s->n + 1)), *rhs = malloc(sizeof *rhs * (s->n + 1));
    size_t p = s->n ? features(desc_of(s, 0), fit, s->pooled, x) : 0;
    int origin = s->n < p, rc = w && rhs ? 0 : -ENOMEM; /* too few: the rate through the origin */

    if (s->n == 0 || (origin && fit->family != PP_LF_LINEAR && fit->family != PP_LF_STEP))
        rc = -EDOM;
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        w[i] = y_of(s, i);
        rhs[i] = fit->family == PP_LF_POWER ? log(w[i]) : 1.0;
        ymin = w[i] < ymin ? w[i] : ymin;
    }
    fit->floor = FLOOR_FRAC * ymin;
    p = origin ? 1 : p;
    if (rc == 0 && (rc = solve_rows(s, fit, p, origin, w, rhs, fit->coef)) == 0)
        fit->n_coef = p;
    for (int it = 0; it < iterations && rc == 0 && fit->family != PP_LF_POWER; it++)
        rc = gauss_newton(s, p, origin, w, rhs, fit);
    free(w);
    free(rhs);
    return rc == 0 ? sse_of(s, fit, 0) : NAN;
}

#define GAUSS_NEWTON_STEPS 3

/* Family f on s; the step family tries every width, the terms family of a
 * convolution every pair of knots, and keep the best (by the linear pass
 * alone; the best then gets its Gauss-Newton steps). */
static int fit_family(const sample_set *s, int f, pp_layer_fit *fit)
{
    int conv_terms = f == PP_LF_TERMS && !s->pooled && s->n &&
                     desc_of(s, 0)->kind == PP_LAYER_CONVOLUTIONAL;
    size_t n_a = f == PP_LF_STEP ? PP_ARRAY_SIZE(step_widths) : conv_terms ? PP_ARRAY_SIZE(row_knots) : 1;
    size_t n_b = conv_terms ? PP_ARRAY_SIZE(matrix_knots) : 1;
    double best = INFINITY;
    pp_layer_fit t;

    for (size_t i = 0; i < n_a; i++)
        for (size_t k = 0; k < n_b; k++) {
            double sse;
            memset(&t, 0, sizeof t);
            t.family = f;
            t.step_w = f == PP_LF_STEP ? step_widths[i] : 0;
            t.knot[0] = conv_terms ? row_knots[i] : 0;
            t.knot[1] = conv_terms ? matrix_knots[k] : 0;
            sse = solve(s, n_a * n_b > 1 ? 0 : GAUSS_NEWTON_STEPS, &t);
            if (sse < best) {
                best = sse;
                *fit = t;
            }
        }
    if (isinf(best))
        return -EDOM;
    if (n_a * n_b > 1)
        solve(s, GAUSS_NEWTON_STEPS, fit);
    return 0;
}

/* ---- Choosing the family ------------------------------------------------ */

/* The distinct network names among the runs in use. */
typedef struct name_list {
    size_t n;
    const char **name;
} name_list;

static int list_names(const pp_layers_data *d, const unsigned char *use, name_list *out)
{
    out->n = 0;
    if (!(out->name = malloc(sizeof *out->name * (d->n_networks + 1))))
        return -ENOMEM;
    for (size_t i = 0; i < d->n_networks; i++) {
        size_t k = 0;
        if (use && !use[i])
            continue;
        while (k < out->n && strcmp(out->name[k], d->networks[i].name) != 0)
            k++;
        if (k == out->n)
            out->name[out->n++] = d->networks[i].name;
    }
    return 0;
}

/* Which samples: kind (-1: the kinds that copy data), networks in use,
 * and by name: all (name NULL), all but name (keep 0), only name (keep 1). */
typedef struct selector {
    int kind;
    const unsigned char *use;
    const char *name;
    int keep;
} selector;

static size_t select_samples(const pp_layers_data *d, pp_layers_quantity q, const selector *sel,
                             size_t *idx)
{
    size_t n = 0;

    for (size_t i = 0; i < d->n_samples; i++) {
        const pp_layer_sample *s = &d->samples[i];
        const char *net = d->networks[s->net].name;
        if ((sel->use && !sel->use[s->net]) || !(s->y[q] > 0) || !isfinite(s->y[q]))
            continue;
        if (sel->kind >= 0 ? (int)s->d.kind != sel->kind : !copies_data(s->d.kind))
            continue;
        if (sel->name && (strcmp(net, sel->name) == 0) != sel->keep)
            continue;
        idx[n++] = i;
    }
    return n;
}

/* Leave-one-network-out RMSPE of family f for kind (-1: pooled) and q:
 * NaN when no network's samples can be predicted from the others', or when
 * the family cannot be fitted on some fold. */
static double loo_rmspe(const pp_layers_data *d, const unsigned char *use, const name_list *names,
                        int kind, pp_layers_quantity q, int f, size_t *scratch)
{
    double sum = 0.0;
    size_t cnt = 0, *train = scratch, *test = scratch + d->n_samples;

    for (size_t g = 0; g < names->n; g++) {
        selector out = {kind, use, names->name[g], 0}, in = {kind, use, names->name[g], 1};
        sample_set tr = {d, train, select_samples(d, q, &out, train), q, kind < 0};
        size_t n_test = select_samples(d, q, &in, test);
        pp_layer_fit fit;
        if (n_test == 0 || tr.n == 0)
            continue;
        if (fit_family(&tr, f, &fit) < 0)
            return NAN;
        for (size_t i = 0; i < n_test; i++) {
            const pp_layer_sample *s = &d->samples[test[i]];
            double e = evaluate(&fit, &s->d, kind < 0) / s->y[q] - 1.0;
            sum += e * e;
            cnt++;
        }
    }
    return cnt ? sqrt(sum / (double)cnt) : NAN;
}

static size_t count_names_with(const pp_layers_data *d, const size_t *idx, size_t n,
                               const name_list *names)
{
    size_t count = 0;

    for (size_t g = 0; g < names->n; g++)
        for (size_t i = 0; i < n; i++)
            if (strcmp(d->networks[d->samples[idx[i]].net].name, names->name[g]) == 0) {
                count++;
                break;
            }
    return count;
}

/* The fit of kind (-1: pooled) for q: every family's leave-one-network-out
 * error, then the chosen family fitted on every sample. */
static int fit_kind(const pp_layers_data *d, const pp_layer_fit_opts *o, const name_list *names,
                    int kind, pp_layers_quantity q, size_t *scratch, pp_layer_fit *fit)
{
    double loo[PP_LF_COUNT];
    selector all = {kind, o->use, NULL, 0};
    sample_set s = {d, scratch, select_samples(d, q, &all, scratch), q, kind < 0};
    int chosen = o->family >= 0 ? o->family : -1;
    size_t n_networks = count_names_with(d, scratch, s.n, names);

    for (int f = 0; f < PP_LF_COUNT; f++) {
        loo[f] = loo_rmspe(d, o->use, names, kind, q, f, scratch + d->n_samples);
        if (o->family < 0 && isfinite(loo[f]) && (chosen < 0 || loo[f] < loo[chosen]))
            chosen = f;
    }
    memset(fit, 0, sizeof *fit);
    fit->family = -1;
    if (s.n == 0)
        return 0;
    if (chosen < 0 || fit_family(&s, chosen, fit) < 0)
        if (fit_family(&s, PP_LF_LINEAR, fit) < 0)
            return -ENOSYS;
    memcpy(fit->loo_rmspe, loo, sizeof loo);
    fit->n_samples = s.n;
    fit->n_networks = n_networks;
    return 0;
}

static void model_context(const pp_layers_data *d, const unsigned char *use, pp_layer_model *m)
{
    double *idle = malloc(sizeof *idle * (d->n_networks + 1));
    size_t n_idle = 0;

    m->idle_w = NAN;
    for (size_t i = 0; i < d->n_networks; i++) {
        if (use && !use[i])
            continue;
        m->estimated |= d->networks[i].estimated;
        if (!m->device[0])
            memcpy(m->device, d->networks[i].device, sizeof m->device);
        if (idle && isfinite(d->networks[i].idle_w))
            idle[n_idle++] = d->networks[i].idle_w;
    }
    if (n_idle) { /* the median */
        for (size_t i = 1; i < n_idle; i++)
            for (size_t k = i; k > 0 && idle[k - 1] > idle[k]; k--) {
                double t = idle[k];
                idle[k] = idle[k - 1];
                idle[k - 1] = t;
            }
        m->idle_w = n_idle % 2 ? idle[n_idle / 2] : 0.5 * (idle[n_idle / 2 - 1] + idle[n_idle / 2]);
    }
    free(idle);
}

int pp_layer_model_fit(const pp_layers_data *d, const pp_layer_fit_opts *o, pp_layer_model *m)
{
    size_t *scratch = malloc(sizeof *scratch * (3 * d->n_samples + 1));
    name_list names = {0, NULL};
    int rc = scratch ? list_names(d, o->use, &names) : -ENOMEM;

    memset(m, 0, sizeof *m);
    if (rc == 0 && names.n == 0) {
        pp_log_error("layer model: no profiled network to fit on");
        rc = -EINVAL;
    }
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++) {
        for (int k = 0; k < PP_LAYER_KINDS && rc == 0; k++)
            rc = fit_kind(d, o, &names, k, (pp_layers_quantity)q, scratch, &m->fit[q][k]);
        if (rc == 0)
            rc = fit_kind(d, o, &names, -1, (pp_layers_quantity)q, scratch, &m->pooled[q]);
        m->net_mape[q] = m->net_rms[q] = NAN;
    }
    if (rc == 0 && m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL].family < 0) {
        pp_log_error("layer model: the profiles have no convolutional layer");
        rc = -EINVAL;
    }
    if (rc == -ENOSYS)
        pp_log_error("layer model: least squares failed (is LAPACK installed?)");
    m->n_networks = names.n;
    model_context(d, o->use, m);
    free(scratch);
    free(names.name);
    return rc;
}

/* ---- Predicting --------------------------------------------------------- */

int pp_layer_model_layer(const pp_layer_model *m, pp_layers_quantity q, const pp_layer_desc *l,
                         double *value, double *band)
{
    const pp_layer_fit *fit = &m->fit[q][l->kind];
    int pooled = 0;

    if (fit->family < 0) {
        if (!pooled_applies(l->kind) || m->pooled[q].family < 0)
            return -ENOENT;
        fit = &m->pooled[q];
        pooled = 1;
    }
    *value = evaluate(fit, l, pooled);
    *band = fit->loo_rmspe[fit->family] * *value;
    return 0;
}

int pp_layers_predict(const pp_layer_model *m, const pp_network_desc *net,
                      pp_layers_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->layer = calloc(net->n, sizeof *out->layer);
    out->layer_band = calloc(net->n, sizeof *out->layer_band);
    if (!out->layer || !out->layer_band) {
        pp_layers_prediction_free(out);
        return -ENOMEM;
    }
    out->n = net->n;
    for (size_t i = 0; i < net->n; i++)
        for (int q = 0; q < PP_LQ_COUNT; q++) {
            const pp_layer_desc *l = &net->layers[i];
            if (pp_layer_model_layer(m, (pp_layers_quantity)q, l, &out->layer[i][q],
                                     &out->layer_band[i][q]) < 0) {
                pp_log_error("%s: layer %zu (line %d) is %s, a kind the model has no profile "
                             "of: profile a network with one ('powprof layers profile')",
                             net->name, i, l->line, pp_layer_kind_name(l->kind));
                pp_layers_prediction_free(out);
                return -ENOENT;
            }
            out->total[q] += out->layer[i][q];
        }
    for (int q = 0; q < PP_LQ_COUNT; q++)
        out->band[q] = m->net_rms[q] * out->total[q];
    out->max_fps = 1.0 / out->total[PP_LQ_CPU];
    return 0;
}

void pp_layers_prediction_free(pp_layers_prediction *p)
{
    free(p->layer);
    free(p->layer_band);
    memset(p, 0, sizeof *p);
}

/* ---- The hook for layer 2 and plans ------------------------------------- */

int pp_layers_cost_of(const pp_layer_model *m, const char *cfg_path, int width, int height,
                      pp_layers_cost *out)
{
    pp_network_desc *net = malloc(sizeof *net);
    pp_layers_prediction p;
    int rc = net ? pp_layers_describe_file(cfg_path, width, height, net) : -ENOMEM;

    if (rc == 0 && (rc = pp_layers_predict(m, net, &p)) == 0) {
        out->time_s = p.total[PP_LQ_CPU];
        out->time_band_s = p.band[PP_LQ_CPU];
        out->energy_j = p.total[PP_LQ_ENERGY];
        out->energy_band_j = p.band[PP_LQ_ENERGY];
        out->idle_w = m->idle_w;
        out->max_fps = p.max_fps;
        out->estimated = m->estimated;
        pp_layers_prediction_free(&p);
    }
    free(net);
    return rc;
}

int pp_layers_power_at_fps(const pp_layers_cost *c, double fps, double *power_w)
{
    if (!(fps >= 0) || fps > c->max_fps)
        return -ERANGE;
    if (!isfinite(c->idle_w))
        return -EINVAL;
    *power_w = c->idle_w + fps * (c->energy_j - c->idle_w * c->time_s);
    return 0;
}
