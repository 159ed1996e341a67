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
 * between them, into *out (malloc'd): how many (0 without them: not
 * keep_held, from model.json, < 2 values) or -ENOMEM. */
long pp_model_held_pairs(const pp_model *m, size_t g, size_t k, pp_held_pair **out);

/* pp_model_derive's blend nested: y[0..3) energy, power and duration per
 * sample, own[0..3) their held-out predictions per pair (of sample idx[p];
 * NULL: p), fold[p] its fold (NULL: its own); derivations 0 .. last. Each
 * pair predicted by the blend weighed outside its fold; cv[o]->mape and
 * mape_sd become metric o's errors so. 0 or -ENOMEM. */
int pp_model_nest_derivation(const double *const y[3], const double *const own[3],
                             const size_t *idx, const size_t *fold, size_t n, size_t n_folds,
                             int last, pp_cv *const cv[3]);

/* Energy, mean power and duration made consistent (model_held.c): per
 * rail, the derivations E = P x T, P = E / T and T = E / P (the total's
 * only) blended in log space, the weights stacked on the nested
 * predictions (the least relative squared log error, shrunk toward equal
 * weights by one fold's share; m->opts.derivation >= 0: that one alone).
 * The printed errors have the weights remade without each pair's fold.
 * 0 or -ENOMEM. */
int pp_model_derive(pp_model *m);

#endif
