/* est.h - what the layer-2 estimators share, and nothing else: the
 * methods, what is fitted (pp_est_spec) and a fitted estimator (pp_est),
 * the errors they are judged by (pp_cv), the folds cross-validation leaves
 * out, the value space, and the table of operations each estimator
 * implements in its own file:
 *
 *   nw.c       the paper's Gaussian-kernel weighted average
 *   loclin.c   local-linear kernel regression
 *   boxcox.c   the response surface with the workload's shape
 *
 * estimator.c fits, evaluates and leaves out through the table
 * (estimator.h says what each method does); a header with no file of its
 * own, so that an estimator and the code that drives it both include it
 * without calling each other.
 */
#ifndef PP_EST_H
#define PP_EST_H

#include "surface.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef enum pp_method {
    PP_METHOD_NW = 0,
    PP_METHOD_LOCLIN,
    PP_METHOD_BOXCOX,
    PP_METHOD_AUTO, /* chosen per metric by leaving out levels (pp_choose) */
} pp_method;

#define PP_METHODS 3 /* nw, loclin, boxcox */

/* What is fitted: an estimator, its value space and its smoothing length
 * h in normalized units (nw, loclin: the kernel's bandwidth, > 0; boxcox:
 * the length scale of the smoother of its residuals, 0 for none).
 * boxcox also has an exponent per dimension and its interaction terms. */
typedef struct pp_est_spec {
    pp_method method;
    int log_values;
    double h;
    double expo[PP_SURFACE_MAX_DIMS]; /* boxcox: the power transform's exponent */
    int inter;                        /* boxcox: 1 with the pairwise products */
} pp_est_spec;

/* A fitted estimator. It borrows the surface, which must outlive it. */
typedef struct pp_est {
    pp_est_spec spec;
    const pp_surface *s;
    size_t n_used;   /* samples with a value */
    double *v;       /* s->n values in the fit's space (NaN: left out) */
    double *coef;    /* boxcox: the terms' coefficients, then s->n residual weights */
    size_t n_terms;  /* boxcox: terms of the least-squares fit */
} pp_est;

typedef struct pp_cv {
    double mape, mape_inner, rmse, crit;
    double mape_sd;  /* the sample standard deviation of the percentage errors
                        behind mape (NaN with fewer than 2) */
    size_t n, n_inner;
} pp_cv;

/* ---- folds: what cross-validation leaves out together ----
 *
 * Leave-one-level-out: every sample with one value (level) of one
 * parameter is left out together, for every level strictly inside that
 * parameter's measured range (a prediction there lies between measured
 * levels), for every parameter with at least PP_LEVEL_OUT_MIN levels that
 * are measured, in turn. A sample lies in one fold per such parameter.
 * Scattered samples (levels holding two samples or more hold fewer than
 * half of them: a few values that coincide by chance make no levels) have
 * no levels to leave out, unless only one parameter varies (the two are then the same);
 * nor have sets with fewer than PP_LEVEL_OUT_MIN_PAIRS samples in all the
 * folds (a choice by one or two samples is a coin toss: leave-one-out
 * over every sample, edges included, decides instead). Candidates are
 * scored on these folds one level at a time; the between-levels error
 * leaves out, of a parameter with more than PP_FOLD_SINGLE_MAX interior
 * levels, every other one together (pp_level_fold_groups, folds.h:
 * each keeps its measured neighbours, and each group costs a whole
 * choice made again).
 * Leave-one-out: every sample alone. */
#define PP_LEVEL_OUT_MIN 3
/* fewer (fold, sample) pairs than this are too few to choose by: none */
#define PP_LEVEL_OUT_MIN_PAIRS 5

typedef struct pp_fold {
    size_t dim;   /* SIZE_MAX: the one sample `level` */
    size_t level; /* index into s->levels[dim] */
} pp_fold;

/* 1 when sample i (with a value) lies in fold f. */
static inline int pp_fold_has(const pp_surface *s, const pp_fold *f, size_t i)
{
    return f->dim == SIZE_MAX ? i == f->level : s->cell[i * s->d + f->dim] == f->level;
}

/* ---- the value space ---- */

/* y into the fit's value space (NaN kept); -EINVAL when a log value is not
 * > 0. */
static inline int pp_est_to_space(const double *y, size_t n, int log_values, double *v)
{
    for (size_t i = 0; i < n; i++) {
        if (log_values && !isnan(y[i]) && !(y[i] > 0))
            return -EINVAL;
        v[i] = log_values ? log(y[i]) : y[i];
    }
    return 0;
}

static inline double pp_est_from_space(int log_values, double v) { return log_values ? exp(v) : v; }

/* ---- the table of operations ---- */

typedef struct pp_est_ops {
    /* Fit e (e->s, e->spec, e->v in the fit's value space and e->n_used
     * set; e->coef NULL): 0, -EINVAL (logged at debug level: no solution)
     * or -ENOMEM. NULL: nothing to fit (the samples are the estimator). */
    int (*fit)(pp_est *e);
    /* The fitted surface at normalized point xn, in the fit's value space. */
    double (*eval)(const pp_est *e, const double *xn);
    /* Leave-one-out predictions of every sample in y's units, v being y in
     * spec's value space (NaN where y is NaN or nothing is left to predict
     * from): 0, -EINVAL, -ENOMEM, or -ENOTSUP to have each sample left out
     * by fitting without it. */
    int (*loo)(const pp_surface *s, const double *y, const double *v, const pp_est_spec *spec,
               double *pred);
    /* The samples with a value of every fold predicted by a fit without
     * the fold, in y's units, as (idx, pred) pairs in fold order (room for
     * every pair; *n their count): 0, -ENOMEM, or -ENOTSUP to have each
     * fold refitted. NULL: each fold refitted. */
    int (*folds)(const pp_surface *s, const double *y, const double *v, const pp_est_spec *spec,
                 const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n);
} pp_est_ops;

/* The kernels' folds operation (nw, loclin): each fold's samples predicted
 * by at(s, w, h, i) (the estimator at sample i from the samples of w with
 * a value, i's row of the surface's distances read) with w the values v
 * less the fold's: the numbers a fit without the fold gives (the same
 * sums in the same order, the distances taken from the surface's table),
 * without a copy and a conversion of the values per fold, nor the
 * distances recomputed (a kernel's bandwidth is tuned on the level folds:
 * one pass over them per bandwidth tried). */
static inline int pp_est_kernel_folds(const pp_surface *s, const double *v, const pp_est_spec *spec,
                                      const pp_fold *folds, size_t n_folds, size_t *idx,
                                      double *pred, size_t *n,
                                      double (*at)(const pp_surface *, const double *, double,
                                                   size_t))
{
    double *w = malloc((s->n + 1) * sizeof *w);

    *n = 0;
    if (!w)
        return -ENOMEM;
    for (size_t f = 0; f < n_folds; f++) {
        size_t first = *n;
        for (size_t i = 0; i < s->n; i++) {
            int out = !isnan(v[i]) && pp_fold_has(s, &folds[f], i);
            w[i] = out ? NAN : v[i];
            if (out)
                idx[(*n)++] = i;
        }
        for (size_t k = first; k < *n; k++)
            pred[k] = pp_est_from_space(spec->log_values, at(s, w, spec->h, idx[k]));
    }
    free(w);
    return 0;
}

/* Each in its file. */
extern const pp_est_ops pp_est_nw_ops, pp_est_loclin_ops, pp_est_boxcox_ops;

#endif
