/* One family of a layer model fitted on samples, and evaluated
 * (layers_model.h: inside the models). */
#include "layers_model.h"

#include "src/layer2/lapack.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const quantity_names[PP_LQ_COUNT] = {"cpu_s", "time_s", "energy_j"};
static const char *const family_names[PP_LF_COUNT + 1] = {"linear", "step",  "terms",
                                                          "power",  "rate", "roofline"};
static const int step_widths[] = {2, 4, 8, 16, 32, 64};
#define FLOOR_FRAC 0.1

const char *pp_layers_quantity_name(pp_layers_quantity q)
{
    return (unsigned)q < PP_LQ_COUNT ? quantity_names[q] : "?";
}

const char *pp_layer_family_name(pp_layer_family f)
{
    return (unsigned)f <= PP_LF_ROOFLINE ? family_names[f] : "?";
}

/* ---- Features ----------------------------------------------------------- */

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

/* The terms of darknet's CPU work (family "terms"). */
static size_t terms_of(const pp_layer_desc *l, const pp_layer_fit *fit, double *x)
{
    double out = (double)l->outputs, in = (double)l->inputs;

    x[0] = 1.0;
    if (l->kind == PP_LAYER_CONVOLUTIONAL) {
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
    if (l->kind == PP_LAYER_CONNECTED) {
        x[1] = l->flops;
        x[2] = out;
        return 3;
    }
    if (l->kind == PP_LAYER_MAXPOOL) {
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
static size_t features(const pp_layer_desc *l, const pp_layer_fit *fit, double *x)
{
    double c = channels_of(l);
    int w = fit->step_w > 0 ? fit->step_w : 1;

    x[0] = 1.0;
    switch (fit->family) {
    case PP_LF_STEP:
        x[1] = work_of(l) * ceil(c / w) * w / c;
        return 2;
    case PP_LF_TERMS:
        return terms_of(l, fit, x);
    case PP_LF_POWER:
        x[1] = log(work_of(l));
        return 2;
    case PP_LF_RATE:
        x[0] = work_of(l);
        return 1;
    case PP_LF_ROOFLINE:
        x[1] = l->in_bytes + l->out_bytes + l->param_bytes;
        x[2] = l->flops;
        return 3;
    default:
        x[1] = work_of(l);
        return 2;
    }
}

/* The family's own value (weight 1), at least fit->floor. */
static double evaluate(const pp_layer_fit *fit, const pp_layer_desc *l)
{
    double x[PP_LAYER_MAX_COEF], v = 0.0;
    size_t n = features(l, fit, x);

    if (fit->n_coef < n) /* fitted through the origin on too few samples: the rate alone */
        v = fit->coef[0] * x[1];
    else
        for (size_t k = 0; k < n; k++)
            v += fit->coef[k] * x[k];
    if (fit->family == PP_LF_POWER)
        v = exp(v);
    return v > fit->floor ? v : fit->floor;
}

double pp_lfit_eval(const pp_layer_fit *fit, const pp_layer_desc *l)
{
    double v = evaluate(fit, l);

    if (fit->weight < 1.0)
        v = fit->weight * v + (1.0 - fit->weight) * fit->base_coef * work_of(l);
    return v > fit->floor ? v : fit->floor;
}

/* ---- Fitting ------------------------------------------------------------ */

typedef pp_lsamples sample_set;

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
        features(desc_of(s, i), fit, x);
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
        double r = evaluate(fit, desc_of(s, i)) / y_of(s, i);
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
        w[i] = evaluate(fit, desc_of(s, i));
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
static double solve(const sample_set *s, int iterations, pp_layer_fit *fit, int *err)
{
    double x[PP_LAYER_MAX_COEF], ymin = INFINITY;
    double *w = malloc(sizeof *w * (s->n + 1)), *rhs = malloc(sizeof *rhs * (s->n + 1));
    size_t p = s->n ? features(desc_of(s, 0), fit, x) : 0;
    int origin = s->n < p, rc = w && rhs ? 0 : -ENOMEM; /* too few: the rate through the origin */

    if (s->n == 0 || (origin && fit->family != PP_LF_LINEAR && fit->family != PP_LF_STEP)) {
        free(w);
        free(rhs);
        *err = -EDOM;
        return NAN;
    }
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
    for (size_t k = 0; k < fit->n_coef && rc == 0; k++)
        if (!isfinite(fit->coef[k]))
            rc = -ERANGE;
    free(w);
    free(rhs);
    if (rc == -EDOM && s->n) /* the SVD did not converge: the values, not the size */
        rc = -ERANGE;
    *err = rc;
    return rc == 0 ? sse_of(s, fit, 0) : NAN;
}

#define GAUSS_NEWTON_STEPS 3

/* Family f on s; the step family tries every width, the terms family of a
 * convolution every pair of knots, and keep the best (by the linear pass
 * alone; the best then gets its Gauss-Newton steps). */
int pp_lfit_family(const sample_set *s, int f, pp_layer_fit *fit)
{
    int conv_terms = f == PP_LF_TERMS && s->n &&
                     desc_of(s, 0)->kind == PP_LAYER_CONVOLUTIONAL;
    size_t n_a = f == PP_LF_STEP ? PP_ARRAY_SIZE(step_widths) : conv_terms ? PP_ARRAY_SIZE(row_knots) : 1;
    size_t n_b = conv_terms ? PP_ARRAY_SIZE(matrix_knots) : 1;
    double best = INFINITY;
    int err = -EDOM, rc;
    pp_layer_fit t;

    for (size_t i = 0; i < n_a; i++)
        for (size_t k = 0; k < n_b; k++) {
            double sse;
            memset(&t, 0, sizeof t);
            t.family = f;
            t.weight = 1.0;
            t.step_w = f == PP_LF_STEP ? step_widths[i] : 0;
            t.knot[0] = conv_terms ? row_knots[i] : 0;
            t.knot[1] = conv_terms ? matrix_knots[k] : 0;
            sse = solve(s, n_a * n_b > 1 ? 0 : GAUSS_NEWTON_STEPS, &t, &rc);
            if (sse < best) {
                best = sse;
                *fit = t;
            } else if (rc < 0 && err == -EDOM) {
                err = rc;
            }
        }
    if (isinf(best))
        return err;
    if (n_a * n_b > 1 && isnan(solve(s, GAUSS_NEWTON_STEPS, fit, &rc)))
        return rc;
    if (f == PP_LF_RATE)
        fit->base_coef = fit->coef[0];
    return 0;
}

size_t pp_lfit_extreme(const sample_set *s)
{
    double *r = malloc(sizeof *r * (s->n + 1)), *sorted = malloc(sizeof *r * (s->n + 1));
    double median, worst = -1;
    size_t at = 0;

    if (!r || !sorted || s->n == 0) {
        free(r);
        free(sorted);
        return 0;
    }
    for (size_t i = 0; i < s->n; i++)
        sorted[i] = r[i] = log(y_of(s, i) / work_of(desc_of(s, i)));
    for (size_t i = 1; i < s->n; i++) /* insertion sort: a message's worth of work */
        for (size_t k = i; k > 0 && sorted[k - 1] > sorted[k]; k--) {
            double t = sorted[k];
            sorted[k] = sorted[k - 1];
            sorted[k - 1] = t;
        }
    median = sorted[s->n / 2];
    for (size_t i = 0; i < s->n; i++)
        if (!(fabs(r[i] - median) <= worst)) {
            worst = isfinite(r[i]) ? fabs(r[i] - median) : INFINITY;
            at = i;
        }
    free(r);
    free(sorted);
    return s->idx[at];
}
