/* boxcox_rows.h - the terms of the parametric family at a point (power
 * transforms of the normalized parameters, their pairwise products) and
 * each row's weight: what its fit (boxcox.c) and its cross-validation with
 * a residual smoother (boxcox_gp.c) compute alike, so that the two give
 * the same numbers. A header with no file of its own. */
#ifndef PP_BOXCOX_ROWS_H
#define PP_BOXCOX_ROWS_H

#include "est.h"

#include <math.h>
#include <stddef.h>

/* The residual smoother's noise on the diagonal (over each run weight). */
#define PP_BOXCOX_GP_NOISE 0.1

/* Parameter j at normalized xn as the transform's u > 0. */
static inline double bc_u(const pp_surface *s, size_t j, double xn)
{
    double raw = pp_surface_denormalize(s, j, xn), lo = pp_surface_denormalize(s, j, 0.0);
    double hi = pp_surface_denormalize(s, j, 1.0);
    double u = lo > 0 ? raw / hi : 1.0 + (raw - lo) / (hi - lo);
    return u > 1e-12 ? u : 1e-12;
}

static inline double bc_t(double u, double p)
{
    return fabs(p) < 1e-12 ? log(u) : (pow(u, p) - 1.0) / p;
}

/* The terms at transformed values t[nd]: 1, the t's, their products. */
static inline size_t bc_row(const double *t, size_t nd, int inter, double *row)
{
    size_t m = 0;
    row[m++] = 1.0;
    for (size_t a = 0; a < nd; a++)
        row[m++] = t[a];
    for (size_t a = 0; inter && a < nd; a++)
        for (size_t b = a + 1; b < nd; b++)
            row[m++] = t[a] * t[b];
    return m;
}

static inline size_t bc_terms(size_t nd, int inter)
{
    return 1 + nd + (inter ? nd * (nd - 1) / 2 : 0);
}

/* The terms of the point xn under spec. */
static inline size_t row_at(const pp_surface *s, const pp_est_spec *spec, const double *xn,
                            double *row)
{
    size_t dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims);
    double t[PP_SURFACE_MAX_DIMS];

    for (size_t k = 0; k < nd; k++)
        t[k] = bc_t(bc_u(s, dims[k], xn[dims[k]]), spec->expo[dims[k]]);
    return bc_row(t, nd, spec->inter, row);
}

/* A row's weight in the least squares: the run weight's root, over |v| on
 * linear values (relative error). */
static inline double row_weight(const pp_surface *s, size_t i, double v, int log_values,
                                double floor_v)
{
    return sqrt(pp_surface_run_weight(s, i)) / (log_values ? 1.0 : fmax(fabs(v), floor_v));
}

static inline double dot(const double *a, const double *b, size_t m)
{
    double f = 0;
    for (size_t c = 0; c < m; c++)
        f += a[c] * b[c];
    return f;
}

#endif
