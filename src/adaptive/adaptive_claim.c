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

/* One nested pair: its distance, its error, its fold (numbered over the
 * groups). */
typedef struct claim_pair {
    double d, e;
    size_t fold;
} claim_pair;

/* The pairs of one kind (a fold's together), its folds, and the
 * configurations left of that kind (how many, their distances' sum). */
typedef struct kind_sums {
    claim_pair *p;
    size_t n, folds;
    double n_left, d_left;
} kind_sums;

/* Where the claim is made: the grid's ranks, the model group's rows as
 * candidates. */
typedef struct claim_ctx {
    const pp_adaptive_space *s;
    size_t *rank;   /* s->n x s->n_params */
    long *cand;     /* per row of the group: its candidate (-1: none) */
    unsigned char *out;
    size_t fold_seq;
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

/* Room in each kind for np more pairs (a group's). 0 or -ENOMEM. */
static int reserve(claim_ctx *x, size_t np)
{
    for (int k = 0; k < KINDS; k++) {
        claim_pair *p = realloc(x->k[k].p, (x->k[k].n + np + 1) * sizeof *p);
        if (!p)
            return -ENOMEM;
        x->k[k].p = p;
    }
    return 0;
}

/* The pairs of the fold of pair a (x->out marks its rows), each of its
 * kind at its distance; the fold counted once in each kind it reaches. */
static void add_fold(claim_ctx *x, const pp_held_pair *p, size_t np, size_t a, size_t n,
                     unsigned char *done)
{
    size_t before[KINDS];

    for (int k = 0; k < KINDS; k++)
        before[k] = x->k[k].n;
    x->fold_seq++;
    for (size_t i = a; i < np; i++) {
        double d;
        size_t c;
        if (p[i].fold != p[a].fold)
            continue;
        done[i] = 1;
        if (x->cand[p[i].row] < 0 || p[i].value == 0)
            continue;
        c = (size_t)x->cand[p[i].row];
        d = nearest(x, c, n);
        if (isfinite(d)) {
            kind_sums *ks = &x->k[p[i].between ? BETWEEN : AT];
            ks->p[ks->n++] = (claim_pair){d, fabs((p[i].pred - p[i].value) / p[i].value),
                                          x->fold_seq};
        }
    }
    for (int k = 0; k < KINDS; k++)
        x->k[k].folds += x->k[k].n > before[k];
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
    int rc;

    if (np < 0)
        return (int)np;
    rc = np > 0 && !done ? -ENOMEM : reserve(x, (size_t)np);
    for (size_t a = 0; rc == 0 && a < (size_t)np; a++) {
        if (done[a])
            continue;
        for (size_t i = a; i < (size_t)np; i++)
            if (p[i].fold == p[a].fold)
                x->out[p[i].row] = 1;
        add_fold(x, p, (size_t)np, a, n, done);
        for (size_t i = a; i < (size_t)np; i++)
            x->out[p[i].row] = 0;
    }
    free(done);
    free(p);
    return rc;
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

/* The least-squares line e = a + b d over the pairs of ps (b >= 0; with
 * one distance, proportional to it beyond: prop the mean distance, else
 * 0); dlo the least distance of a pair. */
typedef struct line_fit {
    double a, b, dm, em, prop, dlo;
} line_fit;

static void line_of(const kind_sums *ps, line_fit *l)
{
    double n = (double)ps->n, d = 0, e = 0, dd = 0, de = 0, sxx, sxy;

    l->dlo = INFINITY;
    for (size_t i = 0; i < ps->n; i++) {
        l->dlo = fmin(l->dlo, ps->p[i].d);
        d += ps->p[i].d;
        e += ps->p[i].e;
        dd += ps->p[i].d * ps->p[i].d;
        de += ps->p[i].d * ps->p[i].e;
    }
    l->dm = d / n;
    l->em = e / n;
    sxx = fmax(0.0, dd - n * l->dm * l->dm);
    sxy = de - n * l->dm * l->em;
    l->b = sxx > 1e-12 * n && sxy > 0 ? sxy / sxx : 0.0;
    l->a = l->em - l->b * l->dm;
    l->prop = l->b == 0 && sxx <= 1e-12 * n && l->dm > 0 ? l->dm : 0;
}

static double line_at(const line_fit *l, double d)
{
    if (l->prop > 0 && d > l->prop)
        return l->em * d / l->prop;
    return fmax(0.0, l->a + l->b * d);
}

/* The type-7 quantile p of v[0 .. n) (sorted here). */
static double quantile(double *v, size_t n, double p)
{
    double h = p * (double)(n - 1);
    size_t lo = (size_t)h;

    qsort(v, n, sizeof *v, cmp_double);
    return lo + 1 < n ? v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* The 90 % quantile over the folds of ps of the error left: est plus
 * each fold's mean departure from the line at its distances (at least
 * 0). */
static double fold_quantile(const kind_sums *ps, const line_fit *l, double est)
{
    double *q = malloc(ps->folds * sizeof *q), num = 0, den = 0, hi;
    size_t nq = 0, nf = 0;

    if (!q)
        return INFINITY;
    for (size_t i = 0; i < ps->n; i++) {
        num += ps->p[i].e;
        den += line_at(l, ps->p[i].d);
        nf++;
        if (i + 1 == ps->n || ps->p[i + 1].fold != ps->p[i].fold) {
            q[nq++] = fmax(0.0, est + (num - den) / (double)nf);
            num = den = 0;
            nf = 0;
        }
    }
    hi = quantile(q, nq, 0.9);
    free(q);
    return hi;
}

/* The error fitted on pairs ps at the mean distance left dl (never below
 * the least distance of a pair: the line is not extrapolated towards 0,
 * where it may cross it): *est and its 90 % quantile over the folds *hi;
 * 0, or -1 with too few pairs or folds. */
static int regress(const kind_sums *ps, double dl, double *est, double *hi)
{
    line_fit l;

    if (ps->n < 3 || ps->folds < 3)
        return -1;
    line_of(ps, &l);
    *est = line_at(&l, fmax(dl, l.dlo));
    *hi = fold_quantile(ps, &l, *est);
    return 0;
}

/* The claim from the sums, each kind left from its own pairs; INFINITY
 * (no claim: the run goes on) when a kind left has too few of them. */
static void claim_of(const claim_ctx *x, double *claim, double *mean)
{
    double n_left = 0, sum = 0, sum_hi = 0;

    *claim = *mean = NAN;
    for (int k = AT; k < KINDS; k++)
        n_left += x->k[k].n_left;
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
    for (int q = 0; q < KINDS; q++)
        free(x.k[q].p);
    free(x.cand);
    free(x.out);
    return rc;
}
