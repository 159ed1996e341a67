/* model_file.h - inside the model module: model.json (model_file.c),
 * which model_open.c reads. Not for other modules: use model.h. */
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

#endif
