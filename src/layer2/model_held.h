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

/* The fold of each configuration at measured levels as pp_choose made it
 * for choice c (y: its values, n_rows of them) into fold[n_rows]
 * (SIZE_MAX: no value): the number of folds. */
long pp_model_at_folds(const pp_choice *c, const double *y, size_t n_rows, size_t *fold);

/* The group of levels each of choice c's between-levels pairs was left
 * out with (pair p of sample c->held_between_idx[p]) into
 * fold[c->n_held_between]: the number of groups, or -ENOMEM. Pairs of one
 * group were predicted by one fit. */
long pp_model_between_folds(const pp_model_group *g, const pp_choice *c, const double *y,
                            size_t *fold);

#endif
