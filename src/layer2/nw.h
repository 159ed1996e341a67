/* nw.h - the paper's estimator: the Gaussian-kernel weighted average of
 * the samples y of a surface (surface.h) at bandwidth h,
 *
 *   s(x) = sum_i y_i f(|x - x_i|) / sum_i f(|x - x_i|),  f(g) = exp(-g^2 / h^2)
 *
 * its leave-one-out (nw.c). Samples whose y is
 * NaN are left out. In the estimators' table as pp_est_nw_ops (est.h).
 */
#ifndef PP_NW_H
#define PP_NW_H

#include "est.h"
#include "surface.h"

#include <stddef.h>

/* The prediction at normalized point xn (direct sum, stabilized). */
double pp_nw_predict(const pp_surface *s, const double *y, double h, const double *xn);

/* Leave-one-out predictions of every sample (NaN for samples whose y is
 * NaN, or when fewer than two samples have a value). Lattice sweeps use
 * separable sums; otherwise the direct O(n^2) sum. 0 or -ENOMEM. */
int pp_nw_loo(const pp_surface *s, const double *y, double h, double *pred);

/* The same, always by the direct sum (the reference for tests). */
int pp_nw_loo_direct(const pp_surface *s, const double *y, double h, double *pred);

#endif
