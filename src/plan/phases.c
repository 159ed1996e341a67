/* The plan per phase (phases.h): Pareto fronts, tabulated charge, a
 * Lagrange multiplier on the budget, a greedy fill, one confirming run. */
#include "phases.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONFIRM_TRIES 24

/* What the solver keeps per phase: its front (candidate indices, power
 * ascending, quality strictly ascending), each point's value and charge,
 * and the charge table over the phase's powers. */
typedef struct front {
    size_t n, *idx;
    double *value, *drain;
    size_t nh, *hull;          /* quick: the upper hull of (drain, value), positions */
    double grid_w[PP_PHASES_GRID], grid_drain[PP_PHASES_GRID];
    size_t cur;
} front;

typedef struct solver {
    const pp_phases_problem *p;
    front f[PP_MISSION_MAX_PHASES];
    double budget;
    double total_s; /* the mission's length */
    pp_phases_result *r;
    int ran;                              /* confirm's last run: its powers and outcome */
    double ran_w[PP_MISSION_MAX_PHASES], ran_end;
    int ran_event;
} solver;

/* Quick: the upper concave hull of phase k's (drain, value) points, on
 * which the best point for any multiplier lies. 0 or -ENOMEM. */
static int build_hull(front *f)
{
    if (!(f->hull = malloc((f->n + 1) * sizeof *f->hull)))
        return -ENOMEM;
    f->nh = 0;
    for (size_t j = 0; j < f->n; j++) {
        if (f->nh && f->drain[j] <= f->drain[f->hull[f->nh - 1]]) {
            if (f->value[j] > f->value[f->hull[f->nh - 1]])
                f->nh--; /* as cheap and better */
            else
                continue;
        }
        while (f->nh >= 2) {
            size_t a = f->hull[f->nh - 2], b = f->hull[f->nh - 1];
            if ((f->value[b] - f->value[a]) * (f->drain[j] - f->drain[b]) >
                (f->value[j] - f->value[b]) * (f->drain[b] - f->drain[a]))
                break;
            f->nh--;
        }
        f->hull[f->nh++] = j;
    }
    return 0;
}

/* Quick: the hull point of most value - lambda x charge (slopes fall). */
static size_t hull_best(const front *f, double lambda)
{
    size_t lo = 0, hi = f->nh - 1;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2, a = f->hull[mid], b = f->hull[mid + 1];
        if (f->value[b] - f->value[a] > lambda * (f->drain[b] - f->drain[a]))
            lo = mid + 1;
        else
            hi = mid;
    }
    return f->hull[lo];
}

/* The charge (fraction) phase k drains with the computer at w, alone, from
 * soc: the rint model's closed form, else a battery run. */
static int phase_drain(solver *s, size_t k, double w, double soc, double *drain)
{
    const pp_phases_problem *p = s->p;
    const pp_phase_load *b = &p->base[k];
    pp_battery_params bp = p->battery;
    double eff = bp.efficiency > 0 ? bp.efficiency : 1, *t, *pw, q_c = 0;
    pp_battery_options o;
    pp_battery_result r;
    int rc;

    if (bp.model == PP_BATTERY_RINT) {
        for (size_t i = 1; i < b->n; i++)
            q_c += pp_battery_rint_charge_c(bp.voltage_v, bp.r_int_ohm, w / eff + b->p_w[i - 1],
                                            w / eff + b->p_w[i], b->t_s[i] - b->t_s[i - 1]);
        *drain = q_c / (bp.capacity_ah * 3600.0);
        return 0;
    }
    if (!(t = malloc(2 * b->n * sizeof *t)))
        return -ENOMEM;
    pw = t + b->n;
    for (size_t i = 0; i < b->n; i++) {
        t[i] = b->t_s[i];
        pw[i] = w / eff + b->p_w[i];
    }
    bp.base_power_w = 0;
    bp.efficiency = 1;
    bp.soc_cutoff_frac = 0;
    bp.cutoff_v = 0;
    bp.soc_start_frac = soc;
    pp_battery_options_init(&o);
    rc = pp_battery_run(&bp, &(pp_battery_load){t, pw, b->n, 0}, &o, &r);
    free(t);
    s->r->n_battery_runs++;
    *drain = rc == 0 ? r.soc_start_frac - r.soc_end_frac : NAN;
    return rc;
}

static double table_at(const front *f, double w)
{
    size_t j = 1;

    if (f->grid_w[PP_PHASES_GRID - 1] == f->grid_w[0])
        return f->grid_drain[0];
    while (j + 1 < PP_PHASES_GRID && f->grid_w[j] < w)
        j++;
    return f->grid_drain[j - 1] + (f->grid_drain[j] - f->grid_drain[j - 1]) *
                                      (w - f->grid_w[j - 1]) / (f->grid_w[j] - f->grid_w[j - 1]);
}

/* The charge phase k drains at computer power w: exact for rint (no state
 * but the charge), else from its table. */
static double drain_at(solver *s, size_t k, double w)
{
    double d = NAN;

    if (s->p->battery.model == PP_BATTERY_RINT && !s->p->quick) {
        phase_drain(s, k, w, 0, &d);
        return d;
    }
    return table_at(&s->f[k], w);
}

/* The quick table of phase k (phases.h, quick): closed forms of a rint
 * pack, for thevenin its open-circuit voltage at soc_mid and R0 + R1. */
static void quick_table(solver *s, size_t k, double lo, double hi, double soc_mid)
{
    const pp_phases_problem *p = s->p;
    const pp_battery_params *bp = &p->battery;
    const pp_phase_load *b = &p->base[k];
    front *f = &s->f[k];
    double eff = bp->efficiency > 0 ? bp->efficiency : 1, u = bp->voltage_v, r = bp->r_int_ohm;

    if (bp->model == PP_BATTERY_THEVENIN) {
        u = pp_battery_ocv_v(bp, soc_mid);
        r += bp->r1_ohm;
    }
    for (size_t g = 0; g < PP_PHASES_GRID; g++) {
        double w = lo + (hi - lo) * (double)g / (PP_PHASES_GRID - 1), q_c = 0;
        for (size_t i = 1; i < b->n; i++)
            q_c += pp_battery_rint_charge_c(u, r, w / eff + b->p_w[i - 1], w / eff + b->p_w[i],
                                            b->t_s[i] - b->t_s[i - 1]);
        f->grid_w[g] = w;
        f->grid_drain[g] = q_c / (bp->capacity_ah * 3600.0);
    }
}

/* The charge table of phase k over [lo, hi] W, from soc (not for rint). */
static int tabulate(solver *s, size_t k, double lo, double hi, double soc)
{
    front *f = &s->f[k];
    int rc = 0;

    if (s->p->quick) {
        double mid = soc - 0.5 * (s->p->battery.soc_start_frac - s->p->min_soc_frac) *
                               s->p->duration_s[k] / s->total_s;
        quick_table(s, k, lo, hi, mid);
    }
    for (size_t g = 0; s->p->battery.model != PP_BATTERY_RINT && !s->p->quick &&
                       g < PP_PHASES_GRID && rc == 0;
         g++) {
        f->grid_w[g] = lo + (hi - lo) * (double)g / (PP_PHASES_GRID - 1);
        rc = phase_drain(s, k, f->grid_w[g], soc, &f->grid_drain[g]);
    }
    for (size_t j = 0; j < f->n && rc == 0; j++)
        f->drain[j] = drain_at(s, k, s->p->cand[f->idx[j]].planned_w);
    if (rc == 0 && s->p->quick && f->n)
        rc = build_hull(f);
    return rc;
}

static const pp_plan_choice *cand_of(const solver *s, size_t k, size_t j)
{
    return &s->p->cand[s->f[k].idx[j]];
}

static const pp_phases_problem *sort_ctx;

static int by_power(const void *a, const void *b)
{
    const pp_plan_choice *x = &sort_ctx->cand[*(const size_t *)a];
    const pp_plan_choice *y = &sort_ctx->cand[*(const size_t *)b];

    if (x->planned_w != y->planned_w)
        return x->planned_w < y->planned_w ? -1 : 1;
    if (x->qos != y->qos)
        return (x->qos < y->qos) - (x->qos > y->qos);
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

int pp_phases_order(const pp_phases_problem *p, size_t **order)
{
    if (!(*order = malloc((p->n_cand + 1) * sizeof **order)))
        return -ENOMEM;
    for (size_t i = 0; i < p->n_cand; i++)
        (*order)[i] = i;
    sort_ctx = p;
    qsort(*order, p->n_cand, sizeof **order, by_power);
    return 0;
}

/* Phase k's front: its admitted candidates, power ascending, each of more
 * quality than every cheaper one. 0 or -ENOMEM. */
static int build_front(solver *s, size_t k)
{
    const pp_phases_problem *p = s->p;
    front *f = &s->f[k];
    size_t n = 0;

    if (!(f->idx = malloc((p->n_cand + 1) * sizeof *f->idx)) ||
        !(f->value = malloc(2 * (p->n_cand + 1) * sizeof *f->value)))
        return -ENOMEM;
    f->drain = f->value + p->n_cand + 1;
    for (size_t j = 0; j < p->n_cand; j++) {
        size_t i = p->order ? p->order[j] : j; /* sorted already, or sorted below */
        if (p->allowed[k * p->n_cand + i])
            f->idx[n++] = i;
    }
    sort_ctx = p;
    if (!p->order)
        qsort(f->idx, n, sizeof *f->idx, by_power);
    f->n = 0;
    for (size_t i = 0; i < n; i++)
        if (f->n == 0 || p->cand[f->idx[i]].qos > p->cand[f->idx[f->n - 1]].qos)
            f->idx[f->n++] = f->idx[i];
    for (size_t j = 0; j < f->n; j++)
        f->value[j] = p->weight[k] * p->duration_s[k] * p->cand[f->idx[j]].qos;
    return 0;
}

/* Each phase's choice for multiplier lambda; the charge they drain. */
static double choose_lambda(solver *s, double lambda)
{
    double total = 0;

    for (size_t k = 0; k < s->p->n_phases; k++) {
        front *f = &s->f[k];
        size_t best = 0;
        if (f->nh) {
            f->cur = hull_best(f, lambda);
            total += f->drain[f->cur];
            continue;
        }
        for (size_t j = 1; j < f->n; j++)
            if (f->value[j] - lambda * f->drain[j] > f->value[best] - lambda * f->drain[best])
                best = j;
        f->cur = best;
        total += f->drain[best];
    }
    return total;
}

/* Spend what is left of budget on the upgrades of most value. */
static void fill(solver *s, double budget, double used)
{
    for (;;) {
        size_t bk = 0, bj = 0;
        double gain = 0;
        for (size_t k = 0; k < s->p->n_phases; k++) {
            front *f = &s->f[k];
            for (size_t j = f->cur + 1; j < f->n; j++) {
                double cost = f->drain[j] - f->drain[f->cur], g = f->value[j] - f->value[f->cur];
                if (used + cost <= budget && g > gain) {
                    gain = g;
                    bk = k;
                    bj = j;
                }
            }
        }
        if (gain <= 0)
            return;
        used += s->f[bk].drain[bj] - s->f[bk].drain[s->f[bk].cur];
        s->f[bk].cur = bj;
    }
}

/* The schedule of most value whose tabulated charge fits budget: 0, or 1
 * when even the cheapest does not. */
static int allocate(solver *s, double budget)
{
    double lo = 0, hi = 1, used;

    if (choose_lambda(s, 0) <= budget) {
        return 0;
    }
    while (choose_lambda(s, hi) > budget && hi < 1e300)
        hi *= 4;
    if (choose_lambda(s, hi) > budget) {
        for (size_t k = 0; k < s->p->n_phases; k++)
            s->f[k].cur = 0;
        return 1;
    }
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (choose_lambda(s, mid) <= budget)
            hi = mid;
        else
            lo = mid;
    }
    used = choose_lambda(s, hi);
    fill(s, budget, used);
    return 0;
}

static void current_powers(const solver *s, double *w)
{
    for (size_t k = 0; k < s->p->n_phases; k++)
        w[k] = cand_of(s, k, s->f[k].cur)->planned_w;
}

/* One battery run over the schedule of powers w, unless the last one was
 * of the same powers (a tightened budget that chose the same, the cheapest
 * run again after it fell short): its outcome, which a run again repeats. */
static int run_schedule(solver *s, const double *w, double *end, int *event)
{
    int rc;

    if (s->ran && memcmp(w, s->ran_w, s->p->n_phases * sizeof *w) == 0) {
        *end = s->ran_end;
        *event = s->ran_event;
        return 0;
    }
    if ((rc = pp_phases_run(s->p, w, end, event)) < 0)
        return rc;
    s->r->n_battery_runs++;
    memcpy(s->ran_w, w, s->p->n_phases * sizeof *w);
    s->ran_end = *end;
    s->ran_event = *event;
    s->ran = 1;
    return 0;
}

/* Choose, run, tighten until the run keeps the reserve. 0 with r->feasible
 * set, or -errno. */
static int confirm(solver *s)
{
    const pp_phases_problem *p = s->p;
    double budget = s->budget, w[PP_MISSION_MAX_PHASES], end;
    int event, rc, cheapest;

    for (int tries = 0; tries < CONFIRM_TRIES; tries++) {
        cheapest = allocate(s, budget);
        current_powers(s, w);
        if ((rc = run_schedule(s, w, &end, &event)) < 0)
            return rc;
        s->r->soc_end_frac = end;
        if (!event && end >= p->min_soc_frac) {
            s->r->feasible = 1;
            return 0;
        }
        if (cheapest)
            break;
        budget -= event ? 0.05 * s->budget : (p->min_soc_frac - end) + 1e-9;
        if (budget < 0)
            budget = 0;
    }
    for (size_t k = 0; k < p->n_phases; k++)
        s->f[k].cur = 0;
    current_powers(s, w);
    if ((rc = run_schedule(s, w, &end, &event)) < 0)
        return rc;
    s->r->soc_end_frac = end;
    s->r->feasible = !event && end >= p->min_soc_frac;
    s->r->need_frac = s->r->feasible ? 0 : fmax(p->min_soc_frac - end, 0);
    return 0;
}

/* The best single configuration meeting every phase's bounds: the most
 * value whose tabulated charge fits, confirmed by a run (the next one
 * down when it does not keep the reserve). */
static int single(solver *s)
{
    const pp_phases_problem *p = s->p;
    pp_phases_result *r = s->r;
    double best_v = -INFINITY, w[PP_MISSION_MAX_PHASES], end, tried = INFINITY;
    int event, rc;

    for (int tries = 0; tries < CONFIRM_TRIES; tries++) {
        size_t best = p->n_cand;
        best_v = -INFINITY;
        for (size_t i = 0; i < p->n_cand; i++) {
            double v = 0, drain = 0;
            int all = 1;
            for (size_t k = 0; k < p->n_phases && all; k++) {
                all = p->allowed[k * p->n_cand + i];
                v += p->weight[k] * p->duration_s[k] * p->cand[i].qos;
                drain += drain_at(s, k, p->cand[i].planned_w);
            }
            r->single_exists |= all;
            if (all && drain <= s->budget && v > best_v &&
                (v < tried || (v == tried && p->cand[i].planned_w < p->cand[r->single].planned_w)))
                best_v = v, best = i;
        }
        if (best == p->n_cand)
            return 0;
        for (size_t k = 0; k < p->n_phases; k++)
            w[k] = p->cand[best].planned_w;
        if ((rc = pp_phases_run(p, w, &end, &event)) < 0)
            return rc;
        r->n_battery_runs++;
        tried = best_v;
        r->single = best;
        if (!event && end >= p->min_soc_frac) {
            r->single_feasible = 1;
            r->single_soc_end_frac = end;
            return 0;
        }
    }
    return 0;
}

/* How far into the mission the cheapest configuration meeting every
 * phase's bounds, held throughout, reaches the reserve (NaN: never). */
static int single_reserve(solver *s)
{
    const pp_phases_problem *p = s->p;
    pp_battery_params b = p->battery;
    pp_battery_options o;
    pp_battery_result br;
    double w[PP_MISSION_MAX_PHASES], *t, *pw, least = INFINITY;
    size_t n;
    int rc;

    s->r->single_reserve_t_s = NAN;
    for (size_t i = 0; i < p->n_cand; i++) {
        int all = 1;
        for (size_t k = 0; k < p->n_phases && all; k++)
            all = p->allowed[k * p->n_cand + i];
        if (all)
            least = fmin(least, p->cand[i].planned_w);
    }
    if (!isfinite(least))
        return 0;
    for (size_t k = 0; k < p->n_phases; k++)
        w[k] = least;
    if ((rc = pp_phases_mission_load(p, w, &t, &pw, &n)) < 0)
        return rc;
    b.base_power_w = 0;
    b.efficiency = 1;
    b.soc_cutoff_frac = p->min_soc_frac;
    pp_battery_options_init(&o);
    rc = pp_battery_run(&b, &(pp_battery_load){t, pw, n, 0}, &o, &br);
    free(t);
    s->r->n_battery_runs++;
    if (rc == 0 && br.n_events)
        s->r->single_reserve_t_s = br.events[0].t_s;
    return rc;
}

/* What each phase's bounds cost: its least power with them and without,
 * and the charge between the two. */
static int floors(solver *s)
{
    const pp_phases_problem *p = s->p;
    int rc = 0;

    for (size_t k = 0; k < p->n_phases && rc == 0; k++) {
        pp_phases_phase *ph = &s->r->phase[k];
        double free_w = INFINITY, d_min, d_free;
        for (size_t i = 0; i < p->n_cand; i++)
            free_w = fmin(free_w, p->cand[i].planned_w);
        ph->free_min_w = free_w;
        ph->min_w = s->f[k].n ? cand_of(s, k, 0)->planned_w : NAN;
        if (!s->f[k].n || ph->min_w <= free_w)
            continue;
        if ((rc = phase_drain(s, k, ph->min_w, p->battery.soc_start_frac, &d_min)) == 0 &&
            (rc = phase_drain(s, k, free_w, p->battery.soc_start_frac, &d_free)) == 0)
            ph->floor_drain_frac = d_min - d_free;
    }
    return rc;
}

typedef struct recorder {
    pp_phases_result *r;
    size_t cap;
    int oom;
} recorder;

static void record(void *ctx, double t_s, double soc, double v, double i)
{
    recorder *rec = ctx;
    pp_phases_result *r = rec->r;

    (void)v;
    (void)i;
    if (r->n_points == rec->cap) {
        size_t cap = rec->cap ? 2 * rec->cap : 1024;
        double *b = malloc(4 * cap * sizeof *b);
        if (!b) {
            rec->oom = 1;
            return;
        }
        for (size_t j = 0; j < r->n_points; j++) {
            b[j] = r->t_s[j];
            b[cap + j] = r->soc_frac[j];
        }
        free(r->t_s);
        r->t_s = b;
        r->soc_frac = b + cap;
        r->base_w = b + 2 * cap;
        r->computer_w = b + 3 * cap;
        rec->cap = cap;
    }
    r->t_s[r->n_points] = t_s;
    r->soc_frac[r->n_points++] = soc;
}

/* The confirming run once more, recorded: the charge at each sample, each
 * phase's start and end, the loads. */
static int timeline(solver *s)
{
    const pp_phases_problem *p = s->p;
    pp_phases_result *r = s->r;
    pp_battery_params b = p->battery;
    pp_battery_options o;
    pp_battery_result br;
    recorder rec = {r, 0, 0};
    double w[PP_MISSION_MAX_PHASES], *t, *pw, start = 0;
    size_t n, k = 0;
    int rc;

    current_powers(s, w);
    if ((rc = pp_phases_mission_load(p, w, &t, &pw, &n)) < 0)
        return rc;
    b.base_power_w = 0;
    b.efficiency = 1;
    b.soc_cutoff_frac = 0;
    pp_battery_options_init(&o);
    o.output = record;
    o.output_ctx = &rec;
    rc = pp_battery_run(&b, &(pp_battery_load){t, pw, n, 0}, &o, &br);
    free(t);
    if (rc == 0 && (rec.oom || r->n_points == 0))
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < r->n_points; i++) {
        while (k + 1 < p->n_phases && r->t_s[i] >= start + p->duration_s[k]) {
            r->phase[k].soc_end_frac = r->soc_frac[i > 0 ? i - 1 : 0];
            start += p->duration_s[k++];
            r->phase[k].soc_start_frac = r->soc_frac[i > 0 ? i - 1 : 0];
        }
        r->computer_w[i] = w[k];
        r->base_w[i] = pp_phase_load_at(&p->base[k], r->t_s[i] - start);
    }
    if (rc == 0) {
        r->phase[0].soc_start_frac = r->soc_frac[0];
        r->phase[p->n_phases - 1].soc_end_frac = br.soc_end_frac;
    }
    return rc;
}

static int check_problem(const pp_phases_problem *p)
{
    const char *key;
    char why[160];

    if (p->n_phases == 0 || p->n_phases > PP_MISSION_MAX_PHASES || p->n_cand == 0) {
        pp_log_error("phases: %zu phases and %zu candidates: at least one of each, at most %d "
                     "phases", p->n_phases, p->n_cand, PP_MISSION_MAX_PHASES);
        return -EINVAL;
    }
    if (pp_battery_params_check(&p->battery, &key, why, sizeof why) < 0) {
        pp_log_error("phases: battery: %s %s", key, why);
        return -EINVAL;
    }
    if (!(p->min_soc_frac >= 0 && p->min_soc_frac < p->battery.soc_start_frac)) {
        pp_log_error("phases: the reserve %g is not below the start %g", p->min_soc_frac,
                     p->battery.soc_start_frac);
        return -EINVAL;
    }
    return 0;
}

/* Fronts and tables; 1 when a phase has no admitted candidate. */
static int prepare(solver *s)
{
    const pp_phases_problem *p = s->p;
    double elapsed = 0, total = 0;
    int rc = 0, unmet = 0;

    for (size_t k = 0; k < p->n_phases; k++)
        total += p->duration_s[k];
    s->total_s = total;
    for (size_t k = 0; k < p->n_phases && rc == 0; k++) {
        double lo = INFINITY, hi = -INFINITY, soc;
        if ((rc = build_front(s, k)) < 0)
            break;
        s->r->phase[k].met = s->f[k].n > 0;
        s->r->phase[k].start_s = elapsed;
        s->r->phase[k].base_mean_w = p->base[k].mean_w;
        unmet |= s->f[k].n == 0;
        for (size_t i = 0; i < p->n_cand; i++)
            if (p->allowed[k * p->n_cand + i]) {
                lo = fmin(lo, p->cand[i].planned_w);
                hi = fmax(hi, p->cand[i].planned_w);
            }
        /* the charge at the phase's start, were it drained evenly */
        soc = p->battery.soc_start_frac -
              (p->battery.soc_start_frac - p->min_soc_frac) * elapsed / total;
        if (s->f[k].n)
            rc = tabulate(s, k, lo, hi, soc);
        elapsed += p->duration_s[k];
    }
    return rc < 0 ? rc : unmet;
}

int pp_phases_solve(const pp_phases_problem *p, pp_phases_result *r)
{
    solver *s = calloc(1, sizeof *s);
    int rc;

    memset(r, 0, sizeof *r);
    if (!s)
        return -ENOMEM;
    s->p = p;
    s->r = r;
    s->budget = p->battery.soc_start_frac - p->min_soc_frac;
    r->single_reserve_t_s = NAN;
    rc = check_problem(p);
    if (rc == 0)
        rc = prepare(s);
    if (rc == 0 && !p->quick)
        rc = floors(s);
    if (rc == 0 && (rc = confirm(s)) == 0 && (p->quick || (rc = single(s)) == 0) && r->feasible) {
        double num = 0, den = 0;
        for (size_t k = 0; k < p->n_phases; k++) {
            r->phase[k].choice = s->f[k].idx[s->f[k].cur];
            r->phase[k].floor_binds = s->f[k].cur == 0 && r->phase[k].min_w > r->phase[k].free_min_w;
            num += p->weight[k] * p->duration_s[k] * p->cand[r->phase[k].choice].qos;
            den += p->weight[k] * p->duration_s[k];
        }
        r->quality = num / den;
        r->single_quality = 0;
        for (size_t k = 0; r->single_feasible && k < p->n_phases; k++)
            r->single_quality += p->weight[k] * p->duration_s[k] * p->cand[r->single].qos / den;
        rc = r->single_feasible || p->quick ? 0 : single_reserve(s);
        if (rc == 0 && !p->quick)
            rc = timeline(s);
    } else if (rc == 0 && !r->feasible) {
        if (!p->quick)
            rc = timeline(s); /* the cheapest schedule, to show where it falls short */
        for (size_t k = 0; rc == 0 && k < p->n_phases; k++)
            r->phase[k].choice = s->f[k].idx[0];
    }
    rc = rc == 1 ? 0 : rc;
    for (size_t k = 0; k < p->n_phases; k++) {
        free(s->f[k].idx);
        free(s->f[k].value);
        free(s->f[k].hull);
    }
    free(s);
    if (rc < 0)
        pp_phases_result_free(r);
    return rc;
}

void pp_phases_result_free(pp_phases_result *r)
{
    free(r->t_s);
    r->t_s = r->soc_frac = r->base_w = r->computer_w = NULL;
    r->n_points = 0;
}
