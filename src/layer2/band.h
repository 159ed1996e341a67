/* band.h - the 90 % bands of a layer-2 choice (band.c): the range of the
 * measured levels, the choice's record (pp_choice) and its band inside,
 * between and beyond the measured levels. */
#ifndef PP_BAND_H
#define PP_BAND_H

#include "est.h"
#include "surface.h"

#include <stddef.h>

#define PP_BAND_LEVEL 0.9

/* Where the samples with a value lie: per dimension the lowest and highest
 * normalized coordinate and the finest spacing between distinct ones; and
 * the surface, whose levels tell how far a point lies from the measured
 * ones (NULL: not known, the band is the same everywhere inside). */
typedef struct pp_band_range {
    size_t d;
    double lo[PP_SURFACE_MAX_DIMS], hi[PP_SURFACE_MAX_DIMS], step[PP_SURFACE_MAX_DIMS];
    /* the spacing of the two lowest and of the two highest (INFINITY: one) */
    double step_lo[PP_SURFACE_MAX_DIMS], step_hi[PP_SURFACE_MAX_DIMS];
    const pp_surface *s;
} pp_band_range;

void pp_band_range_of(const pp_surface *s, const double *y, pp_band_range *r);

/* The local scale of the band outside the measured range at normalized
 * point xn: 1 inside it, 1 + the distance outside it in units of the
 * spacing of the last two levels at that end (an extrapolation is less
 * certain the farther it goes; the finest spacing anywhere made 450,000
 * lines three steps past a geometric 25,000 .. 400,000 on a linear scale). */
double pp_band_scale(const pp_band_range *r, const double *xn);

/* How far xn lies from the measured levels, inside the range: per
 * dimension the distance to the nearest measured level in units of the
 * finest spacing of the dimension's levels (0 at a level, 0.5 halfway
 * between two neighbours of an even grid), and the root of the sum of
 * their squares. A level left out of a fold sits at 1 against the levels
 * that remain (on an even grid). The band between levels grows with this
 * distance: a point halfway between two neighbours is not as far from
 * what was measured as a whole level left out (measured against the gap
 * around the point instead, the band calibrated on levels left out, twice
 * as far, was as wide at every midpoint: interior coverage 94-100 %). */
double pp_band_between(const pp_band_range *r, const double *xn);

/* The same against the levels of the samples of y with a value that out
 * (NULL: none) does not leave out. */
double pp_band_between_without(const pp_surface *s, const double *y, const unsigned char *out,
                               const double *xn);

/* The choice for one metric, its errors and its band. */
typedef struct pp_choice {
    pp_est_spec spec;     /* what predictions use, chosen on every sample */
    pp_cv loo;            /* plain leave-one-out of spec: when spec was chosen on
                             the same samples (tuned or auto) it is optimistic */
    pp_cv honest;         /* "at measured levels": nested leave-one-out, the choice
                             re-made without each held-out sample (or fold); the
                             same as plain leave-one-out when nothing was chosen */
    int nested;           /* 1 when honest is nested */
    size_t folds;         /* folds of honest (n: leave-one-out) */
    pp_cv between;        /* "between measured levels": nested leave-one-level-out,
                             the choice re-made without each level (n == 0: no
                             parameter has PP_LEVEL_OUT_MIN levels) */
    size_t between_folds;
    /* The 90 % band, split-conformal on the nested residuals. For a metric
     * whose values are all > 0 (positive) the residuals are |log y - log
     * pred| and the band a factor exp(+-half) (never below zero); else
     * |y - pred| and value +- half. half = (band_q + (band_q_between -
     * band_q) * b) * pp_band_scale(x), b = pp_band_between(x) (at most 1
     * when band_q_between < band_q): band_q from the leave-one-out
     * residuals, band_q_between from the level-out ones (each over its
     * scale), each end calibrated on its own residuals and the band linear
     * in between. Leave-one-out takes in the samples at the range's edges,
     * predicted from one side; the level folds are inner levels only, so
     * between levels the band may be the narrower (it used to be held at
     * band_q at least there: needs below it counted as 0, and the interior
     * bands over-covered). Each quantile is the ceil(0.9 (m + 1))-th
     * smallest of its m residuals, the largest when m < 9. */
    double band_q;
    size_t band_n;        /* m */
    double band_q_between; /* NaN: no level folds (band_q everywhere inside) */
    size_t band_n_between;
    /* Outside the measured range the half-width is at least band_q_edge x
     * pp_band_scale(x): calibrated on the edges held out (the least and the
     * largest level of each dimension with PP_LEVEL_OUT_MIN levels, in turn,
     * the chosen spec refitted without it: pp_band_edge_calibrate), each
     * residual over the scale its distance outside the rest gives it. The
     * residual is the distance to the nearer of the two centres a
     * prediction there has (the refit's extrapolation and the trend of
     * the last levels left: pp_band_beyond), 0 between them. NaN: no edge
     * to hold out (the band as above). The spec is the one chosen on every
     * sample, not chosen again without each edge. */
    double band_q_edge;
    size_t band_n_edge;
    /* the same per dimension, from its own edges alone (NaN: none held
     * out); outside the range along dimensions j, the largest of theirs
     * replaces band_q_edge (xz: the compression level's edge, unlike the
     * rest, made every extrapolation along the input size a factor of
     * 10^4 wide) */
    double band_q_edge_dim[PP_SURFACE_MAX_DIMS];
    int positive;         /* every value > 0: the band in log space */
    int nonnegative;      /* every value >= 0: the band's lower end clipped at 0 */
    pp_band_range range;
    /* the nested predictions, for derived metrics (model.h): n_at of the
     * leave-one-out (one per sample, NaN without), n_between of the
     * level-out (one per (fold, sample) pair); malloc'd, pp_choice_free */
    double *held_at, *held_between;
    size_t n_held_between;
    size_t *held_between_idx;  /* the sample of each pair */
    double *held_between_b;    /* its pp_band_between against the levels left */
    double *band_r;            /* the band_n residuals behind band_q (sorted) */
} pp_choice;

void pp_choice_free(pp_choice *c);

/* The band [lo, hi] in y's units around value (y's units) at xn. */
void pp_band(const pp_choice *c, double value, const double *xn, double *lo, double *hi);

/* c->band_q_edge and band_n_edge of the chosen c->spec on the samples y
 * of s (band.c). 0, or -ENOMEM; NaN when there is no edge to hold
 * out or the spec cannot be fitted without one. */
int pp_band_edge_calibrate(const pp_surface *s, const double *y, pp_choice *c);

/* The edge folds of y (the least and the largest present level of each
 * dimension with PP_LEVEL_OUT_MIN levels or more, in pairs) into folds
 * (room for 2 d): how many (band.c). */
size_t pp_band_edge_folds(const pp_surface *s, const double *y, pp_fold *folds);

/* ---- beyond the measured range (band.c) ---- */

/* A prediction in y's units at normalized point xn (ctx: the caller's). */
typedef double (*pp_band_value_fn)(const void *ctx, const double *xn);

/* The value and band at xn (pp_band inside the range). Outside it the
 * band holds both the estimator's own extrapolation (*value) and the
 * trend of the last levels (the local linear trend of fn): the two disagree where
 * the data does not tell how the surface goes on (a power transform
 * continued past a singularity, a kernel average continued flat), and the
 * band then spans them. trend_value 1: *value becomes the trend (the
 * weighted average, whose own continuation is flat); so does a positive
 * metric's extrapolation at or below zero (never inside its band) when
 * the trend is above. */
void pp_band_beyond(const pp_choice *c, int trend_value, pp_band_value_fn fn, const void *ctx,
                    const double *xn, double *value, double *lo, double *hi);

/* Band internals shared by the choice (band.c): the range of the samples
 * of y with a value that out (NULL: none) does not leave out; the
 * conformal quantile of the m residuals r (sorted in place; NaN when m is
 * 0); the residual of measurement v against prediction p in c's band
 * space (1 when there is one). */
void pp_band_range_without(const pp_surface *s, const double *y, const unsigned char *out,
                           pp_band_range *r);
double pp_band_quantile(double *r, size_t m);
/* The least number of residuals whose conformal quantile is not simply
 * their largest: ceil(PP_BAND_LEVEL (m + 1)) <= m, 9 at 90 %. */
size_t pp_band_conformal_min(void);
int pp_band_residual(const pp_choice *c, double v, double p, double *r);

#endif
