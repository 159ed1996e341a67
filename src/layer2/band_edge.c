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

/* The scale pp_band_scale gives edge level `a` of dimension j against the
 * present levels left without it: 1 + its distance to the nearest over
 * their finest spacing. */
static double edge_scale(const pp_surface *s, const double *y, size_t j, size_t a)
{
    double x = s->levels[j][a], near = INFINITY, step = INFINITY, prev = NAN;
    unsigned char *seen = calloc(s->k[j] + 1, 1);

    for (size_t i = 0; seen && i < s->n; i++)
        if (!isnan(y[i]))
            seen[s->cell[i * s->d + j]] = 1;
    for (size_t b = 0; seen && b < s->k[j]; b++) {
        if (!seen[b] || b == a)
            continue;
        near = fmin(near, fabs(s->levels[j][b] - x));
        if (!isnan(prev))
            step = fmin(step, s->levels[j][b] - prev);
        prev = s->levels[j][b];
    }
    free(seen);
    return isfinite(step) && step > 0 ? 1 + near / step : NAN;
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

int pp_band_edge_calibrate(const pp_surface *s, const double *y, pp_choice *c)
{
    pp_fold folds[2 * PP_SURFACE_MAX_DIMS];
    size_t nf = edge_folds(s, y, folds), pairs = 0, m = 0;
    double *pred, *need;
    pp_cv cv;

    c->band_q_edge = NAN;
    c->band_n_edge = 0;
    for (size_t f = 0; f < nf; f++)
        for (size_t i = 0; i < s->n; i++)
            pairs += !isnan(y[i]) && pp_fold_has(s, &folds[f], i);
    if (nf == 0 || pairs == 0)
        return 0;
    pred = malloc(pairs * sizeof *pred);
    need = malloc(pairs * sizeof *need);
    if (!pred || !need) {
        free(pred);
        free(need);
        return -ENOMEM;
    }
    if (pp_est_cv(s, y, &c->spec, folds, nf, &cv, pred) == 0) {
        size_t p = 0;
        for (size_t f = 0; f < nf; f++) {
            double scale = edge_scale(s, y, folds[f].dim, folds[f].level);
            for (size_t i = 0; i < s->n; i++) {
                if (isnan(y[i]) || !pp_fold_has(s, &folds[f], i))
                    continue;
                if (pp_band_residual(c, y[i], pred[p++], &need[m]) && isfinite(scale))
                    need[m++] /= scale;
            }
        }
        c->band_q_edge = pp_band_quantile(need, m);
        c->band_n_edge = m;
    }
    free(pred);
    free(need);
    return 0;
}
