/* rbf.c - the thin-plate spline (estimator.h): sum_i a_i phi(|x - x_i|)
 * + c_0 + c^T x, phi(r) = r^2 log r, smoothing h / w_i on the diagonal,
 * solved by LAPACK (dsytrf/dsytrs); its leave-one-out by Rippa's rule
 * (dsytri); its operations for the estimators' table (est.h). */
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

const pp_est_ops pp_est_rbf_ops = {rbf_fit, rbf_eval, rbf_loo};
