/* adaptive_noise.c - the noise floor of a metric, estimated from the
 * measured rows (adaptive_model.h). */
#include "adaptive_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHI2_1_MEDIAN 0.4549      /* the median of a chi-square with 1 degree of freedom */
#define MEAN_ABS_NORMAL 0.7979    /* E|e| / sigma for a normal error: sqrt(2 / pi) */
#define SAME_COORD 1e-9           /* normalized coordinates equal within this */
#define MIN_TERMS 3

/* ln of configuration r's value in group gr (the mean of its rows), NAN
 * when not > 0. */
static double log_value(const pp_model *m, const pp_model_group *gr, size_t r, size_t k)
{
    const pp_summary *s = &m->sum;
    double sum = 0;
    size_t n = 0;

    for (size_t i = gr->member_start[r]; i < gr->member_start[r + 1]; i++) {
        double v = s->y[gr->members[i] * s->n_metrics + k];
        if (!isnan(v)) {
            sum += v;
            n++;
        }
    }
    return n && sum > 0 ? log(sum / (double)n) : NAN;
}

/* The replicates of configuration r: each row's squared deviation from
 * their mean in log units, scaled to the noise variance, into t. */
static size_t replicate_terms(const pp_model *m, const pp_model_group *gr, size_t r, size_t k,
                              double *t)
{
    const pp_summary *s = &m->sum;
    size_t a = gr->member_start[r], b = gr->member_start[r + 1], n = 0;
    double mean = 0;

    for (size_t i = a; i < b; i++) {
        double v = s->y[gr->members[i] * s->n_metrics + k];
        if (!(v > 0))
            return 0;
        mean += log(v);
    }
    if (b - a < 2)
        return 0;
    mean /= (double)(b - a);
    for (size_t i = a; i < b; i++) {
        double e = log(s->y[gr->members[i] * s->n_metrics + k]) - mean;
        t[n++] = e * e * (double)(b - a) / (double)(b - a - 1);
    }
    return n;
}

/* 1 when configurations r and q lie on one line along dimension j. */
static int on_line(const pp_surface *sf, size_t r, size_t q, size_t j)
{
    for (size_t i = 0; i < sf->d; i++)
        if (i != j && fabs(sf->x[r * sf->d + i] - sf->x[q * sf->d + i]) > SAME_COORD)
            return 0;
    return 1;
}

/* Gasser, Sroka and Jennen-Steinmetz (1986): configuration r against the
 * line through its two neighbours along dimension j, the squared
 * pseudo-residual scaled to the noise variance (NAN without both). */
static double line_term(const pp_model_group *gr, const double *ly, size_t r, size_t j)
{
    const pp_surface *sf = &gr->surf;
    size_t lo = gr->n_rows, hi = gr->n_rows;
    double xr = sf->x[r * sf->d + j], wa, wb, e;

    for (size_t q = 0; q < gr->n_rows; q++) {
        double xq = sf->x[q * sf->d + j];
        if (q == r || isnan(ly[q]) || !on_line(sf, r, q, j))
            continue;
        if (xq < xr - SAME_COORD && (lo == gr->n_rows || xq > sf->x[lo * sf->d + j]))
            lo = q;
        if (xq > xr + SAME_COORD && (hi == gr->n_rows || xq < sf->x[hi * sf->d + j]))
            hi = q;
    }
    if (lo == gr->n_rows || hi == gr->n_rows)
        return NAN;
    wa = (sf->x[hi * sf->d + j] - xr) / (sf->x[hi * sf->d + j] - sf->x[lo * sf->d + j]);
    wb = 1 - wa;
    e = ly[r] - wa * ly[lo] - wb * ly[hi];
    return e * e / (1 + wa * wa + wb * wb);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Group gr's terms into t (room for its rows x (dimensions + members)):
 * the replicates' first, counted in *n_rep, then the lines'. */
static size_t group_terms(const pp_model *m, const pp_model_group *gr, size_t k, double *t,
                          size_t *n_rep)
{
    double *ly = malloc((gr->n_rows + 1) * sizeof *ly);
    size_t n = 0;

    if (!ly)
        return 0;
    for (size_t r = 0; r < gr->n_rows; r++)
        ly[r] = log_value(m, gr, r, k);
    for (size_t r = 0; r < gr->n_rows; r++)
        n += replicate_terms(m, gr, r, k, t + n);
    *n_rep += n;
    for (size_t r = 0; r < gr->n_rows; r++) {
        for (size_t j = 0; !isnan(ly[r]) && j < gr->surf.d; j++) {
            double e = line_term(gr, ly, r, j);
            if (!isnan(e))
                t[n++] = e;
        }
    }
    free(ly);
    return n;
}

/* The noise MAPE of the median of t[0 .. n) (sorted here). */
static double mape_of(double *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_double);
    return 100 * MEAN_ABS_NORMAL *
           sqrt((n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2])) / CHI2_1_MEDIAN);
}

double pp_adaptive_noise_pct(const pp_model *m, size_t k, double *repeats_pct)
{
    size_t cap = 0, n = 0, n_rep = 0;
    double *t, *rep, v;

    for (size_t g = 0; g < m->n_groups; g++)
        cap += m->groups[g].n_rows * (m->groups[g].surf.d + 1) +
               m->groups[g].member_start[m->groups[g].n_rows];
    if (!(t = malloc((cap + 1) * sizeof *t)))
        return NAN;
    rep = malloc((cap + 1) * sizeof *rep);
    for (size_t g = 0; rep && g < m->n_groups; g++) {
        size_t at = n, before = n_rep;
        n += group_terms(m, &m->groups[g], k, t + n, &n_rep);
        memcpy(rep + before, t + at, (n_rep - before) * sizeof *rep);
    }
    *repeats_pct = rep && n_rep >= MIN_TERMS ? mape_of(rep, n_rep) : NAN;
    v = rep && n >= MIN_TERMS ? mape_of(t, n) : NAN;
    free(rep);
    free(t);
    return v;
}
