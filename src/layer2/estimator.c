#include "estimator.h"

#include "lapack.h"
#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"nw", "loclin", "rbf", "auto"};

const char *pp_method_name(pp_method m)
{
    return (unsigned)m <= PP_METHOD_AUTO ? method_names[m] : "?";
}

int pp_method_parse(const char *name, pp_method *m)
{
    for (int i = 0; i <= PP_METHOD_AUTO; i++)
        if (strcmp(name, method_names[i]) == 0) {
            *m = (pp_method)i;
            return 0;
        }
    return -EINVAL;
}

static double run_weight(const pp_surface *s, size_t i) { return s->weight ? s->weight[i] : 1.0; }

/* The dimensions whose samples take more than one value. */
static size_t varying(const pp_surface *s, size_t *dims)
{
    size_t nd = 0;
    for (size_t j = 0; j < s->d; j++)
        if (s->k[j] > 1)
            dims[nd++] = j;
    return nd;
}

static double dist2(const double *a, const double *b, size_t d)
{
    double g = 0;
    for (size_t j = 0; j < d; j++)
        g += (a[j] - b[j]) * (a[j] - b[j]);
    return g;
}

/* y into the fit's value space (NaN kept); -EINVAL when a log value is not
 * > 0. */
static int to_space(const double *y, size_t n, int log_values, double *v)
{
    for (size_t i = 0; i < n; i++) {
        if (log_values && !isnan(y[i]) && !(y[i] > 0))
            return -EINVAL;
        v[i] = log_values ? log(y[i]) : y[i];
    }
    return 0;
}

static double from_space(int log_values, double v) { return log_values ? exp(v) : v; }

/* ---- local-linear ---- */

/* The local-linear value at xn from the samples other than skip (s->n for
 * none), in the values' space; NaN when no sample has a value. One pass
 * gathers the weighted moments in coordinates centred at the nearest
 * sample (the heaviest), so that the slopes' normal equations, centred at
 * the weighted mean, lose nothing to cancellation even when nearly all the
 * weight is on that one sample; samples whose weight underflows are
 * skipped. A ridge on the slopes of 1e-12 of their own diagonal and 1e-28
 * of the total weight: a direction no sample spans gets slope 0 instead of
 * a singular system (LAPACK dposv; the weighted mean should it still fail). */
static double loclin_at(const pp_surface *s, const double *v, double h, const double *xn,
                        size_t skip)
{
    /* at a sample (leave-one-out), its row of the surface's distances */
    const double *d2 = skip < s->n && s->d2 ? s->d2 + skip * s->n : NULL;
    enum { P = PP_SURFACE_MAX_DIMS };
    size_t dims[P], nd = varying(s, dims), near = s->n;
    double s0 = 0, sv = 0, s1[P] = {0}, s1v[P] = {0}, s2[P * P] = {0}, m = INFINITY;
    double inv = 1.0 / (h * h), z[P], beta[P], value;

    for (size_t i = 0; i < s->n; i++)
        if (i != skip && !isnan(v[i])) {
            double g = d2 ? d2[i] : dist2(xn, s->x + i * s->d, s->d);
            if (g < m) {
                m = g;
                near = i;
            }
        }
    if (near == s->n)
        return NAN;
    for (size_t i = 0; i < s->n; i++) {
        double e, w;
        if (i == skip || isnan(v[i]) ||
            (e = ((d2 ? d2[i] : dist2(xn, s->x + i * s->d, s->d)) - m) * inv) > 700)
            continue;
        w = run_weight(s, i) * exp(-e);
        for (size_t k = 0; k < nd; k++)
            z[k] = s->x[i * s->d + dims[k]] - s->x[near * s->d + dims[k]];
        s0 += w;
        sv += w * v[i];
        for (size_t r = 0; r < nd; r++) {
            s1[r] += w * z[r];
            s1v[r] += w * z[r] * v[i];
            for (size_t c = r; c < nd; c++)
                s2[r * nd + c] += w * z[r] * z[c];
        }
    }
    /* centred at the weighted mean: covariance and cross-moments */
    for (size_t r = 0; r < nd; r++) {
        beta[r] = s1v[r] - s1[r] * sv / s0;
        for (size_t c = r; c < nd; c++)
            s2[r * nd + c] -= s1[r] * s1[c] / s0;
        s2[r * nd + r] += 1e-12 * s2[r * nd + r] + 1e-28 * s0;
    }
    value = sv / s0;
    if (nd && pp_lapack_dposv(PP_LAPACK_ROW_MAJOR, 'U', (int)nd, 1, s2, (int)nd, beta, 1) != 0)
        return value; /* no plane: the weighted mean */
    for (size_t k = 0; k < nd; k++)
        value += beta[k] * (xn[dims[k]] - s->x[near * s->d + dims[k]] - s1[k] / s0);
    return value;
}

/* ---- thin-plate spline ---- */

static double tps(double r2) { return r2 > 0 ? 0.5 * r2 * log(r2) : 0.0; } /* r^2 log r */

/* The saddle-point system of the samples with a value (their indices in
 * idx[m]): [Phi + h W^-1, P; P^T, 0] (size m + nd + 1, symmetric, stored
 * whole, column-major) and its right-hand side [v; 0]. */
static void rbf_system(const pp_surface *s, const double *v, double h, const size_t *idx,
                       size_t m, const size_t *dims, size_t nd, double *a, double *rhs)
{
    size_t nn = m + nd + 1;

    memset(a, 0, nn * nn * sizeof *a);
    for (size_t r = 0; r < m; r++) {
        const double *xr = s->x + idx[r] * s->d;
        for (size_t c = 0; c < m; c++)
            a[c * nn + r] = tps(s->d2 ? s->d2[idx[r] * s->n + idx[c]]
                                      : dist2(xr, s->x + idx[c] * s->d, s->d));
        a[r * nn + r] += h / run_weight(s, idx[r]);
        a[m * nn + r] = a[r * nn + m] = 1.0;
        for (size_t k = 0; k < nd; k++)
            a[(m + 1 + k) * nn + r] = a[r * nn + m + 1 + k] = xr[dims[k]];
        rhs[r] = v[idx[r]];
    }
    for (size_t r = m; r < nn; r++)
        rhs[r] = 0.0;
}

/* Samples with a value: their indices into idx (s->n of room). */
static size_t with_value(const double *v, size_t n, size_t *idx)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            idx[m++] = i;
    return m;
}

/* Solve the system of v at h. With loo (s->n of room), also the
 * leave-one-out values v_i - a_i / (M^-1)_ii in the values' space (NaN for
 * samples without a value). coef (s->n + d + 1) may be NULL. 0, -EINVAL
 * (too few samples, singular) or -ENOMEM. */
static int rbf_solve(const pp_surface *s, const double *v, double h, double *coef, double *loo)
{
    size_t dims[PP_SURFACE_MAX_DIMS], nd = varying(s, dims), m, nn;
    size_t *idx = malloc(s->n * sizeof *idx);
    double *a = NULL, *rhs = NULL;
    int *ipiv = NULL, info;
    int rc = -ENOMEM;

    if (!idx)
        return -ENOMEM;
    m = with_value(v, s->n, idx);
    nn = m + nd + 1;
    if (m < nd + 2 + (loo != NULL)) {
        free(idx);
        return -EINVAL;
    }
    a = malloc(nn * nn * sizeof *a);
    rhs = malloc(nn * sizeof *rhs);
    ipiv = malloc(nn * sizeof *ipiv);
    if (!a || !rhs || !ipiv)
        goto out;
    rbf_system(s, v, h, idx, m, dims, nd, a, rhs);
    rc = -EINVAL;
    info = pp_lapack_dsytrf(PP_LAPACK_COL_MAJOR, 'U', (int)nn, a, (int)nn, ipiv);
    if (info != 0)
        goto out;
    info = pp_lapack_dsytrs(PP_LAPACK_COL_MAJOR, 'U', (int)nn, 1, a, (int)nn, ipiv, rhs, (int)nn);
    if (info != 0)
        goto out;
    if (coef) {
        memset(coef, 0, (s->n + s->d + 1) * sizeof *coef);
        for (size_t r = 0; r < m; r++)
            coef[idx[r]] = rhs[r];
        coef[s->n] = rhs[m];
        for (size_t k = 0; k < nd; k++)
            coef[s->n + 1 + dims[k]] = rhs[m + 1 + k];
    }
    if (loo) {
        if (pp_lapack_dsytri(PP_LAPACK_COL_MAJOR, 'U', (int)nn, a, (int)nn, ipiv) != 0)
            goto out;
        for (size_t i = 0; i < s->n; i++)
            loo[i] = NAN;
        for (size_t r = 0; r < m; r++) {
            double d = a[r * nn + r];
            loo[idx[r]] = d != 0 ? v[idx[r]] - rhs[r] / d : NAN;
        }
    }
    rc = 0;
out:
    free(idx);
    free(a);
    free(rhs);
    free(ipiv);
    return rc;
}

static double rbf_at(const pp_surface *s, const double *coef, const double *v, const double *xn)
{
    double f = coef[s->n];

    for (size_t j = 0; j < s->d; j++)
        f += coef[s->n + 1 + j] * xn[j];
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(v[i]) && coef[i] != 0)
            f += coef[i] * tps(dist2(xn, s->x + i * s->d, s->d));
    return f;
}

/* ---- one estimator ---- */

void pp_est_free(pp_est *e)
{
    free(e->v);
    free(e->coef);
    memset(e, 0, sizeof *e);
}

int pp_est_fit(pp_est *e, const pp_surface *s, const double *y, const pp_est_spec *spec)
{
    int rc;

    memset(e, 0, sizeof *e);
    e->spec = *spec;
    e->s = s;
    e->v = malloc(s->n * sizeof *e->v);
    if (!e->v)
        return -ENOMEM;
    if ((rc = to_space(y, s->n, spec->log_values, e->v)) < 0) {
        pp_log_debug("fit: a value <= 0 on a log scale");
        pp_est_free(e);
        return rc;
    }
    for (size_t i = 0; i < s->n; i++)
        e->n_used += !isnan(e->v[i]);
    if (e->n_used == 0) {
        pp_est_free(e);
        return -EINVAL;
    }
    if (spec->method == PP_METHOD_RBF) {
        e->coef = malloc((s->n + s->d + 1) * sizeof *e->coef);
        if (!e->coef) {
            pp_est_free(e);
            return -ENOMEM;
        }
        if ((rc = rbf_solve(s, e->v, spec->h, e->coef, NULL)) < 0) {
            pp_log_debug("fit: rbf with %zu samples, lambda %g: no solution", e->n_used, spec->h);
            pp_est_free(e);
            return rc;
        }
    }
    return 0;
}

double pp_est_eval(const pp_est *e, const double *xn)
{
    switch (e->spec.method) {
    case PP_METHOD_NW:
        return pp_surface_predict(e->s, e->v, e->spec.h, xn);
    case PP_METHOD_LOCLIN:
        return loclin_at(e->s, e->v, e->spec.h, xn, e->s->n);
    case PP_METHOD_RBF:
        return rbf_at(e->s, e->coef, e->v, xn);
    default:
        return NAN;
    }
}

double pp_est_predict(const pp_est *e, const double *xn)
{
    return from_space(e->spec.log_values, pp_est_eval(e, xn));
}

int pp_est_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred)
{
    double *v = malloc(s->n * sizeof *v);
    int rc = -ENOMEM;

    if (!v)
        return -ENOMEM;
    if ((rc = to_space(y, s->n, spec->log_values, v)) < 0)
        goto out;
    switch (spec->method) {
    case PP_METHOD_NW:
        rc = pp_surface_loo(s, v, spec->h, pred);
        break;
    case PP_METHOD_LOCLIN:
        for (size_t i = 0; i < s->n; i++)
            pred[i] = isnan(v[i]) ? NAN : loclin_at(s, v, spec->h, s->x + i * s->d, i);
        rc = 0;
        break;
    case PP_METHOD_RBF:
        rc = rbf_solve(s, v, spec->h, NULL, pred);
        break;
    default:
        rc = -EINVAL;
    }
    for (size_t i = 0; rc == 0 && i < s->n; i++)
        pred[i] = from_space(spec->log_values, pred[i]);
out:
    free(v);
    return rc;
}

void pp_cv_errors(const pp_surface *s, const double *y, const double *pred, pp_cv *cv)
{
    double se = 0, ape = 0, ape_in = 0;
    size_t n_pct = 0, zero = 0, missing = 0;

    memset(cv, 0, sizeof *cv);
    for (size_t i = 0; i < s->n; i++) {
        if (isnan(y[i]))
            continue;
        zero += y[i] == 0;
        if (isnan(pred[i])) {
            missing++;
            continue;
        }
        se += (pred[i] - y[i]) * (pred[i] - y[i]);
        cv->n++;
        if (y[i] != 0) {
            double e = fabs((pred[i] - y[i]) / y[i]);
            ape += e;
            n_pct++;
            if (pp_surface_interior(s, i)) {
                ape_in += e;
                cv->n_inner++;
            }
        }
    }
    cv->rmse = cv->n ? sqrt(se / (double)cv->n) : NAN;
    cv->mape = n_pct ? 100.0 * ape / (double)n_pct : NAN;
    cv->mape_inner = cv->n_inner ? 100.0 * ape_in / (double)cv->n_inner : NAN;
    cv->crit = zero || !n_pct ? cv->rmse : cv->mape;
    if (isnan(cv->crit) || missing) /* a candidate must predict every sample */
        cv->crit = INFINITY;
}

/* ---- tuning ---- */

/* Leave-one-out crit of spec; INFINITY when it cannot be evaluated. */
static int loo_cv(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred,
                  pp_cv *cv)
{
    int rc = pp_est_loo(s, y, spec, pred);

    if (rc == -ENOMEM)
        return rc;
    if (rc < 0) {
        memset(cv, 0, sizeof *cv);
        cv->crit = INFINITY;
        return 0;
    }
    pp_cv_errors(s, y, pred, cv);
    return 0;
}

/* The finest spacing of the measured coordinates over every dimension. */
static double finest_gap(const pp_surface *s)
{
    double gap = INFINITY;
    for (size_t j = 0; j < s->d; j++)
        for (size_t a = 1; a < s->k[j]; a++)
            if (s->levels[j][a] - s->levels[j][a - 1] < gap)
                gap = s->levels[j][a] - s->levels[j][a - 1];
    return gap;
}

/* Evaluate spec at h = exp(t) into cv, and keep it in best (with its t)
 * when better. */
static int try_at(const pp_surface *s, const double *y, pp_est_spec *spec, double t, double *pred,
                  pp_cv *cv, pp_cv *best, double *t_best)
{
    int rc;

    spec->h = exp(t);
    if ((rc = loo_cv(s, y, spec, pred, cv)) < 0)
        return rc;
    if (cv->crit < best->crit) {
        *best = *cv;
        *t_best = t;
    }
    return 0;
}

/* Ties: a crit within this fraction of the least counts as equal, and the
 * smoother candidate (larger sigma or lambda) is kept. Where leave-one-out
 * cannot tell bandwidths apart (two samples define a local line whatever
 * the bandwidth), the smallest would extrapolate from the nearest sample
 * alone, the others' weights underflowing. */
#define TIE 1e-3

double pp_est_narrowest_sigma(const pp_surface *s)
{
    double gap = finest_gap(s);
    return isfinite(gap) && gap > 0 ? 0.5 * gap : 0.1;
}

/* sigma of nw or loclin: a log scan, then golden section around the best
 * unless a tie chose a larger one. Not below half the finest spacing (on a
 * lattice a leave-one-out prediction sees neighbours a whole spacing away,
 * and a smaller sigma would give nearest-neighbour steps between the
 * points); up to 3 for nw, 10 for loclin (there: one plane through
 * everything). */
static int tune_sigma(const pp_surface *s, const double *y, pp_est_spec *spec, double *pred,
                      pp_cv *best)
{
    enum { SCAN = 24, GOLDEN = 10 };
    const double g = 0.6180339887498949;
    double gap = finest_gap(s), lo = log(1e-3), hi = log(spec->method == PP_METHOD_NW ? 3.0 : 10.0);
    double step, a, b, c, d, t_best = lo, crit[SCAN];
    size_t at = 0, n = 0, least = 0;
    pp_cv cv[SCAN], cc, cd;
    int rc = 0;

    if (isfinite(gap) && log(0.5 * gap) > lo)
        lo = log(0.5 * gap);
    step = (hi - lo) / (SCAN - 1);
    best->crit = INFINITY;
    for (; n < SCAN; n++) {
        if ((rc = try_at(s, y, spec, lo + step * (double)n, pred, &cv[n], best, &t_best)) < 0)
            return rc;
        crit[n] = cv[n].crit;
        least = crit[n] < crit[least] ? n : least;
        if (n >= least + 4 && crit[n] > 1.5 * crit[least])
            break; /* well past a clear minimum */
    }
    if (!isfinite(best->crit))
        return -EINVAL;
    for (size_t i = 0; i < n && i < SCAN; i++)
        if (crit[i] <= crit[least] * (1 + TIE))
            at = i;
    if (at != least) { /* a tie: the largest of the equals */
        *best = cv[at];
        spec->h = exp(lo + step * (double)at);
        return 0;
    }
    a = lo + step * ((double)at - (at > 0));
    b = lo + step * ((double)at + (at + 1 < SCAN));
    c = b - g * (b - a);
    d = a + g * (b - a);
    if ((rc = try_at(s, y, spec, c, pred, &cc, best, &t_best)) < 0 ||
        (rc = try_at(s, y, spec, d, pred, &cd, best, &t_best)) < 0)
        return rc;
    for (int it = 0; it < GOLDEN && rc == 0; it++) {
        if (cc.crit < cd.crit) {
            b = d;
            d = c;
            cd = cc;
            c = b - g * (b - a);
            rc = try_at(s, y, spec, c, pred, &cc, best, &t_best);
        } else {
            a = c;
            c = d;
            cc = cd;
            d = a + g * (b - a);
            rc = try_at(s, y, spec, d, pred, &cd, best, &t_best);
        }
    }
    spec->h = exp(t_best);
    return rc;
}

/* lambda of rbf: a scan of 0 and 1e-6 .. 1, the largest of ties. */
static int tune_lambda(const pp_surface *s, const double *y, pp_est_spec *spec, double *pred,
                       pp_cv *best)
{
    double h[8], crit[8];
    pp_cv cv[8];
    size_t least = 0, at = 0;
    int rc;

    for (size_t i = 0; i < 8; i++) {
        h[i] = spec->h = i == 0 ? 0.0 : pow(10.0, (double)i - 7.0);
        if ((rc = loo_cv(s, y, spec, pred, &cv[i])) < 0)
            return rc;
        crit[i] = cv[i].crit;
        least = crit[i] < crit[least] ? i : least;
    }
    for (size_t i = 0; i < 8; i++)
        if (crit[i] <= crit[least] * (1 + TIE))
            at = i;
    spec->h = h[at];
    *best = cv[at];
    return isfinite(best->crit) ? 0 : -EINVAL;
}

int pp_est_tune(const pp_surface *s, const double *y, pp_method m, int log_values,
                pp_est_spec *best, pp_cv *cv)
{
    double *pred = malloc(s->n * sizeof *pred);
    int rc;

    if (!pred)
        return -ENOMEM;
    best->method = m;
    best->log_values = log_values;
    rc = m == PP_METHOD_RBF ? tune_lambda(s, y, best, pred, cv) : tune_sigma(s, y, best, pred, cv);
    free(pred);
    return rc;
}

/* ---- bands ---- */

/* The range of the samples with a value that out (NULL: none) does not
 * leave out. */
static void range_without(const pp_surface *s, const double *y, const unsigned char *out,
                          pp_band_range *r)
{
    memset(r, 0, sizeof *r);
    r->d = s->d;
    for (size_t j = 0; j < s->d; j++) {
        size_t prev = (size_t)-1;
        r->lo[j] = INFINITY;
        r->hi[j] = -INFINITY;
        r->step[j] = INFINITY;
        /* present levels, in order: s->cell indexes the sorted levels */
        for (size_t a = 0; a < s->k[j]; a++) {
            int present = 0;
            for (size_t i = 0; i < s->n && !present; i++)
                present = s->cell[i * s->d + j] == a && !isnan(y[i]) && !(out && out[i]);
            if (!present)
                continue;
            r->lo[j] = fmin(r->lo[j], s->levels[j][a]);
            r->hi[j] = fmax(r->hi[j], s->levels[j][a]);
            if (prev != (size_t)-1 && s->levels[j][a] - s->levels[j][prev] < r->step[j])
                r->step[j] = s->levels[j][a] - s->levels[j][prev];
            prev = a;
        }
    }
}

void pp_band_range_of(const pp_surface *s, const double *y, pp_band_range *r)
{
    range_without(s, y, NULL, r);
}

double pp_band_scale(const pp_band_range *r, const double *xn)
{
    double o2 = 0;

    for (size_t j = 0; j < r->d; j++) {
        double o = fmax(0.0, fmax(r->lo[j] - xn[j], xn[j] - r->hi[j]));
        if (o > 0 && isfinite(r->step[j]) && r->step[j] > 0)
            o2 += (o / r->step[j]) * (o / r->step[j]);
    }
    return 1.0 + sqrt(o2);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The residual of measurement v against prediction p at scale, in the
 * choice's value space, into *r: 1 when there is one. */
static int residual(const pp_choice *c, double v, double p, double scale, double *r)
{
    if (isnan(v) || isnan(p) || (c->spec.log_values && !(p > 0 && v > 0)))
        return 0;
    *r = c->spec.log_values ? fabs(log(v) - log(p)) / scale : fabs(v - p) / scale;
    return 1;
}

/* band_q from held-out predictions pred (y's units) and the scale of each:
 * the residuals of y, or of each replicate of o. */
static int band_from(const pp_surface *s, const double *y, const double *pred, const double *scale,
                     const pp_choose_options *o, pp_choice *c)
{
    size_t cap = o->rep_start ? o->rep_start[s->n] : s->n, m = 0, k;
    double *r = malloc((cap + 1) * sizeof *r);

    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < s->n; i++) {
        if (isnan(y[i]))
            continue;
        if (!o->rep_start)
            m += (size_t)residual(c, y[i], pred[i], scale[i], &r[m]);
        for (size_t j = o->rep_start ? o->rep_start[i] : 0; o->rep_start && j < o->rep_start[i + 1];
             j++)
            m += (size_t)residual(c, o->rep_value[j], pred[i], scale[i], &r[m]);
    }
    c->band_n = m;
    c->band_q = NAN;
    if (m > 0) {
        qsort(r, m, sizeof *r, cmp_double);
        k = (size_t)ceil(PP_BAND_LEVEL * (double)(m + 1));
        c->band_q = r[(k <= m ? k : m) - 1];
    }
    free(r);
    return 0;
}

void pp_band(const pp_choice *c, double value, const double *xn, double *lo, double *hi)
{
    double half = c->band_q * pp_band_scale(&c->range, xn);

    if (isnan(half) || isnan(value)) {
        *lo = *hi = NAN;
    } else if (c->spec.log_values) {
        *lo = value * exp(-half);
        *hi = value * exp(half);
    } else {
        *lo = value - half;
        *hi = value + half;
    }
}

/* ---- the choice ---- */

void pp_choose_options_init(pp_choose_options *o)
{
    o->method = PP_METHOD_AUTO;
    o->h = -1;
    o->value_space = -1;
    o->rep_start = NULL;
    o->rep_value = NULL;
    o->choice_only = 0;
}

static size_t count_values(const double *y, size_t n, int *all_positive)
{
    size_t k = 0;
    *all_positive = 1;
    for (size_t i = 0; i < n; i++)
        if (!isnan(y[i])) {
            k++;
            *all_positive &= y[i] > 0;
        }
    return k;
}

/* The candidates in order of preference: local-linear first (no boundary
 * bias, linear trends continued), then the spline, then the weighted
 * average; linear values before log ones. */
static const pp_method preference[PP_METHODS] = {PP_METHOD_LOCLIN, PP_METHOD_RBF, PP_METHOD_NW};

/* The choice on y by leave-one-out (pred: s->n of room): every candidate
 * o allows is tuned, and the least crit kept (the first in order of
 * preference among ties). *chose
 * (may be NULL): 1 when anything was chosen (tuned, or more than one
 * candidate). */
static int choose_plain(const pp_surface *s, const double *y, const pp_choose_options *o,
                        double *pred, pp_est_spec *spec, pp_cv *cv, int *chose)
{
    int pos, fixed = o->method != PP_METHOD_AUTO && o->h >= 0;
    size_t n = count_values(y, s->n, &pos), n_cand = 0, best = 0;
    pp_est_spec sp[2 * PP_METHODS];
    pp_cv c[2 * PP_METHODS];

    for (int a = 0; a < PP_METHODS; a++)
        for (int lg = 0; lg <= 1; lg++) {
            pp_method m = preference[a];
            int rc;
            if ((o->method != PP_METHOD_AUTO && m != o->method) ||
                (o->value_space >= 0 && lg != o->value_space) || (lg && !pos) ||
                (o->method == PP_METHOD_AUTO && m == PP_METHOD_RBF && n > PP_RBF_AUTO_MAX) ||
                (o->method == PP_METHOD_AUTO && m != PP_METHOD_NW && !pp_lapack_available()))
                continue;
            sp[n_cand] = (pp_est_spec){m, lg, o->h};
            rc = fixed ? loo_cv(s, y, &sp[n_cand], pred, &c[n_cand])
                       : pp_est_tune(s, y, m, lg, &sp[n_cand], &c[n_cand]);
            if (rc == -ENOMEM)
                return rc;
            if (rc == 0 && isfinite(c[n_cand].crit))
                best = c[n_cand].crit < c[best].crit || n_cand == 0 ? n_cand : best, n_cand++;
        }
    if (chose)
        *chose = !fixed || n_cand > 1;
    if (n_cand == 0)
        return -EINVAL;
    for (size_t k = 0; k < n_cand; k++)
        if (c[k].crit <= c[best].crit * (1 + TIE)) {
            *spec = sp[k];
            *cv = c[k];
            break;
        }
    return 0;
}

/* Predict the samples of fold f (fold[i] == f) from the others, the choice
 * re-made on them; scale[i] against the samples they leave. */
static int one_fold(const pp_surface *s, const double *y, const pp_choose_options *o,
                    const size_t *fold, size_t f, double *y2, double *tmp, unsigned char *out,
                    double *pred, double *scale)
{
    pp_est_spec spec;
    pp_band_range r;
    pp_cv cv;
    pp_est e;
    int rc;

    for (size_t i = 0; i < s->n; i++) {
        out[i] = !isnan(y[i]) && fold[i] == f;
        y2[i] = out[i] ? NAN : y[i];
    }
    rc = choose_plain(s, y2, o, tmp, &spec, &cv, NULL);
    if (rc == 0)
        rc = pp_est_fit(&e, s, y2, &spec);
    if (rc == -ENOMEM)
        return rc;
    if (rc < 0)
        return 0; /* nothing to predict these from: left NaN */
    range_without(s, y, out, &r);
    for (size_t i = 0; i < s->n; i++)
        if (out[i]) {
            pred[i] = pp_est_predict(&e, s->x + i * s->d);
            scale[i] = pp_band_scale(&r, s->x + i * s->d);
        }
    pp_est_free(&e);
    return 0;
}

/* Nested cross-validation: honest predictions of every sample into pred. */
static int nested(const pp_surface *s, const double *y, const pp_choose_options *o, size_t n_valid,
                  double *pred, double *scale, size_t *folds)
{
    size_t *fold = malloc(s->n * sizeof *fold), k = 0;
    double *y2 = malloc(2 * s->n * sizeof *y2);
    unsigned char *out = malloc(s->n);
    int rc = -ENOMEM;

    if (!fold || !y2 || !out)
        goto done;
    *folds = n_valid <= PP_NESTED_LOO_MAX ? n_valid : 10;
    for (size_t i = 0; i < s->n; i++) {
        pred[i] = scale[i] = NAN;
        fold[i] = isnan(y[i]) ? (size_t)-1 : k++ % *folds;
    }
    rc = 0;
    for (size_t f = 0; f < *folds && rc == 0; f++)
        rc = one_fold(s, y, o, fold, f, y2, y2 + s->n, out, pred, scale);
done:
    free(fold);
    free(y2);
    free(out);
    return rc;
}

/* Plain leave-one-out of spec with the scale of each prediction. */
static int plain(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred,
                 double *scale)
{
    unsigned char *out = calloc(s->n, 1);
    int rc = out ? pp_est_loo(s, y, spec, pred) : -ENOMEM;

    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        pp_band_range r;
        out[i] = 1;
        range_without(s, y, out, &r);
        scale[i] = pp_band_scale(&r, s->x + i * s->d);
        out[i] = 0;
    }
    free(out);
    return rc;
}

int pp_choose(const pp_surface *s, const double *y, const pp_choose_options *o, pp_choice *c)
{
    double *pred = malloc(2 * s->n * sizeof *pred), *scale;
    int pos, chose = 0, rc;
    size_t n_valid = count_values(y, s->n, &pos);

    memset(c, 0, sizeof *c);
    if (!pred)
        return -ENOMEM;
    scale = pred + s->n;
    pp_band_range_of(s, y, &c->range);
    rc = n_valid < 2 ? -EINVAL : choose_plain(s, y, o, pred, &c->spec, &c->loo, &chose);
    if (rc == 0 && o->choice_only) {
        c->honest = c->loo;
        c->band_q = NAN;
        free(pred);
        return 0;
    }
    if (rc == 0 && chose) {
        c->nested = 1;
        rc = nested(s, y, o, n_valid, pred, scale, &c->folds);
    } else if (rc == 0) {
        c->folds = n_valid;
        rc = plain(s, y, &c->spec, pred, scale);
    }
    if (rc == 0) {
        pp_cv_errors(s, y, pred, &c->honest);
        rc = band_from(s, y, pred, scale, o, c);
    }
    free(pred);
    return rc;
}
