/* The 90 % bands of estimator.h: where the samples lie, how far a point
 * lies from them, the conformal quantiles, the band at a point. */
#include "estimator.h"

#include <errno.h>
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

double pp_band_between(const pp_band_range *r, const double *xn)
{
    double d2 = 0;

    for (size_t j = 0; r->s && j < r->d; j++)
        if (r->s->k[j] > 1) {
            double b = between_dim(r->s->levels[j], r->s->k[j], NULL, xn[j]);
            d2 += b * b;
        }
    return sqrt(d2);
}

/* The same against the levels of the samples out does not leave out. */
double pp_band_between_without(const pp_surface *s, const double *y, const unsigned char *out,
                               const double *xn)
{
    unsigned char **p = present_levels(s, y, out);
    double d2 = 0;

    for (size_t j = 0; p && j < s->d; j++)
        if (s->k[j] > 1) {
            double b = between_dim(s->levels[j], s->k[j], p[j], xn[j]);
            d2 += b * b;
        }
    free(p);
    return sqrt(d2);
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

/* The edge quantile outside the range at xn: the largest of those of
 * the dimensions along which xn lies outside, band_q_edge when one of
 * them has none. */
static double q_edge_at(const pp_choice *c, const double *xn)
{
    double q = -INFINITY;

    for (size_t j = 0; j < c->range.d; j++) {
        if (!(xn[j] < c->range.lo[j] || xn[j] > c->range.hi[j]))
            continue;
        if (isnan(c->band_q_edge_dim[j]))
            return c->band_q_edge;
        q = fmax(q, c->band_q_edge_dim[j]);
    }
    return isfinite(q) ? q : c->band_q_edge;
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
    if (scale > 1 && q_edge_at(c, xn) > q) /* an extrapolation: as wide as the edges need */
        half = q_edge_at(c, xn) * scale;
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
