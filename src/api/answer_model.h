/* answer_model.h - the model's and a prediction's answers: the table in
 * words, the prediction's document and words, NAME=VALUE points and their
 * refusals (model, predict; Python's Model.predict_doc). */
#ifndef PP_ANSWER_MODEL_H
#define PP_ANSWER_MODEL_H

#include "answer.h"

/* The configurations m models (every group's). */
size_t pp_model_n_configs(const pp_model *m);

/* m's summary holds more rows than its repeats and nodes explain (rows of
 * different profiles mixed): 1, else 0. */
int pp_model_rows_mixed(const pp_model *m);

/* The model m of the results folder dir as `powprof model` prints it: the
 * configurations and parameters, per group a row per metric (the
 * estimator's settings with verbose), advice, the fleet and the repeats. */
void pp_model_text(FILE *fp, const pp_model *m, const char *dir, int verbose);

/* The model of the results folder dir for a prediction (pp_model_read:
 * model.json when it matches, else chosen now), with the battery its
 * run.json names and, node not NULL, aimed at that node of a fleet. 0, or
 * -errno (logged; m freed). */
int pp_prediction_open(const char *dir, const char *node, pp_model *m);

/* The n arguments NAME=VALUE (every parameter, a constant may be left
 * out) into pt, located in m at w; a numeric value outside the measured
 * range is warned about (point_check.h). 0, or -EINVAL: why said into why
 * (cap bytes), or logged and why empty. */
int pp_prediction_point(const pp_model *m, int n, char *const *args, pp_model_point *pt,
                        pp_model_where *w, char *why, size_t cap);

/* The prediction of every metric of m at pt (located at w) as `predict
 * --json` prints it: point, outside_measured_range, nearest {id,
 * distance}, band_level, metrics {name: {value, lo, hi,
 * typical_error_pct, beyond_measured_values}}. A new reference. */
json_t *pp_prediction_json(const pp_model *m, const pp_model_point *pt, const pp_model_where *w);

/* The same in words: the nearest measured configuration, a row per metric. */
void pp_prediction_text(FILE *fp, const pp_model *m, const pp_model_point *pt,
                        const pp_model_where *w);

/* The metrics of m predicted at pt beyond ten times their measured values,
 * each said by the library (point_check.h): refused (refuse) or a
 * warning. How many were refused. */
size_t pp_prediction_beyond(const pp_model *m, const pp_model_point *pt, const pp_model_where *w,
                            int refuse);

/* Which battery and load the battery metrics of the results dir (summary
 * s) were computed with (its run.json), a line; nothing without them. */
void pp_prediction_battery_text(FILE *fp, const char *dir, const pp_summary *s);

#endif
