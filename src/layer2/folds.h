/* folds.h - cross-validation of layer-2 estimators (folds.c): what it
 * leaves out together (the level folds, est.h's pp_fold), the errors
 * over the folds, and the tuning of an estimator on them. */
#ifndef PP_FOLDS_H
#define PP_FOLDS_H

#include "cv.h"
#include "est.h"
#include "surface.h"

#include <stddef.h>

/* The h of method m in value space log_values with the least crit: nw,
 * loclin: a log scan of sigma, refined by golden section, scored on the
 * n_folds folds (level folds: pp_level_folds) when given, else by
 * leave-one-out; boxcox:
 * pp_est_tune_boxcox (folds not used). Leave-one-out alone let a kernel's
 * bandwidth fall far below the gap between levels: a sample's neighbours
 * at its own level always predict it, and a left-out level was then
 * copied from the nearest one (xz, 200,000 lines left out: the 100,000
 * values, 42-76 % off; issue 31). cv: the crit of the folds when given.
 * 0, -EINVAL (nothing applicable) or -ENOMEM. */
int pp_est_tune(const pp_surface *s, const double *y, pp_method m, int log_values,
                const pp_fold *folds, size_t n_folds, pp_est_spec *best, pp_cv *cv);

/* boxcox's choice alone: by the level folds of y, leave-one-out when there
 * are none. */
int pp_est_tune_boxcox(const pp_surface *s, const double *y, int log_values, pp_est_spec *best,
                       pp_cv *cv);
/* The same for a spec that will be fitted on n_fit samples (more than y
 * has when the choice is made on a part of them): the residual smoother
 * is tried only where a fit on n_fit can afford it. */
int pp_est_tune_boxcox_n(const pp_surface *s, const double *y, int log_values, size_t n_fit,
                         pp_est_spec *best, pp_cv *cv);

/* Half the finest spacing of the samples' coordinates (0.1 when they have
 * one value): the bandwidth below which tuning does not go, and with which
 * loclin interpolates (at a sample its value, between two the line
 * through them). */
double pp_est_narrowest_sigma(const pp_surface *s);

/* The level-out folds of the samples of y with a value (y NaN: not
 * measured) into *folds (malloc'd, NULL when none); their number. -ENOMEM. */
long pp_level_folds(const pp_surface *s, const double *y, pp_fold **folds);

/* The same however few samples they hold in all (at least one): the folds
 * the between-levels error is measured on. A candidate is scored on
 * pp_level_folds only (with fewer than PP_LEVEL_OUT_MIN_PAIRS samples,
 * leave-one-out), but a surface of one parameter with 4 or 5 values (a
 * model per label) still has values strictly inside its range to leave
 * out, and its printed error is the one between them, not the one at
 * measured values, whose edges are extrapolations (issue 31). */
long pp_level_folds_any(const pp_surface *s, const double *y, pp_fold **folds);

/* The folds of the between-levels error: pp_level_folds_any's levels
 * (returned in *folds, their number returned) in *n_groups groups, level f
 * in group (*group)[f] (malloc'd). A parameter with at most
 * PP_FOLD_SINGLE_MAX interior levels measured leaves each out alone; one
 * with more leaves them out PP_FOLD_GROUPS at a time apart: its r-th
 * interior level (in order) goes to group r % PP_FOLD_GROUPS. Levels left
 * out together are never neighbours, so each still has its measured
 * neighbours on both sides (one grid step away, as when left out alone:
 * the same leave-a-level-out distance); the fit that predicts them has
 * fewer levels (a 10 x 10 grid: 6 of the 10 values of that parameter),
 * which can make the error larger, not flatter it (on bench_model_cost's
 * grids and bench_accuracy's syn-step it moved by 0.1-0.6 points, either
 * way). The choice is still scored on single levels (pp_level_folds). Why: each group
 * re-makes the whole choice, and a grid of 10 or 14 values per parameter
 * had 16-24 such folds, two thirds of `powprof model`'s time (issue 31,
 * item 6). -ENOMEM. */
#define PP_FOLD_SINGLE_MAX 6
#define PP_FOLD_GROUPS 2
long pp_level_fold_groups(const pp_surface *s, const double *y, pp_fold **folds, size_t **group,
                          size_t *n_groups);

/* 1 when sample i (with a value) lies in group g of the nf folds. */
int pp_fold_group_has(const pp_surface *s, const pp_fold *folds, const size_t *group, size_t nf,
                      size_t g, size_t i);

/* Cross-validated errors of spec over the folds: each fold's samples
 * predicted from a fit on the others. pred (NULL, or one per (fold,
 * sample) pair in the order of the folds, then of the samples) receives
 * the predictions. 0, -EINVAL (spec cannot be fitted) or -ENOMEM. */
int pp_est_cv(const pp_surface *s, const double *y, const pp_est_spec *spec, const pp_fold *folds,
              size_t n_folds, pp_cv *cv, double *pred);

#endif
