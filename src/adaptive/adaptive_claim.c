/* adaptive_claim.c - the claim of an adaptive run on the configurations it
 * left, from the nested hold-outs and their distances (adaptive_claim.h). */
#include "adaptive_claim.h"
#include "adaptive_design.h"

#include "src/layer2/model_held.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { AT, BETWEEN, KINDS };

/* Sums over the pairs of one kind (d: distance, e: error) and over the
 * configurations left of that kind (their distances). */
typedef struct kind_sums {
    double n, d, e, dd, de, ee;
    size_t folds;
    double n_left, d_left;
} kind_sums;

/* Where the claim is made: the grid's ranks, the model group's rows as
 * candidates. */
typedef struct claim_ctx {
    const pp_adaptive_space *s;
    size_t *rank;   /* s->n x s->n_params */
    long *cand;     /* per row of the group: its candidate (-1: none) */
    unsigned char *out;
    kind_sums k[KINDS];
} claim_ctx;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Each candidate's rank among the grid's values of each parameter. */
static int ranks_of(const pp_adaptive_space *s, size_t *rank)
{
    double *v = malloc((s->n + 1) * sizeof *v);

    if (!v)
        return -ENOMEM;
    for (size_t j = 0; j < s->n_params; j++) {
        size_t nv = 0;
        for (size_t c = 0; c < s->n; c++)
            v[c] = s->raw[c * s->n_params + j];
        qsort(v, s->n, sizeof *v, cmp_double);
        for (size_t c = 0; c < s->n; c++)
            if (nv == 0 || v[nv - 1] != v[c])
                v[nv++] = v[c];
        for (size_t c = 0; c < s->n; c++) {
            double x = s->raw[c * s->n_params + j];
            const double *at = bsearch(&x, v, nv, sizeof *v, cmp_double);
            rank[c * s->n_params + j] = at ? (size_t)(at - v) : 0;
        }
    }
    free(v);
    return 0;
}

/* Grid steps between candidates a and b over the numeric parameters that
 * vary. */
static double steps(const claim_ctx *x, size_t a, size_t b)
{
    const pp_adaptive_space *s = x->s;
    double d2 = 0;

    for (size_t j = 0; j < s->n_params; j++)
        if (!s->categorical[j] && s->levels[j] > 1) {
            double r = (double)x->rank[a * s->n_params + j] - (double)x->rank[b * s->n_params + j];
            d2 += r * r;
        }
    return sqrt(d2);
}

/* The distance from candidate c to the nearest row of the group (n rows)
 * that x->out does not mark; INFINITY without one. */
static double nearest(const claim_ctx *x, size_t c, size_t n)
{
    double best = INFINITY;

    for (size_t r = 0; r < n; r++)
        if (x->cand[r] >= 0 && !x->out[r] && (size_t)x->cand[r] != c)
            best = fmin(best, steps(x, c, (size_t)x->cand[r]));
    return best;
}

/* 1 when a value of candidate c was never measured in the group. */
static int off_levels(const claim_ctx *x, size_t c, size_t n)
{
    const pp_adaptive_space *s = x->s;

    for (size_t j = 0; j < s->n_params; j++) {
        int seen = s->categorical[j] || s->levels[j] < 2;
        for (size_t r = 0; !seen && r < n; r++)
            seen = x->cand[r] >= 0 && s->raw[(size_t)x->cand[r] * s->n_params + j] ==
                                          s->raw[c * s->n_params + j];
        if (!seen)
            return 1;
    }
    return 0;
}

static void add_pair(kind_sums *k, double d, double e)
{
    k->n++;
    k->d += d;
    k->e += e;
    k->dd += d * d;
    k->de += d * e;
    k->ee += e * e;
}

/* Group g's nested pairs of metric k, each at its distance to what its
 * fold's fit saw (every configuration but the fold's), into x->k; a fold
 * (its pairs need not be adjacent: folds of 10 deal the configurations
 * out in turn) counted once. */
static int add_pairs(const pp_model *m, size_t g, size_t k, claim_ctx *x)
{
    pp_held_pair *p;
    long np = pp_model_held_pairs(m, g, k, &p);
    size_t n = m->groups[g].n_rows;
    unsigned char *done = np > 0 ? calloc((size_t)np, 1) : NULL;

    if (np < 0)
        return (int)np;
    if (np > 0 && !done) {
        free(p);
        return -ENOMEM;
    }
    for (size_t a = 0; a < (size_t)np; a++) {
        kind_sums *ks = &x->k[p[a].between ? BETWEEN : AT];
        if (done[a])
            continue;
        for (size_t i = a; i < (size_t)np; i++)
            if (p[i].fold == p[a].fold)
                x->out[p[i].row] = 1;
        for (size_t i = a; i < (size_t)np; i++) {
            double d;
            if (p[i].fold != p[a].fold)
                continue;
            done[i] = 1;
            d = x->cand[p[i].row] >= 0 ? nearest(x, (size_t)x->cand[p[i].row], n) : INFINITY;
            if (isfinite(d) && p[i].value != 0)
                add_pair(ks, d, fabs((p[i].pred - p[i].value) / p[i].value));
        }
        for (size_t i = a; i < (size_t)np; i++)
            x->out[p[i].row] = 0;
        ks->folds++;
    }
    free(done);
    free(p);
    return 0;
}

/* The candidates not chosen of group g's labels, each at its distance to
 * the nearest measured configuration, by kind. */
static void add_left(const pp_model *m, size_t g, const uint8_t *chosen, claim_ctx *x)
{
    size_t n = m->groups[g].n_rows, label = SIZE_MAX;

    for (size_t r = 0; r < n && label == SIZE_MAX; r++)
        if (x->cand[r] >= 0)
            label = x->s->group[x->cand[r]];
    for (size_t c = 0; label != SIZE_MAX && c < x->s->n; c++) {
        double d;
        kind_sums *ks;
        if (chosen[c] || x->s->group[c] != label || !isfinite(d = nearest(x, c, n)))
            continue;
        ks = &x->k[off_levels(x, c, n) ? BETWEEN : AT];
        ks->n_left++;
        ks->d_left += d;
    }
}

double pp_t90(size_t df)
{
    static const double t[] = {INFINITY, 3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415,
                               1.397,    1.383, 1.372, 1.363, 1.356, 1.350, 1.345, 1.341};
    return df < sizeof t / sizeof t[0] ? t[df] : df < 30 ? 1.325 : 1.282;
}

/* The error fitted on pairs ps at the mean distance left dl: *est and its
 * one-sided 90 % bound *hi; 0, or -1 with too few pairs or folds. */
static int regress(const kind_sums *ps, double dl, double *est, double *hi)
{
    double n = ps->n, dm, em, sxx, sxy, syy, b, a, rss, f = (double)ps->folds, lever;

    if (n < 3 || ps->folds < 3)
        return -1;
    dm = ps->d / n;
    em = ps->e / n;
    sxx = fmax(0.0, ps->dd - n * dm * dm);
    sxy = ps->de - n * dm * em;
    syy = fmax(0.0, ps->ee - n * em * em);
    b = sxx > 1e-12 * n && sxy > 0 ? sxy / sxx : 0.0;
    a = em - b * dm;
    rss = fmax(0.0, syy - b * sxy);
    *est = fmax(0.0, a + b * dl);
    if (b == 0 && sxx <= 1e-12 * n && dm > 0 && dl > dm) /* one distance: proportional beyond */
        *est = em * dl / dm;
    lever = sxx > 1e-12 * n ? (dl - dm) * (dl - dm) / (sxx * f / n) : 0.0;
    *hi = *est + pp_t90(ps->folds - 2) * sqrt(rss / (n - (b > 0 ? 2 : 1))) * sqrt(1.0 / f + lever);
    return 0;
}

/* The claim from the sums, each kind left from its own pairs; INFINITY
 * (no claim: the run goes on) when a kind left has too few of them. */
static void claim_of(const claim_ctx *x, double *claim, double *mean)
{
    double n_left = x->k[AT].n_left + x->k[BETWEEN].n_left, sum = 0, sum_hi = 0;

    *claim = *mean = NAN;
    if (n_left == 0)
        return;
    for (int k = AT; k < KINDS; k++) {
        const kind_sums *ks = &x->k[k];
        double est, hi;
        if (ks->n_left == 0)
            continue;
        if (regress(ks, ks->d_left / ks->n_left, &est, &hi) < 0) {
            *claim = INFINITY;
            return;
        }
        sum += ks->n_left * est;
        sum_hi += ks->n_left * hi;
    }
    *mean = 100 * sum / n_left;
    *claim = 100 * sum_hi / n_left;
}

int pp_adaptive_claim_estimate(const pp_model *m, size_t k, const pp_adaptive_space *s,
                      const uint8_t *chosen, double *claim_pct, double *mean_pct)
{
    claim_ctx x;
    size_t most = 1;
    int rc;

    memset(&x, 0, sizeof x);
    x.s = s;
    x.rank = malloc((s->n * s->n_params + 1) * sizeof *x.rank);
    rc = x.rank ? ranks_of(s, x.rank) : -ENOMEM;

    *claim_pct = *mean_pct = NAN;
    for (size_t g = 0; g < m->n_groups; g++)
        most = m->groups[g].n_rows > most ? m->groups[g].n_rows : most;
    x.cand = malloc(most * sizeof *x.cand);
    x.out = calloc(most, 1);
    if (!x.cand || !x.out)
        rc = -ENOMEM;
    for (size_t g = 0; rc == 0 && g < m->n_groups; g++) {
        for (size_t r = 0; r < m->groups[g].n_rows; r++)
            x.cand[r] = pp_adaptive_space_find(s, (uint64_t)m->sum.ids[m->groups[g].rows[r]]);
        if ((rc = add_pairs(m, g, k, &x)) == 0)
            add_left(m, g, chosen, &x);
    }
    if (rc == 0)
        claim_of(&x, claim_pct, mean_pct);
    free(x.rank);
    free(x.cand);
    free(x.out);
    return rc;
}
