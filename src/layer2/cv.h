/* cv.h - the errors a layer-2 estimator is judged by (cv.c), over the
 * pp_cv of est.h. */
#ifndef PP_CV_H
#define PP_CV_H

#include "est.h"
#include "surface.h"

#include <stddef.h>

/* Errors of predictions pred (y's units) against y, over the samples with
 * both. mape in %, over samples with y != 0; the inner figures over the
 * samples inside the measured range (pp_surface_interior). crit is what
 * tuning and choice minimize: for a positive metric (every y > 0) the mean
 * |log(pred / y)| in % (a prediction ten times too small weighs as much as
 * one ten times too large; at or below zero it is no prediction); else the
 * MAPE when every y is non-zero, else the RMSE. */
void pp_cv_errors(const pp_surface *s, const double *y, const double *pred, pp_cv *cv);

/* The same over n pairs: sample idx[k] (NULL: k) predicted as pred[k]. */
void pp_cv_pairs(const pp_surface *s, const double *y, const size_t *idx, const double *pred,
                 size_t n, pp_cv *cv);

#endif
