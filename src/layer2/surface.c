#include "surface.h"

#include "blas.h"
#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LATTICE_MAX_CELLS 4000000
#define UNDERFLOW 1e-280

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void pp_surface_free(pp_surface *s)
{
    free(s->x);
    free(s->cell);
    free(s->weight);
    free(s->d2);
    for (size_t j = 0; j < PP_SURFACE_MAX_DIMS; j++)
        free(s->levels[j]);
    memset(s, 0, sizeof *s);
}

int pp_surface_set_weights(pp_surface *s, const double *w)
{
    double *copy = NULL;

    if (w) {
        for (size_t i = 0; i < s->n; i++)
            if (!(w[i] > 0)) {
                pp_log_error("surface: sample %zu: run weight %g (must be > 0)", i + 1, w[i]);
                return -EINVAL;
            }
        copy = malloc(s->n * sizeof *copy);
        if (!copy)
            return -ENOMEM;
        memcpy(copy, w, s->n * sizeof *copy);
    }
    free(s->weight);
    s->weight = copy;
    return 0;
}

static double to_unit(const pp_surface *s, size_t j, double raw)
{
    double v = s->log_scale[j] ? log10(raw) : raw;
    return s->hi[j] > s->lo[j] ? (v - s->lo[j]) / (s->hi[j] - s->lo[j]) : 0.0;
}

void pp_surface_normalize(const pp_surface *s, const double *raw, double *xn)
{
    for (size_t j = 0; j < s->d; j++)
        xn[j] = to_unit(s, j, raw[j]);
}

double pp_surface_denormalize(const pp_surface *s, size_t j, double xn)
{
    double v = s->lo[j] + xn * (s->hi[j] - s->lo[j]);
    return s->log_scale[j] ? pow(10.0, v) : v;
}

static double dist2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t j = 0; j < d; j++)
        s += (a[j] - b[j]) * (a[j] - b[j]);
    return s;
}

int pp_surface_init(pp_surface *s, const double *x_raw, size_t n, size_t d, const int *log_scale)
{
    memset(s, 0, sizeof *s);
    if (d > PP_SURFACE_MAX_DIMS || n == 0)
        return -EINVAL;
    s->n = n;
    s->d = d;
    s->x = malloc((n * d + 1) * sizeof *s->x);
    s->cell = malloc((n * d + 1) * sizeof *s->cell);
    if (!s->x || !s->cell)
        goto fail_mem;
    for (size_t j = 0; j < d; j++) {
        s->log_scale[j] = log_scale ? log_scale[j] : 0;
        s->lo[j] = INFINITY;
        s->hi[j] = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double v = x_raw[i * d + j];
            if (s->log_scale[j]) {
                if (!(v > 0)) {
                    pp_log_error("surface: parameter %zu: %g on a log scale (values must be > 0)",
                                 j + 1, v);
                    pp_surface_free(s);
                    return -EINVAL;
                }
                v = log10(v);
            }
            if (v < s->lo[j])
                s->lo[j] = v;
            if (v > s->hi[j])
                s->hi[j] = v;
        }
    }
    for (size_t i = 0; i < n; i++)
        pp_surface_normalize(s, x_raw + i * d, s->x + i * d);
    for (size_t j = 0; j < d; j++) {
        double *lv = malloc(n * sizeof *lv);
        size_t k = 0;
        if (!lv)
            goto fail_mem;
        for (size_t i = 0; i < n; i++)
            lv[i] = s->x[i * d + j];
        qsort(lv, n, sizeof *lv, cmp_double);
        for (size_t i = 0; i < n; i++)
            if (k == 0 || lv[i] != lv[k - 1])
                lv[k++] = lv[i];
        s->levels[j] = lv;
        s->k[j] = k;
        for (size_t i = 0; i < n; i++) {
            double v = s->x[i * d + j];
            size_t lo = 0, hi = k - 1;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (lv[mid] < v)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            s->cell[i * d + j] = lo;
        }
    }
    if (n <= PP_SURFACE_D2_MAX && (s->d2 = malloc(n * n * sizeof *s->d2)) != NULL)
        for (size_t a = 0; a < n; a++)
            for (size_t b = 0; b < n; b++)
                s->d2[a * n + b] = dist2(s->x + a * d, s->x + b * d, d);
    return 0;
fail_mem:
    pp_surface_free(s);
    return -ENOMEM;
}

/* Weighted average at xn, leaving out sample skip (n for none). */
static double predict_skip(const pp_surface *s, const double *y, double sigma, const double *xn,
                           size_t skip)
{
    double m = INFINITY, num = 0, den = 0, inv = 1.0 / (sigma * sigma);

    for (size_t i = 0; i < s->n; i++)
        if (i != skip && !isnan(y[i])) {
            double g = dist2(xn, s->x + i * s->d, s->d);
            if (g < m)
                m = g;
        }
    if (!isfinite(m))
        return NAN;
    for (size_t i = 0; i < s->n; i++)
        if (i != skip && !isnan(y[i])) {
            double w = exp(-(dist2(xn, s->x + i * s->d, s->d) - m) * inv);
            num += w * y[i];
            den += w;
        }
    return num / den;
}

double pp_surface_predict(const pp_surface *s, const double *y, double sigma, const double *xn)
{
    return predict_skip(s, y, sigma, xn, s->n);
}

int pp_surface_loo_direct(const pp_surface *s, const double *y, double sigma, double *pred)
{
    for (size_t i = 0; i < s->n; i++)
        pred[i] = isnan(y[i]) ? NAN : predict_skip(s, y, sigma, s->x + i * s->d, i);
    return 0;
}

/* Apply, along each mode j >= first of the tensor t (shape k[0] x ... x
 * k[d-1], last fastest), the kernel matrix of dimension j; for j == first
 * that matrix minus the identity. */
static int mode_products(const pp_surface *s, double sigma, double *t, size_t cells, size_t first)
{
    double inv = 1.0 / (sigma * sigma), *fiber = NULL, *e = NULL;
    size_t stride = cells;

    for (size_t j = 0; j < s->d; j++) {
        size_t k = s->k[j], outer;
        stride /= k;
        if (j < first)
            continue;
        outer = cells / (k * stride);
        free(e);
        free(fiber);
        e = malloc(k * k * sizeof *e);
        fiber = malloc(2 * k * sizeof *fiber);
        if (!e || !fiber) {
            free(e);
            free(fiber);
            return -ENOMEM;
        }
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
    free(fiber);
    return 0;
}

/* Leave-one-out by a truncated sum for scattered samples in up to 3
 * dimensions: a grid of cells of side c = 6 sigma; for sample i the nearest
 * other sample (distance d0) is looked for in the adjacent cells, and every
 * sample within sqrt(d0^2 + 36 sigma^2) (two rings) is summed. What is left
 * out weighs at most exp(-36) of the nearest each: n exp(-36) relative in
 * all (2e-12 for 10,000 samples). A sample with no neighbour within c is
 * summed directly. Returns 1 when not applicable (more dimensions, or c
 * covers the space), 0, or -ENOMEM. */
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
                    dd = dist2(s->x + i * d, s->x + o * d, d);
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
 * sqrt(d0^2 + 36 sigma^2), in the cube that holds r. */
static double trunc_at(const pp_surface *s, const double *y, double sigma, const trunc_grid *t,
                       size_t i)
{
    long q[3] = {0, 0, 0}, reach = 1;
    long gmax = (long)(t->g[0] > t->g[1] ? (t->g[0] > t->g[2] ? t->g[0] : t->g[2])
                                         : (t->g[1] > t->g[2] ? t->g[1] : t->g[2]));
    double d0 = INFINITY, num = 0, den = 0, r2, inv = 1.0 / (sigma * sigma);
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
    r2 = d0 * d0 + 36.0 * sigma * sigma;
    trunc_cube(s, y, t, i, q, (long)ceil(sqrt(r2) / t->c), 2, inv, r2, &d0, &num, &den);
    return den > 0 ? num / den : predict_skip(s, y, sigma, s->x + i * s->d, i);
}

/* Leave-one-out by a truncated sum for scattered samples in up to 3
 * dimensions: a grid of cells of side c = 6 sigma (trunc_at). What is
 * left out weighs at most exp(-36) of the nearest each: n exp(-36)
 * relative in all (2e-12 for 10,000 samples). Returns 1 when not
 * applicable (more dimensions, or c covers the space), 0, or -ENOMEM. */
static int loo_truncated(const pp_surface *s, const double *y, double sigma, double *pred)
{
    trunc_grid t = {6.0 * sigma, {1, 1, 1}, 1, NULL, NULL, NULL};
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
        pred[i] = isnan(y[i]) ? NAN : trunc_at(s, y, sigma, &t, i);
    trunc_free(&t);
    return rc;
}

int pp_surface_loo(const pp_surface *s, const double *y, double sigma, double *pred)
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
        int rc = s->n >= 500 ? loo_truncated(s, y, sigma, pred) : 1;
        return rc == 1 ? pp_surface_loo_direct(s, y, sigma, pred) : rc;
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
            if (mode_products(s, sigma, tmp, cells, j) < 0) {
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
                                      : predict_skip(s, y, sigma, s->x + i * s->d, i);
    }
    free(sum_y);
    return 0;
}

int pp_surface_interior(const pp_surface *s, size_t i)
{
    for (size_t j = 0; j < s->d; j++) {
        size_t c = s->cell[i * s->d + j];
        if (s->k[j] > 1 && (c == 0 || c == s->k[j] - 1))
            return 0;
    }
    return 1;
}

int pp_surface_cv(const pp_surface *s, const double *y, double sigma, int log_values,
                  pp_surface_fit *fit)
{
    double *pred = calloc(2 * s->n, sizeof *pred), *ly, se = 0, ape = 0, ape_in = 0;
    size_t n = 0, n_pct = 0, n_in = 0;
    int rc;

    if (!pred)
        return -ENOMEM;
    ly = pred + s->n;
    for (size_t i = 0; i < s->n; i++)
        ly[i] = log_values ? (y[i] > 0 ? log(y[i]) : NAN) : y[i];
    rc = pp_surface_loo(s, ly, sigma, pred);
    if (rc == 0) {
        for (size_t i = 0; i < s->n; i++) {
            double p = log_values ? exp(pred[i]) : pred[i];
            if (isnan(ly[i]) || isnan(pred[i]))
                continue;
            se += (p - y[i]) * (p - y[i]);
            n++;
            if (y[i] != 0) {
                double e = fabs((p - y[i]) / y[i]);
                ape += e;
                n_pct++;
                if (pp_surface_interior(s, i)) {
                    ape_in += e;
                    n_in++;
                }
            }
        }
        fit->sigma = sigma;
        fit->log_values = log_values;
        fit->n_used = n;
        fit->rmse = n ? sqrt(se / (double)n) : NAN;
        fit->mape = n_pct ? 100.0 * ape / (double)n_pct : NAN;
        fit->n_interior = n_in;
        fit->mape_interior = n_in ? 100.0 * ape_in / (double)n_in : NAN;
    }
    free(pred);
    return rc;
}

/* The criterion: RMSE of y, or of the relative error when on log scale. */
static double criterion(const pp_surface_fit *f) { return f->log_values ? f->mape : f->rmse; }

int pp_surface_choose_sigma(const pp_surface *s, const double *y, int log_values,
                            pp_surface_fit *fit)
{
    enum { SCAN = 36 };
    double lo = log(1e-3), hi = log(3.0), best_rmse = INFINITY, step, gap = INFINITY;
    size_t best = 0;
    pp_surface_fit f;
    int rc;

    /* Not below half the finest spacing of the measured coordinates: on a
     * lattice a leave-one-out prediction sees neighbours at a whole spacing,
     * where a tiny sigma averages the equidistant ones well, but between
     * the points it would give steps (nearest-neighbour plateaus). */
    for (size_t j = 0; j < s->d; j++)
        for (size_t a = 1; a < s->k[j]; a++)
            if (s->levels[j][a] - s->levels[j][a - 1] < gap)
                gap = s->levels[j][a] - s->levels[j][a - 1];
    if (isfinite(gap) && log(0.5 * gap) > lo)
        lo = log(0.5 * gap);
    if (lo > hi - 1.0)
        lo = hi - 1.0;
    step = (hi - lo) / (SCAN - 1);
    for (size_t i = 0; i < SCAN; i++) {
        if ((rc = pp_surface_cv(s, y, exp(lo + step * (double)i), log_values, &f)) < 0)
            return rc;
        if (criterion(&f) < best_rmse) {
            best_rmse = criterion(&f);
            best = i;
            *fit = f;
        }
        /* well past a clear minimum: larger bandwidths only smooth more
         * (and cost the most to evaluate) */
        if (i >= best + 4 && criterion(&f) > 1.5 * best_rmse)
            break;
    }
    if (!isfinite(best_rmse))
        return -EINVAL; /* fewer than two samples with a value */
    {
        /* golden-section search on log(sigma) around the best of the scan */
        double a = lo + step * ((double)best - (best > 0)), b = lo + step * ((double)best + 1);
        const double g = 0.6180339887498949;
        double c = b - g * (b - a), d = a + g * (b - a);
        pp_surface_fit fc, fd;
        if ((rc = pp_surface_cv(s, y, exp(c), log_values, &fc)) < 0 ||
            (rc = pp_surface_cv(s, y, exp(d), log_values, &fd)) < 0)
            return rc;
        for (int it = 0; it < 12; it++) {
            if (criterion(&fc) < criterion(&fd)) {
                b = d;
                d = c;
                fd = fc;
                c = b - g * (b - a);
                if ((rc = pp_surface_cv(s, y, exp(c), log_values, &fc)) < 0)
                    return rc;
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + g * (b - a);
                if ((rc = pp_surface_cv(s, y, exp(d), log_values, &fd)) < 0)
                    return rc;
            }
        }
        if (criterion(&fc) < criterion(fit))
            *fit = fc;
        if (criterion(&fd) < criterion(fit))
            *fit = fd;
    }
    return 0;
}

double pp_surface_run_weight(const pp_surface *s, size_t i)
{
    return s->weight ? s->weight[i] : 1.0;
}

size_t pp_surface_varying(const pp_surface *s, size_t *dims)
{
    size_t nd = 0;

    for (size_t j = 0; j < s->d; j++)
        if (s->k[j] > 1)
            dims[nd++] = j;
    return nd;
}
