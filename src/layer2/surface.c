/* surface.c - the sample space of layer 2 (surface.h). */
#include "surface.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
                s->d2[a * n + b] = pp_dist2(s->x + a * d, s->x + b * d, d);
    return 0;
fail_mem:
    pp_surface_free(s);
    return -ENOMEM;
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
