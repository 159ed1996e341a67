/* point_check.h - what is said of a configuration before its prediction is
 * given, by the library, so that `powprof predict`, the C API
 * (pp_model_estimate_at, pp_model_estimate_rows) and Python's Model.predict
 * warn and refuse alike, with the same message:
 *   - a numeric parameter outside the measured range: a warning (an
 *     extrapolation);
 *   - a parameter the results measured at one value only (a constant)
 *     given another: a warning (the prediction is that value's);
 *   - a metric predicted beyond PP_MODEL_BEYOND_FACTOR times what was
 *     measured: refused (-ERANGE, an error) unless extrapolation was asked
 *     for (--extrapolate, PP_ESTIMATE_EXTRAPOLATE, extrapolate=True), then
 *     a warning. */
#ifndef PP_API_POINT_CHECK_H
#define PP_API_POINT_CHECK_H

#include "src/layer2/model.h"

#include <stddef.h>

/* The first warning for numeric parameter pt of m outside w's measured
 * range into buf (the rest of them counted): how many parameters are
 * outside (0: none, buf untouched). buf NULL: each one logged as a
 * warning instead. */
size_t pp_point_outside(const pp_model *m, const pp_model_point *pt, const pp_model_where *w,
                        char *buf, size_t cap);

/* Metric k's prediction p at a point of w's group, flagged beyond
 * (p->beyond): refused (logged as an error, -ERANGE) unless extrapolate,
 * else a warning (0). row: the row of a table (SIZE_MAX: none), named in
 * the message. 0 when p is not beyond. */
int pp_point_beyond(const pp_model *m, const pp_model_where *w, size_t k, const pp_prediction *p,
                    int extrapolate, size_t row);

#endif
