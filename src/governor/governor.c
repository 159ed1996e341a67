/* The plan per phase kept up in flight (governor.h). */
#include "governor.h"
#include "governor_load.h"

#include "src/base/duration.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PHASE_EPS_S 1e-3 /* a phase with less than this left is over */

struct pp_gov {
    const pp_phases_problem *p;
    pp_gov_options o;
    pp_soc_ekf ekf;
    size_t phase;               /* flown now, and since when */
    double phase_start_s;
    int overrunning;            /* the readings say the phase flown past its planned end */
    double overrun_s;           /* ... by this much (governor.h) */
    int started;
    double last_t_s;
    int have_plan;
    size_t held[PP_MISSION_MAX_PHASES]; /* per phase of the mission */
    size_t last_choice;
    double last_soc, last_soc_t_s;  /* for a prediction without a reading: a line from */
    double last_end_soc, last_end_t_s; /* ... the last estimate to this charge at this time */
    pp_phase_load rest_base[PP_MISSION_MAX_PHASES];
    pp_phase_load cut;          /* the current phase from the time reached */
    pp_phase_load coarse[PP_MISSION_MAX_PHASES]; /* the base loads in bins (governor.h) */
    pp_phase_load scaled[PP_MISSION_MAX_PHASES]; /* ... times base_factor */
    double base_factor;         /* learnt: the actual base load over the planned one */
    double anchor_t_s, anchor_soc; /* the learning window's start */
    double computer_j;          /* the computer's planned energy since */
    size_t n_other_pack;        /* readings refused as another pack's */
    size_t *order;              /* the candidates sorted once (pp_phases_order; reuse_runs) */
    pp_gov_decision last;       /* the last decision made, and its time on the grid */
    double first_t_s;
    double last_tick;
};

const char *pp_gov_why_name(pp_gov_why w)
{
    static const char *const names[] = {"hold", "first", "better", "reserve", "cannot", "phase",
                                        "done"};
    return (size_t)w < sizeof names / sizeof names[0] ? names[w] : "?";
}

void pp_gov_options_init(pp_gov_options *o)
{
    o->margin_frac = PP_GOV_MARGIN_DEFAULT;
    o->trust_soc = 1;
    o->learn_base = 1;
    o->band_frac = PP_GOV_BAND_DEFAULT;
    o->every_s = 0;
    o->reuse_runs = 1;
}

int pp_gov_every_check(double every_s, char *why, size_t cap)
{
    if (every_s >= PP_GOV_EVERY_S_MIN && every_s <= PP_GOV_EVERY_S_MAX)
        return 0;
    pp_text(why, cap, "a decision every %g s: not in [%g s, %g s]", every_s, PP_GOV_EVERY_S_MIN,
            PP_GOV_EVERY_S_MAX);
    return -EINVAL;
}

int pp_gov_parse_every(const char *text, double *s, char *why, size_t cap)
{
    if (pp_parse_duration_s(text, s) < 0) {
        pp_text(why, cap, "'%s' is not a duration (0.5, 500ms, 5s, 1min)", text);
        return -EINVAL;
    }
    return pp_gov_every_check(*s, why, cap);
}

int pp_gov_reading_check(const pp_gov_reading *r, char *why, size_t cap)
{
    if (!isfinite(r->t_s) || r->t_s < 0) {
        pp_text(why, cap, "no time t_s >= 0 (%g)", r->t_s);
        return -EINVAL;
    }
    if (!isnan(r->soc_frac) && !(r->soc_frac >= 0 && r->soc_frac <= 1)) {
        pp_text(why, cap, "state of charge %g is not a fraction in [0, 1]%s", r->soc_frac,
                r->soc_frac > 1 && r->soc_frac <= 100 ? " (a percentage? write it / 100)" : "");
        return -EINVAL;
    }
    if (!isnan(r->voltage_v) && !(r->voltage_v > 0 && r->voltage_v < PP_BATTERY_VOLTAGE_V_MAX)) {
        pp_text(why, cap, "voltage %g V is not in (0, %g)", r->voltage_v, PP_BATTERY_VOLTAGE_V_MAX);
        return -EINVAL;
    }
    if (!isnan(r->current_a) && !(fabs(r->current_a) <= PP_GOV_CURRENT_A_MAX)) {
        pp_text(why, cap, "current %g A is not in [-%g, %g]", r->current_a, PP_GOV_CURRENT_A_MAX,
                PP_GOV_CURRENT_A_MAX);
        return -EINVAL;
    }
    return 0;
}

int pp_gov_new(const pp_phases_problem *p, const pp_gov_options *o, pp_gov **out)
{
    pp_gov *g;

    *out = NULL;
    if (p->n_phases == 0 || p->n_phases > PP_MISSION_MAX_PHASES || p->n_cand == 0 ||
        (o && !(o->margin_frac >= 0 && o->margin_frac < 10 && o->band_frac >= 0 &&
                o->band_frac < 0.2 &&
                (o->every_s == 0 || pp_gov_every_check(o->every_s, NULL, 0) == 0)))) {
        pp_log_error("governor: %zu phases, %zu candidates, margin %g, band %g, every %g s: at "
                     "least one phase and candidate, a margin in [0, 10), a band in [0, 0.2), "
                     "0 or [%g, %g] s", p->n_phases, p->n_cand, o ? o->margin_frac : 0.0,
                     o ? o->band_frac : 0.0, o ? o->every_s : 0.0, PP_GOV_EVERY_S_MIN,
                     PP_GOV_EVERY_S_MAX);
        return -EINVAL;
    }
    if (!(g = calloc(1, sizeof *g)))
        return -ENOMEM;
    g->p = p;
    if (o)
        g->o = *o;
    else
        pp_gov_options_init(&g->o);
    if (pp_soc_ekf_init(&g->ekf, &p->battery) < 0) {
        free(g);
        return -EINVAL;
    }
    g->last_soc = p->battery.soc_start_frac;
    g->last_end_soc = NAN;
    g->base_factor = 1;
    for (size_t k = 0; k < p->n_phases; k++)
        if (pp_gov_coarsen(&p->base[k], p->duration_s[k], &g->coarse[k]) < 0 ||
            pp_gov_coarsen(&p->base[k], p->duration_s[k], &g->scaled[k]) < 0) {
            pp_gov_free(g);
            return -ENOMEM;
        }
    if (g->o.reuse_runs && pp_phases_order(p, &g->order) < 0) {
        pp_gov_free(g);
        return -ENOMEM;
    }
    *out = g;
    return 0;
}

void pp_gov_free(pp_gov *g)
{
    if (!g)
        return;
    pp_phase_load_free(&g->cut);
    free(g->order);
    for (size_t k = 0; k < PP_MISSION_MAX_PHASES; k++) {
        pp_phase_load_free(&g->scaled[k]);
        pp_phase_load_free(&g->coarse[k]);
    }
    free(g);
}

/* Overrunning: how much longer the phase flown is assumed to run on
 * (governor.h); 0 when it is not. */
static double overrun_assumed_s(const pp_gov *g)
{
    return g->overrunning ? fmax(g->overrun_s, PP_GOV_OVERRUN_MIN_S) : 0;
}

/* The rest of the mission from t_s with soc left, into q. */
static int rest_problem(pp_gov *g, double t_s, double soc, pp_phases_problem *q)
{
    const pp_phases_problem *p = g->p;
    size_t k = g->phase;
    double into = t_s - g->phase_start_s;
    int rc;

    *q = *p;
    q->n_phases = p->n_phases - k;
    for (size_t j = 0; j < q->n_phases; j++) {
        pp_phase_load *l = &g->scaled[k + j];
        q->duration_s[j] = p->duration_s[k + j];
        q->weight[j] = p->weight[k + j];
        for (size_t i = 0; i < l->n; i++)
            l->p_w[i] = g->base_factor * g->coarse[k + j].p_w[i];
        l->mean_w = g->base_factor * p->base[k + j].mean_w;
        g->rest_base[j] = *l;
    }
    q->duration_s[0] = p->duration_s[k] - into;
    if (g->overrunning) { /* past its trace: the phase's mean base load, as learnt */
        q->duration_s[0] = overrun_assumed_s(g);
        pp_phase_load_free(&g->cut);
        rc = pp_phase_load_constant(g->base_factor * p->base[k].mean_w, q->duration_s[0], &g->cut);
    } else {
        rc = pp_gov_cut_load(&g->scaled[k], into, q->duration_s[0], &g->cut);
    }
    if (rc < 0)
        return rc;
    g->rest_base[0] = g->cut;
    q->base = g->rest_base;
    q->allowed = p->allowed + k * p->n_cand;
    q->order = g->order;
    q->battery.soc_start_frac = soc;
    if (soc > p->min_soc_frac + 2 * g->o.band_frac) /* the dead band, while there is room */
        q->min_soc_frac = p->min_soc_frac + g->o.band_frac;
    q->quick = 1;
    return 0;
}

/* The time-weighted quality of choices c (per phase of q). */
static double quality_of(const pp_phases_problem *q, const size_t *c)
{
    double num = 0, den = 0;

    for (size_t j = 0; j < q->n_phases; j++) {
        num += q->weight[j] * q->duration_s[j] * q->cand[c[j]].qos;
        den += q->weight[j] * q->duration_s[j];
    }
    return den > 0 ? num / den : NAN;
}

/* When the cheapest choices c over q reach the reserve (from q's start;
 * NaN: they do not). */
static int reserve_time(const pp_phases_problem *q, const size_t *c, double *t_s)
{
    pp_battery_params b = q->battery;
    pp_battery_options o;
    pp_battery_result br;
    double w[PP_MISSION_MAX_PHASES], *t, *pw;
    size_t n;
    int rc;

    *t_s = NAN;
    for (size_t j = 0; j < q->n_phases; j++)
        w[j] = q->cand[c[j]].planned_w;
    if ((rc = pp_phases_mission_load(q, w, &t, &pw, &n)) < 0)
        return rc;
    b.base_power_w = 0;
    b.efficiency = 1;
    b.soc_cutoff_frac = q->min_soc_frac;
    b.cutoff_v = 0;
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0; /* the events are the mission's own: none recorded past it */
    rc = pp_battery_run(&b, &(pp_battery_load){t, pw, n, 0}, &o, &br);
    free(t);
    if (rc == 0 && br.n_events)
        *t_s = br.events[0].t_s;
    return rc;
}

/* Every phase of q at its least planned power meeting its bounds. */
static void cheapest(const pp_phases_problem *q, size_t *c)
{
    for (size_t j = 0; j < q->n_phases; j++) {
        c[j] = 0;
        for (size_t i = 0; i < q->n_cand; i++)
            if (q->allowed[j * q->n_cand + i] &&
                (!q->allowed[j * q->n_cand + c[j]] ||
                 q->cand[i].planned_w < q->cand[c[j]].planned_w))
                c[j] = i;
    }
}

/* The phase flown at r->t_s: r->phase when the reading says it (a later
 * one began, or the one flown goes on past its planned end), else by the
 * clock. 0, 1 when the mission's time is over by the clock, -EINVAL. */
static int advance(pp_gov *g, const pp_gov_reading *r)
{
    const pp_phases_problem *p = g->p;

    if (r->phase >= 0) {
        if ((size_t)r->phase >= p->n_phases || (size_t)r->phase < g->phase) {
            pp_log_error("governor: phase %d: the mission has phases 0 .. %zu and flies %zu "
                         "now", r->phase, p->n_phases - 1, g->phase);
            return -EINVAL;
        }
        if ((size_t)r->phase > g->phase) {
            g->phase = (size_t)r->phase;
            g->phase_start_s = r->t_s;
        }
        /* the phase said is flown: past its planned end, it runs long */
        g->overrun_s = fmax(r->t_s - (g->phase_start_s + p->duration_s[g->phase]), 0);
        g->overrunning = r->t_s >= g->phase_start_s + p->duration_s[g->phase] - PHASE_EPS_S;
        return 0;
    }
    g->overrunning = 0;
    g->overrun_s = 0;
    while (r->t_s >= g->phase_start_s + p->duration_s[g->phase] - PHASE_EPS_S) {
        if (g->phase + 1 == p->n_phases)
            return 1;
        g->phase_start_s += p->duration_s[g->phase++];
    }
    return 0;
}

/* When the rest of the mission ends as the governor sees it at t_s: the
 * phase flown's planned end (or, overrunning, the time assumed left of
 * it), then the later phases' planned durations. */
static double rest_end_s(const pp_gov *g, double t_s)
{
    double end = g->overrunning ? t_s + overrun_assumed_s(g)
                                : g->phase_start_s + g->p->duration_s[g->phase];

    for (size_t k = g->phase + 1; k < g->p->n_phases; k++)
        end += g->p->duration_s[k];
    return end;
}

/* The charge at t_s without a reading: on the line from the last estimate
 * to the held plan's end (its charge at the mission's end), or, when no
 * schedule keeps the reserve, to the reserve at the time the cheapest
 * settings reach it, and on past it: the estimate never stalls. */
static double predicted(const pp_gov *g, double t_s)
{
    double frac;

    if (!isfinite(g->last_end_soc) || !(g->last_end_t_s > g->last_soc_t_s))
        return g->last_soc;
    frac = (t_s - g->last_soc_t_s) / (g->last_end_t_s - g->last_soc_t_s);
    if (g->last.feasible)
        frac = fmin(frac, 1);
    return fmax(g->last_soc + (g->last_end_soc - g->last_soc) * frac, 0);
}

/* Where predicted() heads after decision d. */
static void predict_to(pp_gov *g, const pp_gov_decision *d)
{
    g->last_end_soc = d->soc_end_frac;
    g->last_end_t_s = rest_end_s(g, d->t_s);
    if (!d->feasible && isfinite(d->reserve_t_s) && d->reserve_t_s > d->t_s) {
        g->last_end_soc = g->p->min_soc_frac;
        g->last_end_t_s = d->reserve_t_s;
    }
}

/* The charge left at r, and which estimate said it. */
static void estimate(pp_gov *g, const pp_gov_reading *r, pp_gov_decision *d)
{
    int soc_ok = isfinite(r->soc_frac) && r->soc_frac >= 0 && r->soc_frac <= 1;
    int vi_ok = isfinite(r->voltage_v) && isfinite(r->current_a);
    double given = soc_ok && g->o.trust_soc ? r->soc_frac : NAN;

    d->soc_measured_frac = soc_ok ? r->soc_frac : NAN;
    if (vi_ok || isfinite(given))
        pp_soc_ekf_update(&g->ekf, r->t_s, r->voltage_v, r->current_a, given);
    if (isfinite(given)) {
        d->soc_frac = given;
        d->soc_sd_frac = 0;
        d->soc_source = "measured";
    } else if (vi_ok && g->ekf.started) {
        d->soc_frac = pp_soc_ekf_soc(&g->ekf);
        d->soc_sd_frac = pp_soc_ekf_sd(&g->ekf);
        d->soc_source = pp_soc_source_name(g->ekf.source);
    } else {
        d->soc_frac = predicted(g, r->t_s);
        d->soc_sd_frac = NAN;
        d->soc_source = "plan";
    }
    if (g->started && d->soc_frac > g->last_soc) { /* a pack in flight does not charge */
        d->soc_frac = fmin(predicted(g, r->t_s), g->last_soc);
        d->soc_source = "plan";
        d->soc_sd_frac = NAN;
        d->soc_held = 1;
    }
    g->last_soc = d->soc_frac;
    g->last_soc_t_s = r->t_s;
}

/* The base load learnt (governor.h): over a window of PP_GOV_SLOPE_S or
 * more, the charge's fall through the pack's voltage (the mean power
 * drawn; a recorded load's swings and a gauge's whole percents average
 * out) less the computer's planned power over the window, over the
 * phase's mean planned base load; a moving mean over PP_GOV_LEARN_S. */
static void learn(pp_gov *g, const pp_gov_decision *d, double dt)
{
    const pp_phases_problem *p = g->p;
    const pp_battery_params *b = &p->battery;
    double eff = b->efficiency > 0 ? b->efficiency : 1, span, i_a, u, p_w, base, f;

    g->computer_j += p->cand[g->last_choice].planned_w / eff * dt;
    span = d->t_s - g->anchor_t_s;
    if (!g->o.learn_base || span < PP_GOV_SLOPE_S || strcmp(d->soc_source, "plan") == 0)
        return;
    i_a = (g->anchor_soc - d->soc_frac) * b->capacity_ah * 3600.0 / span;
    u = b->model == PP_BATTERY_RINT ? b->voltage_v : pp_battery_ocv_v(b, d->soc_frac);
    p_w = i_a * (u - b->r_int_ohm * i_a);
    base = p->base[g->phase].mean_w;
    if (base > 0.5) {
        f = (p_w - g->computer_j / span) / base;
        f = fmin(fmax(f, PP_GOV_FACTOR_MIN), PP_GOV_FACTOR_MAX);
        g->base_factor += (1 - exp(-span / PP_GOV_LEARN_S)) * (f - g->base_factor);
    }
    g->anchor_t_s = d->t_s;
    g->anchor_soc = d->soc_frac;
    g->computer_j = 0;
}

/* Adopt choices c (per phase of the rest) as the held plan. */
static void adopt(pp_gov *g, const size_t *c, size_t n, pp_gov_decision *d, pp_gov_why why)
{
    for (size_t j = 0; j < n; j++)
        g->held[g->phase + j] = c[j];
    g->have_plan = 1;
    d->replanned = 1;
    d->why = why;
}

/* No schedule of the rest keeps the reserve: the cheapest, and when they
 * reach it. cheapest_end: their end when a run over them was made already
 * (an infeasible solve's last run is of every phase's least power), NaN. */
static int cannot(pp_gov *g, pp_phases_problem *q, double cheapest_end, pp_gov_decision *d)
{
    size_t c[PP_MISSION_MAX_PHASES];
    double t = NAN, w[PP_MISSION_MAX_PHASES];
    int rc = 0, event = 0;

    q->min_soc_frac = g->p->min_soc_frac;
    cheapest(q, c);
    if (q->battery.soc_start_frac > q->min_soc_frac)
        rc = reserve_time(q, c, &t);
    else
        t = 0;
    d->n_battery_runs++;
    for (size_t j = 0; j < q->n_phases; j++)
        w[j] = q->cand[c[j]].planned_w;
    if (g->o.reuse_runs && isfinite(cheapest_end))
        d->soc_end_frac = cheapest_end;
    else if (rc == 0 && (rc = pp_phases_run(q, w, &d->soc_end_frac, &event)) == 0)
        d->n_battery_runs++;
    if (rc == 0)
        d->quality = quality_of(q, c); /* the cheapest's end and quality: what is flown */
    d->reserve_t_s = isfinite(t) ? d->t_s + t : NAN;
    d->feasible = 0;
    adopt(g, c, q->n_phases, d, PP_GOV_CANNOT);
    return rc;
}

/* An infeasible solve res whose last run (every phase at its least power:
 * the schedule that drains least) ends below the reserve itself, or no
 * phase with a candidate: a solve without the dead band can keep the
 * reserve no better (a margin of a quick run's error kept). */
static int short_of_reserve(const pp_gov *g, const pp_phases_result *res)
{
    return g->o.reuse_runs && !res->feasible &&
           (res->n_battery_runs == 0 || res->soc_end_frac < g->p->min_soc_frac - 1e-6);
}

/* The held plan's end over q and whether an event came: the re-plan's res
 * when the two draw the same powers (its confirming run is the one to
 * make), else a battery run. */
static int held_end(pp_gov *g, const pp_phases_problem *q, const pp_phases_result *res,
                    pp_gov_decision *d, double *end, int *event)
{
    const size_t *held = g->held + g->phase;
    double w[PP_MISSION_MAX_PHASES];
    int same = g->o.reuse_runs && res->feasible, rc;

    for (size_t j = 0; j < q->n_phases; j++) {
        w[j] = q->cand[held[j]].planned_w;
        same = same && w[j] == q->cand[res->phase[j].choice].planned_w;
    }
    *event = 0;
    if (same) {
        *end = res->soc_end_frac;
        return 0;
    }
    if ((rc = pp_phases_run(q, w, end, event)) < 0)
        return rc;
    d->n_battery_runs++;
    return 0;
}

/* The re-plan of the rest q against the held plan. */
static int decide(pp_gov *g, pp_phases_problem *q, pp_gov_decision *d)
{
    pp_phases_result res;
    size_t c[PP_MISSION_MAX_PHASES], *held = g->held + g->phase;
    double end;
    int rc, event = 0;

    if (!(q->battery.soc_start_frac > g->p->min_soc_frac))
        return cannot(g, q, NAN, d);
    if ((rc = pp_phases_solve(q, &res)) < 0)
        return rc;
    d->n_battery_runs += res.n_battery_runs;
    if (!res.feasible && q->min_soc_frac > g->p->min_soc_frac && !short_of_reserve(g, &res)) {
        /* no room for the band */
        q->min_soc_frac = g->p->min_soc_frac;
        if ((rc = pp_phases_solve(q, &res)) < 0)
            return rc;
        d->n_battery_runs += res.n_battery_runs;
    }
    for (size_t j = 0; j < q->n_phases; j++)
        c[j] = res.phase[j].choice;
    d->new_soc_end_frac = res.soc_end_frac;
    d->new_quality = res.feasible ? res.quality : NAN;
    if (!res.feasible)
        return cannot(g, q, res.n_battery_runs ? res.soc_end_frac : NAN, d);
    d->feasible = 1;
    if (!g->have_plan) {
        adopt(g, c, q->n_phases, d, PP_GOV_FIRST);
        d->quality = res.quality;
        d->soc_end_frac = res.soc_end_frac;
        return 0;
    }
    if ((rc = held_end(g, q, &res, d, &end, &event)) < 0)
        return rc;
    d->quality = quality_of(q, held);
    d->soc_end_frac = end;
    if (event || end < g->p->min_soc_frac)
        adopt(g, c, q->n_phases, d, PP_GOV_RESERVE);
    else if (res.quality > d->quality * (1 + g->o.margin_frac) + 1e-12 &&
             (q->min_soc_frac > g->p->min_soc_frac || g->o.band_frac == 0))
        adopt(g, c, q->n_phases, d, PP_GOV_BETTER); /* only a plan that keeps the band */
    if (d->replanned) {
        d->quality = res.quality;
        d->soc_end_frac = res.soc_end_frac;
    }
    return 0;
}

/* The terminal voltages the planned pack can show: from PP_GOV_CELL_LOW_V a
 * cell under load to its full open-circuit voltage (PP_GOV_CELL_HIGH_V a
 * cell at least) plus a tenth; without a cell count, half to 1.25 times
 * the rint pack's voltage. */
static void pack_range(const pp_battery_params *b, double *lo, double *hi)
{
    double full = b->model == PP_BATTERY_RINT ? b->voltage_v : pp_battery_ocv_v(b, 1.0);

    if (b->cells > 0) {
        *lo = b->cells * PP_GOV_CELL_LOW_V;
        *hi = 1.1 * fmax(full, b->cells * PP_GOV_CELL_HIGH_V);
    } else {
        *lo = 0.5 * full;
        *hi = 1.25 * full;
    }
}

/* A voltage the planned pack cannot show (another pack flown: a 6S read
 * as the 4S planned with), said with both. */
static int pack_mismatch(const pp_gov *g, const pp_gov_reading *r, char *why, size_t cap)
{
    const pp_battery_params *b = &g->p->battery;
    double lo, hi;

    pack_range(b, &lo, &hi);
    if (isnan(r->voltage_v) || (r->voltage_v >= lo && r->voltage_v <= hi))
        return 0;
    pp_text(why, cap, "voltage %g V is not the planned pack's (%d cells, %g Ah: %.3g to %.3g V): "
            "about %.0f cells flown? plan with the pack flown", r->voltage_v, b->cells,
            b->capacity_ah, lo, hi, r->voltage_v / 3.8);
    return 1;
}

/* A reading refused (out of range, of another pack, back in time, a clock
 * that jumped past the mission's end) is logged and changes nothing. */
static int check_reading(pp_gov *g, const pp_gov_reading *r)
{
    double end_s = 0;
    char why[200];
    int other_pack = 0;

    for (size_t k = 0; k < g->p->n_phases; k++)
        end_s += g->p->duration_s[k];
    if (pp_gov_reading_check(r, why, sizeof why) < 0) {
    } else if ((other_pack = pack_mismatch(g, r, why, sizeof why))) {
        size_t n = ++g->n_other_pack;
        if (n & (n - 1))
            return -EINVAL; /* said at the 1st, 2nd, 4th, 8th ...: a 10 Hz source floods not */
    } else if (!g->started && isnan(r->soc_frac) && (isnan(r->voltage_v) || isnan(r->current_a))) {
        pp_text(why, sizeof why, "neither a state of charge nor a voltage and a current: the "
                "first reading needs one (later ones without: the plan's prediction)");
    } else if (g->started && r->t_s < g->last_t_s) {
        pp_text(why, sizeof why, "not before the last update's (%g s)", g->last_t_s);
    } else if (r->t_s > fmax(end_s, g->last_t_s) + PP_GOV_LATE_S) {
        pp_text(why, sizeof why, "past the mission's end (%g s) by more than %g s: a clock that "
                "jumped?", end_s, PP_GOV_LATE_S);
    } else {
        return 0;
    }
    if (other_pack > 0 && g->n_other_pack > 1)
        pp_log_error("governor: time %g s: %s: refused (%zu such readings)", r->t_s, why,
                     g->n_other_pack);
    else
        pp_log_error("governor: time %g s: %s: refused, the last good state kept", r->t_s, why);
    return -EINVAL;
}

/* Between two ticks of every_s (pp_gov_options): the last decision over
 * the newer estimate in d. 1 when so, 0 when this update decides. */
static int between_ticks(pp_gov *g, const pp_gov_reading *r, size_t phase_before, int over,
                         pp_gov_decision *d)
{
    double tick;

    if (!g->o.every_s || !g->started || over || g->phase != phase_before)
        return 0;
    tick = floor((r->t_s - g->first_t_s) / g->o.every_s + 1e-6);
    if (tick > g->last_tick)
        return 0;
    pp_gov_decision e = *d;
    *d = g->last;
    d->t_s = e.t_s;
    d->phase_left_s = e.phase_left_s;
    d->phase_overrun_s = e.phase_overrun_s;
    d->overrun_assumed_s = e.overrun_assumed_s;
    d->soc_measured_frac = e.soc_measured_frac;
    d->soc_frac = e.soc_frac;
    d->soc_sd_frac = e.soc_sd_frac;
    d->soc_source = e.soc_source;
    d->soc_held = e.soc_held;
    d->base_factor = e.base_factor;
    d->decided = d->changed = d->replanned = 0;
    d->why = PP_GOV_HOLD;
    d->n_battery_runs = 0;
    return 1;
}

int pp_gov_update(pp_gov *g, const pp_gov_reading *r, pp_gov_decision *d)
{
    pp_phases_problem q;
    size_t phase_before = g->phase;
    int rc, over;

    memset(d, 0, sizeof *d);
    d->t_s = r->t_s;
    d->reserve_t_s = d->new_soc_end_frac = d->new_quality = d->quality = d->soc_end_frac = NAN;
    if ((rc = check_reading(g, r)) < 0 || (over = advance(g, r)) < 0)
        return rc < 0 ? rc : -EINVAL;
    double prev_t = g->last_t_s;
    estimate(g, r, d);
    if (g->started)
        learn(g, d, r->t_s - prev_t);
    else {
        g->anchor_t_s = g->first_t_s = r->t_s;
        g->anchor_soc = d->soc_frac;
    }
    d->base_factor = g->base_factor;
    d->phase = g->phase;
    d->phase_left_s = fmax(g->phase_start_s + g->p->duration_s[g->phase] - r->t_s, 0);
    d->phase_overrun_s = g->overrun_s;
    d->overrun_assumed_s = g->overrunning ? overrun_assumed_s(g) : NAN;
    if (between_ticks(g, r, phase_before, over, d)) {
        g->last_t_s = r->t_s;
        return 0;
    }
    d->feasible = d->decided = 1;
    if (over) {
        d->why = PP_GOV_DONE;
        d->feasible = d->soc_frac >= g->p->min_soc_frac;
    } else {
        if ((rc = rest_problem(g, r->t_s, d->soc_frac, &q)) < 0 || (rc = decide(g, &q, d)) < 0)
            return rc;
    }
    if (!g->have_plan) /* over before any plan: the cheapest of the last phase */
        cheapest(g->p, g->held);
    d->choice = g->held[g->phase];
    for (size_t k = g->phase; k < g->p->n_phases; k++)
        d->plan[k] = g->held[k];
    d->changed = g->started && d->choice != g->last_choice;
    if (d->changed && !d->replanned && g->phase != phase_before)
        d->why = PP_GOV_PHASE;
    g->last_choice = d->choice;
    g->last_t_s = r->t_s;
    g->started = 1;
    g->last = *d;
    predict_to(g, d);
    g->last_tick = g->o.every_s ? floor((r->t_s - g->first_t_s) / g->o.every_s + 1e-6) : 0;
    return 0;
}
