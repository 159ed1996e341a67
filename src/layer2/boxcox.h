/* boxcox.h - the parametric family with the workload's shape (boxcox.c,
 * in est.h's table). Each varying parameter goes through a power
 * transform of u = value / largest (values <= 0: 1 + (value - lowest) /
 * (largest - lowest)), t = (u^p - 1) / p (log u for p = 0), p from
 * PP_BOXCOX_GRID (-2 .. 3: p = 3 makes size^3 a line, p = -1 a rate); the
 * surface is linear in the t's (and their pairwise products when
 * spec->inter), in y weighed by 1 / |y| or in log y, the rows by their
 * run weights, by LAPACK's dgelsd. h > 0 adds a Gaussian-process mean
 * (kernel exp(-r^2 / h^2), noise PP_BOXCOX_GP_NOISE / run weight) on the
 * relative residuals: what the power law misses near measured
 * configurations, fading back to it away from them. */
#ifndef PP_BOXCOX_H
#define PP_BOXCOX_H

#include "est.h"

#define PP_BOXCOX_GRID_N 11
#define PP_BOXCOX_GRID_LO (-2.0)
#define PP_BOXCOX_GRID_STEP 0.5
/* residual smoothers tried, and the most samples they are tried on (an
 * n x n system per nested fold: with 400, 200 samples took 2.6 min) */
#define PP_BOXCOX_GP_N 3
#define PP_BOXCOX_GP_MAX 150

/* spec's exponents and interactions for y by the error over folds
 * (coordinate descent from every exponent 1, two sweeps). 0, -EINVAL or
 * -ENOMEM. */
int pp_boxcox_tune(const pp_surface *s, const double *y, int log_values, const pp_fold *folds,
                   size_t n_folds, pp_est_spec *spec, pp_cv *cv);

#endif
