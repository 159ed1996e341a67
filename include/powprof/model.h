/* powprof/model.h - the layer-2 model of a results folder (what `powprof
 * profile` or `powprof import` wrote): every metric of its summary.csv
 * (mean power and energy per rail and in total, battery drained, achieved
 * frame rates, ...) predicted at any configuration, with a 90 % band and
 * the metric's honest (cross-validated) typical error.
 *
 * The model is the one `powprof model` builds: it is read from the folder's
 * model.json when that was written for this very summary.csv, otherwise
 * built now (estimators chosen by nested cross-validation: seconds for a
 * few hundred configurations). Units are those in the metric's name (_w
 * watts, _j joules, _s seconds, _frac fractions).
 */
#ifndef POWPROF_MODEL_H
#define POWPROF_MODEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_model pp_model;

/* The model of results_dir. 0 and *out (close it with pp_model_close), or
 * -errno (logged): -EINVAL for a folder without a readable summary.csv or
 * without parameters, -ENOMEM. */
int pp_model_load(const char *results_dir, pp_model **out);
void pp_model_close(pp_model *m);

/* The parameters (e.g. "darknet.fps") and the metrics (e.g.
 * "total_mean_w"); a name is NULL past the count. */
size_t pp_model_param_count(const pp_model *m);
const char *pp_model_param_name(const pp_model *m, size_t k);
size_t pp_model_metric_count(const pp_model *m);
const char *pp_model_metric_name(const pp_model *m, size_t k);

typedef struct pp_model_estimate {
    double value;              /* the prediction, in the metric's unit */
    double lo, hi;             /* its 90 % band (NAN when the metric has none) */
    double typical_error_pct;  /* the metric's honest error, % (NAN: unknown) */
    int outside_measured;      /* 1 when a parameter lies outside the measured range */
} pp_model_estimate;

/* metric at the configuration where parameter names[i] takes values[i]
 * (i < n; every parameter given once, except one the results measured at
 * a single value, a constant, implied when not given; a number, or a
 * categorical parameter's label, as summary.csv writes it). 0, -ENOENT (no such metric
 * or parameter, or labels never measured together) or -EINVAL (a value
 * that is not a number or not a label, a parameter missing), logged. */
int pp_model_estimate_at(const pp_model *m, const char *metric, size_t n,
                         const char *const *names, const char *const *values,
                         pp_model_estimate *out);

#ifdef __cplusplus
}
#endif

#endif
