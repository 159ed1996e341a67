/* model_pool.h - the bands of a model sized by what they cover
 * (model_pool.c): pooled across groups, calibrated on whole levels left
 * out. */
#ifndef PP_MODEL_POOL_H
#define PP_MODEL_POOL_H

#include "model.h"

/* A group with fewer than 9 residuals behind its band (its conformal
 * quantile only their largest: 83 % covered on the local darknet set)
 * takes at least the quantile of every group's residuals of the metric
 * (model_pool.c). 0 or -ENOMEM. */
int pp_model_pool_bands(pp_model *m);

/* The bands between levels sized by what they cover (model_pool.c): each
 * band_q_between becomes kappa x the quantile of its needs on the level
 * folds (its spec refitted without each), kappa the model's conformal 90 %
 * quantile, over every fold a of the total's energy, power and duration
 * (every fit when none), of a's needs over the quantile without a. Fewer
 * than 9 ratios: the band as chosen (band_kappa NaN). 0 or -ENOMEM. */
int pp_model_calibrate_bands(pp_model *m);

#endif
