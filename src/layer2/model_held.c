/* The nested hold-outs of a model's fits, pair by pair (model_held.h). */
#include "model_held.h"

#include "model_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The nested predictions of fit k at pair p of an array (at: held_at
 * indexed by row; else held_between by pair), derived ones from the two
 * fits they come from. */
static double held_of(const pp_model_group *g, size_t k, int between, size_t i)
{
    const pp_model_fit *f = &g->fits[k];
    const pp_choice *a, *b;
    double x, y;

    if (!f->derived)
        return between ? f->choice.held_between[i] : f->choice.held_at[i];
    a = &g->fits[f->from[0]].choice;
    b = &g->fits[f->from[1]].choice;
    if (between && (a->n_held_between <= i || b->n_held_between <= i))
        return NAN;
    if (!between && (!a->held_at || !b->held_at))
        return NAN;
    x = between ? a->held_between[i] : a->held_at[i];
    y = between ? b->held_between[i] : b->held_at[i];
    return f->divide ? x / y : x * y;
}

/* The at-levels folds as pp_choose made them: leave-one-out when folds is
 * the number of values, else configuration i with a value in fold
 * (its rank among them) % folds. */
static size_t at_pairs(const pp_model_group *g, size_t k, const double *y, pp_held_pair *out)
{
    const pp_choice *c = &g->fits[k].choice;
    size_t n = 0, rank = 0;

    for (size_t i = 0; i < g->n_rows; i++) {
        if (isnan(y[i]))
            continue;
        out[n] = (pp_held_pair){i, y[i], held_of(g, k, 0, i), c->folds ? rank % c->folds : rank, 0};
        rank++;
        n += !isnan(out[n].pred);
    }
    return n;
}

/* The between-levels pairs, group by group of level folds in the order
 * pp_choose left them out (pp_level_fold_groups); their folds (one per
 * group: one fit predicted them) numbered from first. */
static long between_pairs(const pp_model_group *g, size_t k, const double *y, size_t first,
                          pp_held_pair *out)
{
    const pp_choice *c = &g->fits[k].choice;
    pp_fold *folds;
    size_t *group, ng, p = 0, n = 0;
    long nf = pp_level_fold_groups(&g->surf, y, &folds, &group, &ng);

    if (nf < 0)
        return nf;
    for (size_t f = 0; f < ng; f++)
        for (size_t i = 0; i < g->n_rows && p < c->n_held_between; i++) {
            if (isnan(y[i]) || !pp_fold_group_has(&g->surf, folds, group, (size_t)nf, f, i))
                continue;
            if (c->held_between_idx[p] == i) {
                out[n] = (pp_held_pair){i, y[i], held_of(g, k, 1, p), first + f, 1};
                n += !isnan(out[n].pred);
            }
            p++;
        }
    free(folds);
    free(group);
    return (long)n;
}

long pp_model_held_pairs(const pp_model *m, size_t g, size_t k, pp_held_pair **out)
{
    const pp_model_group *gr;
    const pp_model_fit *f = pp_model_fit_of(m, g, k);
    double *y;
    size_t n;
    long nb = 0;

    *out = NULL;
    if (!f || f->n_values < 2 || !f->choice.held_at)
        return 0;
    gr = &m->groups[g];
    if (!(y = pp_model_column(m, gr, k)) ||
        !(*out = malloc((gr->n_rows + f->choice.n_held_between + 1) * sizeof **out))) {
        free(y);
        return -ENOMEM;
    }
    n = at_pairs(gr, k, y, *out);
    if (f->choice.n_held_between)
        nb = between_pairs(gr, k, y, gr->n_rows, *out + n);
    free(y);
    if (nb < 0) {
        free(*out);
        *out = NULL;
        return nb;
    }
    return (long)(n + (size_t)nb);
}
