#include "estimator.h"

#include "boxcox.h"
#include "lapack.h"
#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"nw", "loclin", "rbf", "boxcox", "auto"};

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
    size_t dims[P], nd = pp_surface_varying(s, dims), near = s->n;
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
        w = pp_surface_run_weight(s, i) * exp(-e);
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
        a[r * nn + r] += h / pp_surface_run_weight(s, idx[r]);
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
    size_t dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims), m, nn;
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
    if (spec->method == PP_METHOD_BOXCOX && (rc = pp_boxcox_fit(e)) < 0) {
        pp_log_debug("fit: boxcox with %zu samples: no solution", e->n_used);
        pp_est_free(e);
        return rc;
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
    case PP_METHOD_BOXCOX:
        return pp_boxcox_eval(e, xn);
    default:
        return NAN;
    }
}

double pp_est_predict(const pp_est *e, const double *xn)
{
    return from_space(e->spec.log_values, pp_est_eval(e, xn));
}

/* Leave-one-out by fitting without each sample in turn. */
static int loo_by_refit(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred)
{
    double *y2 = malloc((s->n + 1) * sizeof *y2);
    int rc = 0;

    if (!y2)
        return -ENOMEM;
    memcpy(y2, y, s->n * sizeof *y2);
    for (size_t i = 0; i < s->n && rc != -ENOMEM; i++) {
        pp_est e;
        pred[i] = NAN;
        if (isnan(y[i]))
            continue;
        y2[i] = NAN;
        if ((rc = pp_est_fit(&e, s, y2, spec)) == 0) {
            pred[i] = pp_est_predict(&e, s->x + i * s->d);
            pp_est_free(&e);
        }
        y2[i] = y[i];
    }
    free(y2);
    return rc == -ENOMEM ? rc : 0;
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
    case PP_METHOD_BOXCOX:
        free(v);
        return spec->h > 0 ? loo_by_refit(s, y, spec, pred) : pp_boxcox_loo(s, y, spec, pred);
    default:
        rc = -EINVAL;
    }
    for (size_t i = 0; rc == 0 && i < s->n; i++)
        pred[i] = from_space(spec->log_values, pred[i]);
out:
    free(v);
    return rc;
}


/* ---- folds ---- */

long pp_level_folds(const pp_surface *s, const double *y, pp_fold **folds)
{
    size_t total = 0, n = 0, dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims), pairs = 0;
    size_t *count;

    *folds = NULL;
    for (size_t j = 0; j < s->d; j++)
        total += s->k[j];
    if (!(count = calloc(total + 1, sizeof *count)) ||
        !(*folds = malloc((total + 1) * sizeof **folds))) {
        free(count);
        return -ENOMEM;
    }
    for (size_t j = 0, base = 0; j < s->d; base += s->k[j], j++) {
        size_t present = 0, first = SIZE_MAX, last = 0, most = 0;
        for (size_t i = 0; i < s->n; i++)
            if (!isnan(y[i]))
                count[base + s->cell[i * s->d + j]]++;
        for (size_t a = 0; a < s->k[j]; a++)
            if (count[base + a]) {
                present++;
                first = first == SIZE_MAX ? a : first;
                last = a;
                most = count[base + a] > most ? count[base + a] : most;
            }
        /* scattered samples (one per level) have no levels to leave out,
         * except along a single parameter, where the two are the same */
        if (present < PP_LEVEL_OUT_MIN || (most < 2 && nd > 1))
            continue;
        for (size_t a = first + 1; a < last; a++)
            if (count[base + a]) {
                (*folds)[n++] = (pp_fold){j, a};
                pairs += count[base + a];
            }
    }
    free(count);
    if (pairs < PP_LEVEL_OUT_MIN_PAIRS)
        n = 0;
    if (n == 0) {
        free(*folds);
        *folds = NULL;
    }
    return (long)n;
}

int pp_est_cv(const pp_surface *s, const double *y, const pp_est_spec *spec, const pp_fold *folds,
              size_t n_folds, pp_cv *cv, double *pred)
{
    double *y2 = malloc((s->n + 1) * sizeof *y2), *p = pred;
    size_t *idx = NULL, n = 0, cap = 0;
    int rc = 0;

    if (!y2)
        return -ENOMEM;
    for (size_t f = 0; f < n_folds; f++)
        for (size_t i = 0; i < s->n; i++)
            cap += !isnan(y[i]) && pp_fold_has(s, &folds[f], i);
    idx = malloc((cap + 1) * sizeof *idx);
    if (!p)
        p = malloc((cap + 1) * sizeof *p);
    for (size_t f = 0; idx && p && f < n_folds && rc == 0; f++) {
        size_t first = n;
        pp_est e;
        for (size_t i = 0; i < s->n; i++) {
            int out = !isnan(y[i]) && pp_fold_has(s, &folds[f], i);
            y2[i] = out ? NAN : y[i];
            if (out)
                idx[n++] = i;
        }
        if ((rc = pp_est_fit(&e, s, y2, spec)) < 0)
            break;
        for (size_t k = first; k < n; k++)
            p[k] = pp_est_predict(&e, s->x + idx[k] * s->d);
        pp_est_free(&e);
    }
    if (!idx || !p)
        rc = -ENOMEM;
    if (rc == 0)
        pp_cv_pairs(s, y, idx, p, n, cv);
    if (p != pred)
        free(p);
    free(idx);
    free(y2);
    return rc;
}
