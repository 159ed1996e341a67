/* loclin.c - local-linear kernel regression (estimator.h): at x, the
 * weighted least-squares plane through the samples, weights
 * w_i exp(-|x - x_i|^2 / h^2), evaluated at x; its operations for the
 * estimators' table (est.h). */
#include "est.h"

#include "lapack.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

enum { P = PP_SURFACE_MAX_DIMS };

/* The weighted moments about the nearest sample (coordinates near[0 .. nd))
 * of the samples (of live) other than skip whose weight does not
 * underflow: s0, sv,
 * s1[nd], s1v[nd] and s2's upper triangle (nd x nd, by columns: LAPACK's
 * order, so that it solves without a copy). Inlined with
 * nd a constant for 1 to 3 varying parameters (the loops then unrolled:
 * without, `--method loclin` on a 5 x 5 x 8 grid took 1.31 s of CPU
 * against 0.94, one run each under load); the same sums in the same
 * order whatever nd. auto tunes loclin only where boxcox cannot be
 * scored (choose.c). */
static inline __attribute__((always_inline)) void
moments(const pp_surface *s, const double *v, const double *d2, const double *xn, size_t skip,
        const size_t *live, size_t n_live, double m, double inv, size_t nd, const size_t *dims,
        const double *near, double *mo)
{
    double *s1 = mo + 2, *s1v = s1 + nd, *s2 = s1v + nd, z[P];
    const double *rw = s->weight; /* pp_surface_run_weight's, read here: a call per sample cost 2 % */

    for (size_t q = 0; q < n_live; q++) {
        size_t i = live ? live[q] : q;
        double e, w;
        if (i == skip || isnan(v[i]) ||
            (e = ((d2 ? d2[i] : pp_dist2(xn, s->x + i * s->d, s->d)) - m) * inv) > 700)
            continue;
        w = (rw ? rw[i] : 1.0) * exp(-e);
#pragma GCC unroll 3
        for (size_t k = 0; k < nd; k++)
            z[k] = s->x[i * s->d + dims[k]] - near[k];
        mo[0] += w;
        mo[1] += w * v[i];
#pragma GCC unroll 3
        for (size_t r = 0; r < nd; r++) {
            s1[r] += w * z[r];
            s1v[r] += w * z[r] * v[i];
#pragma GCC unroll 3
            for (size_t c = r; c < nd; c++)
                s2[c * nd + r] += w * z[r] * z[c];
        }
    }
}

/* The local-linear value at xn from the samples other than skip (s->n for
 * none), in the values' space; NaN when no sample has a value. Only the
 * n_live samples live lists are looked at (NULL: the first n_live), in
 * order: those with a value, when the caller knows them. One pass
 * gathers the weighted moments in coordinates centred at the nearest
 * sample (the heaviest), so that the slopes' normal equations, centred at
 * the weighted mean, lose nothing to cancellation even when nearly all the
 * weight is on that one sample; samples whose weight underflows are
 * skipped. A ridge on the slopes of 1e-12 of their own diagonal and 1e-28
 * of the total weight: a direction no sample spans gets slope 0 instead of
 * a singular system (LAPACK dposv; the weighted mean should it still fail). */
static double loclin_at(const pp_surface *s, const double *v, double h, const double *xn,
                        size_t skip, const size_t *live, size_t n_live)
{
    /* at a sample (leave-one-out), its row of the surface's distances */
    const double *d2 = skip < s->n && s->d2 ? s->d2 + skip * s->n : NULL;
    size_t dims[P], nd = pp_surface_varying(s, dims), near = s->n;
    double mo[2 + 2 * P + P * P], *s1 = mo + 2, *s1v = s1 + nd, *s2 = s1v + nd, m = INFINITY;
    double inv = 1.0 / (h * h), at[P], beta[P], value;

    for (size_t q = 0; q < n_live; q++) {
        size_t i = live ? live[q] : q;
        if (i != skip && !isnan(v[i])) {
            double g = d2 ? d2[i] : pp_dist2(xn, s->x + i * s->d, s->d);
            if (g < m) {
                m = g;
                near = i;
            }
        }
    }
    if (near == s->n)
        return NAN;
    for (size_t k = 0; k < nd; k++)
        at[k] = s->x[near * s->d + dims[k]];
    memset(mo, 0, (2 + 2 * nd + nd * nd) * sizeof *mo);
    switch (nd) {
    case 1:
        moments(s, v, d2, xn, skip, live, n_live, m, inv, 1, dims, at, mo);
        break;
    case 2:
        moments(s, v, d2, xn, skip, live, n_live, m, inv, 2, dims, at, mo);
        break;
    case 3:
        moments(s, v, d2, xn, skip, live, n_live, m, inv, 3, dims, at, mo);
        break;
    default:
        moments(s, v, d2, xn, skip, live, n_live, m, inv, nd, dims, at, mo);
    }
    /* centred at the weighted mean: covariance and cross-moments */
    for (size_t r = 0; r < nd; r++) {
        beta[r] = s1v[r] - s1[r] * mo[1] / mo[0];
        for (size_t c = r; c < nd; c++)
            s2[c * nd + r] -= s1[r] * s1[c] / mo[0];
        s2[r * nd + r] += 1e-12 * s2[r * nd + r] + 1e-28 * mo[0];
    }
    value = mo[1] / mo[0];
    for (size_t r = 0; r < nd; r++)
        if (isnan(beta[r]))
            return value; /* no plane: the weighted mean */
    if (nd && pp_lapack_dposv_small((int)nd, s2, beta) != 0)
        return value;
    for (size_t k = 0; k < nd; k++)
        value += beta[k] * (xn[dims[k]] - at[k] - s1[k] / mo[0]);
    return value;
}

/* ---- in the estimators' table ---- */

static double loclin_eval(const pp_est *e, const double *xn)
{
    return loclin_at(e->s, e->v, e->spec.h, xn, e->s->n, NULL, e->s->n);
}

static int loclin_loo(const pp_surface *s, const double *y, const double *v,
                      const pp_est_spec *spec, double *pred)
{
    (void)y;
    for (size_t i = 0; i < s->n; i++)
        pred[i] = isnan(v[i]) ? NAN : loclin_at(s, v, spec->h, s->x + i * s->d, i, NULL, s->n);
    for (size_t i = 0; i < s->n; i++)
        pred[i] = pp_est_from_space(spec->log_values, pred[i]);
    return 0;
}

/* loclin at sample i from the n_live samples of w that live lists (i
 * itself not among them) */
static double loclin_at_sample(const pp_surface *s, const double *w, double h, size_t i,
                               const size_t *live, size_t n_live)
{
    return loclin_at(s, w, h, s->x + i * s->d, i, live, n_live);
}

static int loclin_folds(const pp_surface *s, const double *y, const double *v,
                        const pp_est_spec *spec, const pp_fold *folds, size_t n_folds, size_t *idx,
                        double *pred, size_t *n)
{
    (void)y;
    return pp_est_kernel_folds(s, v, spec, folds, n_folds, idx, pred, n, loclin_at_sample);
}

const pp_est_ops pp_est_loclin_ops = {NULL, loclin_eval, loclin_loo, loclin_folds};
