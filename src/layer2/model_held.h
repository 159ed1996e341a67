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

/* The derivation blend nested (the derivation of pp_model_derive): y[0..3) the values of
 * energy, power and duration per sample, own[0..3) their held-out
 * predictions per pair (pair p of sample idx[p], or p when idx is NULL;
 * n pairs), fold[p] the fold pair p was held out in (< n_folds; NULL:
 * each pair its own); the derivations blended are energy's (0), power's
 * (1) .. last's. Each pair's prediction comes from the blend weighed
 * (pp_model_derive) on the pairs outside its fold. cv[o]->mape and
 * mape_sd become metric o's errors so, o = 0 .. last (the rest of cv
 * kept). 0 or -ENOMEM. */
int pp_model_nest_derivation(const double *const y[3], const double *const own[3],
                             const size_t *idx, const size_t *fold, size_t n, size_t n_folds,
                             int last, pp_cv *const cv[3]);

#endif
