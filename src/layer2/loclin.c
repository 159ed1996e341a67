/* loclin.c - local-linear kernel regression (estimator.h): at x, the
 * weighted least-squares plane through the samples, weights
 * w_i exp(-|x - x_i|^2 / h^2), evaluated at x; its operations for the
 * estimators' table (est.h). */
#include "est.h"

#include "lapack.h"

#include <math.h>
#include <stddef.h>

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
            double g = d2 ? d2[i] : pp_dist2(xn, s->x + i * s->d, s->d);
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
            (e = ((d2 ? d2[i] : pp_dist2(xn, s->x + i * s->d, s->d)) - m) * inv) > 700)
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

/* ---- in the estimators' table ---- */

static double loclin_eval(const pp_est *e, const double *xn)
{
    return loclin_at(e->s, e->v, e->spec.h, xn, e->s->n);
}

static int loclin_loo(const pp_surface *s, const double *y, const double *v,
                      const pp_est_spec *spec, double *pred)
{
    (void)y;
    for (size_t i = 0; i < s->n; i++)
        pred[i] = isnan(v[i]) ? NAN : loclin_at(s, v, spec->h, s->x + i * s->d, i);
    for (size_t i = 0; i < s->n; i++)
        pred[i] = pp_est_from_space(spec->log_values, pred[i]);
    return 0;
}

/* loclin at sample i from the samples of w (i itself not among them) */
static double loclin_at_sample(const pp_surface *s, const double *w, double h, size_t i)
{
    return loclin_at(s, w, h, s->x + i * s->d, i);
}

static int loclin_folds(const pp_surface *s, const double *y, const double *v,
                        const pp_est_spec *spec, const pp_fold *folds, size_t n_folds, size_t *idx,
                        double *pred, size_t *n)
{
    (void)y;
    return pp_est_kernel_folds(s, v, spec, folds, n_folds, idx, pred, n, loclin_at_sample);
}

const pp_est_ops pp_est_loclin_ops = {NULL, loclin_eval, loclin_loo, loclin_folds};
