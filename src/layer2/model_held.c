/* The nested hold-outs of a model's fits, pair by pair (model_held.h). */
#include "model_held.h"

#include "model_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The nested predictions of fit k at pair p of an array (at: held_at
 * indexed by row; else held_between by pair), blended ones with the two
 * fits they are derived from (model.h). */
static double held_of(const pp_model_group *g, size_t k, int between, size_t i)
{
    const pp_model_fit *f = &g->fits[k];
    const pp_choice *a, *b;
    double x, y, own = between ? f->choice.held_between[i] : f->choice.held_at[i];

    if (!f->derived)
        return own;
    a = &g->fits[f->from[0]].choice;
    b = &g->fits[f->from[1]].choice;
    if (between && (a->n_held_between <= i || b->n_held_between <= i))
        return NAN;
    if (!between && (!a->held_at || !b->held_at))
        return NAN;
    x = between ? a->held_between[i] : a->held_at[i];
    y = between ? b->held_between[i] : b->held_at[i];
    return pp_model_blend(own, f->divide ? x / y : x * y, f->weight);
}

long pp_model_at_folds(const pp_choice *c, const double *y, size_t n_rows, size_t *fold)
{
    size_t rank = 0;

    for (size_t i = 0; i < n_rows; i++)
        fold[i] = isnan(y[i]) ? SIZE_MAX : c->folds ? rank++ % c->folds : rank++;
    return (long)(c->folds ? c->folds : rank);
}

/* The at-levels pairs of fit k, in the folds pp_choose made. */
static long at_pairs(const pp_model_group *g, size_t k, const double *y, pp_held_pair *out)
{
    size_t *fold = malloc((g->n_rows + 1) * sizeof *fold), n = 0;

    if (!fold)
        return -ENOMEM;
    pp_model_at_folds(&g->fits[k].choice, y, g->n_rows, fold);
    for (size_t i = 0; i < g->n_rows; i++) {
        if (fold[i] == SIZE_MAX)
            continue;
        out[n] = (pp_held_pair){i, y[i], held_of(g, k, 0, i), fold[i], 0};
        n += !isnan(out[n].pred);
    }
    free(fold);
    return (long)n;
}

long pp_model_between_folds(const pp_model_group *g, const pp_choice *c, const double *y,
                            size_t *fold)
{
    pp_fold *folds;
    size_t *group, ng, p = 0;
    long nf = pp_level_fold_groups(&g->surf, y, &folds, &group, &ng);

    if (nf < 0)
        return nf;
    for (size_t f = 0; f < ng; f++)
        for (size_t i = 0; i < g->n_rows && p < c->n_held_between; i++)
            if (!isnan(y[i]) && pp_fold_group_has(&g->surf, folds, group, (size_t)nf, f, i) &&
                c->held_between_idx[p] == i)
                fold[p++] = f;
    /* pairs not where the groups put them (pp_choose makes none): each a
     * fold of its own */
    while (p < c->n_held_between)
        fold[p++] = ng++;
    free(folds);
    free(group);
    return (long)ng;
}

/* The between-levels pairs of fit k, their folds (one per group: one fit
 * predicted them) numbered from first. */
static long between_pairs(const pp_model_group *g, size_t k, const double *y, size_t first,
                          pp_held_pair *out)
{
    const pp_choice *c = &g->fits[k].choice;
    size_t *fold = malloc((c->n_held_between + 1) * sizeof *fold), n = 0;
    long ng = fold ? pp_model_between_folds(g, c, y, fold) : -ENOMEM;

    for (size_t p = 0; ng >= 0 && p < c->n_held_between; p++) {
        size_t i = c->held_between_idx[p];
        out[n] = (pp_held_pair){i, y[i], held_of(g, k, 1, p), first + fold[p], 1};
        n += !isnan(out[n].pred);
    }
    free(fold);
    return ng < 0 ? ng : (long)n;
}

long pp_model_held_pairs(const pp_model *m, size_t g, size_t k, pp_held_pair **out)
{
    const pp_model_group *gr;
    const pp_model_fit *f = pp_model_fit_of(m, g, k);
    double *y;
    long na, nb = 0;

    *out = NULL;
    if (!f || f->n_values < 2 || !f->choice.held_at)
        return 0;
    gr = &m->groups[g];
    if (!(y = pp_model_column(m, gr, k)) ||
        !(*out = malloc((gr->n_rows + f->choice.n_held_between + 1) * sizeof **out))) {
        free(y);
        return -ENOMEM;
    }
    na = at_pairs(gr, k, y, *out);
    if (na >= 0 && f->choice.n_held_between)
        nb = between_pairs(gr, k, y, gr->n_rows, *out + na);
    free(y);
    if (na < 0 || nb < 0) {
        free(*out);
        *out = NULL;
        return na < 0 ? na : nb;
    }
    return na + nb;
}
