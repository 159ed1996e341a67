/* summary_params.h - what the rows say of each parameter: a parameter
 * measured at one value only is a constant of the folder. */
#ifndef PP_SUMMARY_PARAMS_H
#define PP_SUMMARY_PARAMS_H

#include "summary.h"

/* 1 when parameter k holds one value in every row (status ok) with one at
 * least: a constant of the folder (threads = 1 in every configuration),
 * its value (the number, or a categorical parameter's label index) into
 * *value (may be NULL); else 0. A constant is no dimension a prediction
 * varies: it is implied where not given, and any other value lies outside
 * what was measured (layer2/model.h: pp_model_locate). */
int pp_summary_constant(const pp_summary *s, size_t k, double *value);

/* raw[k] = the constant of every constant parameter k not given[k]
 * (given[k] then set). Returns how many were implied. */
size_t pp_summary_imply_constants(const pp_summary *s, double *raw, int *given);

#endif
