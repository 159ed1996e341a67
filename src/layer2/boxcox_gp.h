/* boxcox_gp.h - boxcox with a residual smoother cross-validated without
 * refitting from nothing per fold: the terms and kernel computed once,
 * each fold solved on the others; the numbers of refitting, in the same
 * order (without it `model` ran 13-44 % more instructions). */
#ifndef PP_BOXCOX_GP_H
#define PP_BOXCOX_GP_H

#include "est.h"

/* est.h's folds operation for spec (boxcox, h > 0): 0, -EINVAL (too few
 * samples left, no solution) or -ENOMEM. */
int pp_boxcox_gp_folds(const pp_surface *s, const double *y, const pp_est_spec *spec,
                       const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n);

/* Leave-one-out of spec (boxcox, h > 0; NaN where no fit). 0 or -ENOMEM. */
int pp_boxcox_gp_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred);

#endif
