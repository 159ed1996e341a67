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
 *
 * Threads (powprof.h): one call at a time on a pp_model; calls on other
 * handles meanwhile.
 */
#ifndef POWPROF_MODEL_H
#define POWPROF_MODEL_H

#include "deprecated.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_model pp_model;

/* The model of results_dir. 0 and *out (close it with pp_model_close), or
 * -errno (logged): -EINVAL for a folder without a readable summary.csv or
 * without parameters, -ENOMEM. */
int pp_model_open(const char *results_dir, pp_model **out);
void pp_model_close(pp_model *m);
/* 0.1's name of pp_model_open. */
int pp_model_load(const char *results_dir, pp_model **out) PP_DEPRECATED("pp_model_open");

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
    int beyond_measured;       /* 1 when the value lies beyond ten times the metric's measured
                                  range (given only with PP_ESTIMATE_EXTRAPOLATE) */
} pp_model_estimate;

/* The flags of pp_model_estimate_at and pp_model_estimate_rows. Without
 * PP_ESTIMATE_EXTRAPOLATE a value predicted beyond ten times what was
 * measured is refused (-ERANGE, logged), as `powprof predict` refuses it;
 * with it, it is given, flagged and warned about (predict --extrapolate).
 * Either way a parameter outside the measured range, or one the results
 * measured at one value only given another, is warned about (logged at
 * PP_LOG_WARN): predict's warnings, in the same words. */
#define PP_ESTIMATE_EXTRAPOLATE 1u

/* metric at the configuration where parameter names[i] takes values[i]
 * (i < n; every parameter given once, except one the results measured at
 * a single value, a constant, implied when not given; a number, or a
 * categorical parameter's label, as summary.csv writes it). 0, -ENOENT (no such metric
 * or parameter, or labels never measured together) or -EINVAL (a value
 * that is not a number or not a label, a parameter missing) or -ERANGE
 * (beyond what was measured, see PP_ESTIMATE_EXTRAPOLATE), logged. */
int pp_model_estimate_at(const pp_model *m, const char *metric, size_t n,
                         const char *const *names, const char *const *values, unsigned flags,
                         pp_model_estimate *out);

/* Many configurations and metrics in one call (what a notebook does with a
 * table of settings): metrics[j] (j < n_metrics; metrics NULL: every
 * metric of the model, in pp_model_metric_name's order, n_metrics unused)
 * at n_rows configurations, row r giving parameter names[i] the value
 * values[r * n_names + i] (as pp_model_estimate_at). out has n_rows x
 * (number of metrics) entries, row-major: out[r * n + j]. A metric without
 * a model for a row's labels gets NAN. 0, or -errno as
 * pp_model_estimate_at, logged with the index of the first failing row
 * (the rows before it are filled). Its warnings are said once for the
 * table, naming the first row concerned and counting the others. */
int pp_model_estimate_rows(const pp_model *m, size_t n_metrics, const char *const *metrics,
                           size_t n_names, const char *const *names, size_t n_rows,
                           const char *const *values, unsigned flags, pp_model_estimate *out);

/* Every metric at one configuration (names and values as
 * pp_model_estimate_at's) as `powprof predict --json` prints it: point,
 * outside_measured_range, nearest {id, distance}, band_level, metrics
 * {name: {value, lo, hi, typical_error_pct, beyond_measured_values}}. 0
 * and *json_out (a NUL-terminated text: free it with pp_free), or -errno
 * as pp_model_estimate_at (-ERANGE: a metric beyond what was measured,
 * refused without PP_ESTIMATE_EXTRAPOLATE, as predict refuses it). */
int pp_model_predict_json(const pp_model *m, size_t n, const char *const *names,
                          const char *const *values, unsigned flags, char **json_out);

/* The model as `powprof model --json` prints it (the document of
 * model.json): per group of labels and metric the estimator, its errors
 * between measured levels ("between") and at measured levels ("honest"),
 * its band. 0 and *json_out (a NUL-terminated text: free it with pp_free),
 * or -errno. */
int pp_model_json(const pp_model *m, char **json_out);

/* Frees what the library returned to the caller (JSON texts). NULL is ignored. */
void pp_free(void *p);

/* The size in bytes, as this library was built, of the public struct of
 * that name (without "struct": "pp_governor_decision"); 0 for a name it
 * does not know. A binding that lays the structs out itself (the Python
 * package's ctypes) compares its sizes with these before its first call,
 * so a library and a binding of two releases refuse to run together
 * instead of reading past a struct's end. Any thread. */
size_t pp_struct_size(const char *name);

#ifdef __cplusplus
}
#endif

#endif
