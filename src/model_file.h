/* model_file.h - inside the model module (model.c, model_file.c,
 * model_grid.c): model.json and what its parts share. Not for other
 * modules: use model.h. */
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

/* Metric k's values over the rows of group g (malloc'd; NULL: no memory). */
double *pp_model_column(const pp_model *m, const pp_model_group *g, size_t k);

/* Fit f of metric k's column y: with the choice in f->choice (chosen) or
 * one made now with m->opts. 0 or -ENOMEM; a metric that cannot be fitted
 * gets n_values 0. */
int pp_model_fit_column(const pp_model *m, pp_model_group *g, pp_model_fit *f, size_t k,
                        const double *y, int chosen);

/* Free group g's fits (fits NULL after). */
void pp_model_drop_fits(pp_model_group *g, size_t n_metrics);

#endif
