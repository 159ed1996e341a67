/* model_file.h - a model opened from its results folder, saved as
 * model.json, dumped, and its grids written for the plots (model_file.c).
 * model.h includes it: every user of a model opens one. */
#ifndef PP_MODEL_FILE_H
#define PP_MODEL_FILE_H

#include "model.h"

#include <stdio.h>

/* Open the model of dir: read summary.csv, then reuse the choices of
 * dir/model.json when written for this very summary.csv (use_saved), or
 * choose every estimator anew with o (NULL: defaults). 0, -EINVAL
 * (logged: no summary, no parameter, bad model.json) or -ENOMEM. */
int pp_model_read(const char *dir, const pp_model_options *o, int use_saved, pp_model *m);

void pp_model_free(pp_model *m);

/* Write dir/model.json (atomically), or the same document on a stream
 * (`powprof model --json`). 0 or -errno. */
int pp_model_save(const pp_model *m, const char *dir);

int pp_model_dump(const pp_model *m, FILE *fp);

/* Grid files of the plotted surfaces under dir/model/: per metric a line
 * over the one varying parameter (<metric>.dat: x, value, lo, hi), or a
 * surface over each pair (<metric>__<a>__<b>.dat, the others at their
 * middle); group g >= 1 adds ".g<g>" (labels never reach a file name).
 * Names pp_path_fmt refuses get none (logged). 0 or -errno. */
int pp_model_write_grids(const pp_model *m, const char *dir);

#endif
