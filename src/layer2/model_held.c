/* The nested hold-outs of a model's fits, pair by pair (model_held.h), and
 * the derivation of energy, power and duration from each other, nested on
 * them (model.h: pp_model_derive). */
#include "model_held.h"

#include "lapack.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The fold of each configuration at measured levels as pp_choose made it
 * for choice c (y: its values, n_rows of them) into fold[n_rows]
 * (SIZE_MAX: no value): the number of folds. */
static long at_folds(const pp_choice *c, const double *y, size_t n_rows, size_t *fold)
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
    at_folds(&g->fits[k].choice, y, g->n_rows, fold);
    for (size_t i = 0; i < g->n_rows; i++) {
        if (fold[i] == SIZE_MAX)
            continue;
        out[n] = (pp_held_pair){i, y[i], held_of(g, k, 0, i), fold[i], 0};
        n += !isnan(out[n].pred);
    }
    free(fold);
    return (long)n;
}

/* The group of levels each of choice c's between-levels pairs was left
 * out with (pair p of sample c->held_between_idx[p]) into
 * fold[c->n_held_between]: the number of groups, or -ENOMEM. Pairs of one
 * group were predicted by one fit. */
static long between_folds(const pp_model_group *g, const pp_choice *c, const double *y,
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
    long ng = fold ? between_folds(g, c, y, fold) : -ENOMEM;

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

/* Energy, mean power and duration made consistent (model.h,
 * pp_model_derive): the three derivations blended. */

enum { E, P, T };

/* The three metrics of one rail in group g, fitted with their nested
 * predictions on the same folds: 1, else 0. */
static int usable(const pp_model_group *g, const size_t *k)
{
    const pp_model_fit *f0 = &g->fits[k[0]];

    for (int i = 0; i < 3; i++) {
        const pp_model_fit *f = &g->fits[k[i]];
        if (f->n_values < 2 || !f->choice.held_at || !f->choice.positive || (f->derived && i != T) ||
            f->choice.n_held_between != f0->choice.n_held_between ||
            (f->choice.n_held_between &&
             memcmp(f->choice.held_between_idx, f0->choice.held_between_idx,
                    f->choice.n_held_between * sizeof(size_t)) != 0))
            return 0;
    }
    return 1;
}

static double combine(int which, double e, double p, double t)
{
    return which == E ? p * t : which == P ? e / t : e / p;
}

/* Metric `which`'s prediction in the blend of weights a from the three's
 * own predictions e, p, t. */
static double blended(int which, const double *a, double e, double p, double t)
{
    double own = which == E ? e : which == P ? p : t;
    return pp_model_blend(own, combine(which, e, p, t), a[which]);
}

/* Metric `which`'s blended nested predictions (weights a) into at[n] and
 * btw[n_held_between]. */
static void blended_preds(const pp_model_group *g, const size_t *k, int which, const double *a,
                          double *at, double *btw)
{
    const pp_choice *c[3] = {&g->fits[k[E]].choice, &g->fits[k[P]].choice, &g->fits[k[T]].choice};

    for (size_t i = 0; i < g->n_rows; i++)
        at[i] = blended(which, a, c[E]->held_at[i], c[P]->held_at[i], c[T]->held_at[i]);
    for (size_t i = 0; i < c[E]->n_held_between; i++)
        btw[i] = blended(which, a, c[E]->held_between[i], c[P]->held_between[i],
                         c[T]->held_between[i]);
}

/* Fit f's errors and band from its blended nested predictions (at, btw)
 * of its values y (r: room for the residuals; kept in band_r for pooling
 * across groups, model_pool.c). */
static void make_blended(const pp_model_group *g, pp_model_fit *f, const double *y,
                         const double *at, const double *btw, double *r)
{
    pp_choice *c = &f->choice;
    size_t m = 0;

    pp_cv_errors(&g->surf, y, at, &c->honest);
    for (size_t i = 0; i < g->n_rows; i++)
        m += (size_t)pp_band_residual(c, y[i], at[i], &r[m]);
    c->band_n = m;
    c->band_q = pp_band_quantile(r, m);
    free(c->band_r);
    if ((c->band_r = malloc((m + 1) * sizeof *c->band_r)))
        memcpy(c->band_r, r, m * sizeof *r);
    m = 0;
    if (c->n_held_between) {
        pp_cv_pairs(&g->surf, y, c->held_between_idx, btw, c->n_held_between, &c->between);
        for (size_t i = 0; i < c->n_held_between; i++)
            if (pp_band_residual(c, y[c->held_between_idx[i]], btw[i], &r[m])) {
                double b = c->held_between_b[i];
                r[m] = c->band_q + (r[m] - c->band_q) / b;
                m++;
            }
        c->band_n_between = m;
        c->band_q_between = pp_band_quantile(r, m);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The measured rows of group g hold E = P x T for rail k: the median
 * relative disagreement at most 5 % (measurement noise stays inside): 1,
 * else 0 with the disagreement said. Data that does not (another tool's
 * energy, a warm-up left out of the means) is modelled as it is, metric by
 * metric, and the disagreement reported. */
static int consistent(const pp_model *m, const pp_model_group *g, const size_t *k)
{
    double *c[3] = {pp_model_column(m, g, k[E]), pp_model_column(m, g, k[P]),
                    pp_model_column(m, g, k[T])};
    double *d = malloc((g->n_rows + 1) * sizeof *d), median = 0;
    size_t n = 0;
    int ok = c[E] && c[P] && c[T] && d;

    for (size_t i = 0; ok && i < g->n_rows; i++) {
        double e = c[E][i], pt = c[P][i] * c[T][i];
        if (isfinite(e) && isfinite(pt) && fabs(e) > 1e-3)
            d[n++] = fabs(e - pt) / fabs(e);
    }
    if (ok && n) {
        qsort(d, n, sizeof *d, cmp_double);
        median = n % 2 ? d[n / 2] : 0.5 * (d[n / 2 - 1] + d[n / 2]);
    }
    if (ok && median > 0.05)
        pp_log_warn("%s differs from %s x %s by %.1f %% (the median over the measured rows): "
                    "the three are modelled each on its own, not one derived from the others",
                    m->sum.metrics[k[E]], m->sum.metrics[k[P]], m->sum.metrics[k[T]],
                    100 * median);
    for (int i = 0; i < 3; i++)
        free(c[i]);
    free(d);
    return ok && median <= 0.05;
}

/* The held-out pairs the blend is weighed on (issue 43): over n pairs
 * (pair p of sample idx[p], or p when idx is NULL) the values y of E, P,
 * T per sample, their own held-out predictions per pair, and the fold
 * each pair was held out in (NULL: its own). Derivations E .. last. */
typedef struct nesting {
    const double *y[3];
    const double *own[3];
    const size_t *idx;
    const size_t *fold;
    size_t n, n_folds;
    int last;
    int only; /* -1: blended; else that derivation alone (pp_model_options) */
} nesting;

/* |pred - y| / y of metric o at pair p under the blend a (NAN: none). */
static double ape_of(const nesting *ns, const double *a, int o, size_t p)
{
    size_t i = ns->idx ? ns->idx[p] : p;
    double pred = blended(o, a, ns->own[E][p], ns->own[P][p], ns->own[T][p]);
    double y = ns->y[o][i];

    return isnan(y) || y == 0 || !isfinite(pred) ? NAN : fabs((pred - y) / y);
}

static size_t fold_of(const nesting *ns, size_t p) { return ns->fold ? ns->fold[p] : p; }

/* Pair p's score under derivation w alone (the sum of the blended
 * metrics' errors, E .. last), NAN when one is missing. */
static double pair_score(const nesting *ns, int w, size_t p)
{
    double one[3] = {0, 0, 0}, s = 0;

    one[w] = 1;
    for (int o = E; o <= ns->last; o++)
        s += ape_of(ns, one, o, p);
    return isfinite(s) ? s : NAN;
}

/* Per fold f (not skip) and derivation w <= last, the mean pair score into
 * m[w * n_folds + f] (NAN: no pair there scored under every derivation). */
static void fold_scores(const nesting *ns, size_t skip, double *m, double *cnt)
{
    size_t nf = ns->n_folds;

    for (size_t i = 0; i < 3 * nf; i++)
        m[i] = cnt[i % nf] = 0;
    for (size_t p = 0; p < ns->n; p++) {
        size_t f = fold_of(ns, p);
        double sc[3] = {0, 0, 0};
        int ok = f != skip && f < nf;
        for (int w = E; ok && w <= ns->last; w++)
            ok = !isnan(sc[w] = pair_score(ns, w, p));
        for (int w = E; ok && w <= ns->last; w++)
            m[w * nf + f] += sc[w];
        cnt[f] += ok;
    }
    for (size_t i = 0; i < 3 * nf; i++)
        m[i] = cnt[i % nf] > 0 ? m[i] / cnt[i % nf] : NAN;
}

/* The derivation of least mean fold score outside fold skip (the pairs of
 * a fold share one fit: the folds are the trials): E .. last, or -1 when
 * none was scored. */
static int best_alone(const nesting *ns, size_t skip)
{
    size_t nf = ns->n_folds;
    double *m = malloc((4 * nf + 1) * sizeof *m), mean[3] = {0, 0, 0};
    int best = -1;

    if (!m)
        return -1;
    fold_scores(ns, skip, m, m + 3 * nf);
    for (int w = E; w <= ns->last; w++) {
        double k = 0;
        for (size_t f = 0; f < nf; f++)
            if (!isnan(m[w * nf + f])) {
                mean[w] += m[w * nf + f];
                k++;
            }
        if (k > 0 && (best < 0 || mean[w] / k < mean[best]))
            best = w;
        mean[w] = k > 0 ? mean[w] / k : NAN;
    }
    free(m);
    return best;
}

/* The derivations' relative log errors outside fold skip, as a Gram
 * matrix: g[w][v] = the sum over the blended metrics o of sum r_w r_v over
 * the pairs over s_o, r_w = log(pred / y) of o under derivation w alone,
 * s_o the mean over w of sum r_w^2 (each metric weighs alike in its
 * relative errors: a duration 0.3 % off counts as an energy 3 % off); a
 * pair missing one is left out. The number of folds with pairs, or
 * -ENOMEM. */
static long log_gram(const nesting *ns, size_t skip, double g[3][3])
{
    size_t nf = ns->n_folds, used = 0;
    double go[3][3][3] = {{{0}}}; /* [metric][w][v] */
    unsigned char *seen = calloc(nf + 1, 1);

    memset(g, 0, 9 * sizeof g[0][0]);
    if (!seen)
        return -ENOMEM;
    for (size_t p = 0; p < ns->n; p++) {
        double r[3][3]; /* [metric][derivation] */
        size_t f = fold_of(ns, p);
        int ok = f != skip && f < nf;
        for (int o = E; ok && o <= ns->last; o++)
            for (int w = E; ok && w <= ns->last; w++) {
                double one[3] = {0, 0, 0}, y = ns->y[o][ns->idx ? ns->idx[p] : p];
                one[w] = 1;
                r[o][w] = log(blended(o, one, ns->own[E][p], ns->own[P][p], ns->own[T][p]) / y);
                ok = isfinite(r[o][w]);
            }
        for (int o = E; ok && o <= ns->last; o++)
            for (int w = E; w <= ns->last; w++)
                for (int v = E; v <= ns->last; v++)
                    go[o][w][v] += r[o][w] * r[o][v];
        used += ok && !seen[f];
        if (ok) /* f may be a pair in no fold (SIZE_MAX: edge_weights): not indexed */
            seen[f] = 1;
    }
    for (int o = E; o <= ns->last; o++) {
        double s_o = 0;
        for (int w = E; w <= ns->last; w++)
            s_o += go[o][w][w] / (ns->last + 1);
        for (int w = E; s_o > 0 && w <= ns->last; w++)
            for (int v = E; v <= ns->last; v++)
                g[w][v] += go[o][w][v] / s_o;
    }
    free(seen);
    return (long)used;
}

/* The least a' G a on the face of the simplex the derivations in mask
 * span (a_w = 0 outside it, sum 1), into a: its value, or INFINITY where
 * that face has no interior stationary point (a weight < 0, or G not
 * positive definite there). */
static double face_least(const double g[3][3], int mask, double *a)
{
    double m[9], x[3], q = 0, sum = 0;
    int ix[3], n = 0;

    for (int w = E; w <= T; w++)
        if (mask & (1 << w))
            ix[n++] = w;
    for (int i = 0; i < n; i++) {
        x[i] = 1;
        for (int j = 0; j < n; j++)
            m[j * n + i] = g[ix[i]][ix[j]];
    }
    a[E] = a[P] = a[T] = 0;
    if (pp_lapack_dposv_small(n, m, x) != 0) /* G_S x = 1, then a = x / sum x */
        return INFINITY;
    for (int i = 0; i < n; i++)
        sum += x[i];
    for (int i = 0; i < n; i++)
        if (!((a[ix[i]] = x[i] / sum) >= 0))
            return INFINITY;
    for (int w = E; w <= T; w++)
        for (int v = E; v <= T; v++)
            q += a[w] * a[v] * g[w][v];
    return q;
}

/* The weights of derivations E .. last (the others 0) into a, on the
 * pairs outside fold skip (SIZE_MAX: all): stacked (Breiman 1996), the
 * non-negative weights summing to 1 whose blend has the least relative
 * squared log error (log_gram) over the held-out pairs, plus one fold's
 * share of it times |a - 1 / n|^2 (n derivations): a difference seen in
 * no more than a fold moves the weights little. Where the derivations
 * predict alike the weights cost nothing (the tied folds weigh the same
 * whatever the weights); one that errs in every fold keeps about 1 / (n
 * folds) of the weight; two whose errors cancel are both kept (a near tie
 * shared, not decided). Below 3 folds the scatter cannot be told: the
 * least error alone. ns->only >= 0: that derivation alone. 1, or 0 when
 * none could be scored. */
static int weights_without(const nesting *ns, size_t skip, double *a)
{
    double g[3][3], q = INFINITY, c[3], tr = 0;
    long used = log_gram(ns, skip, g);
    int best = best_alone(ns, skip);

    a[E] = a[P] = a[T] = 0;
    if (used <= 0 || best < 0)
        return 0;
    for (int w = E; w <= ns->last; w++)
        tr += g[w][w];
    if (ns->only >= 0 || used < 3) {
        if (ns->only <= ns->last)
            a[ns->only >= 0 ? ns->only : best] = 1;
        return 1;
    }
    for (int w = E; w <= ns->last; w++) /* + lambda |a - 1 / n|^2 = + lambda on the diagonal */
        g[w][w] += tr / (double)(ns->last + 1) / (double)used;
    for (int mask = 1; mask < 1 << (ns->last + 1); mask++) {
        double qm = face_least(g, mask, c);
        if (qm < q) {
            q = qm;
            memcpy(a, c, sizeof c);
        }
    }
    a[best] += q < INFINITY ? 0 : 1; /* every residual 0: the best alone */
    return 1;
}

/* Each pair's errors under the blend weighed without its fold, into cv
 * (mape, mape_sd; the rest kept; the metrics E .. last: the others are
 * not blended here). */
static int nest_blend(const nesting *ns, pp_cv *const cv[3])
{
    double out[3] = {0}, out2[3] = {0}, n_out[3] = {0};
    double *aw = malloc((3 * ns->n_folds + 1) * sizeof *aw); /* the weights per fold */

    if (!aw)
        return -ENOMEM;
    for (size_t f = 0; f < ns->n_folds; f++)
        weights_without(ns, f, &aw[3 * f]);
    for (size_t p = 0; p < ns->n; p++) {
        for (int o = E; o <= ns->last && fold_of(ns, p) < ns->n_folds; o++) {
            double e = ape_of(ns, &aw[3 * fold_of(ns, p)], o, p);
            if (!isnan(e)) {
                out[o] += e;
                out2[o] += e * e;
                n_out[o]++;
            }
        }
    }
    for (int o = E; o <= ns->last; o++)
        if (n_out[o] > 0) {
            cv[o]->mape = 100 * out[o] / n_out[o];
            cv[o]->mape_sd = n_out[o] > 1 ? 100 * sqrt(fmax(0.0, (out2[o] - out[o] * out[o] /
                                                                            n_out[o]) /
                                                                       (n_out[o] - 1)))
                                          : NAN;
        }
    free(aw);
    return 0;
}

int pp_model_nest_derivation(const double *const y[3], const double *const own[3],
                             const size_t *idx, const size_t *fold, size_t n, size_t n_folds,
                             int last, pp_cv *const cv[3])
{
    nesting ns = {{y[E], y[P], y[T]}, {own[E], own[P], own[T]}, idx, fold, n,
                  fold ? n_folds : n, last, -1};
    return nest_blend(&ns, cv);
}

/* Rail k's pairs at measured levels (between 0) or between them (1) as a
 * nesting, into ns (y: the three columns; fold: room for the larger of
 * n_rows and the between pairs). 0, or -ENOMEM. */
static int rail_pairs(const pp_model_group *g, const size_t *k, double *const y[3], int between,
                      int last, int only, size_t *fold, nesting *ns)
{
    const pp_choice *c[3] = {&g->fits[k[E]].choice, &g->fits[k[P]].choice,
                             &g->fits[k[T]].choice};
    long nf = between ? between_folds(g, c[E], y[E], fold)
                      : at_folds(c[E], y[E], g->n_rows, fold);

    if (nf < 0)
        return (int)nf;
    if (between)
        *ns = (nesting){{y[E], y[P], y[T]},
                        {c[E]->held_between, c[P]->held_between, c[T]->held_between},
                        c[E]->held_between_idx, fold, c[E]->n_held_between, (size_t)nf, last,
                        only};
    else
        *ns = (nesting){{y[E], y[P], y[T]}, {c[E]->held_at, c[P]->held_at, c[T]->held_at},
                        NULL, fold, g->n_rows, (size_t)nf, last, only};
    return 0;
}

/* The blended fits' printed errors (at and between measured levels) with
 * the weights nested. */
static int nest_rail(const pp_model_group *g, const size_t *k, double *const y[3], int last,
                     int only, size_t *fold)
{
    pp_cv *at[3] = {&g->fits[k[E]].choice.honest, &g->fits[k[P]].choice.honest,
                    &g->fits[k[T]].choice.honest};
    pp_cv *btw[3] = {&g->fits[k[E]].choice.between, &g->fits[k[P]].choice.between,
                     &g->fits[k[T]].choice.between};
    nesting ns;
    int rc = rail_pairs(g, k, y, 0, last, only, fold, &ns);

    if (rc == 0)
        rc = nest_blend(&ns, at);
    if (rc == 0 && g->fits[k[E]].choice.n_held_between &&
        (rc = rail_pairs(g, k, y, 1, last, only, fold, &ns)) == 0)
        rc = nest_blend(&ns, btw);
    return rc;
}

/* Edge fold f of the rail's column y[E] left out: each metric's spec
 * refitted on the rest, its samples' predictions appended to own[*][*n]
 * with their index and fold. 0 or -ENOMEM. */
static int edge_fold_preds(const pp_model_group *g, const size_t *k, double *const y[3],
                           const pp_fold *f, size_t fi, double *y2, double *const own[3],
                           size_t *idx, size_t *fold, size_t *n)
{
    const pp_surface *s = &g->surf;
    size_t first = *n;

    for (size_t i = 0; i < s->n; i++)
        if (!isnan(y[E][i]) && pp_fold_has(s, f, i)) {
            idx[*n] = i;
            fold[(*n)++] = fi;
        }
    for (int w = E; w <= T; w++) {
        pp_est e;
        int rc;
        for (size_t i = 0; i < s->n; i++)
            y2[i] = pp_fold_has(s, f, i) ? NAN : y[w][i];
        if ((rc = pp_est_fit(&e, s, y2, &g->fits[k[w]].choice.spec)) == -ENOMEM)
            return rc;
        for (size_t p = first; p < *n; p++)
            own[w][p] = rc == 0 ? pp_est_predict(&e, s->x + idx[p] * s->d) : NAN;
        if (rc == 0)
            pp_est_free(&e);
    }
    return 0;
}

/* The blend's weights outside the measured range along each dimension j
 * into a[3 j ..] (NaN: no edges along j), judged on the two edges of j
 * held out (its least and largest level predicted from the rest by each
 * metric's chosen spec: what an extrapolation along j meets): the
 * derivation that erred least there (two folds: weights_without's best
 * alone). 1, 0 when there are none, or -ENOMEM. */
static int edge_weights(const pp_model_group *g, const size_t *k, double *const y[3], int last,
                        int only, double *a)
{
    const pp_surface *s = &g->surf;
    pp_fold folds[2 * PP_SURFACE_MAX_DIMS];
    size_t nf = pp_band_edge_folds(s, y[E], folds), n = 0, cap = 2 * s->d * s->n + 1;
    double *buf = malloc((4 * cap + s->n + 1) * sizeof *buf);
    double *own[3] = {buf, buf + cap, buf + 2 * cap}, *y2 = buf + 3 * cap;
    size_t *idx = malloc(3 * cap * sizeof *idx), *fold = idx + cap;
    int rc = buf && idx ? 0 : -ENOMEM, any = 0;
    nesting ns;

    for (size_t f = 0; rc == 0 && f < nf; f++)
        rc = edge_fold_preds(g, k, y, &folds[f], f, y2, own, idx, fold, &n);
    for (size_t i = 0; i < 3 * PP_SURFACE_MAX_DIMS; i++)
        a[i] = NAN;
    for (size_t f = 0; rc == 0 && f + 1 < nf; f += 2) { /* in pairs: the least and largest of a dim */
        size_t *in2 = idx + 2 * cap; /* the pairs of f and f + 1, the others in no fold */
        double *aj = &a[3 * folds[f].dim];
        for (size_t p = 0; p < n; p++)
            in2[p] = fold[p] == f || fold[p] == f + 1 ? fold[p] - f : SIZE_MAX;
        ns = (nesting){{y[E], y[P], y[T]}, {own[E], own[P], own[T]}, idx, in2, n, 2, last, only};
        if (!weights_without(&ns, SIZE_MAX, aj))
            aj[E] = aj[P] = aj[T] = NAN;
        any |= !isnan(aj[E]);
    }
    free(buf);
    free(idx);
    return rc < 0 ? rc : any;
}

/* Rail k's three in group g blended (E .. last): the weights on the pairs
 * the printed error is of (between levels, else at them), each blended
 * fit's errors and band from its blended nested predictions, then the
 * printed errors nested. */
static int blend_rail(const pp_model *m, pp_model_group *g, const size_t *k, int last)
{
    size_t n = g->n_rows, nb = g->fits[k[E]].choice.n_held_between;
    double *at = malloc((3 * n + 2 * nb + 2) * sizeof *at), *btw, *r, a[3];
    double a_edge[3 * PP_SURFACE_MAX_DIMS];
    double *y[3] = {pp_model_column(m, g, k[E]), pp_model_column(m, g, k[P]),
                    pp_model_column(m, g, k[T])};
    size_t *fold = malloc((n + nb + 1) * sizeof *fold);
    int rc = at && fold && y[E] && y[P] && y[T] ? 0 : -ENOMEM, only = m->opts.derivation;
    nesting ns;

    if (rc == 0)
        rc = rail_pairs(g, k, y, g->fits[k[E]].choice.between.n > 0, last, only, fold, &ns);
    if (rc == 0 && weights_without(&ns, SIZE_MAX, a)) {
        int edge = edge_weights(g, k, y, last, only, a_edge);
        btw = at + n;
        r = btw + nb + 1;
        for (int w = E; w <= last; w++) {
            pp_model_fit *f = &g->fits[k[w]];
            blended_preds(g, k, w, a, at, btw);
            make_blended(g, f, y[w], at, btw, r);
            f->derived = 1;
            f->weight = a[w];
            f->edge_weighted = edge > 0;
            for (size_t j = 0; j < PP_SURFACE_MAX_DIMS; j++)
                f->weight_edge[j] = a_edge[3 * j + w];
            f->divide = w != E;
            f->from[0] = w == E ? k[P] : k[E];
            f->from[1] = w == T ? k[P] : k[T];
        }
        rc = edge < 0 ? edge : nest_rail(g, k, y, last, only, fold);
    }
    for (int i = 0; i < 3; i++)
        free(y[i]);
    free(fold);
    free(at);
    return rc;
}

/* The total first: it blends the duration too, which every rail shares;
 * the rails then blend their energy and mean power. */
int pp_model_derive(pp_model *m)
{
    const pp_summary *s = &m->sum;
    int t = pp_summary_metric(s, "duration_s"), total = pp_summary_metric(s, "total_energy_j");

    for (size_t n = 0; t >= 0 && n <= s->n_metrics; n++) {
        size_t e = n == 0 ? (size_t)(total >= 0 ? total : 0) : n - 1;
        const char *name;
        if ((n == 0 && total < 0) || (n > 0 && (int)e == total))
            continue;
        name = s->metrics[e];
        size_t len = strlen(name), k[3];
        char power[PP_SUMMARY_NAME_MAX];
        int p;
        if (len <= 9 || strcmp(name + len - 9, "_energy_j") != 0)
            continue;
        if (pp_fmt(power, sizeof power, "%.*s_mean_w", (int)(len - 9), name) < 0 ||
            (p = pp_summary_metric(s, power)) < 0) /* too long for a metric's name: none */
            continue;
        k[E] = e;
        k[P] = (size_t)p;
        k[T] = (size_t)t;
        for (size_t g = 0; g < m->n_groups; g++) {
            int rc;
            if (!usable(&m->groups[g], k) || !consistent(m, &m->groups[g], k))
                continue;
            if ((rc = blend_rail(m, &m->groups[g], k, (int)e == total ? T : P)) < 0)
                return rc;
        }
    }
    return 0;
}
