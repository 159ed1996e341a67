/* folds.h - cross-validation of layer-2 estimators (folds.c): what it
 * leaves out together (the level folds, est.h's pp_fold), the errors
 * over the folds, and the tuning of an estimator on them. */
#ifndef PP_FOLDS_H
#define PP_FOLDS_H

#include "cv.h"
#include "est.h"
#include "surface.h"

#include <stddef.h>

/* The spec of method m with the least crit: nw, loclin: a log scan of h
 * refined by golden section, on the folds when given (leave-one-out let
 * the bandwidth fall below the gap between levels: xz's 200,000 lines
 * left out were 42-76 % off), else by leave-one-out; boxcox:
 * pp_est_tune_boxcox. 0, -EINVAL (nothing applicable) or -ENOMEM. */
int pp_est_tune(const pp_surface *s, const double *y, pp_method m, int log_values,
                const pp_fold *folds, size_t n_folds, pp_est_spec *best, pp_cv *cv);

/* boxcox's choice alone: by the level folds of y (leave-one-out without),
 * for a spec fitted on n_fit samples (0: y's): the residual smoother is
 * tried only where a fit on n_fit can afford it. */
int pp_est_tune_boxcox_n(const pp_surface *s, const double *y, int log_values, size_t n_fit,
                         pp_est_spec *best, pp_cv *cv);

/* Half the finest spacing of the coordinates (0.1 with one value): the
 * least bandwidth tuned, and the one loclin interpolates with. */
double pp_est_narrowest_h(const pp_surface *s);

/* The level-out folds of y's samples into *folds (malloc'd, NULL when
 * none); their number, or -ENOMEM. */
long pp_level_folds(const pp_surface *s, const double *y, pp_fold **folds);

/* The same however few samples they hold: the folds of the between-levels
 * error (one parameter with 4 or 5 values still has interior ones). */
long pp_level_folds_any(const pp_surface *s, const double *y, pp_fold **folds);

/* pp_level_folds_any's levels (in *folds, their number returned) in
 * *n_groups groups, level f in (*group)[f] (malloc'd): a parameter with
 * more than PP_FOLD_SINGLE_MAX interior levels has its r-th in group
 * r % PP_FOLD_GROUPS (never two neighbours together), else each alone:
 * each group re-makes the whole choice. -ENOMEM. */
#define PP_FOLD_SINGLE_MAX 6
#define PP_FOLD_GROUPS 2
long pp_level_fold_groups(const pp_surface *s, const double *y, pp_fold **folds, size_t **group,
                          size_t *n_groups);

/* 1 when sample i (with a value) lies in group g of the nf folds. */
int pp_fold_group_has(const pp_surface *s, const pp_fold *folds, const size_t *group, size_t nf,
                      size_t g, size_t i);

/* Errors of spec over the folds, each predicted from a fit on the others;
 * pred (NULL, or one per (fold, sample) pair) the predictions. 0, -EINVAL
 * (no fit) or -ENOMEM. */
int pp_est_cv(const pp_surface *s, const double *y, const pp_est_spec *spec, const pp_fold *folds,
              size_t n_folds, pp_cv *cv, double *pred);

#endif
