/* model_internal.h - inside the model module: what model.c gives the
 * model's other files (model_file.c, model_held.c, model_pool.c,
 * variability.c). Not for other modules: use model.h. The files call
 * downwards only: model_file.c -> variability.c -> model.c. */
#ifndef PP_MODEL_INTERNAL_H
#define PP_MODEL_INTERNAL_H

#include "model.h"

/* Metric k's values over the configurations of group g: each its mean
 * (pp_model_config_mean; malloc'd; NULL: no memory). */
double *pp_model_column(const pp_model *m, const pp_model_group *g, size_t k);

/* Metric k of configuration r of group g: the mean over each node's rows,
 * then over the nodes, leaving out node skip (SIZE_MAX: none). NaN when
 * no row has a value. */
double pp_model_config_mean(const pp_model *m, const pp_model_group *g, size_t r, size_t k,
                            size_t skip);

/* The options pp_choose gets for metric k of group g: the model's, an
 * achieved rate interpolated, and the rows of each configuration as its
 * replicates (rep_value: the group's members' values of k, malloc'd into
 * *rep, NULL when unreplicated; free it). 0 or -ENOMEM. */
int pp_model_choose_options(const pp_model *m, const pp_model_group *g, size_t k,
                            pp_choose_options *co, double **rep);

/* Fit f of metric k's column y: with the choice in f->choice (chosen) or
 * one made now with m->opts. 0 or -ENOMEM; a metric that cannot be fitted
 * gets n_values 0. */
int pp_model_fit_column(const pp_model *m, pp_model_group *g, pp_model_fit *f, size_t k,
                        const double *y, int chosen);

/* Free group g's fits (fits NULL after). */
void pp_model_drop_fits(pp_model_group *g, size_t n_metrics);

/* Free group g (its fits, rows, surface). */
void pp_model_free_group(pp_model_group *g, size_t n_metrics);

/* own^(1 - weight) x derived^weight (weight <= 0: own, >= 1: derived;
 * linearly when either is not positive): a blended fit's value
 * (model.h; model.c). */
double pp_model_blend(double own, double derived, double weight);

/* m's groups from m->sum (model.c): 0 or -ENOMEM. */
int pp_model_build_groups(pp_model *m);

/* Choose and fit every metric of every group, then derive the consistent
 * metrics (pp_model_derive). 0 or -ENOMEM. */
int pp_model_build_fits(pp_model *m);
/* The nested predictions the fits kept for pp_model_derive, released
 * (the choices themselves stay). */
void pp_model_fits_release(pp_model *m);

#endif
