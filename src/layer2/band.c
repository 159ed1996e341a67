/* band.c - the 90 % bands of a choice (band.h): inside, between and
 * beyond the measured levels. */
#include "band.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* present[j][a]: level a of dimension j has a sample with a value that out
 * does not leave out. One block, free() it; NULL on no memory. */
static unsigned char **present_levels(const pp_surface *s, const double *y,
                                      const unsigned char *out)
{
    size_t total = 0;
    unsigned char **p, *at;

    for (size_t j = 0; j < s->d; j++)
        total += s->k[j];
    p = calloc(1, (s->d + 1) * sizeof *p + total + 1);
    if (!p)
        return NULL;
    at = (unsigned char *)(p + s->d + 1);
    for (size_t j = 0; j < s->d; j++) {
        p[j] = at;
        at += s->k[j];
    }
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(y[i]) && !(out && out[i]))
            for (size_t j = 0; j < s->d; j++)
                p[j][s->cell[i * s->d + j]] = 1;
    return p;
}

void pp_band_range_without(const pp_surface *s, const double *y, const unsigned char *out,
                           pp_band_range *r)
{
    unsigned char **p = present_levels(s, y, out);

    memset(r, 0, sizeof *r);
    r->d = s->d;
    r->s = s;
    for (size_t j = 0; j < s->d; j++) {
        size_t prev = (size_t)-1;
        r->lo[j] = INFINITY;
        r->hi[j] = -INFINITY;
        r->step[j] = r->step_lo[j] = r->step_hi[j] = INFINITY;
        for (size_t a = 0; p && a < s->k[j]; a++) {
            if (!p[j][a])
                continue;
            r->lo[j] = fmin(r->lo[j], s->levels[j][a]);
            r->hi[j] = fmax(r->hi[j], s->levels[j][a]);
            if (prev != (size_t)-1) {
                r->step[j] = fmin(r->step[j], s->levels[j][a] - s->levels[j][prev]);
                r->step_hi[j] = s->levels[j][a] - s->levels[j][prev];
                if (!isfinite(r->step_lo[j]))
                    r->step_lo[j] = r->step_hi[j];
            }
            prev = a;
        }
    }
    free(p);
}

void pp_band_range_of(const pp_surface *s, const double *y, pp_band_range *r)
{
    pp_band_range_without(s, y, NULL, r);
}

double pp_band_scale(const pp_band_range *r, const double *xn)
{
    double o2 = 0;

    for (size_t j = 0; j < r->d; j++) {
        double o = fmax(0.0, fmax(r->lo[j] - xn[j], xn[j] - r->hi[j]));
        double step = xn[j] < r->lo[j] ? r->step_lo[j] : r->step_hi[j];
        if (o > 0 && isfinite(step) && step > 0)
            o2 += (o / step) * (o / step);
    }
    return 1.0 + sqrt(o2);
}

/* The finest spacing between the levels lv[k] (sorted; all of them, not
 * only those present: the unit stays the same when a fold leaves some out);
 * 0 with fewer than two. */
static double finest_step(const double *lv, size_t k)
{
    double step = INFINITY;

    for (size_t a = 1; a < k; a++)
        step = fmin(step, lv[a] - lv[a - 1]);
    return isfinite(step) ? step : 0.0;
}

/* The distance of x to the nearest present level in units of the finest
 * spacing of the levels, when x lies between two present ones; 0 outside
 * them or at one. A level a fold leaves out of an even grid sits at 1, a
 * point halfway between two neighbouring levels at 0.5. */
static double between_dim(const double *lv, size_t k, const unsigned char *present, double x)
{
    double below = -INFINITY, above = INFINITY, step = finest_step(lv, k);

    for (size_t a = 0; a < k; a++) {
        if (present && !present[a])
            continue;
        if (lv[a] <= x && lv[a] > below)
            below = lv[a];
        if (lv[a] >= x && lv[a] < above)
            above = lv[a];
    }
    if (!isfinite(below) || !isfinite(above) || above <= below || !(step > 0))
        return 0.0;
    return fmin(x - below, above - x) / step;
}

/* The distance of xn to the levels of s present in p (NULL: all of them). */
static double between_levels(const pp_surface *s, unsigned char **p, const double *xn)
{
    double d2 = 0;

    for (size_t j = 0; s && j < s->d; j++)
        if (s->k[j] > 1) {
            double b = between_dim(s->levels[j], s->k[j], p ? p[j] : NULL, xn[j]);
            d2 += b * b;
        }
    return sqrt(d2);
}

double pp_band_between(const pp_band_range *r, const double *xn)
{
    return between_levels(r->s, NULL, xn);
}

double pp_band_between_without(const pp_surface *s, const double *y, const unsigned char *out,
                               const double *xn)
{
    unsigned char **p = present_levels(s, y, out);
    double b = p ? between_levels(s, p, xn) : 0.0;

    free(p);
    return b;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double pp_band_quantile(double *r, size_t m)
{
    size_t k;

    if (m == 0)
        return NAN;
    qsort(r, m, sizeof *r, cmp_double);
    k = (size_t)ceil(PP_BAND_LEVEL * (double)(m + 1));
    return r[(k <= m ? k : m) - 1];
}

int pp_band_residual(const pp_choice *c, double v, double p, double *r)
{
    if (isnan(v) || isnan(p))
        return 0;
    if (c->positive) {
        if (!(v > 0))
            return 0;
        *r = p > 0 ? fabs(log(v) - log(p)) : INFINITY;
        return 1;
    }
    *r = fabs(v - p);
    return 1;
}

size_t pp_band_conformal_min(void)
{
    size_t m = 1;
    while ((size_t)ceil(PP_BAND_LEVEL * (double)(m + 1)) > m)
        m++;
    return m;
}

void pp_band(const pp_choice *c, double value, const double *xn, double *lo, double *hi)
{
    double q = c->band_q, half, scale;

    /* narrower between levels only on a quantile of 9 residuals or more
     * (fewer give only their largest: no 90 % quantile to narrow to) */
    if (isfinite(c->band_q_between) &&
        (c->band_q_between >= q || c->band_n_between >= pp_band_conformal_min())) {
        double b = pp_band_between(&c->range, xn);
        q += (c->band_q_between - q) * (c->band_q_between < q ? fmin(b, 1.0) : b);
    }
    scale = pp_band_scale(&c->range, xn);
    half = q * scale;
    if (isnan(half) || isnan(value)) {
        *lo = *hi = NAN;
    } else if (c->positive) {
        *lo = value > 0 ? value * exp(-half) : 0.0;
        *hi = value > 0 ? value * exp(half) : 0.0;
    } else {
        *lo = value - half;
        *hi = value + half;
        if (c->nonnegative && *lo < 0)
            *lo = 0.0;
    }
}

void pp_choice_free(pp_choice *c)
{
    free(c->held_at);
    free(c->held_between);
    free(c->held_between_idx);
    free(c->held_between_b);
    free(c->band_r);
    c->held_at = c->held_between = c->held_between_b = c->band_r = NULL;
    c->held_between_idx = NULL;
    c->n_held_between = 0;
}

/* ---- beyond the measured range: the local linear trend of the last
 * measured levels, and the band that holds it and the estimator's own
 * extrapolation (band.h: pp_band_beyond) ---- */

/* The level of dimension j next to the range's end xc (inwards), NaN
 * when there is none: the end's neighbour among the surface's levels
 * inside the range, else one finest step in. */
static double inward(const pp_band_range *r, size_t j, double xc)
{
    double best = NAN;
    int up = xc <= r->lo[j];

    for (size_t a = 0; r->s && a < r->s->k[j]; a++) {
        double lv = r->s->levels[j][a];
        if (lv < r->lo[j] || lv > r->hi[j] || lv == xc)
            continue;
        if (isnan(best) || (up ? lv < best : lv > best))
            best = lv;
    }
    if (isnan(best) && isfinite(r->step[j]) && r->step[j] > 0)
        best = up ? xc + r->step[j] : xc - r->step[j];
    return best;
}

/* The local linear trend at xn of the last measured levels of fn: fn at
 * the nearest point of r's range, continued along each dimension where xn
 * lies outside by the slope between the range's end and the level next to
 * it (in log values for a positive metric along log-scale parameters, a
 * power law; else in values, unless that crosses zero). fn there inside. */
static double trend(const pp_band_range *r, int positive, pp_band_value_fn fn, const void *ctx,
                    const double *xn)
{
    double xc[PP_SURFACE_MAX_DIMS], f0, lin = 0, lg = 0;
    int outside = 0, all_log = 1;

    for (size_t j = 0; j < r->d; j++)
        xc[j] = r->hi[j] >= r->lo[j] ? fmin(fmax(xn[j], r->lo[j]), r->hi[j]) : xn[j];
    f0 = fn(ctx, xc);
    for (size_t j = 0; j < r->d; j++) {
        double a, fa, steps, xa[PP_SURFACE_MAX_DIMS];
        if (xn[j] == xc[j] || isnan(a = inward(r, j, xc[j])))
            continue;
        for (size_t i = 0; i < r->d; i++)
            xa[i] = xc[i];
        xa[j] = a;
        fa = fn(ctx, xa);
        steps = (xn[j] - xc[j]) / (xc[j] - a); /* the last interval's lengths past the end */
        lin += (f0 - fa) * steps;
        lg += f0 > 0 && fa > 0 ? log(f0 / fa) * steps : NAN;
        all_log &= r->s && r->s->log_scale[j];
        outside = 1;
    }
    if (!outside)
        return f0;
    /* a positive metric along log-scale parameters: a power law; else a
     * straight line, unless it crosses zero */
    if (positive && (all_log || !(f0 + lin > 0)) && isfinite(lg))
        return f0 * exp(lg);
    return f0 + lin;
}

void pp_band_beyond(const pp_choice *c, int trend_value, pp_band_value_fn fn, const void *ctx,
                    const double *xn, double *value, double *lo, double *hi)
{
    double t, tlo, thi;

    if (pp_band_scale(&c->range, xn) <= 1) {
        pp_band(c, *value, xn, lo, hi);
        return;
    }
    t = trend(&c->range, c->positive, fn, ctx, xn);
    /* a positive metric's extrapolation at or below zero has left what
     * the values can be: the trend, when it has not */
    if (trend_value || isnan(*value) || (c->positive && !(*value > 0) && t > 0))
        *value = t;
    pp_band(c, *value, xn, lo, hi);
    pp_band(c, t, xn, &tlo, &thi);
    if (!isnan(tlo) && !isnan(*lo)) { /* both trends are held */
        *lo = fmin(*lo, tlo);
        *hi = fmax(*hi, thi);
    }
    if (!isnan(*lo) && *value < *lo) /* both at or below zero: the band's end, 0 */
        *value = *lo;
}

/* ---- the edges (band.h: pp_band_edge_folds) ---- */

size_t pp_band_edge_folds(const pp_surface *s, const double *y, pp_fold *folds)
{
    unsigned char **p = present_levels(s, y, NULL);
    size_t n = 0;

    for (size_t j = 0; p && j < s->d; j++) {
        size_t lo = 0, hi = 0, k = 0; /* the least and largest present, how many */
        for (size_t a = 0; a < s->k[j]; a++)
            if (p[j][a]) {
                lo = k++ == 0 ? a : lo;
                hi = a;
            }
        if (k >= PP_LEVEL_OUT_MIN) {
            folds[n++] = (pp_fold){j, lo};
            folds[n++] = (pp_fold){j, hi};
        }
    }
    free(p);
    return n;
}
