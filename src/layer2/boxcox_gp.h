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

/* pp_boxcox_gp_folds at each of n_h length scales h (spec->h aside): scale
 * j's pairs at idx (the same for every scale) and pred + j * cap, n[j] of
 * them, rc[j] its 0 or -EINVAL. Each fold's least squares, which the
 * scale does not change, is made once. 0 or -ENOMEM. */
int pp_boxcox_gp_folds_scales(const pp_surface *s, const double *y, const pp_est_spec *spec,
                              const double *h, size_t n_h, const pp_fold *folds, size_t n_folds,
                              size_t *idx, double *pred, size_t cap, size_t *n, int *rc);

/* Leave-one-out of spec (boxcox, h > 0; NaN where no fit). 0 or -ENOMEM. */
int pp_boxcox_gp_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred);

#endif
