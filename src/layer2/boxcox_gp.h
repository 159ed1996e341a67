/* boxcox_gp.h - cross-validation of the parametric family with a residual
 * smoother (boxcox.h), without refitting it from nothing in every fold:
 * the terms of every sample and the kernel between every two are computed
 * once, each fold's least squares and smoother solved on the others. The
 * numbers are those of pp_est_cv and leave-one-out by refitting (the same
 * operations in the same order); only the repeated work is gone.
 */
#ifndef PP_BOXCOX_GP_H
#define PP_BOXCOX_GP_H

#include "est.h"

/* The samples with a value of every fold predicted without the fold
 * (spec: boxcox, h > 0), as (idx, pred) pairs in fold order, *n their
 * count: est.h's folds operation. 0, -EINVAL (a fold leaves too few
 * samples, a system cannot be solved) or -ENOMEM. */
int pp_boxcox_gp_folds(const pp_surface *s, const double *y, const pp_est_spec *spec,
                       const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n);

/* Leave-one-out of spec (boxcox, h > 0): pred[i] for every sample with a
 * value (NaN for the others and where a fit fails). 0 or -ENOMEM. */
int pp_boxcox_gp_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred);

#endif
