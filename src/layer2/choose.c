/* The choice of an estimator per metric (choose.h, pp_choose): boxcox
 * (local-linear where it cannot be scored) tuned by leaving out levels,
 * the nested errors between and at measured levels, the band calibrated
 * on both. */
#include "choose.h"

#include "estimator.h"
#include "lapack.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Ties: a criterion within this fraction of the least counts as equal. */
#define TIE 1e-3

void pp_choose_options_init(pp_choose_options *o)
{
    memset(o, 0, sizeof *o);
    o->method = PP_METHOD_AUTO;
    o->h = -1;
    o->value_space = -1;
}

static size_t count_values(const double *y, size_t n, int *all_positive, int *nonneg)
{
    size_t k = 0;
    *all_positive = *nonneg = 1;
    for (size_t i = 0; i < n; i++)
        if (!isnan(y[i])) {
            k++;
            *all_positive &= y[i] > 0;
            *nonneg &= y[i] >= 0;
        }
    return k;
}

/* The methods in auto's order: the parametric family first (it follows
 * the workload's shape past a missing level); local-linear only where the
 * family cannot be scored (issue 43: a rule, not a competition; the
 * competition kept local-linear in 11 of 90 metric fits of the real sets,
 * tuning it on every metric and fold: bench/README.md, "auto: a rule").
 * The weighted average when asked for (or without LAPACK). */
static const pp_method order[PP_METHODS] = {PP_METHOD_BOXCOX, PP_METHOD_LOCLIN, PP_METHOD_NW};

/* Whether o lets candidate (m, lg) be tried (pos: all values > 0). */
static int allowed(const pp_choose_options *o, pp_method m, int lg, int pos)
{
    int autom = o->method == PP_METHOD_AUTO;

    if ((!autom && m != o->method) || (o->value_space >= 0 && lg != o->value_space) || (lg && !pos))
        return 0;
    if (autom && !pp_lapack_available()) /* then nw alone */
        return m == PP_METHOD_NW;
    return !(autom && m == PP_METHOD_NW);
}

/* Candidate (m, lg) tuned on y and scored: its errors over the level folds
 * when there are any (the kernels tuned on them), else by leave-one-out. */
static int score(const pp_surface *s, const double *y, const pp_choose_options *o, pp_method m,
                 int lg, const pp_fold *folds, size_t nf, size_t n_fit, double *pred,
                 pp_est_spec *sp, pp_cv *c)
{
    int fixed = o->method != PP_METHOD_AUTO && o->h >= 0, rc;

    memset(sp, 0, sizeof *sp);
    *sp = (pp_est_spec){m, lg, o->h, {0}, 0};
    if (m == PP_METHOD_BOXCOX) {
        rc = pp_est_tune_boxcox_n(s, y, lg, n_fit, sp, c);
        if (rc == 0 && fixed && o->h != sp->h) { /* the residual smoother as given */
            sp->h = o->h;
            rc = nf ? pp_est_cv(s, y, sp, folds, nf, c, NULL) : pp_est_loo(s, y, sp, pred);
            if (rc == 0 && !nf)
                pp_cv_errors(s, y, pred, c);
        }
        return rc;
    }
    if (fixed) {
        rc = pp_est_loo(s, y, sp, pred);
        if (rc == 0)
            pp_cv_errors(s, y, pred, c);
    } else {
        rc = pp_est_tune(s, y, m, lg, folds, nf, sp, c);
    }
    if (rc == 0 && nf && fixed) /* else tuned on them */
        rc = pp_est_cv(s, y, sp, folds, nf, c, NULL);
    return rc;
}

/* The choice on y (pred: s->n of room): the first method of auto's order
 * that o allows and that scores on y, tuned in each value space allowed,
 * the least criterion kept (linear among ties). boxcox scores where a fit
 * without each fold keeps a sample per term (1 + one per parameter): one
 * parameter needs 3 samples, and its nested errors and band 4 (with 3,
 * each nested fold falls back: they are local-linear's). *chose (may be
 * NULL): 1 when anything was chosen (tuned, or more than one candidate). */
static int choose_on(const pp_surface *s, const double *y, const pp_choose_options *o,
                     size_t n, double *pred, pp_est_spec *spec, pp_cv *cv, int *chose)
{
    int pos, nonneg, fixed = o->method != PP_METHOD_AUTO && o->h >= 0 && o->method != PP_METHOD_BOXCOX;
    size_t n_cand = 0, best = 0;
    pp_est_spec sp[2];
    pp_cv c[2];
    pp_fold *folds;
    long nf = pp_level_folds(s, y, &folds);

    count_values(y, s->n, &pos, &nonneg);
    if (nf < 0)
        return (int)nf;
    for (int a = 0; a < PP_METHODS && n_cand == 0; a++)
        for (int lg = 0; lg <= 1; lg++) {
            int rc;
            if (!allowed(o, order[a], lg, pos))
                continue;
            rc = score(s, y, o, order[a], lg, folds, (size_t)nf, n, pred, &sp[n_cand], &c[n_cand]);
            if (rc == -ENOMEM) {
                free(folds);
                return rc;
            }
            if (rc == 0 && isfinite(c[n_cand].crit))
                best = n_cand == 0 || c[n_cand].crit < c[best].crit ? n_cand : best, n_cand++;
        }
    free(folds);
    if (chose)
        *chose = !fixed || n_cand > 1;
    if (n_cand == 0)
        return -EINVAL;
    for (size_t k = 0; k < n_cand; k++)
        if (c[k].crit <= c[best].crit * (1 + TIE)) {
            *spec = sp[k];
            *cv = c[k];
            break;
        }
    return 0;
}

/* The choice on y: on all of it up to PP_CHOOSE_SUB samples; above, the
 * candidates tuned and compared on PP_CHOOSE_SUB of them spread over the
 * others (a Weyl sequence over their order: every part of a grid thinned
 * alike), and the winner fitted on all by the caller (a kernel's bandwidth
 * narrowed by the rate of its optimum, (n_sub / n)^(1 / (d + 4))). */
static int choose_plain(const pp_surface *s, const double *y, const pp_choose_options *o,
                        double *pred, pp_est_spec *spec, pp_cv *cv, int *chose)
{
    int pos, nonneg, rc;
    size_t n = count_values(y, s->n, &pos, &nonneg), k = 0, n_sub = 0, dims[PP_SURFACE_MAX_DIMS];
    double *sub, keep = (double)PP_CHOOSE_SUB / (double)n;

    if (n <= PP_CHOOSE_SUB)
        return choose_on(s, y, o, n, pred, spec, cv, chose);
    if (!(sub = malloc(s->n * sizeof *sub)))
        return -ENOMEM;
    for (size_t i = 0; i < s->n; i++) {
        double u = isnan(y[i]) ? 1.0 : fmod(0.6180339887498949 * (double)++k, 1.0);
        sub[i] = u < keep ? y[i] : NAN;
        n_sub += u < keep;
    }
    rc = choose_on(s, sub, o, n, pred, spec, cv, chose);
    free(sub);
    if (rc == 0 && (spec->method == PP_METHOD_NW || spec->method == PP_METHOD_LOCLIN))
        spec->h = fmax(spec->h * pow((double)n_sub / (double)n,
                                     1.0 / (double)(pp_surface_varying(s, dims) + 4)),
                       pp_est_narrowest_h(s));
    return rc;
}

/* Predict the samples that out marks from the others, the choice re-made
 * on them (nested) or spec kept: pred[i] for each (NaN when nothing can be
 * fitted), scale[i] the band's scale outside the range they leave. */
static int predict_out(const pp_surface *s, const double *y, const pp_choose_options *o,
                       const pp_est_spec *keep, const unsigned char *out, double *y2, double *tmp,
                       double *pred, double *scale)
{
    pp_est_spec spec;
    pp_band_range r;
    pp_cv cv;
    pp_est e;
    int rc = 0;

    for (size_t i = 0; i < s->n; i++) {
        y2[i] = out[i] ? NAN : y[i];
        if (out[i])
            pred[i] = NAN;
    }
    if (keep)
        spec = *keep;
    else
        rc = choose_plain(s, y2, o, tmp, &spec, &cv, NULL);
    if (rc == 0)
        rc = pp_est_fit(&e, s, y2, &spec);
    if (rc == -ENOMEM)
        return rc;
    if (rc < 0)
        return 0; /* nothing to predict these from: left NaN */
    pp_band_range_without(s, y, out, &r);
    for (size_t i = 0; i < s->n; i++)
        if (out[i]) {
            pred[i] = pp_est_predict(&e, s->x + i * s->d);
            scale[i] = pp_band_scale(&r, s->x + i * s->d);
        }
    pp_est_free(&e);
    return 0;
}

/* Scratch of the nested errors. */
typedef struct nest {
    double *y2, *tmp, *pred, *scale;
    unsigned char *out;
} nest;

static void nest_free(nest *w)
{
    free(w->y2);
    free(w->out);
    memset(w, 0, sizeof *w);
}

static int nest_init(nest *w, size_t n)
{
    w->y2 = malloc((4 * n + 1) * sizeof *w->y2);
    w->out = malloc(n + 1);
    if (!w->y2 || !w->out) {
        nest_free(w);
        return -ENOMEM;
    }
    w->tmp = w->y2 + n;
    w->pred = w->tmp + n;
    w->scale = w->pred + n;
    return 0;
}

/* The residuals of the samples (or of each of their replicates) that out
 * marks against pred, each over scale, appended to r[*m]. */
static void add_residuals(const pp_surface *s, const double *y, const pp_choose_options *o,
                          const pp_choice *c, const unsigned char *out, const double *pred,
                          const double *scale, double *r, size_t *m)
{
    for (size_t i = 0; i < s->n; i++) {
        if (!out[i] || isnan(y[i]))
            continue;
        if (!o->rep_start) {
            if (pp_band_residual(c, y[i], pred[i], &r[*m])) {
                r[*m] /= scale[i];
                ++*m;
            }
            continue;
        }
        for (size_t j = o->rep_start[i]; j < o->rep_start[i + 1]; j++)
            if (pp_band_residual(c, o->rep_value[j], pred[i], &r[*m])) {
                r[*m] /= scale[i];
                ++*m;
            }
    }
}

static size_t residual_room(const pp_surface *s, const pp_choose_options *o)
{
    return (o->rep_start ? o->rep_start[s->n] : s->n) + 1;
}

/* Plain leave-one-out of spec into held, with each sample's residuals. */
static int plain_loo(const pp_surface *s, const double *y, const pp_choose_options *o,
                     const pp_est_spec *spec, nest *w, pp_choice *c, double *held, double *r,
                     size_t *m)
{
    int rc = pp_est_loo(s, y, spec, held);

    memset(w->out, 0, s->n);
    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        pp_band_range br;
        if (isnan(y[i]))
            continue;
        w->out[i] = 1;
        pp_band_range_without(s, y, w->out, &br);
        w->scale[i] = pp_band_scale(&br, s->x + i * s->d);
        add_residuals(s, y, o, c, w->out, held, w->scale, r, m);
        w->out[i] = 0;
    }
    return rc;
}

/* At measured levels: every sample predicted from the others, the choice
 * re-made without it (leave-one-out up to PP_NESTED_LOO_MAX samples, 10
 * folds up to PP_CHOOSE_SUB, 5 above: a fifth of a large design is still
 * many samples, and each fold costs a whole choice), or spec kept (plain
 * leave-one-out); c->honest, c->band_q, c->held_at. */
static int at_levels(const pp_surface *s, const double *y, const pp_choose_options *o,
                     const pp_est_spec *keep, size_t n_valid, nest *w, pp_choice *c)
{
    size_t *fold = malloc((s->n + 1) * sizeof *fold), k = 0, m = 0;
    double *held = malloc((s->n + 1) * sizeof *held), *r = malloc(residual_room(s, o) * sizeof *r);
    int rc = fold && held && r ? 0 : -ENOMEM;

    c->folds = keep || n_valid <= PP_NESTED_LOO_MAX ? n_valid
               : n_valid <= PP_CHOOSE_SUB             ? 10
                                                      : 5;
    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        held[i] = NAN;
        fold[i] = isnan(y[i]) ? SIZE_MAX : k++ % c->folds;
    }
    if (rc == 0 && keep)
        rc = plain_loo(s, y, o, keep, w, c, held, r, &m);
    for (size_t f = 0; rc == 0 && !keep && f < c->folds; f++) {
        for (size_t i = 0; i < s->n; i++)
            w->out[i] = fold[i] == f;
        rc = predict_out(s, y, o, keep, w->out, w->y2, w->tmp, w->pred, w->scale);
        for (size_t i = 0; rc == 0 && i < s->n; i++)
            if (w->out[i])
                held[i] = w->pred[i];
        if (rc == 0)
            add_residuals(s, y, o, c, w->out, w->pred, w->scale, r, &m);
    }
    if (rc == 0) {
        pp_cv_errors(s, y, held, &c->honest);
        c->band_n = m;
        c->band_q = pp_band_quantile(r, m);
        c->held_at = held;
        held = NULL;
        if (o->keep_held) { /* for pooling across groups (model_pool.c) */
            c->band_r = r;
            r = NULL;
        }
    }
    free(fold);
    free(held);
    free(r);
    return rc;
}

/* Fold f's residuals as the half-width they need one grid step from the
 * levels: a residual r at distance b >= 1 (pp_band_between) needs
 * band_q + (q - band_q) b >= r, that is q >= band_q + (r - band_q) / b
 * (below band_q where r is). */
static void add_needs(const pp_surface *s, const double *y, const pp_choose_options *o,
                      const pp_choice *c, nest *w, double *need, size_t *m, double *bs)
{
    for (size_t i = 0; i < s->n; i++) {
        size_t first = *m;
        double b;
        if (!w->out[i] || isnan(y[i]))
            continue;
        b = pp_band_between_without(s, y, w->out, s->x + i * s->d);
        b = b > 0.05 ? b : 1.0;
        *bs++ = b;
        if (!o->rep_start) {
            *m += (size_t)pp_band_residual(c, y[i], w->pred[i], &need[*m]);
        } else {
            for (size_t j = o->rep_start[i]; j < o->rep_start[i + 1]; j++)
                *m += (size_t)pp_band_residual(c, o->rep_value[j], w->pred[i], &need[*m]);
        }
        for (size_t k = first; k < *m; k++) {
            double r = need[k] / w->scale[i];
            need[k] = c->band_q + (r - c->band_q) / b;
        }
    }
}

/* Between measured levels: every group of level folds
 * (pp_level_fold_groups) predicted from the others, the choice re-made
 * without it; c->between, c->band_q_between, c->held_between (pairs group
 * by group, each in the order of the samples). */
static int between_levels(const pp_surface *s, const double *y, const pp_choose_options *o,
                          const pp_est_spec *keep, nest *w, pp_choice *c)
{
    pp_fold *folds;
    size_t *group = NULL, ng = 0;
    long nf = pp_level_fold_groups(s, y, &folds, &group, &ng);
    size_t cap, n = 0, m = 0, *idx = NULL;
    double *held = NULL, *need = NULL, *bs = NULL;
    int rc = nf < 0 ? (int)nf : 0;

    c->band_q_between = NAN;
    if (nf <= 0)
        return rc;
    cap = (size_t)nf * s->n + 1;
    idx = malloc(cap * sizeof *idx);
    held = malloc(cap * sizeof *held);
    bs = malloc(cap * sizeof *bs);
    need = malloc((size_t)nf * residual_room(s, o) * sizeof *need);
    rc = idx && held && need && bs ? 0 : -ENOMEM;
    for (size_t g = 0; rc == 0 && g < ng; g++) {
        for (size_t i = 0; i < s->n; i++)
            w->out[i] = !isnan(y[i]) && pp_fold_group_has(s, folds, group, (size_t)nf, g, i);
        size_t first = n;
        rc = predict_out(s, y, o, keep, w->out, w->y2, w->tmp, w->pred, w->scale);
        for (size_t i = 0; rc == 0 && i < s->n; i++)
            if (w->out[i]) {
                idx[n] = i;
                held[n++] = w->pred[i];
            }
        if (rc == 0)
            add_needs(s, y, o, c, w, need, &m, bs + first);
    }
    if (rc == 0) {
        pp_cv_pairs(s, y, idx, held, n, &c->between);
        c->between_folds = ng;
        c->band_n_between = m;
        c->band_q_between = pp_band_quantile(need, m);
        c->held_between = held;
        c->n_held_between = n;
        c->held_between_idx = idx;
        c->held_between_b = bs;
        held = bs = NULL;
        idx = NULL;
    }
    free(folds);
    free(group);
    free(idx);
    free(held);
    free(need);
    free(bs);
    return rc;
}

int pp_choose(const pp_surface *s, const double *y, const pp_choose_options *o, pp_choice *c)
{
    double *pred = malloc((s->n + 1) * sizeof *pred);
    int chose = 0, rc;
    size_t n_valid = count_values(y, s->n, &c->positive, &c->nonnegative);
    nest w;

    memset(c, 0, sizeof *c);
    count_values(y, s->n, &c->positive, &c->nonnegative);
    c->band_q = c->band_q_between = NAN;
    if (!pred)
        return -ENOMEM;
    pp_band_range_of(s, y, &c->range);
    rc = n_valid < 2 ? -EINVAL : choose_plain(s, y, o, pred, &c->spec, &c->loo, &chose);
    if (rc == 0 && (rc = pp_est_loo(s, y, &c->spec, pred)) == 0) /* c->loo: plain, of the choice */
        pp_cv_errors(s, y, pred, &c->loo);
    free(pred);
    if (rc < 0 || o->choice_only) {
        c->honest = c->loo;
        return rc;
    }
    if ((rc = nest_init(&w, s->n)) < 0)
        return rc;
    c->nested = chose;
    rc = at_levels(s, y, o, chose ? NULL : &c->spec, n_valid, &w, c);
    if (rc == 0)
        rc = between_levels(s, y, o, chose ? NULL : &c->spec, &w, c);
    nest_free(&w);
    if (rc == 0 && !o->keep_held)
        pp_choice_free(c);
    if (rc < 0)
        pp_choice_free(c);
    return rc;
}
