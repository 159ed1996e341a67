/* adaptive.c - the acquisition of an adaptive run and its stop rule
 * (adaptive.h). */
#include "adaptive.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define UNSEEN_UNCERTAINTY 10.0 /* log units: a group never measured */
#define DISTANCE_TIE 1e-3       /* a little of the distance: ties go to the farther */
#define MAX_SPREAD 3.0          /* log units: a band about a value near 0 says no more */

void pp_adaptive_options_init(pp_adaptive_options *o)
{
    o->target_error_pct = 5.0;
    o->budget_s = 0;
    o->max_configs = 0;
    o->seed = 1;
    o->batch = 2;
    o->overhead_s = 0.5;
    o->resume = 0;
}

const char *pp_adaptive_stop_name(pp_adaptive_stop s)
{
    static const char *const names[] = {"running", "target", "budget", "max-configs", "grid",
                                        "interrupted", "noise"};
    return s <= PP_STOP_NOISE ? names[s] : "?";
}

/* The spread of a prediction in log units: half its band's width, and the
 * change from value_near (the surface at the nearest measured
 * configuration). Values that are not all positive: relative to |value|. */
static double spread(double value, double lo, double hi, double value_near)
{
    double half = 0, change = 0, scale = fmax(fabs(value), 1e-300);

    if (!isnan(lo) && !isnan(hi))
        half = value > 0 && lo > 0 ? 0.5 * log(hi / lo)
                                   : fmin(0.5 * (hi - lo) / scale, MAX_SPREAD);
    if (!isnan(value_near))
        change = value > 0 && value_near > 0 ? fabs(log(value / value_near))
                                             : fabs(value - value_near) / scale;
    return (isnan(half) ? 0 : half) + (isnan(change) ? 0 : fmin(change, MAX_SPREAD));
}

/* What the acquisition needs of every candidate. */
typedef struct scoring {
    const pp_adaptive_space *s;
    const pp_adaptive_predictor *pr;
    const pp_adaptive_fit *f;
    const uint8_t *chosen;
    double *value;   /* n x n_metrics: the surface at each candidate (NAN: none) */
    size_t *near;    /* n: nearest chosen candidate in the same group (n: none) */
    double *near_d2; /* its squared distance */
} scoring;

static double d2_numeric(const pp_adaptive_space *s, size_t a, size_t b)
{
    double d = 0;

    for (size_t k = 0; k < s->n_params; k++)
        if (!s->categorical[k]) {
            double u = s->xn[a * s->n_params + k] - s->xn[b * s->n_params + k];
            d += u * u;
        }
    return d;
}

/* The nearest chosen candidate of each candidate, in its group. */
static void nearest_chosen(scoring *sc)
{
    const pp_adaptive_space *s = sc->s;
    size_t *list = malloc((s->n + 1) * sizeof *list), m = 0;

    for (size_t c = 0; list && c < s->n; c++)
        if (sc->chosen[c])
            list[m++] = c;
    for (size_t c = 0; c < s->n; c++) {
        sc->near[c] = s->n;
        sc->near_d2[c] = INFINITY;
        for (size_t i = 0; list && i < m; i++) {
            double d;
            if (s->group[list[i]] != s->group[c])
                continue;
            d = d2_numeric(s, c, list[i]);
            if (d < sc->near_d2[c]) {
                sc->near_d2[c] = d;
                sc->near[c] = list[i];
            }
        }
    }
    free(list);
}

/* The score of candidate c (uncertainty per second) and its cost; -1 for a
 * candidate that cannot be predicted in a measured group. */
static double score_of(const scoring *sc, size_t c, double overhead_s, double *cost_s,
                       double *unc)
{
    const pp_adaptive_space *s = sc->s;
    size_t nm = sc->f->n_metrics, near = sc->near[c];
    double u = 0, v, lo, hi, d = 0;
    int rc = 0;

    *cost_s = NAN;
    if (sc->f->has_cost && sc->pr->predict(sc->pr->ctx, s, c, nm, &v, &lo, &hi) == 0 && v > 0)
        *cost_s = v;
    if (s->prior_s[c] > 0)
        *cost_s = isnan(*cost_s) ? s->prior_s[c] : fmax(*cost_s, s->prior_s[c]);
    for (size_t k = 0; k < nm; k++) {
        rc = sc->pr->predict(sc->pr->ctx, s, c, k, &v, &lo, &hi);
        if (rc == -ENOENT)
            break;
        sc->value[c * nm + k] = rc == 0 ? v : NAN;
        if (rc == 0)
            u = fmax(u, spread(v, lo, hi, near < s->n ? sc->value[near * nm + k] : NAN));
        else
            u = fmax(u, 1.0); /* no model of it here yet: one group with one configuration */
    }
    if (rc == -ENOENT)
        u = UNSEEN_UNCERTAINTY;
    if (near < s->n)
        d = sqrt(sc->near_d2[c]);
    *unc = rc == -ENOENT ? INFINITY : u;
    return (u + DISTANCE_TIE * d) / ((isnan(*cost_s) ? 1.0 : *cost_s) + overhead_s);
}

/* The surface at every chosen candidate first (the nearest ones read it),
 * then every score. */
static void score_all(scoring *sc, double overhead_s, double *score, double *cost, double *unc)
{
    const pp_adaptive_space *s = sc->s;
    size_t nm = sc->f->n_metrics;

    for (size_t c = 0; c < s->n; c++)
        for (size_t k = 0; k < nm; k++) {
            double lo, hi;
            sc->value[c * nm + k] = NAN;
            if (sc->chosen[c] &&
                sc->pr->predict(sc->pr->ctx, s, c, k, &sc->value[c * nm + k], &lo, &hi) < 0)
                sc->value[c * nm + k] = NAN;
        }
    nearest_chosen(sc);
    for (size_t c = 0; c < s->n; c++)
        score[c] = sc->chosen[c] ? -INFINITY : score_of(sc, c, overhead_s, &cost[c], &unc[c]);
}

size_t pp_adaptive_choose(const pp_adaptive_space *s, const pp_adaptive_predictor *pr,
                          const pp_adaptive_fit *f, const uint8_t *chosen, double overhead_s,
                          double budget_left_s, uint64_t seed, pp_adaptive_pick *out, size_t cap)
{
    size_t nm = f->n_metrics ? f->n_metrics : 1, n_out = 0;
    double *score = malloc(s->n * sizeof *score), *cost = malloc(s->n * sizeof *cost);
    double *unc = malloc(s->n * sizeof *unc);
    scoring sc = {s, pr, f, chosen, malloc(s->n * nm * sizeof(double)),
                  malloc(s->n * sizeof(size_t)), malloc(s->n * sizeof(double))};

    (void)seed; /* ties go to the lower index: the scores are deterministic */
    if (score && cost && unc && sc.value && sc.near && sc.near_d2)
        score_all(&sc, overhead_s, score, cost, unc);
    for (; score && cost && unc && sc.value && sc.near && sc.near_d2 && n_out < cap;) {
        size_t best = s->n;
        for (size_t c = 0; c < s->n; c++)
            if (score[c] > -INFINITY && !(cost[c] > budget_left_s) &&
                (best == s->n || score[c] > score[best]))
                best = c;
        if (best == s->n)
            break;
        out[n_out++] = (pp_adaptive_pick){best, isinf(unc[best]) ? PP_WHY_UNSEEN : PP_WHY_BAND,
                                          score[best], cost[best]};
        budget_left_s -= isnan(cost[best]) ? 0 : cost[best];
        score[best] = -INFINITY;
        for (size_t c = 0; c < s->n; c++)  /* spread the round: damp the neighbours */
            if (score[c] > -INFINITY && s->group[c] == s->group[best])
                score[c] *= 1.0 - exp(-d2_numeric(s, c, best) / (s->rho * s->rho));
    }
    free(score);
    free(cost);
    free(unc);
    free(sc.value);
    free(sc.near);
    free(sc.near_d2);
    return n_out;
}

/* ---- the target stop of an adaptive run, and the claim it must earn ---- */

/* A normal error's mean |e| over the half-width of its 90 % band:
 * sqrt(2 / pi) / 1.645. */
#define MEAN_OVER_HALF_WIDTH 0.485

const char *pp_adaptive_hold_name(pp_adaptive_hold h)
{
    static const char *const names[] = {"none", "error", "design", "bands", "ceiling",
                                        "one-round"};
    return h <= PP_HOLD_ONE_ROUND ? names[h] : "?";
}

/* 1 when numeric parameter k's least and largest values of the grid are
 * both among the chosen candidates: the claim, measured by leaving out
 * what was measured, says nothing of an extrapolation. */
static int ends_measured(const pp_adaptive_space *s, const uint8_t *chosen, size_t k)
{
    double lo = INFINITY, hi = -INFINITY;
    int has_lo = 0, has_hi = 0;

    for (size_t c = 0; c < s->n; c++) {
        lo = fmin(lo, s->raw[c * s->n_params + k]);
        hi = fmax(hi, s->raw[c * s->n_params + k]);
    }
    for (size_t c = 0; c < s->n; c++)
        if (chosen[c]) {
            has_lo |= s->raw[c * s->n_params + k] == lo;
            has_hi |= s->raw[c * s->n_params + k] == hi;
        }
    return has_lo && has_hi;
}

/* 1 when every varying parameter has min(PP_ADAPTIVE_MIN_VALUES, its
 * values) distinct values among the chosen candidates, a numeric one its
 * two ends among them. */
static int design_complete(const pp_adaptive_space *s, const uint8_t *chosen)
{
    for (size_t k = 0; k < s->n_params; k++) {
        size_t need = s->levels[k] < PP_ADAPTIVE_MIN_VALUES ? s->levels[k]
                                                            : PP_ADAPTIVE_MIN_VALUES;
        double seen[PP_ADAPTIVE_MIN_VALUES];
        size_t n_seen = 0;
        if (s->levels[k] < 2)
            continue;
        for (size_t c = 0; c < s->n && n_seen < need; c++) {
            double v = s->raw[c * s->n_params + k];
            size_t i = 0;
            if (!chosen[c])
                continue;
            while (i < n_seen && seen[i] != v)
                i++;
            if (i == n_seen)
                seen[n_seen++] = v;
        }
        if (n_seen < need || (!s->categorical[k] && !ends_measured(s, chosen, k)))
            return 0;
    }
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median, over the candidates not chosen, of the error their bands
 * imply (the widest over the planning metrics), in %; NAN without any. */
static double implied_pct(const pp_adaptive_space *s, const pp_adaptive_predictor *pr,
                          const pp_adaptive_fit *f, const uint8_t *chosen)
{
    double *e = malloc((s->n + 1) * sizeof *e), v, lo, hi, med = NAN;
    size_t n = 0;

    for (size_t c = 0; e && c < s->n; c++) {
        double worst = NAN;
        if (chosen[c])
            continue;
        for (size_t k = 0; k < f->n_metrics; k++) {
            double half;
            if (pr->predict(pr->ctx, s, c, k, &v, &lo, &hi) < 0 || !(lo > 0) || !(hi >= lo))
                continue;
            half = 0.5 * log(hi / lo);
            worst = isnan(worst) ? half : fmax(worst, half);
        }
        if (!isnan(worst))
            e[n++] = 100 * MEAN_OVER_HALF_WIDTH * worst;
    }
    if (n) {
        qsort(e, n, sizeof *e, cmp_double);
        med = n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
    }
    free(e);
    return med;
}

/* The claim against the target (or the noise floor's multiple): 1 when
 * every metric's claim is at or below what is pursued for it. */
static int claim_met(const pp_adaptive_fit *f, double target_pct, pp_adaptive_claim *c,
                     int *noise_bound)
{
    int met = f->n_metrics > 0;

    *noise_bound = 0;
    for (size_t k = 0; k < f->n_metrics; k++) {
        double hi = isnan(f->error_hi_pct[k]) ? INFINITY : f->error_hi_pct[k];
        double pursued = target_pct;
        double floor_pct = f->noise_repeats_pct[k] * PP_ADAPTIVE_NOISE_FACTOR;
        c->claim_pct = fmax(c->claim_pct, hi);
        if (!isnan(f->noise_repeats_pct[k]))
            c->noise_pct = isnan(c->noise_pct) ? f->noise_repeats_pct[k]
                                               : fmax(c->noise_pct, f->noise_repeats_pct[k]);
        if (floor_pct > pursued) {
            pursued = floor_pct;
            *noise_bound |= hi <= pursued && !(hi <= target_pct);
        }
        c->pursued_pct = fmax(c->pursued_pct, pursued);
        met &= hi <= pursued;
    }
    return met;
}

pp_adaptive_stop pp_adaptive_claim_check(const pp_adaptive_space *s,
                                         const pp_adaptive_predictor *pr,
                                         const pp_adaptive_fit *f, const uint8_t *chosen,
                                         double target_pct, uint64_t saturated, size_t streak,
                                         pp_adaptive_claim *c)
{
    int noise_bound = 0, met;

    *c = (pp_adaptive_claim){PP_HOLD_NONE, 0.0, NAN, NAN, 0.0, 0};
    met = claim_met(f, target_pct, c, &noise_bound);
    if (!design_complete(s, chosen))
        c->hold = PP_HOLD_DESIGN;
    else if (saturated > 0)
        c->hold = PP_HOLD_CEILING;
    else if (!met)
        c->hold = PP_HOLD_ERROR;
    else if (!isnan(c->implied_pct = implied_pct(s, pr, f, chosen)) &&
             c->implied_pct > PP_ADAPTIVE_BAND_FACTOR * c->claim_pct)
        c->hold = PP_HOLD_BANDS;
    if (c->hold != PP_HOLD_NONE)
        return PP_STOP_NONE;
    c->streak = streak + 1;
    if (c->streak < PP_ADAPTIVE_TARGET_ROUNDS) {
        c->hold = PP_HOLD_ONE_ROUND;
        return PP_STOP_NONE;
    }
    return noise_bound ? PP_STOP_NOISE : PP_STOP_TARGET;
}
