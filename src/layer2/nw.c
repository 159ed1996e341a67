/* nw.c - the paper's estimator (nw.h): the Gaussian-kernel weighted
 * average, its leave-one-out by separable sums on lattices, and its
 * operations for the estimators' table (est.h). It does not use run
 * weights (estimator.h says why). */
#include "nw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LATTICE_MAX_CELLS 4000000
#define UNDERFLOW 1e-280

/* Weighted average at xn, leaving out sample skip (n for none). */
static double predict_skip(const pp_surface *s, const double *y, double h, const double *xn,
                           size_t skip)
{
    /* at a sample (leave-one-out), its row of the surface's distances */
    const double *d2 = skip < s->n && s->d2 ? s->d2 + skip * s->n : NULL;
    double m = INFINITY, num = 0, den = 0, inv = 1.0 / (h * h);

    for (size_t i = 0; i < s->n; i++)
        if (i != skip && !isnan(y[i])) {
            double g = d2 ? d2[i] : pp_dist2(xn, s->x + i * s->d, s->d);
            if (g < m)
                m = g;
        }
    if (!isfinite(m))
        return NAN;
    for (size_t i = 0; i < s->n; i++) {
        double e, w;
        /* past 700 a weight (< 1e-304 of the nearest's 1) adds nothing */
        if (i == skip || isnan(y[i]) ||
            (e = ((d2 ? d2[i] : pp_dist2(xn, s->x + i * s->d, s->d)) - m) * inv) > 700)
            continue;
        w = exp(-e);
        num += w * y[i];
        den += w;
    }
    return num / den;
}

double pp_nw_predict(const pp_surface *s, const double *y, double h, const double *xn)
{
    return predict_skip(s, y, h, xn, s->n);
}

int pp_nw_loo_direct(const pp_surface *s, const double *y, double h, double *pred)
{
    for (size_t i = 0; i < s->n; i++)
        pred[i] = isnan(y[i]) ? NAN : predict_skip(s, y, h, s->x + i * s->d, i);
    return 0;
}

/* Apply, along each mode j >= first of the tensor t (shape k[0] x ... x
 * k[d-1], last fastest), the kernel matrix of dimension j; for j == first
 * that matrix minus the identity. */
static int mode_products(const pp_surface *s, double h, double *t, size_t cells, size_t first)
{
    double inv = 1.0 / (h * h), *e, *fiber;
    size_t stride = cells, kmax = 1;

    for (size_t j = 0; j < s->d; j++)
        kmax = s->k[j] > kmax ? s->k[j] : kmax;
    if (!(e = malloc((kmax * kmax + 2 * kmax) * sizeof *e))) /* a kernel matrix, a fiber */
        return -ENOMEM;
    fiber = e + kmax * kmax;
    for (size_t j = 0; j < s->d; j++) {
        size_t k = s->k[j], outer;
        stride /= k;
        if (j < first)
            continue;
        outer = cells / (k * stride);
        for (size_t a = 0; a < k; a++)
            for (size_t b = 0; b < k; b++) {
                double g = s->levels[j][a] - s->levels[j][b];
                e[a * k + b] = a == b && j == first ? 0.0 : exp(-g * g * inv);
            }
        for (size_t o = 0; o < outer; o++)
            for (size_t in = 0; in < stride; in++) {
                double *base = t + o * k * stride + in;
                for (size_t a = 0; a < k; a++)
                    fiber[a] = base[a * stride];
                for (size_t a = 0; a < k; a++) {
                    double acc = 0;
                    for (size_t b = 0; b < k; b++)
                        acc += e[a * k + b] * fiber[b];
                    fiber[k + a] = acc;
                }
                for (size_t a = 0; a < k; a++)
                    base[a * stride] = fiber[k + a];
            }
    }
    free(e);
    return 0;
}

/* The cells of the truncated sum: side c, g[j] per dimension, the
 * samples sorted by cell (order, start[cells + 1]) and each one's cell. */
typedef struct trunc_grid {
    double c;
    size_t g[3], cells, *start, *order, *cell_of;
} trunc_grid;

static void trunc_free(trunc_grid *t)
{
    free(t->start);
    free(t->order);
    free(t->cell_of);
}

/* A counting sort of the samples by cell: 0 or -ENOMEM. */
static int trunc_init(const pp_surface *s, trunc_grid *t)
{
    size_t d = s->d, *fill;

    t->start = calloc(t->cells + 1, sizeof *t->start);
    t->order = malloc(s->n * sizeof *t->order);
    t->cell_of = malloc(s->n * sizeof *t->cell_of);
    fill = malloc(t->cells * sizeof *fill);
    if (!t->start || !t->order || !t->cell_of || !fill) {
        free(fill);
        return -ENOMEM;
    }
    for (size_t i = 0; i < s->n; i++) {
        size_t k = 0;
        for (size_t j = 0; j < d; j++) {
            double v = s->x[i * d + j];
            size_t q = v <= 0 ? 0 : (size_t)(v / t->c);
            if (q >= t->g[j])
                q = t->g[j] - 1;
            k = k * t->g[j] + q;
        }
        t->cell_of[i] = k;
        t->start[k + 1]++;
    }
    for (size_t k = 0; k < t->cells; k++)
        t->start[k + 1] += t->start[k];
    memcpy(fill, t->start, t->cells * sizeof *fill);
    for (size_t i = 0; i < s->n; i++)
        t->order[fill[t->cell_of[i]]++] = i;
    free(fill);
    return 0;
}

/* Over the cube of cells within reach of cell q: pass 1, the nearest other
 * sample (*d0); pass 2, the sums of the samples within r2. */
static void trunc_cube(const pp_surface *s, const double *y, const trunc_grid *t, size_t i,
                       const long *q, long reach, int pass, double inv, double r2, double *d0,
                       double *num, double *den)
{
    long lo[3], hi[3], at[3];
    size_t d = s->d;

    for (size_t j = 0; j < 3; j++) {
        lo[j] = j < d ? q[j] - reach : 0;
        hi[j] = j < d ? q[j] + reach : 0;
    }
    for (at[0] = lo[0]; at[0] <= hi[0]; at[0]++)
        for (at[1] = lo[1]; at[1] <= hi[1]; at[1]++)
            for (at[2] = lo[2]; at[2] <= hi[2]; at[2]++) {
                size_t k = 0;
                int inside = 1;
                for (size_t j = 0; j < d; j++) {
                    if (at[j] < 0 || at[j] >= (long)t->g[j])
                        inside = 0;
                    k = k * t->g[j] + (size_t)(inside ? at[j] : 0);
                }
                for (size_t m = inside ? t->start[k] : 0; inside && m < t->start[k + 1]; m++) {
                    size_t o = t->order[m];
                    double dd;
                    if (o == i || isnan(y[o]))
                        continue;
                    dd = pp_dist2(s->x + i * d, s->x + o * d, d);
                    if (pass == 1 && dd < *d0 * *d0) {
                        *d0 = sqrt(dd);
                    } else if (pass == 2 && dd <= r2) {
                        double w = exp(-(dd - *d0 * *d0) * inv);
                        *num += w * y[o];
                        *den += w;
                    }
                }
            }
}

/* The truncated leave-one-out prediction of sample i: pass 1 finds the
 * nearest other sample (distance d0) in growing cubes of cells until
 * nothing outside can be nearer; pass 2 sums every sample within r =
 * sqrt(d0^2 + 36 h^2), in the cube that holds r. */
static double trunc_at(const pp_surface *s, const double *y, double h, const trunc_grid *t,
                       size_t i)
{
    long q[3] = {0, 0, 0}, reach = 1;
    long gmax = (long)(t->g[0] > t->g[1] ? (t->g[0] > t->g[2] ? t->g[0] : t->g[2])
                                         : (t->g[1] > t->g[2] ? t->g[1] : t->g[2]));
    double d0 = INFINITY, num = 0, den = 0, r2, inv = 1.0 / (h * h);
    size_t k = t->cell_of[i];

    for (size_t j = s->d; j-- > 0;) {
        q[j] = (long)(k % t->g[j]);
        k /= t->g[j];
    }
    for (;;) { /* outside the cube every sample is farther than reach c */
        trunc_cube(s, y, t, i, q, reach, 1, inv, 0, &d0, &num, &den);
        if (d0 <= (double)reach * t->c || reach > gmax)
            break;
        reach++;
    }
    r2 = d0 * d0 + 36.0 * h * h;
    trunc_cube(s, y, t, i, q, (long)ceil(sqrt(r2) / t->c), 2, inv, r2, &d0, &num, &den);
    return den > 0 ? num / den : predict_skip(s, y, h, s->x + i * s->d, i);
}

/* Leave-one-out by a truncated sum for scattered samples in up to 3
 * dimensions: a grid of cells of side c = 6 h (trunc_at). What is
 * left out weighs at most exp(-36) of the nearest each: n exp(-36)
 * relative in all (2e-12 for 10,000 samples). Returns 1 when not
 * applicable (more dimensions, or c covers the space), 0, or -ENOMEM. */
static int loo_truncated(const pp_surface *s, const double *y, double h, double *pred)
{
    trunc_grid t = {6.0 * h, {1, 1, 1}, 1, NULL, NULL, NULL};
    int rc;

    if (s->d == 0 || s->d > 3 || t.c >= 0.5)
        return 1;
    for (size_t j = 0; j < s->d; j++) {
        t.g[j] = (size_t)(1.0 / t.c) + 1;
        t.cells *= t.g[j];
    }
    if (t.cells > 4 * s->n + 64)
        return 1;
    rc = trunc_init(s, &t);
    for (size_t i = 0; rc == 0 && i < s->n; i++)
        pred[i] = isnan(y[i]) ? NAN : trunc_at(s, y, h, &t, i);
    trunc_free(&t);
    return rc;
}

int pp_nw_loo(const pp_surface *s, const double *y, double h, double *pred)
{
    size_t cells = 1;
    double *sum_y, *cnt, *num, *den, *tmp;

    for (size_t j = 0; j < s->d; j++) {
        if (cells > LATTICE_MAX_CELLS / s->k[j]) {
            cells = 0;
            break;
        }
        cells *= s->k[j];
    }
    if (cells == 0 || (cells > s->n * 4 && s->n < 2000)) { /* scattered */
        int rc = s->n >= 500 ? loo_truncated(s, y, h, pred) : 1;
        return rc == 1 ? pp_nw_loo_direct(s, y, h, pred) : rc;
    }
    sum_y = calloc(5 * cells, sizeof *sum_y);
    if (!sum_y)
        return -ENOMEM;
    cnt = sum_y + cells;
    num = cnt + cells;
    den = num + cells;
    tmp = den + cells;
    for (size_t i = 0; i < s->n; i++) {
        size_t c = 0;
        if (isnan(y[i]))
            continue;
        for (size_t j = 0; j < s->d; j++)
            c = c * s->k[j] + s->cell[i * s->d + j];
        sum_y[c] += y[i];
        cnt[c] += 1.0;
    }
    /* The kernel over other cells only, without cancellation:
     * (x)E - (x)I = sum_j I..I (E_j - I) E_j+1..E_d */
    for (size_t j = 0; j < s->d; j++) {
        for (int pass = 0; pass < 2; pass++) {
            memcpy(tmp, pass ? cnt : sum_y, cells * sizeof *tmp);
            if (mode_products(s, h, tmp, cells, j) < 0) {
                free(sum_y);
                return -ENOMEM;
            }
            for (size_t c = 0; c < cells; c++)
                (pass ? den : num)[c] += tmp[c];
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        size_t c = 0;
        double n_other, d_other;
        if (isnan(y[i])) {
            pred[i] = NAN;
            continue;
        }
        for (size_t j = 0; j < s->d; j++)
            c = c * s->k[j] + s->cell[i * s->d + j];
        /* other samples in the same cell are at distance 0: weight 1 */
        n_other = num[c] + (sum_y[c] - y[i]);
        d_other = den[c] + (cnt[c] - 1.0);
        pred[i] = d_other > UNDERFLOW ? n_other / d_other
                                      : predict_skip(s, y, h, s->x + i * s->d, i);
    }
    free(sum_y);
    return 0;
}

/* ---- in the estimators' table ---- */

static double nw_eval(const pp_est *e, const double *xn)
{
    return pp_nw_predict(e->s, e->v, e->spec.h, xn);
}

static int nw_loo(const pp_surface *s, const double *y, const double *v, const pp_est_spec *spec,
                  double *pred)
{
    int rc = pp_nw_loo(s, v, spec->h, pred);

    (void)y;
    for (size_t i = 0; rc == 0 && i < s->n; i++)
        pred[i] = pp_est_from_space(spec->log_values, pred[i]);
    return rc;
}

/* nw at sample i from the samples of w (i itself not among them) */
static double nw_at_sample(const pp_surface *s, const double *w, double h, size_t i,
                           const size_t *live, size_t n_live)
{
    (void)live;
    (void)n_live;
    return predict_skip(s, w, h, s->x + i * s->d, i);
}

static int nw_folds(const pp_surface *s, const double *y, const double *v, const pp_est_spec *spec,
                    const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n)
{
    (void)y;
    return pp_est_kernel_folds(s, v, spec, folds, n_folds, idx, pred, n, nw_at_sample);
}

const pp_est_ops pp_est_nw_ops = {NULL, nw_eval, nw_loo, nw_folds};
