/* The weighted average on a grid of points (nw.h, pp_nw_grid):
 * separable sums as matrix products. */
#include "nw.h"

#include "blas.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define UNDERFLOW 1e-280

int pp_nw_grid_direct(const pp_surface *s, const double *y, double sigma, size_t da,
                      const double *ga, size_t na, size_t db, const double *gb, size_t nb,
                      const double *fixed, double *out)
{
    double xn[PP_SURFACE_MAX_DIMS];

    memcpy(xn, fixed, s->d * sizeof *xn);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            xn[da] = ga[i];
            if (db != da)
                xn[db] = gb[j];
            out[i * nb + j] = pp_nw_predict(s, y, sigma, xn);
        }
    return 0;
}

/* qsort_r of sample indices by one coordinate: ctx is the column */
static int cmp_by_key(const void *a, const void *b, void *ctx)
{
    const double *key = ctx;
    double x = key[*(const size_t *)a], y = key[*(const size_t *)b];
    return (x > y) - (x < y);
}

/* One grid request: the grid points, the samples' factors f (the other
 * dimensions at their fixed values), the sums num and den (na x nb). */
typedef struct grid_req {
    const pp_surface *s;
    const double *y, *ga, *gb, *f;
    double sigma, inv;
    size_t da, db, na, nb;
    int line;
    double *num, *den;
} grid_req;

/* The other dimensions at their fixed values: a factor per sample, scaled
 * by the largest so that it does not underflow. */
static void fixed_factors(const pp_surface *s, const double *y, const double *fixed, size_t da,
                          size_t db, double inv, double *f)
{
    double rmin = INFINITY;

    for (size_t i = 0; i < s->n; i++) {
        double r = 0;
        for (size_t j = 0; j < s->d; j++)
            if (j != da && j != db)
                r += (fixed[j] - s->x[i * s->d + j]) * (fixed[j] - s->x[i * s->d + j]);
        f[i] = isnan(y[i]) ? NAN : r;
        if (!isnan(y[i]) && r < rmin)
            rmin = r;
    }
    for (size_t i = 0; i < s->n; i++)
        f[i] = isnan(f[i]) ? 0.0 : exp(-(f[i] - rmin) * inv);
}

/* The sums of one block of grid rows [i0, i1) over the sorted samples
 * within cut of it (idx, xs sorted by the da coordinate; e2 the kernel of
 * db per grid column and sample; a1, a2 scratch). */
static void scattered_block(const grid_req *q, size_t i0, size_t i1, const size_t *idx,
                            const double *xs, const double *e2, double *a1, double *a2)
{
    const pp_surface *s = q->s;
    size_t n = s->n, k0, k1, m;
    double cut = 8.0 * q->sigma, lo_x = INFINITY, hi_x = -INFINITY;

    for (size_t ii = i0; ii < i1; ii++) {
        lo_x = q->ga[ii] < lo_x ? q->ga[ii] : lo_x;
        hi_x = q->ga[ii] > hi_x ? q->ga[ii] : hi_x;
    }
    lo_x -= cut;
    hi_x += cut;
    for (k0 = 0, k1 = n; k0 < k1;) { /* first xs >= lo_x */
        size_t mid = (k0 + k1) / 2;
        if (xs[mid] < lo_x)
            k0 = mid + 1;
        else
            k1 = mid;
    }
    for (k1 = k0; k1 < n && xs[k1] <= hi_x; k1++)
        ;
    m = k1 - k0;
    if (m == 0) {
        for (size_t c = i0 * q->nb; c < i1 * q->nb; c++)
            q->num[c] = q->den[c] = 0.0;
        return;
    }
    for (size_t ii = i0; ii < i1; ii++)
        for (size_t k = 0; k < m; k++) {
            size_t o = idx[k0 + k];
            double g = q->ga[ii] - xs[k0 + k], w = exp(-g * g * q->inv) * q->f[o];
            a1[(ii - i0) * m + k] = isnan(q->y[o]) ? 0.0 : w * q->y[o];
            a2[(ii - i0) * m + k] = w;
        }
    pp_blas_dgemm(PP_BLAS_N, PP_BLAS_T, (int)(i1 - i0), (int)q->nb, (int)m, 1.0, a1, (int)m,
                  e2 + k0, (int)n, 0.0, q->num + i0 * q->nb, (int)q->nb);
    pp_blas_dgemm(PP_BLAS_N, PP_BLAS_T, (int)(i1 - i0), (int)q->nb, (int)m, 1.0, a2, (int)m,
                  e2 + k0, (int)n, 0.0, q->den + i0 * q->nb, (int)q->nb);
}

/* Scattered samples: one column per sample, num = (ea .* y f) eb^T.
 * Samples sorted by their da coordinate; a block of grid rows only takes
 * those within cut = 8 sigma of it: a sample left out weighs at most
 * exp(-64) there, so n exp(-64) bounds what is lost, and a point whose
 * kept sum is not 1e12 times that is summed directly (den set to 0). */
static int grid_scattered(const grid_req *q)
{
    const pp_surface *s = q->s;
    size_t n = s->n, block = 64;
    double lost = (double)n * exp(-64.0);
    size_t *idx = malloc(n * sizeof *idx);
    double *xs = malloc(n * sizeof *xs), *e2 = malloc(q->nb * n * sizeof *e2);
    double *a1 = malloc(2 * block * n * sizeof *a1);
    int rc = idx && xs && e2 && a1 ? 0 : -ENOMEM;

    for (size_t k = 0; rc == 0 && k < n; k++) {
        idx[k] = k;
        e2[k] = s->x[k * s->d + q->da]; /* the sort key, before e2 is filled */
    }
    if (rc == 0)
        qsort_r(idx, n, sizeof *idx, cmp_by_key, e2);
    for (size_t k = 0; rc == 0 && k < n; k++)
        xs[k] = s->x[idx[k] * s->d + q->da];
    for (size_t jj = 0; rc == 0 && jj < q->nb; jj++)
        for (size_t k = 0; k < n; k++) {
            double g = q->line ? 0.0 : q->gb[jj] - s->x[idx[k] * s->d + q->db];
            e2[jj * n + k] = exp(-g * g * q->inv);
        }
    for (size_t i0 = 0; rc == 0 && i0 < q->na; i0 += block)
        scattered_block(q, i0, i0 + block < q->na ? i0 + block : q->na, idx, xs, e2, a1,
                        a1 + block * n);
    for (size_t c = 0; rc == 0 && c < q->na * q->nb; c++)
        if (q->den[c] < 1e12 * lost)
            q->den[c] = 0.0; /* not enough kept: the direct sum */
    free(idx);
    free(xs);
    free(e2);
    free(a1);
    return rc;
}

/* A lattice: sums over the distinct (da, db) coordinates, sn = sum y f and
 * sd = sum f, then t = [sn; sd] eb^T and num = ea t. */
static int grid_lattice(const grid_req *q)
{
    const pp_surface *s = q->s;
    size_t ka = s->k[q->da], kb = q->line ? 1 : s->k[q->db], na = q->na, nb = q->nb;
    double *sn = calloc(2 * ka * kb, sizeof *sn), *sd = sn ? sn + ka * kb : NULL;
    double *ea = malloc(na * ka * sizeof *ea), *eb = malloc(nb * kb * sizeof *eb);
    double *t = malloc(2 * ka * nb * sizeof *t);
    int rc = sn && ea && eb && t ? 0 : -ENOMEM;

    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        size_t c = s->cell[i * s->d + q->da] * kb + (q->line ? 0 : s->cell[i * s->d + q->db]);
        if (isnan(q->y[i]))
            continue;
        sn[c] += q->y[i] * q->f[i];
        sd[c] += q->f[i];
    }
    for (size_t i = 0; rc == 0 && i < na; i++)
        for (size_t a = 0; a < ka; a++) {
            double g = q->ga[i] - s->levels[q->da][a];
            ea[i * ka + a] = exp(-g * g * q->inv);
        }
    for (size_t j = 0; rc == 0 && j < nb; j++)
        for (size_t b = 0; b < kb; b++) {
            double g = q->line ? 0.0 : q->gb[j] - s->levels[q->db][b];
            eb[j * kb + b] = exp(-g * g * q->inv);
        }
    if (rc == 0) {
        pp_blas_dgemm(PP_BLAS_N, PP_BLAS_T, (int)ka, (int)nb, (int)kb, 1.0, sn, (int)kb, eb,
                      (int)kb, 0.0, t, (int)nb);
        pp_blas_dgemm(PP_BLAS_N, PP_BLAS_T, (int)ka, (int)nb, (int)kb, 1.0, sd, (int)kb, eb,
                      (int)kb, 0.0, t + ka * nb, (int)nb);
        pp_blas_dgemm(PP_BLAS_N, PP_BLAS_N, (int)na, (int)nb, (int)ka, 1.0, ea, (int)ka, t,
                      (int)nb, 0.0, q->num, (int)nb);
        pp_blas_dgemm(PP_BLAS_N, PP_BLAS_N, (int)na, (int)nb, (int)ka, 1.0, ea, (int)ka,
                      t + ka * nb, (int)nb, 0.0, q->den, (int)nb);
    }
    free(sn);
    free(ea);
    free(eb);
    free(t);
    return rc;
}

int pp_nw_grid(const pp_surface *s, const double *y, double sigma, size_t da,
               const double *ga, size_t na, size_t db, const double *gb, size_t nb,
               const double *fixed, double *out)
{
    double *f = malloc((s->n + 1) * sizeof *f), *num = malloc((2 * na * nb + 1) * sizeof *num);
    double xn[PP_SURFACE_MAX_DIMS];
    size_t ka = s->k[da], kb = db == da ? 1 : s->k[db];
    grid_req q = {s, y, ga, gb, f, sigma, 1.0 / (sigma * sigma), da, db, na, nb, db == da, num,
                  num ? num + na * nb : NULL};
    int rc = f && num ? 0 : -ENOMEM;

    if (rc == 0) {
        fixed_factors(s, y, fixed, da, db, q.inv, f);
        rc = (double)ka * (double)kb > 4.0 * (double)s->n ? grid_scattered(&q) : grid_lattice(&q);
    }
    memcpy(xn, fixed, s->d * sizeof *xn);
    for (size_t i = 0; rc == 0 && i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            size_t c = i * nb + j;
            if (q.den[c] > UNDERFLOW) { /* (0 when the sum is to be redone) */
                out[c] = num[c] / q.den[c];
            } else { /* far from every sample at this sigma: the stable sum */
                xn[da] = ga[i];
                if (!q.line)
                    xn[db] = gb[j];
                out[c] = pp_nw_predict(s, y, sigma, xn);
            }
        }
    free(f);
    free(num);
    return rc;
}
