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
 * normalized coordinate and the finest spacing; the surface (NULL: the
 * band the same everywhere inside). */
typedef struct pp_band_range {
    size_t d;
    double lo[PP_SURFACE_MAX_DIMS], hi[PP_SURFACE_MAX_DIMS], step[PP_SURFACE_MAX_DIMS];
    /* the spacing of the two lowest and of the two highest (INFINITY: one) */
    double step_lo[PP_SURFACE_MAX_DIMS], step_hi[PP_SURFACE_MAX_DIMS];
    const pp_surface *s;
} pp_band_range;

void pp_band_range_of(const pp_surface *s, const double *y, pp_band_range *r);

/* The band's scale at xn: 1 inside the range, else 1 + the distance
 * outside in units of the spacing of the last two levels at that end. */
double pp_band_scale(const pp_band_range *r, const double *xn);

/* How far xn lies from the measured levels inside the range: the root of
 * the sum over dimensions of the squared distance to the nearest level in
 * units of the finest spacing (0 at a level, 0.5 halfway, 1 for a level
 * left out of an even grid). The band between levels grows with it. */
double pp_band_between(const pp_band_range *r, const double *xn);

/* The same against the levels of y's samples that out (NULL: none) keeps. */
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
    /* The 90 % band, split-conformal on the nested residuals: |log y -
     * log pred| and a factor exp(+-half) for a positive metric, else
     * |y - pred| and +- half. half = (band_q + (band_q_between - band_q)
     * b) pp_band_scale(x), b = pp_band_between(x) (at most 1 when
     * band_q_between < band_q): band_q from the leave-one-out residuals,
     * band_q_between from the level-out ones, linear in between. Each the
     * ceil(0.9 (m + 1))-th smallest of its m residuals (the largest when
     * m < 9). */
    double band_q;
    size_t band_n;        /* m */
    double band_q_between; /* NaN: no level folds (band_q everywhere inside) */
    size_t band_n_between;
    int positive;         /* every value > 0: the band in log space */
    int nonnegative;      /* every value >= 0: the band's lower end clipped at 0 */
    pp_band_range range;
    /* the nested predictions (model.h's derivations): one per sample
     * (NaN without), one per level-out (fold, sample) pair; malloc'd */
    double *held_at, *held_between;
    size_t n_held_between;
    size_t *held_between_idx;  /* the sample of each pair */
    double *held_between_b;    /* its pp_band_between against the levels left */
    double *band_r;            /* the band_n residuals behind band_q (sorted) */
} pp_choice;

void pp_choice_free(pp_choice *c);

/* The band [lo, hi] in y's units around value (y's units) at xn. */
void pp_band(const pp_choice *c, double value, const double *xn, double *lo, double *hi);

/* The edge folds of y (the least and largest level of each dimension with
 * PP_LEVEL_OUT_MIN levels) into folds (room for 2 d): how many. */
size_t pp_band_edge_folds(const pp_surface *s, const double *y, pp_fold *folds);

/* ---- beyond the measured range (band.c) ---- */

/* A prediction in y's units at normalized point xn (ctx: the caller's). */
typedef double (*pp_band_value_fn)(const void *ctx, const double *xn);

/* The value and band at xn (pp_band inside the range). Outside, the band
 * holds both the estimator's extrapolation (*value) and the local linear
 * trend of fn's last levels. trend_value 1: *value becomes the trend (the
 * weighted average continues flat); so does a positive metric's
 * extrapolation at or below zero when the trend is above. */
void pp_band_beyond(const pp_choice *c, int trend_value, pp_band_value_fn fn, const void *ctx,
                    const double *xn, double *value, double *lo, double *hi);

/* The range of y's samples that out (NULL: none) keeps; the conformal
 * quantile of m residuals r (sorted in place; NaN when m is 0); the
 * residual of v against prediction p in c's band space (1 when there is
 * one). */
void pp_band_range_without(const pp_surface *s, const double *y, const unsigned char *out,
                           pp_band_range *r);
double pp_band_quantile(double *r, size_t m);
/* The least m whose conformal quantile is not their largest (9 at 90 %). */
size_t pp_band_conformal_min(void);
int pp_band_residual(const pp_choice *c, double v, double p, double *r);

#endif
