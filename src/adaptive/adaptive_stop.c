/* adaptive_stop.c - the target stop of an adaptive run, and the claim it
 * must earn (adaptive.h). */
#include "adaptive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
