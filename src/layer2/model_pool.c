/* model_pool.c - the band at measured levels of a group with too few
 * residuals, from every group's (model.h: pp_model_pool_bands). */
#include "model_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Group g's fit of metric k when it has residuals to pool: relative
 * ones (a positive metric's, in log), alike across labels; absolute ones
 * are not. */
static pp_choice *pooled(pp_model *m, size_t g, size_t k)
{
    pp_model_fit *f = m->groups[g].fits ? &m->groups[g].fits[k] : NULL;

    return f && f->n_values >= 2 && f->choice.band_r && f->choice.positive ? &f->choice : NULL;
}

/* Metric k: the groups with fewer residuals than conformal_min take at
 * least the quantile of every group's residuals. 0 or -ENOMEM. */
static int pool_metric(pp_model *m, size_t k)
{
    size_t total = 0, few = 0, n = 0, need = pp_band_conformal_min();
    double *all, q;

    for (size_t g = 0; g < m->n_groups; g++) {
        const pp_choice *c = pooled(m, g, k);
        if (!c)
            continue;
        total += c->band_n;
        few += c->band_n < need;
    }
    if (few == 0 || total < need)
        return 0;
    if (!(all = malloc(total * sizeof *all)))
        return -ENOMEM;
    for (size_t g = 0; g < m->n_groups; g++) {
        const pp_choice *c = pooled(m, g, k);
        if (c) {
            memcpy(all + n, c->band_r, c->band_n * sizeof *all);
            n += c->band_n;
        }
    }
    q = pp_band_quantile(all, n);
    for (size_t g = 0; g < m->n_groups; g++) {
        pp_choice *c = pooled(m, g, k);
        if (c && c->band_n < need && !(c->band_q >= q))
            c->band_q = q;
    }
    free(all);
    return 0;
}

int pp_model_pool_bands(pp_model *m)
{
    int rc = 0;

    if (m->n_groups < 2)
        return 0;
    for (size_t k = 0; rc == 0 && k < m->sum.n_metrics; k++)
        rc = pool_metric(m, k);
    return rc;
}
