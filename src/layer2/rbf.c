/* rbf.c - the thin-plate spline (estimator.h): sum_i a_i phi(|x - x_i|)
 * + c_0 + c^T x, phi(r) = r^2 log r, smoothing h / w_i on the diagonal,
 * solved by LAPACK (dsytrf/dsytrs); its leave-one-out and level folds by
 * Rippa's rule (dsytri); its operations for the estimators' table (est.h). */
#include "est.h"

#include "lapack.h"
#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
                                      : pp_dist2(xr, s->x + idx[c] * s->d, s->d));
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

/* The solved system of the samples with a value: their indices idx[m],
 * the matrix a (nn x nn, column-major: its factors, or with inverse its
 * inverse's upper triangle) and the solution rhs (nn). */
typedef struct rbf_sys {
    size_t *idx, m, nn;
    double *a, *rhs;
    int *ipiv;
} rbf_sys;

static void rbf_sys_free(rbf_sys *y)
{
    free(y->idx);
    free(y->a);
    free(y->rhs);
    free(y->ipiv);
    memset(y, 0, sizeof *y);
}

/* Solve the system of v at h into y (inverse: and invert it); at least
 * min_m samples. 0, -EINVAL (too few samples, singular) or -ENOMEM. */
static int rbf_sys_solve(const pp_surface *s, const double *v, double h, size_t min_m, int inverse,
                         rbf_sys *y)
{
    size_t dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims);

    memset(y, 0, sizeof *y);
    if (!(y->idx = malloc(s->n * sizeof *y->idx)))
        return -ENOMEM;
    y->m = with_value(v, s->n, y->idx);
    y->nn = y->m + nd + 1;
    if (y->m < min_m)
        return -EINVAL;
    y->a = malloc(y->nn * y->nn * sizeof *y->a);
    y->rhs = malloc(y->nn * sizeof *y->rhs);
    y->ipiv = malloc(y->nn * sizeof *y->ipiv);
    if (!y->a || !y->rhs || !y->ipiv)
        return -ENOMEM;
    rbf_system(s, v, h, y->idx, y->m, dims, nd, y->a, y->rhs);
    if (pp_lapack_dsytrf(PP_LAPACK_COL_MAJOR, 'U', (int)y->nn, y->a, (int)y->nn, y->ipiv) != 0 ||
        pp_lapack_dsytrs(PP_LAPACK_COL_MAJOR, 'U', (int)y->nn, 1, y->a, (int)y->nn, y->ipiv,
                         y->rhs, (int)y->nn) != 0 ||
        (inverse && pp_lapack_dsytri(PP_LAPACK_COL_MAJOR, 'U', (int)y->nn, y->a, (int)y->nn,
                                     y->ipiv) != 0))
        return -EINVAL;
    return 0;
}

/* Solve the system of v at h. With loo (s->n of room), also the
 * leave-one-out values v_i - a_i / (M^-1)_ii in the values' space (NaN for
 * samples without a value). coef (s->n + d + 1) may be NULL. 0, -EINVAL
 * (too few samples, singular) or -ENOMEM. */
static int rbf_solve(const pp_surface *s, const double *v, double h, double *coef, double *loo)
{
    size_t dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims);
    rbf_sys y;
    int rc = rbf_sys_solve(s, v, h, nd + 2 + (loo != NULL), loo != NULL, &y);

    if (rc == 0 && coef) {
        memset(coef, 0, (s->n + s->d + 1) * sizeof *coef);
        for (size_t r = 0; r < y.m; r++)
            coef[y.idx[r]] = y.rhs[r];
        coef[s->n] = y.rhs[y.m];
        for (size_t k = 0; k < nd; k++)
            coef[s->n + 1 + dims[k]] = y.rhs[y.m + 1 + k];
    }
    for (size_t i = 0; rc == 0 && loo && i < s->n; i++)
        loo[i] = NAN;
    for (size_t r = 0; rc == 0 && loo && r < y.m; r++) {
        double d = y.a[r * y.nn + r];
        loo[y.idx[r]] = d != 0 ? v[y.idx[r]] - y.rhs[r] / d : NAN;
    }
    rbf_sys_free(&y);
    return rc;
}

static double rbf_at(const pp_surface *s, const double *coef, const double *v, const double *xn)
{
    double f = coef[s->n];

    for (size_t j = 0; j < s->d; j++)
        f += coef[s->n + 1 + j] * xn[j];
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(v[i]) && coef[i] != 0)
            f += coef[i] * tps(pp_dist2(xn, s->x + i * s->d, s->d));
    return f;
}

/* ---- in the estimators' table ---- */

static int rbf_fit(pp_est *e)
{
    const pp_surface *s = e->s;
    int rc;

    if (!(e->coef = malloc((s->n + s->d + 1) * sizeof *e->coef)))
        return -ENOMEM;
    if ((rc = rbf_solve(s, e->v, e->spec.h, e->coef, NULL)) < 0)
        pp_log_debug("fit: rbf with %zu samples, lambda %g: no solution", e->n_used, e->spec.h);
    return rc;
}

static double rbf_eval(const pp_est *e, const double *xn)
{
    return rbf_at(e->s, e->coef, e->v, xn);
}

static int rbf_loo(const pp_surface *s, const double *y, const double *v, const pp_est_spec *spec,
                   double *pred)
{
    int rc = rbf_solve(s, v, spec->h, NULL, pred);

    (void)y;
    for (size_t i = 0; rc == 0 && i < s->n; i++)
        pred[i] = pp_est_from_space(spec->log_values, pred[i]);
    return rc;
}

/* Fold F of the solved, inverted system y (its members' positions in
 * at[cnt]) predicted without it by Rippa's rule for a block: v_F less the
 * solution of (M^-1)_FF e = c_F. -1 where (M^-1)_FF is singular. */
static int rbf_fold(const rbf_sys *y, const double *v, const size_t *at, size_t cnt, double *b,
                    int *ipiv, double *out)
{
    for (size_t i = 0; i < cnt; i++) {
        out[i] = y->rhs[at[i]];
        for (size_t j = 0; j < cnt; j++) { /* the upper triangle holds (r, c), r <= c */
            size_t r = at[i] < at[j] ? at[i] : at[j], c = at[i] < at[j] ? at[j] : at[i];
            b[j * cnt + i] = y->a[c * y->nn + r];
        }
    }
    if (pp_lapack_dsytrf(PP_LAPACK_COL_MAJOR, 'U', (int)cnt, b, (int)cnt, ipiv) != 0 ||
        pp_lapack_dsytrs(PP_LAPACK_COL_MAJOR, 'U', (int)cnt, 1, b, (int)cnt, ipiv, out,
                         (int)cnt) != 0)
        return -1;
    for (size_t i = 0; i < cnt; i++)
        out[i] = v[y->idx[at[i]]] - out[i];
    return 0;
}

/* Every fold left out of one solve (est.h's folds operation). */
static int rbf_folds(const pp_surface *s, const double *y, const double *v,
                     const pp_est_spec *spec, const pp_fold *folds, size_t n_folds, size_t *idx,
                     double *pred, size_t *n)
{
    size_t dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims), *at;
    double *b, *out;
    int *ipiv, rc;
    rbf_sys sys;

    (void)y;
    *n = 0;
    if ((rc = rbf_sys_solve(s, v, spec->h, nd + 2, 1, &sys)) < 0) {
        rbf_sys_free(&sys);
        return rc == -ENOMEM ? rc : -ENOTSUP;
    }
    at = malloc((sys.m + 1) * sizeof *at);
    b = malloc((sys.m * sys.m + sys.m + 1) * sizeof *b);
    ipiv = malloc((sys.m + 1) * sizeof *ipiv);
    rc = at && b && ipiv ? 0 : -ENOMEM;
    out = b ? b + sys.m * sys.m : NULL;
    for (size_t f = 0; rc == 0 && f < n_folds; f++) {
        size_t cnt = 0;
        for (size_t r = 0; r < sys.m; r++)
            if (pp_fold_has(s, &folds[f], sys.idx[r]))
                at[cnt++] = r;
        if (sys.m - cnt < nd + 2 || rbf_fold(&sys, v, at, cnt, b, ipiv, out) < 0)
            rc = -ENOTSUP; /* refitting says what fails */
        for (size_t i = 0; rc == 0 && i < cnt; i++) {
            idx[*n] = sys.idx[at[i]];
            pred[(*n)++] = pp_est_from_space(spec->log_values, out[i]);
        }
    }
    free(at);
    free(b);
    free(ipiv);
    rbf_sys_free(&sys);
    return rc;
}

const pp_est_ops pp_est_rbf_ops = {rbf_fit, rbf_eval, rbf_loo, rbf_folds};
