/* band_edge.c - the band outside the measured range, calibrated on the
 * edges held out (estimator.h: pp_band_edge_calibrate). */
#include "estimator.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* The present levels of dimension j (a sample with a value there): the
 * least and largest index into s->levels[j], and how many. */
static size_t present(const pp_surface *s, const double *y, size_t j, size_t *lo, size_t *hi)
{
    unsigned char *seen = calloc(s->k[j] + 1, 1);
    size_t n = 0;

    *lo = SIZE_MAX;
    *hi = 0;
    for (size_t i = 0; seen && i < s->n; i++)
        if (!isnan(y[i]))
            seen[s->cell[i * s->d + j]] = 1;
    for (size_t a = 0; seen && a < s->k[j]; a++)
        if (seen[a]) {
            n++;
            *lo = a < *lo ? a : *lo;
            *hi = a;
        }
    free(seen);
    return n;
}

/* The edge folds of y into folds (room for 2 d): how many. */
static size_t edge_folds(const pp_surface *s, const double *y, pp_fold *folds)
{
    size_t n = 0, lo, hi;

    for (size_t j = 0; j < s->d; j++)
        if (present(s, y, j, &lo, &hi) >= PP_LEVEL_OUT_MIN) {
            folds[n++] = (pp_fold){j, lo};
            folds[n++] = (pp_fold){j, hi};
        }
    return n;
}

/* The fitted estimator as a pp_band_value_fn. */
static double est_at(const void *ctx, const double *xn) { return pp_est_predict(ctx, xn); }

/* The residual of v against the band's two centres p and t (the nearest
 * end of the interval between them): 1 when there is one. */
static int residual_to(const pp_choice *c, double v, double p, double t, double *r)
{
    double rp, rt;

    if (!pp_band_residual(c, v, p, &rp) || !pp_band_residual(c, v, t, &rt))
        return 0;
    if (c->positive ? (log(v) - log(p)) * (log(v) - log(t)) <= 0 : (v - p) * (v - t) <= 0)
        *r = 0.0; /* between the two: inside the band's middle */
    else
        *r = fmin(rp, rt);
    return 1;
}

/* Fold f left out of y (y2: room for s->n), the spec refitted on the rest,
 * each of its samples predicted as pp_model_predict does (the estimator's
 * extrapolation and the trend of the last levels: pp_band_beyond), its
 * residual over the scale appended to need[*m]. 0, or -ENOMEM. */
static int edge_fold(const pp_surface *s, const double *y, const pp_fold *f, pp_choice *c,
                     double *y2, double *need, size_t *m)
{
    unsigned char *out = calloc(s->n + 1, 1);
    pp_band_range r;
    pp_est e;
    int rc;

    if (!out)
        return -ENOMEM;
    for (size_t i = 0; i < s->n; i++) {
        out[i] = !isnan(y[i]) && pp_fold_has(s, f, i);
        y2[i] = out[i] ? NAN : y[i];
    }
    rc = pp_est_fit(&e, s, y2, &c->spec);
    if (rc == 0) {
        pp_band_range_without(s, y, out, &r);
        for (size_t i = 0; i < s->n; i++) {
            const double *xn = s->x + i * s->d;
            double p, t, scale = pp_band_scale(&r, xn); /* as a prediction there has */
            if (!out[i])
                continue;
            p = pp_est_predict(&e, xn);
            t = pp_band_trend(&r, c->positive, est_at, &e, xn);
            if (c->spec.method == PP_METHOD_NW)
                p = t;
            if (residual_to(c, y[i], p, t, &need[*m]) && isfinite(scale))
                need[(*m)++] /= scale;
        }
        pp_est_free(&e);
    }
    free(out);
    return rc == -ENOMEM ? rc : 0;
}

int pp_band_edge_calibrate(const pp_surface *s, const double *y, pp_choice *c)
{
    pp_fold folds[2 * PP_SURFACE_MAX_DIMS];
    size_t nf = edge_folds(s, y, folds), pairs = 0, m = 0;
    double *y2, *need;
    int rc = 0;

    c->band_q_edge = NAN;
    c->band_n_edge = 0;
    for (size_t j = 0; j < PP_SURFACE_MAX_DIMS; j++)
        c->band_q_edge_dim[j] = NAN;
    for (size_t f = 0; f < nf; f++)
        for (size_t i = 0; i < s->n; i++)
            pairs += !isnan(y[i]) && pp_fold_has(s, &folds[f], i);
    if (nf == 0 || pairs == 0)
        return 0;
    y2 = malloc((s->n + 1) * sizeof *y2);
    need = malloc(pairs * sizeof *need);
    for (size_t f = 0, first = 0; y2 && need && rc == 0 && f < nf; f++) {
        if (f % 2 == 0) /* the folds come in pairs, the least and the largest level of a dimension */
            first = m;
        rc = edge_fold(s, y, &folds[f], c, y2, need, &m);
        if (rc == 0 && f % 2 == 1 && m > first)
            c->band_q_edge_dim[folds[f].dim] = pp_band_quantile(need + first, m - first);
    }
    if (!y2 || !need)
        rc = -ENOMEM;
    if (rc == 0 && m) {
        c->band_q_edge = pp_band_quantile(need, m);
        c->band_n_edge = m;
    }
    free(y2);
    free(need);
    return rc;
}
