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
 *
 * This header is estimator.c's (the methods by name, a fit, its
 * predictions, leave-one-out); it includes the headers of the rest of the
 * choice: folds.h (folds, their errors, tuning), band.h (the bands, the
 * choice's record) and choose.h (the choice).
 */
#ifndef PP_ESTIMATOR_H
#define PP_ESTIMATOR_H

#include "band.h"
#include "choose.h"
#include "cv.h"
#include "est.h"
#include "folds.h"
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

/* What pp_est_cv (folds.h) predicts, by the estimator's own rule where it has one
 * (rbf: Rippa's rule for a block): (idx, pred) pairs in fold order, *n
 * their count; -ENOTSUP where it has none (then each fold is refitted). */
int pp_est_folds_fast(const pp_surface *s, const double *y, const pp_est_spec *spec,
                      const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n);

#endif
