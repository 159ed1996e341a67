/* estimator.h - layer-2 estimators of one metric over the samples of a
 * surface (surface.h: parameters normalized to [0, 1], log10 first for
 * exponential ranges; run weights), their tuning and choice by
 * leave-one-out cross-validation, honest (nested) errors, and error bands.
 *
 *   nw      the paper's Gaussian-kernel weighted average (surface.h); h is
 *           its bandwidth sigma. It does not use run weights: weighing down
 *           the neighbours on one side of a point pulls its average towards
 *           the other side (on the TX2 traces, 33 % error became 88 %).
 *   loclin  local-linear kernel regression: at x, the weighted least-squares
 *           plane through the samples, weights w_i exp(-|x - x_i|^2 / h^2)
 *           (w_i the run weight), evaluated at x. A linear surface is
 *           reproduced exactly, and it has no boundary bias (the weighted
 *           average is pulled towards the inside at the edges). The small
 *           normal equations are solved by LAPACK (dposv).
 *   rbf     thin-plate spline: sum_i a_i phi(|x - x_i|) + c_0 + c^T x with
 *           phi(r) = r^2 log r, the a_i orthogonal to the linear term, and
 *           smoothing h / w_i on the diagonal (h = 0 interpolates). Solved
 *           by LAPACK (dsytrf/dsytrs; dsytri for leave-one-out, which is
 *           a_i / (M^-1)_ii without refitting, Rippa's rule, exact with
 *           the smoothing too).
 *   boxcox  a response surface with the workload's shape (boxcox.h): each
 *           numeric parameter through a power transform whose exponent is
 *           chosen per metric from PP_BOXCOX_GRID, linear and interaction
 *           terms, fitted by least squares on relative error (LAPACK
 *           dgelsd); h > 0 adds a Gaussian-process mean on its residuals
 *           with length scale h (0: none).
 * LAPACK is loaded when first needed (lapack.h); without it auto tries nw
 * only.
 *
 * Each works on the values y or on log(y) (the value space; log needs every
 * y > 0; a power law of log-scale parameters is linear there, reproduced
 * exactly by loclin and rbf). Samples whose y is NaN are left out
 * everywhere, which is also how a fold leaves samples out.
 */
#ifndef PP_ESTIMATOR_H
#define PP_ESTIMATOR_H

#include "cv.h"
#include "est.h"
#include "surface.h"

#include <stddef.h>
#include <stdint.h>

/* "nw", "loclin", "rbf", "boxcox", "auto". */
const char *pp_method_name(pp_method m);
/* The method of a name: 0, or -EINVAL for another name. */
int pp_method_parse(const char *name, pp_method *m);

/* Fit spec to y (s->n values, NaN left out). rbf needs more samples than
 * varying dimensions + 1, log values need y > 0. 0, -EINVAL (logged at
 * debug level: too few samples, a singular system, y <= 0 on log) or
 * -ENOMEM. e is empty after an error. */
int pp_est_fit(pp_est *e, const pp_surface *s, const double *y, const pp_est_spec *spec);
void pp_est_free(pp_est *e);

/* The prediction at normalized point xn: in the fit's value space (log(y)
 * or y), and in y's units. */
double pp_est_eval(const pp_est *e, const double *xn);
double pp_est_predict(const pp_est *e, const double *xn);

/* Leave-one-out predictions of every sample, in y's units (NaN where y is
 * NaN or nothing is left to predict from). 0, -EINVAL or -ENOMEM. */
int pp_est_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred);

/* The h of method m in value space log_values with the least crit: nw,
 * loclin: a log scan of sigma, refined by golden section, scored on the
 * n_folds folds (level folds: pp_level_folds) when given, else by
 * leave-one-out; rbf: a scan of lambda by leave-one-out; boxcox:
 * pp_est_tune_boxcox (folds not used). Leave-one-out alone let a kernel's
 * bandwidth fall far below the gap between levels: a sample's neighbours
 * at its own level always predict it, and a left-out level was then
 * copied from the nearest one (xz, 200,000 lines left out: the 100,000
 * values, 42-76 % off; issue 31). cv: the crit of the folds when given.
 * 0, -EINVAL (nothing applicable) or -ENOMEM. */
int pp_est_tune(const pp_surface *s, const double *y, pp_method m, int log_values,
                const pp_fold *folds, size_t n_folds, pp_est_spec *best, pp_cv *cv);

/* boxcox's choice alone: by the level folds of y, leave-one-out when there
 * are none. */
int pp_est_tune_boxcox(const pp_surface *s, const double *y, int log_values, pp_est_spec *best,
                       pp_cv *cv);
/* The same for a spec that will be fitted on n_fit samples (more than y
 * has when the choice is made on a part of them): the residual smoother
 * is tried only where a fit on n_fit can afford it. */
int pp_est_tune_boxcox_n(const pp_surface *s, const double *y, int log_values, size_t n_fit,
                         pp_est_spec *best, pp_cv *cv);

/* Half the finest spacing of the samples' coordinates (0.1 when they have
 * one value): the bandwidth below which tuning does not go, and with which
 * loclin interpolates (at a sample its value, between two the line
 * through them). */
double pp_est_narrowest_sigma(const pp_surface *s);

/* ---- folds (est.h: what cross-validation leaves out together) ---- */

/* The level-out folds of the samples of y with a value (y NaN: not
 * measured) into *folds (malloc'd, NULL when none); their number. -ENOMEM. */
long pp_level_folds(const pp_surface *s, const double *y, pp_fold **folds);

/* The same however few samples they hold in all (at least one): the folds
 * the between-levels error is measured on. A candidate is scored on
 * pp_level_folds only (with fewer than PP_LEVEL_OUT_MIN_PAIRS samples,
 * leave-one-out), but a surface of one parameter with 4 or 5 values (a
 * model per label) still has values strictly inside its range to leave
 * out, and its printed error is the one between them, not the one at
 * measured values, whose edges are extrapolations (issue 31). */
long pp_level_folds_any(const pp_surface *s, const double *y, pp_fold **folds);

/* The folds of the between-levels error: pp_level_folds_any's levels
 * (returned in *folds, their number returned) in *n_groups groups, level f
 * in group (*group)[f] (malloc'd). A parameter with at most
 * PP_FOLD_SINGLE_MAX interior levels measured leaves each out alone; one
 * with more leaves them out PP_FOLD_GROUPS at a time apart: its r-th
 * interior level (in order) goes to group r % PP_FOLD_GROUPS. Levels left
 * out together are never neighbours, so each still has its measured
 * neighbours on both sides (one grid step away, as when left out alone:
 * the same leave-a-level-out distance); the fit that predicts them has
 * fewer levels (a 10 x 10 grid: 6 of the 10 values of that parameter),
 * which can make the error larger, not flatter it (on bench_model_cost's
 * grids and bench_accuracy's syn-step it moved by 0.1-0.6 points, either
 * way). The choice is still scored on single levels (pp_level_folds). Why: each group
 * re-makes the whole choice, and a grid of 10 or 14 values per parameter
 * had 16-24 such folds, two thirds of `powprof model`'s time (issue 31,
 * item 6). -ENOMEM. */
#define PP_FOLD_SINGLE_MAX 6
#define PP_FOLD_GROUPS 2
long pp_level_fold_groups(const pp_surface *s, const double *y, pp_fold **folds, size_t **group,
                          size_t *n_groups);

/* 1 when sample i (with a value) lies in group g of the nf folds. */
int pp_fold_group_has(const pp_surface *s, const pp_fold *folds, const size_t *group, size_t nf,
                      size_t g, size_t i);

/* Cross-validated errors of spec over the folds: each fold's samples
 * predicted from a fit on the others. pred (NULL, or one per (fold,
 * sample) pair in the order of the folds, then of the samples) receives
 * the predictions. 0, -EINVAL (spec cannot be fitted) or -ENOMEM. */
/* What pp_est_cv predicts, by the estimator's own rule where it has one
 * (rbf: Rippa's rule for a block): (idx, pred) pairs in fold order, *n
 * their count; -ENOTSUP where it has none (then each fold is refitted). */
int pp_est_folds_fast(const pp_surface *s, const double *y, const pp_est_spec *spec,
                      const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n);
int pp_est_cv(const pp_surface *s, const double *y, const pp_est_spec *spec, const pp_fold *folds,
              size_t n_folds, pp_cv *cv, double *pred);

/* ---- bands ---- */

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

/* What pp_choose may try. */
typedef struct pp_choose_options {
    pp_method method;     /* a method, or auto */
    double h;             /* < 0: tuned; else fixed (not with auto) */
    int value_space;      /* -1 chosen by leave-one-out, 0 linear, 1 log */
    /* Replicates (NULL: each sample is one measurement): when sample i is
     * the mean of several measurements (repeats, nodes of a fleet), they
     * are rep_value[rep_start[i] .. rep_start[i + 1]) (NaN skipped). The
     * band's residuals are then those of every measurement against the
     * held-out prediction of its sample, so that the band covers a new
     * measurement, its scatter between repeats and boards included, not
     * only the mean; band_n counts measurements. The errors (honest, loo)
     * stay those of the means. */
    const size_t *rep_start;
    const double *rep_value;
    int choice_only;      /* 1: only the choice (spec, loo); honest = loo, no band */
    int keep_held;        /* 1: keep the nested predictions (held_at, held_between) */
} pp_choose_options;

void pp_choose_options_init(pp_choose_options *o);

/* Choose the estimator of y. Every candidate o allows (auto: every method
 * in every value space allowed, log needing every y > 0) is tuned (the
 * kernels' bandwidths on the level folds when there are any, else by
 * leave-one-out, boxcox's exponents by the
 * criterion below), and the one with the least criterion kept: the error
 * over the level folds (pp_level_folds) when there are any, else
 * leave-one-out. Nested errors re-make the choice inside each fold:
 * between (every level fold) and honest (leave-one-out up to
 * PP_NESTED_LOO_MAX samples with a value, 10 folds up to PP_CHOOSE_SUB, 5
 * above: each fold costs a whole choice, and a fifth of a design larger
 * than the choice's subsample still holds more than it). Between levels
 * a parameter with more than PP_FOLD_SINGLE_MAX interior levels has its
 * levels left out PP_FOLD_GROUPS at a time (pp_level_fold_groups). Returns
 * 0, -EINVAL (fewer than 2 samples, or nothing applicable) or -ENOMEM;
 * free with pp_choice_free. */
#define PP_NESTED_LOO_MAX 20
/* above this many samples with a value, the candidates are tuned and
 * compared on this many of them, and the winner fitted on all (in every
 * nested fold as well): the choice's cost stops growing with the design.
 * It was 100 until the kernels' bandwidth was tuned on level folds (each
 * bandwidth tried costs d x n^2 kernel terms, not n^2); 64 since (issue
 * 31, item 6): on synthetic 2- and 3-parameter grids and scattered designs
 * of 100-343 configurations, 20 % held out, the choice on 64 predicted
 * them no more than 0.2 points worse than the choice on 100
 * (bench/README.md). */
#define PP_CHOOSE_SUB 64
/* auto leaves loclin out above this many samples (nw and rbf it never
 * tries): each of their
 * leave-one-out and level-out checks costs n^2 kernel terms, once per
 * nested fold; auto is then boxcox (--method nw or loclin still fits them) */
#define PP_KERNEL_AUTO_MAX 300
int pp_choose(const pp_surface *s, const double *y, const pp_choose_options *o, pp_choice *c);

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

/* The local linear trend at xn of the last measured levels of fn: fn at
 * the nearest point of r's range, continued along each dimension where xn
 * lies outside by the slope between the range's end and the level next to
 * it (in log values for a positive metric along log-scale parameters, a
 * power law; else in values, unless that crosses zero). fn there inside. */
double pp_band_trend(const pp_band_range *r, int positive, pp_band_value_fn fn, const void *ctx,
                     const double *xn);

/* The value and band at xn (pp_band inside the range). Outside it the
 * band holds both the estimator's own extrapolation (*value) and the
 * trend of the last levels (pp_band_trend of fn): the two disagree where
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
