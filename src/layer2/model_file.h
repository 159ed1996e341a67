/* model_file.h - inside the model module (model.c, model_file.c,
 * model_grid.c, variability.c): model.json and what its parts share. Not
 * for other modules: use model.h. */
#ifndef PP_MODEL_FILE_H
#define PP_MODEL_FILE_H

#include "model.h"

/* FNV-1a hash of dir/summary.csv (0 when unreadable). */
unsigned long long pp_model_file_hash(const char *dir);

/* Take the choices of dir/model.json when it was written for this
 * summary.csv (same hash, groups and metrics), fitting every metric with
 * them: 0 with m->from_file set; 1 when there is no usable model.json
 * (m->stale set when there was one for another summary.csv); -ENOMEM. */
int pp_model_file_load(pp_model *m, const char *dir);

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

#endif
