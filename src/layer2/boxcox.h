/* boxcox.h - one estimator of layer 2 (boxcox.c, in the table of est.h;
 * its tuning for folds.c): the parametric family with the workload's shape.
 *
 * Each numeric parameter that varies goes through a power transform of
 * its raw value, u = value / largest (a range with values <= 0: u = 1 +
 * (value - lowest) / (largest - lowest)),
 *
 *     t = (u^p - 1) / p    (log u for p = 0),
 *
 * with its exponent p from PP_BOXCOX_GRID (-2, -1.5, ..., 3): p = 3 makes
 * matrix work (size^3) a straight line, p = 1 keeps a parameter as it is,
 * p = -1 a rate (1 / period). The surface is linear in the t's, with their
 * pairwise products (interactions) when spec->inter, in y (least squares
 * on relative error: rows weighed by 1 / |y|) or in log y (least squares
 * on log values: the relative error for small errors). Run weights weigh
 * the rows. The fit is LAPACK's dgelsd (rank-deficient systems allowed).
 *
 * With spec->h > 0, a Gaussian-process mean (kernel exp(-r^2 / h^2) over
 * the normalized parameters, noise ratio PP_BOXCOX_GP_NOISE of boxcox_rows.h / run weight)
 * on the residuals (log residuals in log values, relative ones in linear
 * values) follows what the power law misses near measured configurations
 * and fades back to it away from them. Solved by LAPACK (dposv).
 */
#ifndef PP_BOXCOX_H
#define PP_BOXCOX_H

#include "est.h"

#define PP_BOXCOX_GRID_N 11
#define PP_BOXCOX_GRID_LO (-2.0)
#define PP_BOXCOX_GRID_STEP 0.5
/* residual smoothers tried: length scales (normalized units), and the most
 * samples for which they are (the system is n x n, built and solved once
 * per fold of every nested fold: with 400, a model of 200 scattered
 * samples took 2.6 min; with 150, about 1 min, the smoother left out) */
#define PP_BOXCOX_GP_N 3
#define PP_BOXCOX_GP_MAX 150

/* Choose spec's exponents, interactions and residual smoother for y in
 * value space log_values by the cross-validated error over folds
 * (coordinate descent over the grid from every exponent 1, two sweeps; a
 * change is kept only when it lowers the error). 0, -EINVAL or -ENOMEM. */
int pp_boxcox_tune(const pp_surface *s, const double *y, int log_values, const pp_fold *folds,
                   size_t n_folds, pp_est_spec *spec, pp_cv *cv);

#endif
