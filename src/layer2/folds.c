/* folds.c - what cross-validation leaves out together (estimator.h): the
 * level folds of a surface's samples, and the errors of an estimator over
 * them, each fold predicted from a fit on the others. */
#include "estimator.h"

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
