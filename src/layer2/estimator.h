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

#include "surface.h"

#include <stddef.h>

typedef enum pp_method {
    PP_METHOD_NW = 0,
    PP_METHOD_LOCLIN,
    PP_METHOD_RBF,
    PP_METHOD_AUTO, /* chosen per metric by leave-one-out */
} pp_method;

#define PP_METHODS 3 /* nw, loclin, rbf */

/* "nw", "loclin", "rbf", "auto". */
const char *pp_method_name(pp_method m);
/* The method of a name: 0, or -EINVAL for another name. */
int pp_method_parse(const char *name, pp_method *m);

/* What is fitted: an estimator, its value space and its parameter h
 * (nw, loclin: bandwidth sigma in normalized units, > 0; rbf: smoothing
 * lambda >= 0). */
typedef struct pp_est_spec {
    pp_method method;
    int log_values;
    double h;
} pp_est_spec;

/* A fitted estimator. It borrows the surface, which must outlive it. */
typedef struct pp_est {
    pp_est_spec spec;
    const pp_surface *s;
    size_t n_used;   /* samples with a value */
    double *v;       /* s->n values in the fit's space (NaN: left out) */
    double *coef;    /* rbf: s->n weights a_i, then c_0 and one c per dimension */
} pp_est;

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

/* Errors of predictions pred (y's units) against y, over the samples with
 * both. mape in %, over samples with y != 0; the inner figures over the
 * samples inside the measured range (pp_surface_interior). crit is what
 * tuning and choice minimize: the MAPE when every y is non-zero, else the
 * RMSE. */
typedef struct pp_cv {
    double mape, mape_inner, rmse, crit;
    size_t n, n_inner;
} pp_cv;

void pp_cv_errors(const pp_surface *s, const double *y, const double *pred, pp_cv *cv);

/* The h of method m in value space log_values with the least leave-one-out
 * crit (nw, loclin: a log scan of sigma, refined by golden section; rbf: a
 * scan of lambda). 0, -EINVAL (nothing applicable) or -ENOMEM. */
int pp_est_tune(const pp_surface *s, const double *y, pp_method m, int log_values,
                pp_est_spec *best, pp_cv *cv);

/* Half the finest spacing of the samples' coordinates (0.1 when they have
 * one value): the bandwidth below which tuning does not go, and with which
 * loclin interpolates (at a sample its value, between two the line
 * through them). */
double pp_est_narrowest_sigma(const pp_surface *s);

#define PP_BAND_LEVEL 0.9

/* Where the samples with a value lie: per dimension the lowest and highest
 * normalized coordinate and the finest spacing between distinct ones. */
typedef struct pp_band_range {
    size_t d;
    double lo[PP_SURFACE_MAX_DIMS], hi[PP_SURFACE_MAX_DIMS], step[PP_SURFACE_MAX_DIMS];
} pp_band_range;

void pp_band_range_of(const pp_surface *s, const double *y, pp_band_range *r);

/* The local scale of the band at normalized point xn: 1 inside the range,
 * 1 + the distance outside it in units of each dimension's finest spacing
 * (an extrapolation is less certain the farther it goes). */
double pp_band_scale(const pp_band_range *r, const double *xn);

/* The choice for one metric, its errors and its band. */
typedef struct pp_choice {
    pp_est_spec spec;     /* what predictions use, chosen on every sample */
    pp_cv loo;            /* plain leave-one-out of spec: when spec was chosen
                             on the same samples (tuned or auto) it is
                             optimistic */
    pp_cv honest;         /* nested: the choice re-made without each held-out
                             sample (or fold); the same as loo when nothing
                             was chosen */
    int nested;           /* 1 when honest is nested */
    size_t folds;         /* folds of honest (n: leave-one-out) */
    /* The 90 % band, split-conformal on the honest residuals: in the value
     * space of spec, value +- band_q * pp_band_scale(x) (a factor
     * exp(+-...) on log values). band_q is the ceil(0.9 (m + 1))-th
     * smallest of the m residuals |g(y_i) - g(pred_i)| / scale(x_i), each
     * scale taken against the samples its prediction came from; the
     * largest when m < 9. */
    double band_q;
    size_t band_n;        /* m */
    pp_band_range range;
} pp_choice;

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
} pp_choose_options;

void pp_choose_options_init(pp_choose_options *o);

/* Choose the estimator of y: with auto every method in every value space
 * allowed (log: every y > 0) is tuned, and the least crit kept. The honest
 * error re-makes the choice inside each fold: leave-one-out up to
 * PP_NESTED_LOO_MAX samples with a value, 10 folds above. Returns 0,
 * -EINVAL (fewer than 2 samples, or nothing applicable) or -ENOMEM. */
#define PP_NESTED_LOO_MAX 60
/* auto leaves rbf out above this many samples (its system is n x n) */
#define PP_RBF_AUTO_MAX 2000
int pp_choose(const pp_surface *s, const double *y, const pp_choose_options *o, pp_choice *c);

/* The band [lo, hi] in y's units around value (y's units) at xn. */
void pp_band(const pp_choice *c, double value, const double *xn, double *lo, double *hi);

#endif
