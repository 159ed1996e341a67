/* band_trend.c - beyond the measured range: the local linear trend of the
 * last measured levels, and the band that holds it and the estimator's
 * own extrapolation (estimator.h: pp_band_trend, pp_band_beyond). */
#include "estimator.h"

#include <math.h>

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

double pp_band_trend(const pp_band_range *r, int positive, pp_band_value_fn fn, const void *ctx,
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
    t = pp_band_trend(&c->range, c->positive, fn, ctx, xn);
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
