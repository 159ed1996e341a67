/* Cross-validation of boxcox with a residual smoother (boxcox_gp.h). */
#include "boxcox_gp.h"
#include "boxcox_rows.h"

#include "lapack.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What every fold shares, over the n samples with a value (idx): their
 * values in the fit's space, terms (n x m) and kernel (n x n); scratch. */
typedef struct gp {
    const pp_surface *s;
    const pp_est_spec *spec;
    size_t n, m, *idx, *train;
    double *v, *rows, *k, *a, *b, *kt, *coef;
    double *ainv; /* leave-one-out: (K + noise)^-1 of every sample, or NULL */
    double *ginv; /* leave-one-out: (Z^T Z)^-1 of the weighed terms, or NULL */
    double *z, *t, *beta; /* ... those terms, values and their solution */
    double *ls;         /* level folds: each fold's least squares (m), once made */
    signed char *ls_at; /* ... per fold: 0 not yet, 1 made, -1 no solution */
    unsigned char *out;
} gp;

static void gp_free(gp *g)
{
    free(g->idx);
    free(g->v);
    free(g->out);
    free(g->ainv);
    free(g->ginv);
    free(g->ls);
    memset(g, 0, sizeof *g);
}

static int gp_alloc(gp *g, size_t n)
{
    size_t m = g->m;

    g->idx = malloc(2 * (n + 1) * sizeof *g->idx);
    g->v = malloc((n * (2 + 2 * m + 2 * n) + 2 * m + 2) * sizeof *g->v);
    g->out = malloc(n + 1);
    if (!g->idx || !g->v || !g->out) {
        gp_free(g);
        return -ENOMEM;
    }
    g->train = g->idx + n + 1;
    g->rows = g->v + n;
    g->k = g->rows + n * m;
    g->a = g->k + n * n;
    g->b = g->a + n * m;
    g->kt = g->b + n + m + 1;
    g->coef = g->kt + n * n;
    return 0;
}

/* The kernel of the samples at length scale h into g->k. */
static void gp_kernel(gp *g, double h)
{
    const pp_surface *s = g->s;
    double inv = 1.0 / (h * h);
    size_t n = g->n;

    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            g->k[a * n + b] =
                exp(-pp_dist2(s->x + g->idx[a] * s->d, s->x + g->idx[b] * s->d, s->d) * inv);
}

static int gp_init(gp *g, const pp_surface *s, const double *y, const pp_est_spec *spec)
{
    double row[256];
    size_t dims[PP_SURFACE_MAX_DIMS], n = 0;
    int rc;

    memset(g, 0, sizeof *g);
    g->s = s;
    g->spec = spec;
    g->m = bc_terms(pp_surface_varying(s, dims), spec->inter);
    for (size_t i = 0; i < s->n; i++)
        n += !isnan(y[i]);
    if (g->m > 256)
        return -EINVAL;
    if ((rc = gp_alloc(g, n)) < 0)
        return rc;
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(y[i])) {
            if (spec->log_values && !(y[i] > 0))
                return -EINVAL;
            g->v[g->n] = spec->log_values ? log(y[i]) : y[i];
            row_at(s, spec, s->x + i * s->d, row);
            memcpy(g->rows + g->n * g->m, row, g->m * sizeof *row);
            g->idx[g->n++] = i;
        }
    return 0;
}

/* The least squares on the nt samples of g->train into g->coef (as
 * boxcox.c's fit solves it). */
static int gp_least_squares(gp *g, size_t nt)
{
    double floor_v = 0;
    size_t m = g->m;

    for (size_t r = 0; r < nt; r++)
        floor_v = fmax(floor_v, 1e-9 * fabs(g->v[g->train[r]]));
    for (size_t r = 0; r < nt; r++) {
        size_t t = g->train[r];
        double w = row_weight(g->s, g->idx[t], g->v[t], g->spec->log_values, floor_v);
        for (size_t c = 0; c < m; c++)
            g->a[c * nt + r] = g->rows[t * m + c] * w;
        g->b[r] = g->v[t] * w;
    }
    if (pp_lapack_dgelsd((int)nt, (int)m, g->a, (int)nt, g->b, 1e-12, NULL) < 0)
        return -EINVAL;
    memcpy(g->coef, g->b, m * sizeof *g->coef);
    return 0;
}

/* gp_least_squares of level fold f, made once per fold whatever the length
 * scale (g->ls; made each time without it). */
static int gp_least_squares_of(gp *g, size_t f, size_t nt)
{
    double *c = g->ls ? g->ls + f * g->m : NULL;

    if (c && g->ls_at[f])
        return g->ls_at[f] > 0 ? (memcpy(g->coef, c, g->m * sizeof *c), 0) : -EINVAL;
    if (gp_least_squares(g, nt) < 0) {
        if (c)
            g->ls_at[f] = -1;
        return -EINVAL;
    }
    if (c) {
        memcpy(c, g->coef, g->m * sizeof *c);
        g->ls_at[f] = 1;
    }
    return 0;
}

/* (Z^T Z)^-1 of the weighed terms of every sample into g->ginv (scaled to
 * unit diagonal to factor it), and the solution into g->beta. */
static int gp_gram_inverse(gp *g)
{
    size_t n = g->n, m = g->m;
    double *gs = g->kt, *sc = g->a, *x = g->ginv;

    for (size_t r = 0; r < m; r++)
        for (size_t c = 0; c < m; c++) {
            double f = 0;
            for (size_t i = 0; i < n; i++)
                f += g->z[i * m + r] * g->z[i * m + c];
            gs[r * m + c] = f;
        }
    for (size_t r = 0; r < m; r++)
        sc[r] = gs[r * m + r] > 0 ? 1.0 / sqrt(gs[r * m + r]) : 1.0;
    for (size_t r = 0; r < m; r++) {
        for (size_t c = 0; c < m; c++) {
            gs[r * m + c] *= sc[r] * sc[c];
            x[r * m + c] = r == c;
        }
        gs[r * m + r] += 1e-10;
    }
    if (pp_lapack_dposv(PP_LAPACK_COL_MAJOR, 'L', (int)m, (int)m, gs, (int)m, x, (int)m) != 0)
        return -1;
    for (size_t r = 0; r < m; r++)
        for (size_t c = 0; c < m; c++)
            x[r * m + c] *= sc[r] * sc[c];
    for (size_t r = 0; r < m; r++) {
        g->beta[r] = 0;
        for (size_t i = 0; i < n; i++)
            g->beta[r] += dot(x + r * m, g->z + i * m, m) * g->t[i];
    }
    return 0;
}

/* Leave-one-out: the least squares of every sample, so that each one's
 * without it is a rank-one change (gp_least_squares_without). Nothing
 * (g->ginv NULL) where it is singular. 0 or -ENOMEM. */
static int gp_least_squares_all(gp *g)
{
    size_t n = g->n, m = g->m;
    double floor_v = 0;

    if (n <= m)
        return 0;
    if (!(g->ginv = malloc((m * m + n * m + n + m + 1) * sizeof *g->ginv)))
        return -ENOMEM;
    g->z = g->ginv + m * m;
    g->t = g->z + n * m;
    g->beta = g->t + n;
    for (size_t i = 0; i < n; i++)
        floor_v = fmax(floor_v, 1e-9 * fabs(g->v[i]));
    for (size_t i = 0; i < n; i++) {
        double w = row_weight(g->s, g->idx[i], g->v[i], g->spec->log_values, floor_v);
        for (size_t c = 0; c < m; c++)
            g->z[i * m + c] = g->rows[i * m + c] * w;
        g->t[i] = g->v[i] * w;
    }
    if (gp_gram_inverse(g) < 0) {
        free(g->ginv);
        g->ginv = NULL;
    }
    return 0;
}

/* The least squares without sample o into g->coef by Sherman-Morrison:
 * beta - G^-1 z_o e_o / (1 - h_o). -1 where o carries a term alone. */
static int gp_least_squares_without(gp *g, size_t o)
{
    size_t m = g->m;
    const double *zo = g->z + o * m;
    double e = g->t[o] - dot(zo, g->beta, m), h, *q = g->a;

    for (size_t r = 0; r < m; r++)
        q[r] = dot(g->ginv + r * m, zo, m);
    h = dot(zo, q, m);
    if (!(1 - h >= 1e-6))
        return -1;
    for (size_t r = 0; r < m; r++)
        g->coef[r] = g->beta[r] - q[r] * e / (1 - h);
    return 0;
}

/* Training sample t's residual from the least squares in g->coef. */
static double gp_residual(const gp *g, size_t t)
{
    double f = dot(g->rows + t * g->m, g->coef, g->m);
    return g->spec->log_values ? g->v[t] - f : (g->v[t] - f) / fmax(fabs(f), 1e-300);
}

/* The smoother's weights on the training samples' residuals, into g->b. */
static int gp_smoother(gp *g, size_t nt)
{
    size_t n = g->n;

    for (size_t r = 0; r < nt; r++) {
        size_t t = g->train[r];
        g->b[r] = gp_residual(g, t);
        for (size_t c = 0; c < nt; c++)
            g->kt[r * nt + c] = g->k[t * n + g->train[c]];
        g->kt[r * nt + r] += PP_BOXCOX_GP_NOISE / pp_surface_run_weight(g->s, g->idx[t]);
    }
    return pp_lapack_dposv(PP_LAPACK_ROW_MAJOR, 'U', (int)nt, 1, g->kt, (int)nt, g->b, 1) == 0
               ? 0
               : -EINVAL;
}

/* (K + noise)^-1 of every sample into g->ainv (left NULL when it cannot
 * be had): the smoother of every sample but one is then this inverse less
 * a rank-one term, no solve. 0 or -ENOMEM. */
static int gp_inverse(gp *g)
{
    size_t n = g->n;

    if (!(g->ainv = calloc(n * n + 1, sizeof *g->ainv)))
        return -ENOMEM;
    for (size_t a = 0; a < n; a++) {
        memcpy(g->kt + a * n, g->k + a * n, n * sizeof *g->kt);
        g->kt[a * n + a] += PP_BOXCOX_GP_NOISE / pp_surface_run_weight(g->s, g->idx[a]);
        g->ainv[a * n + a] = 1.0;
    }
    if (pp_lapack_dposv(PP_LAPACK_COL_MAJOR, 'L', (int)n, (int)n, g->kt, (int)n, g->ainv,
                        (int)n) != 0) {
        free(g->ainv);
        g->ainv = NULL;
    }
    return gp_least_squares_all(g);
}

/* The smoother's weights without sample o, from the inverse of all:
 * (A_-o)^-1 r = u_-o - A^-1_(-o,o) u_o / A^-1_oo with u = A^-1 [r; 0]. */
static int gp_smoother_without(gp *g, size_t o)
{
    size_t n = g->n, nt = 0;
    double *u = g->kt, *col = g->ainv + o * n;

    for (size_t t = 0; t < n; t++)
        g->a[t] = t == o ? 0.0 : gp_residual(g, t);
    for (size_t a = 0; a < n; a++)
        u[a] = dot(g->ainv + a * n, g->a, n);
    if (!(col[o] > 0))
        return -EINVAL;
    for (size_t t = 0; t < n; t++)
        if (t != o)
            g->b[nt++] = u[t] - col[t] * u[o] / col[o];
    return 0;
}

/* The one sample g->out marks. */
static size_t out_one(const gp *g)
{
    size_t o = 0;
    while (o < g->n && !g->out[o])
        o++;
    return o;
}

/* The samples g->out marks (fold) predicted from the others: (index,
 * value) appended to idx/pred at *np. */
static int gp_fold(gp *g, size_t fold, size_t *idx, double *pred, size_t *np)
{
    size_t nt = 0, n = g->n, m = g->m;
    int rc, one;

    for (size_t a = 0; a < n; a++)
        if (!g->out[a])
            g->train[nt++] = a;
    if (nt == n)
        return 0;
    one = g->ainv && nt + 1 == n;
    if (nt < m ||
        (!(one && g->ginv && gp_least_squares_without(g, out_one(g)) == 0) &&
         gp_least_squares_of(g, fold, nt) < 0))
        return -EINVAL;
    rc = one ? gp_smoother_without(g, out_one(g)) : gp_smoother(g, nt);
    if (rc < 0)
        return -EINVAL;
    for (size_t a = 0; a < n; a++) {
        double f, h = 0;
        if (!g->out[a])
            continue;
        f = dot(g->rows + a * m, g->coef, m);
        for (size_t r = 0; r < nt; r++)
            h += g->b[r] * g->k[a * n + g->train[r]];
        idx[*np] = g->idx[a];
        pred[(*np)++] =
            pp_est_from_space(g->spec->log_values, g->spec->log_values ? f + h : f + fabs(f) * h);
    }
    return 0;
}

/* Every fold at length scale h: pp_boxcox_gp_folds's result. */
static int gp_folds_at(gp *g, double h, const pp_fold *folds, size_t n_folds, size_t *idx,
                       double *pred, size_t *n)
{
    int rc = 0;

    *n = 0;
    if (!(h > 0))
        return -EINVAL;
    gp_kernel(g, h);
    if (n_folds > 0 && folds[0].dim == SIZE_MAX) { /* leave-one-out */
        free(g->ainv);
        free(g->ginv);
        g->ainv = g->ginv = NULL;
        rc = gp_inverse(g);
    }
    for (size_t f = 0; rc == 0 && f < n_folds; f++) {
        for (size_t a = 0; a < g->n; a++)
            g->out[a] = (unsigned char)pp_fold_has(g->s, &folds[f], g->idx[a]);
        rc = gp_fold(g, f, idx, pred, n);
    }
    return rc;
}

int pp_boxcox_gp_folds_scales(const pp_surface *s, const double *y, const pp_est_spec *spec,
                              const double *h, size_t n_h, const pp_fold *folds, size_t n_folds,
                              size_t *idx, double *pred, size_t cap, size_t *n, int *rc)
{
    gp g;
    int r = gp_init(&g, s, y, spec);

    for (size_t j = 0; j < n_h; j++) {
        rc[j] = r;
        n[j] = 0;
    }
    if (r == 0 && n_h > 1 && !(g.ls = malloc((n_folds * g.m + 1) * sizeof *g.ls + n_folds + 1)))
        r = -ENOMEM;
    if (g.ls)
        g.ls_at = memset((char *)(g.ls + n_folds * g.m + 1), 0, n_folds + 1);
    for (size_t j = 0; r == 0 && j < n_h; j++)
        if ((rc[j] = gp_folds_at(&g, h[j], folds, n_folds, idx, pred + j * cap, &n[j])) == -ENOMEM)
            r = -ENOMEM;
    gp_free(&g);
    return r;
}

int pp_boxcox_gp_folds(const pp_surface *s, const double *y, const pp_est_spec *spec,
                       const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n)
{
    int rc, r = pp_boxcox_gp_folds_scales(s, y, spec, &spec->h, 1, folds, n_folds, idx, pred, 0,
                                          n, &rc);

    return r < 0 ? r : rc;
}

int pp_boxcox_gp_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred)
{
    size_t np, one;
    double p;
    gp g;
    int rc = gp_init(&g, s, y, spec);

    for (size_t i = 0; i < s->n; i++)
        pred[i] = NAN;
    if (rc == 0 && !(spec->h > 0))
        rc = -EINVAL;
    if (rc == 0) {
        gp_kernel(&g, spec->h);
        memset(g.out, 0, g.n);
    }
    if (rc == 0)
        rc = gp_inverse(&g);
    for (size_t a = 0; rc == 0 && a < g.n; a++) {
        np = 0;
        g.out[a] = 1;
        if ((rc = gp_fold(&g, a, &one, &p, &np)) == 0 && np == 1)
            pred[one] = p;
        g.out[a] = 0;
        rc = rc == -ENOMEM ? rc : 0;
    }
    gp_free(&g);
    return rc == -ENOMEM ? rc : 0;
}
