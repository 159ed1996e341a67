/* estimator.h - layer-2 estimators of one metric over the samples of a
 * surface (surface.h), through the table of est.h:
 *
 *   nw      the paper's Gaussian-kernel weighted average (nw.h). No run
 *           weights: weighing down the neighbours on one side of a point
 *           pulls its average towards the other side (on the TX2 traces,
 *           33 % error became 88 %).
 *   loclin  local-linear kernel regression (loclin.c): the weighted
 *           least-squares plane through the samples, weights
 *           w_i exp(-|x - x_i|^2 / h^2) (w_i the run weight); a linear
 *           surface reproduced exactly, no boundary bias.
 *   boxcox  a response surface with the workload's shape (boxcox.h).
 *
 * Each works on y or on log(y) (log needs every y > 0); samples whose y
 * is NaN are left out everywhere, which is how a fold leaves them out.
 * LAPACK is loaded when first needed (lapack.h); without it auto tries nw
 * only. The rest of the choice: folds.h, band.h, choose.h.
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

/* "nw", "loclin", "boxcox", "auto"; a name's method: 0 or -EINVAL. */
const char *pp_method_name(pp_method m);
int pp_method_parse(const char *name, pp_method *m);

/* Fit spec to y (s->n values): 0, -EINVAL (logged at debug level: too few
 * samples, a singular system, y <= 0 on log) or -ENOMEM; e is empty after
 * an error. */
int pp_est_fit(pp_est *e, const pp_surface *s, const double *y, const pp_est_spec *spec);
void pp_est_free(pp_est *e);

/* The prediction at normalized point xn, in y's units. */
double pp_est_predict(const pp_est *e, const double *xn);

/* Leave-one-out predictions of every sample, in y's units (NaN where y is
 * NaN or nothing is left to predict from). 0, -EINVAL or -ENOMEM. */
int pp_est_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred);

/* What pp_est_cv predicts, by the estimator's own folds operation (est.h);
 * -ENOTSUP where it has none (each fold is then refitted). */
int pp_est_folds_fast(const pp_surface *s, const double *y, const pp_est_spec *spec,
                      const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n);

#endif
