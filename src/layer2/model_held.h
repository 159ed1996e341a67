/* model_held.h - the nested hold-outs of a model's fits, pair by pair
 * (issue 31): what an adaptive run's claim is estimated from. Needs a
 * model opened with keep_held (pp_model_options). */
#ifndef PP_MODEL_HELD_H
#define PP_MODEL_HELD_H

#include "model.h"

#include <stddef.h>

/* One configuration predicted with its fold left out, the estimator chosen
 * again without it. */
typedef struct pp_held_pair {
    size_t row;   /* the configuration in its group (0 .. n_rows) */
    double value; /* measured (the configuration's mean) */
    double pred;  /* the nested prediction (derived metrics: from their two) */
    size_t fold;  /* the pairs of one fold share it; a fold's fit saw every other
                     configuration of the group with a value */
    int between;  /* 1: a level fold (a whole value left out), 0: at measured levels */
} pp_held_pair;

/* Every nested hold-out of metric k in group g, at measured levels then
 * between them, into *out (malloc'd; free it): how many, 0 without the
 * nested predictions (a model not opened with keep_held, from model.json,
 * fewer than 2 values) or -ENOMEM. */
long pp_model_held_pairs(const pp_model *m, size_t g, size_t k, pp_held_pair **out);

#endif
