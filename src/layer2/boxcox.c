/* The parametric family (boxcox.h): power transforms, least squares on
 * relative error, a Gaussian-process mean on the residuals. */
#include "boxcox.h"
#include "boxcox_gp.h"
#include "boxcox_rows.h"
#include "cv.h"

#include "lapack.h"
#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>



/* The residual smoother: alpha = (K + noise W^-1)^-1 r over the samples
 * with a value, into coef[m + i]. */
static int fit_residuals(pp_est *e, size_t m, const size_t *idx, size_t n)
{
    const pp_surface *s = e->s;
    double *k = malloc((n * n + n) * sizeof *k), *r = k ? k + n * n : NULL, row[256];
    double inv = 1.0 / (e->spec.h * e->spec.h);
    int rc = -ENOMEM;

    if (!k)
        return rc;
    for (size_t a = 0; a < n; a++) {
        double f;
        row_at(s, &e->spec, s->x + idx[a] * s->d, row);
        f = dot(row, e->coef, m);
        r[a] = e->spec.log_values ? e->v[idx[a]] - f : (e->v[idx[a]] - f) / fmax(fabs(f), 1e-300);
        for (size_t b = 0; b < n; b++)
            k[a * n + b] = exp(-pp_dist2(s->x + idx[a] * s->d, s->x + idx[b] * s->d, s->d) * inv);
        k[a * n + a] += PP_BOXCOX_GP_NOISE / pp_surface_run_weight(s, idx[a]);
    }
    rc = pp_lapack_dposv(PP_LAPACK_ROW_MAJOR, 'U', (int)n, 1, k, (int)n, r, 1) == 0 ? 0 : -EINVAL;
    for (size_t a = 0; rc == 0 && a < n; a++)
        e->coef[m + idx[a]] = r[a];
    free(k);
    return rc;
}

static int boxcox_fit(pp_est *e)
{
    const pp_surface *s = e->s;
    size_t dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims), m = bc_terms(nd, e->spec.inter);
    size_t n = 0, *idx = malloc(s->n * sizeof *idx);
    double *a = malloc((s->n * m + s->n + m + 1) * sizeof *a), *b, floor_v = 0, row[256];
    int rc = -ENOMEM;

    if (!idx || !a || m > 256)
        goto out;
    b = a + s->n * m;
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(e->v[i])) {
            idx[n++] = i;
            floor_v = fmax(floor_v, 1e-9 * fabs(e->v[i]));
        }
    rc = -EINVAL;
    if (n < m)
        goto out;
    for (size_t r = 0; r < n; r++) {
        double w = row_weight(s, idx[r], e->v[idx[r]], e->spec.log_values, floor_v);
        row_at(s, &e->spec, s->x + idx[r] * s->d, row);
        for (size_t c = 0; c < m; c++)
            a[c * n + r] = row[c] * w; /* column-major */
        b[r] = e->v[idx[r]] * w;
    }
    if ((rc = pp_lapack_dgelsd((int)n, (int)m, a, (int)n, b, 1e-12, NULL)) < 0)
        goto out;
    rc = -ENOMEM;
    if (!(e->coef = calloc(m + s->n, sizeof *e->coef)))
        goto out;
    memcpy(e->coef, b, m * sizeof *b);
    e->n_terms = m;
    rc = e->spec.h > 0 ? fit_residuals(e, m, idx, n) : 0;
out:
    free(idx);
    free(a);
    return rc;
}

static double boxcox_eval(const pp_est *e, const double *xn)
{
    const pp_surface *s = e->s;
    double row[256], f, g = 0, inv;

    row_at(s, &e->spec, xn, row);
    f = dot(row, e->coef, e->n_terms);
    if (!(e->spec.h > 0))
        return f;
    inv = 1.0 / (e->spec.h * e->spec.h);
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(e->v[i]) && e->coef[e->n_terms + i] != 0)
            g += e->coef[e->n_terms + i] * exp(-pp_dist2(xn, s->x + i * s->d, s->d) * inv);
    return e->spec.log_values ? f + g : f + fabs(f) * g;
}

/* ---- tuning: cross-validation by the normal equations ----
 *
 * For one set of exponents, the Gram matrix of every row (G = X^T X,
 * b = X^T z, rows weighed) is formed once (BLAS); a fold's system is G
 * less the Gram of its rows, scaled to unit diagonal and solved by LAPACK
 * (dposv). A fold that leaves too few rows gets no prediction (its
 * candidate is then not kept). */

#define BC_M_MAX 22 /* terms the tuning handles: 6 varying parameters with interactions */

typedef struct bc_data {
    const pp_surface *s;
    const double *y;
    int log_values;
    size_t n, nd, dims[PP_SURFACE_MAX_DIMS];
    size_t *idx;           /* samples with a value */
    double *u, *v, *w;     /* per such sample: u (n x nd), value, row weight */
    double *tt;            /* the transform at every grid exponent: (k * GRID_N + g) * n + r */
    size_t n_folds, *start, *mem, n_pairs; /* fold f: mem[start[f] .. start[f + 1]) */
    size_t *pair_sample;
    double *x, *xf, *pred; /* scratch: n x (M + 1) twice; n_pairs */
    double *hw;            /* scratch: G^-1 times each row's terms, n x M */
} bc_data;

static void bc_data_free(bc_data *d)
{
    free(d->idx);
    free(d->u);
    free(d->tt);
    free(d->start);
    free(d->mem);
    free(d->pair_sample);
    free(d->pred);
    free(d->x);
    free(d->hw);
    memset(d, 0, sizeof *d);
}

/* The members of every fold, as positions into d->idx. */
static int bc_folds(bc_data *d, const pp_fold *folds, size_t n_folds)
{
    size_t at = 0;

    d->n_folds = n_folds;
    d->start = malloc((n_folds + 1) * sizeof *d->start);
    d->mem = malloc((n_folds * d->n + 1) * sizeof *d->mem);
    if (!d->start || !d->mem)
        return -ENOMEM;
    for (size_t f = 0; f < n_folds; f++) {
        d->start[f] = at;
        for (size_t r = 0; r < d->n; r++)
            if (pp_fold_has(d->s, &folds[f], d->idx[r]))
                d->mem[at++] = r;
    }
    d->start[n_folds] = d->n_pairs = at;
    d->pair_sample = malloc((at + 1) * sizeof *d->pair_sample);
    d->pred = malloc((at + 1) * sizeof *d->pred);
    if (!d->pair_sample || !d->pred)
        return -ENOMEM;
    for (size_t p = 0; p < at; p++)
        d->pair_sample[p] = d->idx[d->mem[p]];
    return 0;
}

static int bc_data_init(bc_data *d, const pp_surface *s, const double *y, int log_values,
                        const pp_fold *folds, size_t n_folds)
{
    size_t m_max;
    double floor_v = 0;

    memset(d, 0, sizeof *d);
    d->s = s;
    d->y = y;
    d->log_values = log_values;
    d->nd = pp_surface_varying(s, d->dims);
    m_max = bc_terms(d->nd, 1);
    d->idx = malloc((s->n + 1) * sizeof *d->idx);
    d->u = malloc((s->n * (d->nd + 2) + 1) * sizeof *d->u);
    d->x = malloc((2 * s->n * (m_max + 1) + 1) * sizeof *d->x);
    d->hw = malloc((s->n * m_max + 1) * sizeof *d->hw);
    if (!d->idx || !d->u || !d->x || !d->hw)
        return -ENOMEM;
    d->xf = d->x + s->n * (m_max + 1);
    d->v = d->u + s->n * d->nd;
    d->w = d->v + s->n;
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(y[i])) {
            if (log_values && !(y[i] > 0))
                return -EINVAL;
            d->idx[d->n++] = i;
            floor_v = fmax(floor_v, 1e-9 * fabs(y[i]));
        }
    for (size_t r = 0; r < d->n; r++) {
        size_t i = d->idx[r];
        for (size_t k = 0; k < d->nd; k++)
            d->u[r * d->nd + k] = bc_u(s, d->dims[k], s->x[i * s->d + d->dims[k]]);
        d->v[r] = log_values ? log(y[i]) : y[i];
        d->w[r] = row_weight(s, i, d->v[r], log_values, floor_v);
    }
    if (!(d->tt = malloc((d->nd * PP_BOXCOX_GRID_N * d->n + 1) * sizeof *d->tt)))
        return -ENOMEM;
    for (size_t k = 0; k < d->nd; k++)
        for (size_t g = 0; g < PP_BOXCOX_GRID_N; g++)
            for (size_t r = 0; r < d->n; r++)
                d->tt[(k * PP_BOXCOX_GRID_N + g) * d->n + r] =
                    bc_t(d->u[r * d->nd + k], PP_BOXCOX_GRID_LO + PP_BOXCOX_GRID_STEP * (double)g);
    return bc_folds(d, folds, n_folds);
}

/* Solve fold f's system (G less its rows' Gram) into beta: 0 or -1. */
static int solve_fold(bc_data *d, size_t f, size_t m, const double *g, const double *b,
                      double *beta)
{
    size_t cnt = d->start[f + 1] - d->start[f];
    double gf[BC_M_MAX * BC_M_MAX], bf[BC_M_MAX], sc[BC_M_MAX];

    if (m > BC_M_MAX || d->n - cnt < m)
        return -1;
    for (size_t k = 0; k < cnt; k++) /* the fold's weighed rows, then z as column m */
        for (size_t c = 0; c <= m; c++)
            d->xf[k * (m + 1) + c] = d->x[d->mem[d->start[f] + k] * (m + 1) + c];
    pp_blas_dgemm(PP_BLAS_T, PP_BLAS_N, (int)m, (int)m, (int)cnt, -1.0, d->xf, (int)(m + 1),
                  d->xf, (int)(m + 1), 0.0, gf, (int)m);
    pp_blas_dgemm(PP_BLAS_T, PP_BLAS_N, (int)m, 1, (int)cnt, -1.0, d->xf, (int)(m + 1),
                  d->xf + m, (int)(m + 1), 0.0, bf, 1);
    for (size_t r = 0; r < m; r++) {
        double dg = g[r * m + r] + gf[r * m + r];
        sc[r] = dg > 0 ? 1.0 / sqrt(dg) : 1.0;
    }
    for (size_t r = 0; r < m; r++) {
        for (size_t c = 0; c < m; c++)
            gf[r * m + c] = (g[r * m + c] + gf[r * m + c]) * sc[r] * sc[c];
        gf[r * m + r] += 1e-10;
        beta[r] = (b[r] + bf[r]) * sc[r];
    }
    if (pp_lapack_dposv(PP_LAPACK_ROW_MAJOR, 'U', (int)m, 1, gf, (int)m, beta, 1) != 0)
        return -1;
    for (size_t r = 0; r < m; r++)
        beta[r] *= sc[r];
    return 0;
}

/* The full system G (scaled to unit diagonal by sc) factored once into gs,
 * its solution into beta, and W = G^-1 Z^T for every row into d->hw
 * (column r: row r's terms): what bc_hat_fold needs. -1 when G cannot be
 * factored (then each fold is solved on its own). */
static int bc_hat_init(bc_data *d, size_t m, const double *g, const double *b, double *gs,
                       double *sc, double *beta)
{
    for (size_t r = 0; r < m; r++)
        sc[r] = g[r * m + r] > 0 ? 1.0 / sqrt(g[r * m + r]) : 1.0;
    for (size_t r = 0; r < m; r++) {
        for (size_t c = 0; c < m; c++)
            gs[r * m + c] = g[r * m + c] * sc[r] * sc[c];
        gs[r * m + r] += 1e-10;
        beta[r] = b[r] * sc[r];
    }
    for (size_t i = 0; i < d->n; i++)
        for (size_t r = 0; r < m; r++)
            d->hw[i * m + r] = d->x[i * (m + 1) + r] * sc[r];
    if (pp_lapack_dpotrf(PP_LAPACK_COL_MAJOR, 'L', (int)m, gs, (int)m) != 0 ||
        pp_lapack_dpotrs(PP_LAPACK_COL_MAJOR, 'L', (int)m, 1, gs, (int)m, beta, (int)m) != 0 ||
        pp_lapack_dpotrs(PP_LAPACK_COL_MAJOR, 'L', (int)m, (int)d->n, gs, (int)m, d->hw,
                         (int)m) != 0)
        return -1;
    for (size_t r = 0; r < m; r++)
        beta[r] *= sc[r];
    return 0;
}

/* e := (I - H_ff)^-1 e for the cnt x cnt matrix a = I - H_ff (overwritten):
 * -1 when a is near singular. */
static int bc_hat_solve(double *a, double *e, size_t cnt)
{
    if (cnt == 1) /* leave-one-out: no solve */
        return a[0] >= 1e-6 ? (e[0] /= a[0], 0) : -1;
    if (pp_lapack_dpotrf(PP_LAPACK_COL_MAJOR, 'L', (int)cnt, a, (int)cnt) != 0)
        return -1;
    for (size_t i = 0; i < cnt; i++)
        if (a[i * cnt + i] * a[i * cnt + i] < 1e-6)
            return -1;
    return pp_lapack_dpotrs(PP_LAPACK_COL_MAJOR, 'L', (int)cnt, 1, a, (int)cnt, e, (int)cnt) == 0
               ? 0
               : -1;
}

/* Whether fold f is left out by the hat matrix (bc_hat_fold): no more
 * rows than terms, and as many left. */
static int bc_hat_fits(const bc_data *d, size_t f, size_t m)
{
    size_t cnt = d->start[f + 1] - d->start[f];
    return cnt <= m && d->n - cnt >= m;
}

/* Fold f's rows predicted without them from the full fit (beta) by the
 * hat matrix: their residuals e solve (I - H_ff) e_out = e with H_ff =
 * Z_f G^-1 Z_f^T, and the prediction is the value less e_out. -1 when the
 * fold has more rows than terms (its own solve is cheaper) or I - H_ff is
 * near singular (the fold carries a term alone: its own solve is stable). */
static int bc_hat_fold(bc_data *d, size_t f, size_t m, const double *sc, const double *beta)
{
    size_t cnt = d->start[f + 1] - d->start[f];
    double a[BC_M_MAX * BC_M_MAX], e[BC_M_MAX];

    if (!bc_hat_fits(d, f, m))
        return -1;
    for (size_t i = 0; i < cnt; i++) {
        const double *zi = d->x + d->mem[d->start[f] + i] * (m + 1);
        e[i] = zi[m] - dot(zi, beta, m);
        for (size_t j = 0; j < cnt; j++) {
            const double *wj = d->hw + d->mem[d->start[f] + j] * m;
            double h = 0;
            for (size_t r = 0; r < m; r++)
                h += zi[r] * sc[r] * wj[r];
            a[i * cnt + j] = (i == j) - h;
        }
    }
    if (bc_hat_solve(a, e, cnt) < 0)
        return -1;
    for (size_t i = 0; i < cnt; i++) {
        size_t r = d->mem[d->start[f] + i];
        d->pred[d->start[f] + i] = (d->x[r * (m + 1) + m] - e[i]) / d->w[r];
    }
    return 0;
}

/* Fold f's rows predicted from the others by its own system. */
static void bc_own_fold(bc_data *d, size_t f, size_t m, const double *g, const double *b)
{
    double beta[BC_M_MAX];
    int ok = solve_fold(d, f, m, g, b, beta) == 0;

    for (size_t p = d->start[f]; p < d->start[f + 1]; p++) {
        size_t r = d->mem[p];
        d->pred[p] = ok ? dot(d->x + r * (m + 1), beta, m) / d->w[r] : NAN;
    }
}

/* The weighed rows [terms * w, v * w] of exponents expo into d->x. */
static void bc_rows(bc_data *d, const double *expo, int inter, size_t m)
{
    double t[PP_SURFACE_MAX_DIMS];
    long gi[PP_SURFACE_MAX_DIMS];

    for (size_t k = 0; k < d->nd; k++) { /* the grid's index of each exponent, or -1 */
        double at = (expo[k] - PP_BOXCOX_GRID_LO) / PP_BOXCOX_GRID_STEP;
        gi[k] = at >= 0 && at < PP_BOXCOX_GRID_N && fabs(at - round(at)) < 1e-9 ? lround(at) : -1;
    }
    for (size_t r = 0; r < d->n; r++) {
        double *row = d->x + r * (m + 1);
        for (size_t k = 0; k < d->nd; k++)
            t[k] = gi[k] >= 0 ? d->tt[((size_t)k * PP_BOXCOX_GRID_N + (size_t)gi[k]) * d->n + r]
                              : bc_t(d->u[r * d->nd + k], expo[k]);
        bc_row(t, d->nd, inter, row);
        row[m] = d->v[r];
        for (size_t c = 0; c <= m; c++)
            row[c] *= d->w[r];
    }
}

/* The cross-validated errors of exponents expo (one per varying
 * dimension) with or without interactions: one fit of every row, each
 * fold left out of it by the hat matrix, or by its own system where that
 * is cheaper or stabler. */
static void bc_cv(bc_data *d, const double *expo, int inter, pp_cv *cv)
{
    size_t m = bc_terms(d->nd, inter);
    double g[BC_M_MAX * BC_M_MAX], gs[BC_M_MAX * BC_M_MAX], b[BC_M_MAX], beta[BC_M_MAX];
    double sc[BC_M_MAX];
    int hat = -1;

    if (m > BC_M_MAX) {
        memset(cv, 0, sizeof *cv);
        cv->crit = INFINITY;
        return;
    }
    bc_rows(d, expo, inter, m);
    pp_blas_dgemm(PP_BLAS_T, PP_BLAS_N, (int)m, (int)m, (int)d->n, 1.0, d->x, (int)(m + 1), d->x,
                  (int)(m + 1), 0.0, g, (int)m);
    pp_blas_dgemm(PP_BLAS_T, PP_BLAS_N, (int)m, 1, (int)d->n, 1.0, d->x, (int)(m + 1), d->x + m,
                  (int)(m + 1), 0.0, b, 1);
    /* the full system factored when a first fold can be left out by the
     * hat matrix (a grid's level folds, more rows than terms: never) */
    for (size_t f = 0; f < d->n_folds; f++) {
        if (hat < 0 && bc_hat_fits(d, f, m))
            hat = bc_hat_init(d, m, g, b, gs, sc, beta) == 0;
        if (hat != 1 || bc_hat_fold(d, f, m, sc, beta) < 0)
            bc_own_fold(d, f, m, g, b);
    }
    if (d->log_values)
        for (size_t p = 0; p < d->n_pairs; p++)
            d->pred[p] = exp(d->pred[p]);
    pp_cv_pairs(d->s, d->y, d->pair_sample, d->pred, d->n_pairs, cv);
}

/* Coordinate descent over the grid: expo (one per varying dimension)
 * improved in place, its errors in *cv. */
/* The exponents a descent has scored, with their errors: each line's scan
 * meets its own starting point again, and the second sweep's last line is
 * the first's when nothing moved in between. bc_cv depends on the
 * exponents alone, so a stored score is the same to the last bit as a new
 * one (no memory: every point scored). */
typedef struct bc_seen {
    size_t n, nd;
    double *expo; /* n x nd */
    pp_cv *cv;
} bc_seen;

static void bc_cv_once(bc_data *d, const double *expo, int inter, bc_seen *seen, pp_cv *cv)
{
    for (size_t i = 0; seen->cv && i < seen->n; i++) {
        size_t k = 0;
        while (k < seen->nd && seen->expo[i * seen->nd + k] == expo[k])
            k++;
        if (k == seen->nd) {
            *cv = seen->cv[i];
            return;
        }
    }
    bc_cv(d, expo, inter, cv);
    if (seen->cv) {
        memcpy(seen->expo + seen->n * seen->nd, expo, seen->nd * sizeof *expo);
        seen->cv[seen->n++] = *cv;
    }
}

static void descend(bc_data *d, double *expo, int inter, pp_cv *cv)
{
    size_t cap = 1 + 2 * d->nd * PP_BOXCOX_GRID_N; /* every point scored, at most */
    bc_seen seen = {0, d->nd, malloc(cap * d->nd * sizeof *seen.expo), malloc(cap * sizeof *seen.cv)};

    if (!seen.expo || !seen.cv) {
        free(seen.expo);
        free(seen.cv);
        seen.expo = NULL;
        seen.cv = NULL;
    }
    bc_cv_once(d, expo, inter, &seen, cv);
    for (int sweep = 0; sweep < 2; sweep++)
        for (size_t k = 0; k < d->nd; k++) {
            double keep = expo[k];
            for (size_t g = 0; g < PP_BOXCOX_GRID_N; g++) {
                pp_cv c;
                expo[k] = PP_BOXCOX_GRID_LO + PP_BOXCOX_GRID_STEP * (double)g;
                bc_cv_once(d, expo, inter, &seen, &c);
                if (c.crit < cv->crit * (1 - 1e-9)) {
                    *cv = c;
                    keep = expo[k];
                }
            }
            expo[k] = keep;
        }
    free(seen.expo);
    free(seen.cv);
}

static int boxcox_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred)
{
    pp_fold *folds = malloc((s->n + 1) * sizeof *folds);
    double expo[PP_SURFACE_MAX_DIMS];
    size_t nf = 0;
    bc_data d;
    pp_cv cv;
    int rc;

    if (!folds)
        return -ENOMEM;
    for (size_t i = 0; i < s->n; i++) {
        pred[i] = NAN;
        if (!isnan(y[i]))
            folds[nf++] = (pp_fold){SIZE_MAX, i};
    }
    rc = bc_data_init(&d, s, y, spec->log_values, folds, nf);
    if (rc == 0 && !pp_lapack_available())
        rc = -EINVAL;
    for (size_t k = 0; rc == 0 && k < d.nd; k++)
        expo[k] = spec->expo[d.dims[k]];
    if (rc == 0) {
        bc_cv(&d, expo, spec->inter, &cv);
        for (size_t p = 0; p < d.n_pairs; p++)
            pred[d.pair_sample[p]] = d.pred[p];
    }
    bc_data_free(&d);
    free(folds);
    return rc;
}

int pp_boxcox_tune(const pp_surface *s, const double *y, int log_values, const pp_fold *folds,
                   size_t n_folds, pp_est_spec *spec, pp_cv *cv)
{
    double expo[2][PP_SURFACE_MAX_DIMS];
    pp_cv c[2];
    bc_data d;
    int rc = bc_data_init(&d, s, y, log_values, folds, n_folds), best = 0;

    if (rc < 0 || !pp_lapack_available()) {
        bc_data_free(&d);
        return rc < 0 ? rc : -EINVAL;
    }
    for (int inter = 0; inter <= 1; inter++) {
        for (size_t k = 0; k < d.nd; k++)
            expo[inter][k] = 1.0;
        c[inter].crit = INFINITY;
        if (inter && (d.nd < 2 || d.n < 2 * bc_terms(d.nd, 1) || bc_terms(d.nd, 1) > BC_M_MAX))
            continue;
        descend(&d, expo[inter], inter, &c[inter]);
    }
    best = c[1].crit < c[0].crit * (1 - 1e-3);
    memset(spec, 0, sizeof *spec);
    spec->method = PP_METHOD_BOXCOX;
    spec->log_values = log_values;
    spec->inter = best;
    for (size_t j = 0; j < PP_SURFACE_MAX_DIMS; j++)
        spec->expo[j] = 1.0;
    for (size_t k = 0; k < d.nd; k++)
        spec->expo[d.dims[k]] = expo[best][k];
    *cv = c[best];
    rc = isfinite(cv->crit) ? 0 : -EINVAL;
    bc_data_free(&d);
    return rc;
}

/* ---- in the estimators' table ---- */

static int boxcox_fit_op(pp_est *e)
{
    int rc = boxcox_fit(e);

    if (rc < 0)
        pp_log_debug("fit: boxcox with %zu samples: no solution", e->n_used);
    return rc;
}

/* With a residual smoother, each sample is left out by fitting without it
 * (boxcox_gp.c: the terms and kernel computed once). */
static int boxcox_loo_op(const pp_surface *s, const double *y, const double *v,
                         const pp_est_spec *spec, double *pred)
{
    (void)v;
    return spec->h > 0 ? pp_boxcox_gp_loo(s, y, spec, pred) : boxcox_loo(s, y, spec, pred);
}

/* With a residual smoother, folds as leave-one-out (boxcox_gp.c); without,
 * each refitted. */
static int boxcox_folds_op(const pp_surface *s, const double *y, const double *v,
                           const pp_est_spec *spec, const pp_fold *folds, size_t n_folds,
                           size_t *idx, double *pred, size_t *n)
{
    (void)v;
    return spec->h > 0 ? pp_boxcox_gp_folds(s, y, spec, folds, n_folds, idx, pred, n) : -ENOTSUP;
}

const pp_est_ops pp_est_boxcox_ops = {boxcox_fit_op, boxcox_eval, boxcox_loo_op, boxcox_folds_op};
