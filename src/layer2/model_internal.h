/* model_internal.h - what model.c gives the model's other files (not for
 * other modules: model.h). Calls go downwards only: model_file.c ->
 * variability.c -> model.c. */
#ifndef PP_MODEL_INTERNAL_H
#define PP_MODEL_INTERNAL_H

#include "model.h"

/* Metric k's mean at each configuration of group g (malloc'd; NULL). */
double *pp_model_column(const pp_model *m, const pp_model_group *g, size_t k);

/* Metric k of configuration r of group g: the mean over each node's rows,
 * then over the nodes but skip (SIZE_MAX: none); NaN without a value. */
double pp_model_config_mean(const pp_model *m, const pp_model_group *g, size_t r, size_t k,
                            size_t skip);

/* pp_choose's options for metric k of group g: the model's (an achieved
 * rate interpolated), each configuration's rows its replicates (*rep
 * malloc'd, NULL unreplicated; free it). 0 or -ENOMEM. */
int pp_model_choose_options(const pp_model *m, const pp_model_group *g, size_t k,
                            pp_choose_options *co, double **rep);

/* Fit f of metric k's column y with f->choice (chosen) or one made now.
 * 0 or -ENOMEM (no fit possible: n_values 0). */
int pp_model_fit_column(const pp_model *m, pp_model_group *g, pp_model_fit *f, size_t k,
                        const double *y, int chosen);

/* Free group g's fits (NULL after); group g whole. */
void pp_model_drop_fits(pp_model_group *g, size_t n_metrics);
void pp_model_free_group(pp_model_group *g, size_t n_metrics);

/* own^(1 - weight) x derived^weight (linear when either is not > 0). */
double pp_model_blend(double own, double derived, double weight);

/* m's groups from m->sum (model.c): 0 or -ENOMEM. */
int pp_model_build_groups(pp_model *m);

/* Choose and fit every metric of every group. 0 or -ENOMEM. */
int pp_model_build_fits(pp_model *m);
/* Release the nested predictions the fits kept (the choices stay). */
void pp_model_fits_release(pp_model *m);

#endif
