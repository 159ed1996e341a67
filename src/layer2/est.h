/* est.h - what the layer-2 estimators (nw.c, loclin.c, boxcox.c) and the
 * code that drives them (estimator.c) share, with no file of its own: the
 * methods, a spec and a fit, the errors (pp_cv), the folds, the value
 * space and the table of operations each estimator implements. */
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

/* Folds: leave-one-level-out leaves every sample with one level of one
 * parameter out together, for every level strictly inside the range of
 * each parameter with PP_LEVEL_OUT_MIN measured levels. Scattered samples
 * (levels with two samples or more hold fewer than half of them) have none
 * unless one parameter varies; nor have sets with fewer than
 * PP_LEVEL_OUT_MIN_PAIRS samples in all the folds (leave-one-out decides
 * there). Leave-one-out: every sample alone. */
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

/* A value of the fit's space back in y's units. */
static inline double pp_est_from_space(int log_values, double v) { return log_values ? exp(v) : v; }

/* ---- the table of operations ---- */

typedef struct pp_est_ops {
    /* Fit e (s, spec, v in the value space and n_used set): 0, -EINVAL
     * (no solution) or -ENOMEM. NULL: the samples are the estimator. */
    int (*fit)(pp_est *e);
    /* The fitted surface at normalized point xn, in the fit's value space. */
    double (*eval)(const pp_est *e, const double *xn);
    /* Leave-one-out predictions in y's units (v: y in the value space):
     * 0, -EINVAL or -ENOMEM. */
    int (*loo)(const pp_surface *s, const double *y, const double *v, const pp_est_spec *spec,
               double *pred);
    /* Every fold's samples predicted without the fold, in y's units, as
     * (idx, pred) pairs in fold order (*n of them): 0, -ENOMEM, or
     * -ENOTSUP (NULL too): each fold refitted. */
    int (*folds)(const pp_surface *s, const double *y, const double *v, const pp_est_spec *spec,
                 const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n);
} pp_est_ops;

/* The kernels' folds operation (nw, loclin): each fold's samples predicted
 * by at(s, w, h, i, live, n_live) from w, the values v less the fold's:
 * the sums a fit without the fold makes, in the same order, without a copy
 * per fold; live lists the n_live samples w has a value at, in order (a
 * subsample's choice leaves most of them NaN: at may walk these alone). */
static inline int pp_est_kernel_folds(const pp_surface *s, const double *v, const pp_est_spec *spec,
                                      const pp_fold *folds, size_t n_folds, size_t *idx,
                                      double *pred, size_t *n,
                                      double (*at)(const pp_surface *, const double *, double,
                                                   size_t, const size_t *, size_t))
{
    double *w = malloc((s->n + 1) * sizeof *w);
    size_t *live = malloc((s->n + 1) * sizeof *live);

    *n = 0;
    if (!w || !live) {
        free(w);
        free(live);
        return -ENOMEM;
    }
    for (size_t f = 0; f < n_folds; f++) {
        size_t first = *n, n_live = 0;
        for (size_t i = 0; i < s->n; i++) {
            int out = !isnan(v[i]) && pp_fold_has(s, &folds[f], i);
            w[i] = out ? NAN : v[i];
            if (out)
                idx[(*n)++] = i;
            else if (!isnan(v[i]))
                live[n_live++] = i;
        }
        for (size_t k = first; k < *n; k++)
            pred[k] = pp_est_from_space(spec->log_values,
                                        at(s, w, spec->h, idx[k], live, n_live));
    }
    free(w);
    free(live);
    return 0;
}

/* Each in its file. */
extern const pp_est_ops pp_est_nw_ops, pp_est_loclin_ops, pp_est_boxcox_ops;

#endif
