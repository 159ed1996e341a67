/* surface.h - the sample space of layer 2 (surface.c): the parameters
 * normalized to [0, 1] across their measured range (log10 first for
 * exponential ranges), their levels, distances and run weights. */
#ifndef PP_SURFACE_H
#define PP_SURFACE_H

#include <stddef.h>

#define PP_SURFACE_MAX_DIMS 16

typedef struct pp_surface {
    size_t n, d;
    double *x;                       /* n x d normalized coordinates */
    double lo[PP_SURFACE_MAX_DIMS];  /* measured range, in (log10) units */
    double hi[PP_SURFACE_MAX_DIMS];
    int log_scale[PP_SURFACE_MAX_DIMS];
    /* the distinct coordinates per dimension, and each sample's indices into
     * them: most sweeps are lattices, which makes the kernel sums cheap */
    size_t k[PP_SURFACE_MAX_DIMS];
    double *levels[PP_SURFACE_MAX_DIMS];
    size_t *cell;                    /* n x d level indices */
    /* run weights, n (NULL: all 1), for the estimators that use them
     * (estimator.h says why nw does not) */
    double *weight;
    /* squared distances between every two samples (n x n), kept when
     * n <= PP_SURFACE_D2_MAX (leave-one-out reuses them), else NULL */
    double *d2;
} pp_surface;

#define PP_SURFACE_D2_MAX 3000

/* Normalize n samples of d raw parameter values. Log-scale dimensions need
 * values > 0. Returns 0, -EINVAL (logged) or -ENOMEM. */
int pp_surface_init(pp_surface *s, const double *x_raw, size_t n, size_t d, const int *log_scale);
void pp_surface_free(pp_surface *s);

/* Give the samples run weights (n values > 0, copied; NULL: all 1).
 * 0, -EINVAL (a weight not > 0) or -ENOMEM. */
int pp_surface_set_weights(pp_surface *s, const double *w);

/* Raw parameter values into normalized coordinates (may fall outside
 * [0, 1]); and back. */
void pp_surface_normalize(const pp_surface *s, const double *raw, double *xn);
double pp_surface_denormalize(const pp_surface *s, size_t dim, double xn);

/* 1 when sample i lies inside the measured range of every parameter that
 * varies (a prediction there interpolates), else 0. */
int pp_surface_interior(const pp_surface *s, size_t i);

/* Sample i's weight (1 without weights). */
double pp_surface_run_weight(const pp_surface *s, size_t i);

/* The dimensions whose samples take more than one value, into dims; their
 * count. */
size_t pp_surface_varying(const pp_surface *s, size_t *dims);

/* The squared distance between normalized points a and b of d dimensions. */
static inline double pp_dist2(const double *a, const double *b, size_t d)
{
    double g = 0;
    for (size_t j = 0; j < d; j++)
        g += (a[j] - b[j]) * (a[j] - b[j]);
    return g;
}

#endif
