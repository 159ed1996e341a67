/* folds.c - what cross-validation leaves out together (folds.h): the
 * level folds of a surface's samples, the errors of an estimator over
 * them, each fold predicted from a fit on the others, and the tuning of an
 * estimator on them (pp_est_tune). The errors themselves are cv.c's. */
#include "folds.h"

#include "estimator.h"
#include "boxcox.h"
#include "boxcox_gp.h"
#include "lapack.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The level folds with at least min_pairs samples in all. */
static long level_folds(const pp_surface *s, const double *y, size_t min_pairs, pp_fold **folds)
{
    size_t total = 0, n = 0, dims[PP_SURFACE_MAX_DIMS], nd = pp_surface_varying(s, dims), pairs = 0;
    size_t *count;

    *folds = NULL;
    for (size_t j = 0; j < s->d; j++)
        total += s->k[j];
    if (!(count = calloc(total + 1, sizeof *count)) ||
        !(*folds = malloc((total + 1) * sizeof **folds))) {
        free(count);
        return -ENOMEM;
    }
    for (size_t j = 0, base = 0; j < s->d; base += s->k[j], j++) {
        size_t present = 0, first = SIZE_MAX, last = 0, samples = 0, shared = 0;
        for (size_t i = 0; i < s->n; i++)
            if (!isnan(y[i]))
                count[base + s->cell[i * s->d + j]]++;
        for (size_t a = 0; a < s->k[j]; a++)
            if (count[base + a]) {
                present++;
                first = first == SIZE_MAX ? a : first;
                last = a;
                samples += count[base + a];
                shared += count[base + a] > 1 ? count[base + a] : 0;
            }
        /* scattered samples (most alone at their level, whatever a few
         * coinciding values do) have no levels to leave out, except along a
         * single parameter, where the two are the same */
        if (present < PP_LEVEL_OUT_MIN || (2 * shared < samples && nd > 1))
            continue;
        for (size_t a = first + 1; a < last; a++)
            if (count[base + a]) {
                (*folds)[n++] = (pp_fold){j, a};
                pairs += count[base + a];
            }
    }
    free(count);
    if (pairs < min_pairs || pairs == 0)
        n = 0;
    if (n == 0) {
        free(*folds);
        *folds = NULL;
    }
    return (long)n;
}

long pp_level_folds(const pp_surface *s, const double *y, pp_fold **folds)
{
    return level_folds(s, y, PP_LEVEL_OUT_MIN_PAIRS, folds);
}

long pp_level_folds_any(const pp_surface *s, const double *y, pp_fold **folds)
{
    return level_folds(s, y, 1, folds);
}

long pp_level_fold_groups(const pp_surface *s, const double *y, pp_fold **folds, size_t **group,
                          size_t *n_groups)
{
    long nf = pp_level_folds_any(s, y, folds);
    size_t g = 0;

    *group = NULL;
    *n_groups = 0;
    if (nf <= 0)
        return nf;
    if (!(*group = malloc((size_t)nf * sizeof **group))) {
        free(*folds);
        *folds = NULL;
        return -ENOMEM;
    }
    /* pp_level_folds_any lists a dimension's levels together, in their
     * order: the r-th of m goes to group r % PP_FOLD_GROUPS of its
     * dimension when m > PP_FOLD_SINGLE_MAX, to its own group else */
    for (size_t f = 0; f < (size_t)nf;) {
        size_t m = 0, groups;
        while (f + m < (size_t)nf && (*folds)[f + m].dim == (*folds)[f].dim)
            m++;
        groups = m > PP_FOLD_SINGLE_MAX ? PP_FOLD_GROUPS : m;
        for (size_t r = 0; r < m; r++)
            (*group)[f + r] = g + r % groups;
        g += groups;
        f += m;
    }
    *n_groups = g;
    return nf;
}

int pp_fold_group_has(const pp_surface *s, const pp_fold *folds, const size_t *group, size_t nf,
                      size_t g, size_t i)
{
    for (size_t f = 0; f < nf; f++)
        if (group[f] == g && pp_fold_has(s, &folds[f], i))
            return 1;
    return 0;
}

int pp_est_cv(const pp_surface *s, const double *y, const pp_est_spec *spec, const pp_fold *folds,
              size_t n_folds, pp_cv *cv, double *pred)
{
    double *y2 = malloc((s->n + 1) * sizeof *y2), *p = pred;
    size_t *idx = NULL, n = 0, cap = 0;
    int rc = 0;

    if (!y2)
        return -ENOMEM;
    for (size_t f = 0; f < n_folds; f++)
        for (size_t i = 0; i < s->n; i++)
            cap += !isnan(y[i]) && pp_fold_has(s, &folds[f], i);
    idx = malloc((cap + 1) * sizeof *idx);
    if (!p)
        p = malloc((cap + 1) * sizeof *p);
    if (idx && p && (rc = pp_est_folds_fast(s, y, spec, folds, n_folds, idx, p, &n)) == -ENOTSUP)
        rc = 0, n = 0;
    else
        n_folds = 0; /* done (or failed) by the estimator's own rule */
    for (size_t f = 0; idx && p && f < n_folds && rc == 0; f++) {
        size_t first = n;
        pp_est e;
        for (size_t i = 0; i < s->n; i++) {
            int out = !isnan(y[i]) && pp_fold_has(s, &folds[f], i);
            y2[i] = out ? NAN : y[i];
            if (out)
                idx[n++] = i;
        }
        if ((rc = pp_est_fit(&e, s, y2, spec)) < 0)
            break;
        for (size_t k = first; k < n; k++)
            p[k] = pp_est_predict(&e, s->x + idx[k] * s->d);
        pp_est_free(&e);
    }
    if (!idx || !p)
        rc = -ENOMEM;
    if (rc == 0)
        pp_cv_pairs(s, y, idx, p, n, cv);
    if (p != pred)
        free(p);
    free(idx);
    free(y2);
    return rc;
}

/* Tuning one estimator (folds.h, pp_est_tune): the kernels' bandwidth
 * by leaving out levels where there are level folds, else by leave-one-out; boxcox's exponents by leaving out
 * levels (boxcox.h). */

/* What a tuning scores a candidate on: its level folds (n_folds > 0), or
 * leave-one-out. */
typedef struct tune_on {
    const pp_fold *folds;
    size_t n_folds;
} tune_on;

/* The crit of spec over t's folds or by leave-one-out; INFINITY when it
 * cannot be evaluated. */
static int crit_cv(const pp_surface *s, const double *y, const pp_est_spec *spec,
                   const tune_on *t, double *pred, pp_cv *cv)
{
    int rc = t->n_folds ? pp_est_cv(s, y, spec, t->folds, t->n_folds, cv, NULL)
                        : pp_est_loo(s, y, spec, pred);

    if (rc == -ENOMEM)
        return rc;
    if (rc < 0) {
        memset(cv, 0, sizeof *cv);
        cv->crit = INFINITY;
        return 0;
    }
    if (!t->n_folds)
        pp_cv_errors(s, y, pred, cv);
    return 0;
}

/* The finest spacing of the measured coordinates over every dimension. */
static double finest_gap(const pp_surface *s)
{
    double gap = INFINITY;
    for (size_t j = 0; j < s->d; j++)
        for (size_t a = 1; a < s->k[j]; a++)
            if (s->levels[j][a] - s->levels[j][a - 1] < gap)
                gap = s->levels[j][a] - s->levels[j][a - 1];
    return gap;
}

/* Evaluate spec at h = exp(t) into cv, and keep it in best (with its t)
 * when better. */
static int try_at(const pp_surface *s, const double *y, const tune_on *on, pp_est_spec *spec,
                  double t, double *pred, pp_cv *cv, pp_cv *best, double *t_best)
{
    int rc;

    spec->h = exp(t);
    if ((rc = crit_cv(s, y, spec, on, pred, cv)) < 0)
        return rc;
    if (cv->crit < best->crit) {
        *best = *cv;
        *t_best = t;
    }
    return 0;
}

/* Ties: a crit within this fraction of the least counts as equal, and the
 * smoother candidate (larger h) is kept. Where leave-one-out
 * cannot tell bandwidths apart (two samples define a local line whatever
 * the bandwidth), the smallest would extrapolate from the nearest sample
 * alone, the others' weights underflowing. */
#define TIE 1e-3

double pp_est_narrowest_h(const pp_surface *s)
{
    double gap = finest_gap(s);
    return isfinite(gap) && gap > 0 ? 0.5 * gap : 0.1;
}

/* h of nw or loclin: a log scan, then golden section around the best
 * unless a tie chose a larger one. Not below half the finest spacing (on a
 * lattice a leave-one-out prediction sees neighbours a whole spacing away,
 * and a smaller h would give nearest-neighbour steps between the
 * points); up to 3 for nw, 10 for loclin (there: one plane through
 * everything). */
static int tune_h(const pp_surface *s, const double *y, const tune_on *on, pp_est_spec *spec,
                      double *pred, pp_cv *best)
{
    enum { SCAN = 16, GOLDEN = 6 };
    const double g = 0.6180339887498949;
    double gap = finest_gap(s), lo = log(1e-3), hi = log(spec->method == PP_METHOD_NW ? 3.0 : 10.0);
    double step, a, b, c, d, t_best = lo, crit[SCAN];
    size_t at = 0, n = 0, least = 0;
    pp_cv cv[SCAN], cc, cd;
    int rc = 0;

    if (isfinite(gap) && log(0.5 * gap) > lo)
        lo = log(0.5 * gap);
    step = (hi - lo) / (SCAN - 1);
    best->crit = INFINITY;
    for (; n < SCAN; n++) {
        if ((rc = try_at(s, y, on, spec, lo + step * (double)n, pred, &cv[n], best, &t_best)) < 0)
            return rc;
        crit[n] = cv[n].crit;
        least = crit[n] < crit[least] ? n : least;
        if (n >= least + 4 && crit[n] > 1.5 * crit[least])
            break; /* well past a clear minimum */
    }
    if (!isfinite(best->crit))
        return -EINVAL;
    for (size_t i = 0; i < n && i < SCAN; i++)
        if (crit[i] <= crit[least] * (1 + TIE))
            at = i;
    if (at != least) { /* a tie: the largest of the equals */
        *best = cv[at];
        spec->h = exp(lo + step * (double)at);
        return 0;
    }
    a = lo + step * ((double)at - (at > 0));
    b = lo + step * ((double)at + (at + 1 < SCAN));
    c = b - g * (b - a);
    d = a + g * (b - a);
    if ((rc = try_at(s, y, on, spec, c, pred, &cc, best, &t_best)) < 0 ||
        (rc = try_at(s, y, on, spec, d, pred, &cd, best, &t_best)) < 0)
        return rc;
    for (int it = 0; it < GOLDEN && rc == 0; it++) {
        if (cc.crit < cd.crit) {
            b = d;
            d = c;
            cd = cc;
            c = b - g * (b - a);
            rc = try_at(s, y, on, spec, c, pred, &cc, best, &t_best);
        } else {
            a = c;
            c = d;
            cc = cd;
            d = a + g * (b - a);
            rc = try_at(s, y, on, spec, d, pred, &cd, best, &t_best);
        }
    }
    spec->h = exp(t_best);
    return rc;
}

/* The residual smoother of spec: none or one of the length scales, by the
 * errors over the folds (cv holds those without one); the scales scored
 * together, each fold's least squares made once for all three. */
static int tune_smoother(const pp_surface *s, const double *y, const pp_fold *folds,
                         size_t n_folds, size_t n, pp_est_spec *spec, pp_cv *cv)
{
    static const double scales[PP_BOXCOX_GP_N] = {0.15, 0.3, 0.6};
    size_t cap = 0, np[PP_BOXCOX_GP_N], *idx;
    int rcs[PP_BOXCOX_GP_N], rc;
    double *pred;

    if (n > PP_BOXCOX_GP_MAX || !pp_lapack_available())
        return 0;
    for (size_t f = 0; f < n_folds; f++)
        for (size_t i = 0; i < s->n; i++)
            cap += !isnan(y[i]) && pp_fold_has(s, &folds[f], i);
    idx = malloc((cap + 1) * sizeof *idx);
    pred = malloc((PP_BOXCOX_GP_N * cap + 1) * sizeof *pred);
    rc = idx && pred ? pp_boxcox_gp_folds_scales(s, y, spec, scales, PP_BOXCOX_GP_N, folds,
                                                 n_folds, idx, pred, cap, np, rcs)
                     : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < PP_BOXCOX_GP_N; i++) {
        pp_cv c;
        if (rcs[i] != 0)
            continue;
        pp_cv_pairs(s, y, idx, pred + i * cap, np[i], &c);
        if (c.crit < cv->crit * (1 - 1e-3)) {
            *cv = c;
            spec->h = scales[i];
        }
    }
    free(idx);
    free(pred);
    return rc;
}

int pp_est_tune(const pp_surface *s, const double *y, pp_method m, int log_values,
                const pp_fold *folds, size_t n_folds, pp_est_spec *best, pp_cv *cv)
{
    const tune_on on = {folds, folds ? n_folds : 0};
    double *pred = malloc(s->n * sizeof *pred);
    int rc;

    if (!pred)
        return -ENOMEM;
    memset(best, 0, sizeof *best);
    best->method = m;
    best->log_values = log_values;
    if (m == PP_METHOD_BOXCOX)
        rc = pp_est_tune_boxcox_n(s, y, log_values, 0, best, cv);
    else
        rc = tune_h(s, y, &on, best, pred, cv);
    free(pred);
    return rc;
}

int pp_est_tune_boxcox_n(const pp_surface *s, const double *y, int log_values, size_t n_fit,
                         pp_est_spec *best, pp_cv *cv)
{
    pp_fold *folds;
    long nf = pp_level_folds(s, y, &folds);
    size_t n = 0;
    int rc;

    for (size_t i = 0; i < s->n; i++)
        n += !isnan(y[i]);
    if (nf < 0)
        return (int)nf;
    if (nf == 0) { /* leave-one-out */
        if (!(folds = malloc((s->n + 1) * sizeof *folds)))
            return -ENOMEM;
        for (size_t i = 0; i < s->n; i++)
            if (!isnan(y[i]))
                folds[nf++] = (pp_fold){SIZE_MAX, i};
    }
    rc = pp_boxcox_tune(s, y, log_values, folds, (size_t)nf, best, cv);
    if (rc == 0) /* a GP mean on its residuals, when it helps */
        rc = tune_smoother(s, y, folds, (size_t)nf, n_fit > n ? n_fit : n, best, cv);
    free(folds);
    return rc;
}
