/* A mission flown in virtual time (governor_sim.h). */
#include "governor_sim.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pp_sim_options_init(pp_sim_options *o)
{
    o->every_s = 5;
    o->step_s = 0.25;
    o->measure_soc = 1;
    o->phase_told = 1;
    pp_gov_options_init(&o->gov);
    o->pack = NULL;
    o->pack_scale = 1;
    o->stretch_phase = -1;
    o->stretch_f = 1;
}

int pp_sim_world(const pp_phases_problem *p, const pp_sim_options *o, pp_phases_problem *w)
{
    *w = *p;
    if (!(o->pack_scale > 0 && o->pack_scale <= 10) || !(o->stretch_f > 0 && o->stretch_f <= 10)) {
        pp_log_error("simulate: the pack's scale %g and the phase's stretch %g: each in (0, 10]",
                     o->pack_scale, o->stretch_f);
        return -EINVAL;
    }
    if (o->stretch_phase >= 0 && (size_t)o->stretch_phase >= p->n_phases) {
        pp_log_error("simulate: phase %d stretched: the mission has phases 1 .. %zu",
                     o->stretch_phase + 1, p->n_phases);
        return -EINVAL;
    }
    if (o->pack && o->pack->cells != p->battery.cells) {
        pp_log_error("simulate: the pack flown has %d cells, the plan's %d: plan the mission with "
                     "the pack flown (battery fit -o FILE, then -c FILE)", o->pack->cells,
                     p->battery.cells);
        return -EINVAL;
    }
    if (o->pack) {
        w->battery = *o->pack;
        w->battery.soc_start_frac = p->battery.soc_start_frac; /* flown from the plan's start */
        w->battery.efficiency = p->battery.efficiency; /* the computer's converter */
    }
    w->battery.capacity_ah *= o->pack_scale;
    for (size_t k = 0; k < p->n_phases; k++) /* flown as planned, not as budgeted */
        w->duration_s[k] = p->planned_s[k] > 0 ? p->planned_s[k] : p->duration_s[k];
    if (o->stretch_phase >= 0)
        w->duration_s[o->stretch_phase] *= o->stretch_f;
    return 0;
}

static double mission_s(const pp_phases_problem *p)
{
    double s = 0;

    for (size_t k = 0; k < p->n_phases; k++)
        s += p->duration_s[k];
    return s;
}

/* l times f from t_s on: a step there (l has room for two more samples). */
static void scale_from(pp_phase_load *l, double t_s, double f)
{
    double e = 0, at = pp_phase_load_at(l, t_s);
    size_t j = 0;

    while (j < l->n && l->t_s[j] < t_s)
        j++;
    if (f != 1 && j > 0 && j < l->n && l->t_s[j] > t_s + 4 * PP_BATTERY_STEP_S_MIN) {
        memmove(l->t_s + j + 2, l->t_s + j, (l->n - j) * sizeof *l->t_s);
        memmove(l->p_w + j + 2, l->p_w + j, (l->n - j) * sizeof *l->p_w);
        l->t_s[j] = t_s;
        l->t_s[j + 1] = t_s + 2 * PP_BATTERY_STEP_S_MIN;
        l->p_w[j] = l->p_w[j + 1] = at;
        l->n += 2;
        j++;
    }
    for (size_t i = j; i < l->n; i++)
        l->p_w[i] *= f;
    for (size_t i = 1; i < l->n; i++)
        e += 0.5 * (l->p_w[i] + l->p_w[i - 1]) * (l->t_s[i] - l->t_s[i - 1]);
    l->mean_w = e / (l->t_s[l->n - 1] - l->t_s[0]);
}

/* Base load b over duration_s from start into a (room kept): b's samples,
 * b repeated where the phase is flown longer than b lasts (the phase goes
 * on as it went), cut at duration_s. */
static void phase_samples(const pp_phase_load *b, double start, double duration_s,
                          pp_phase_load *a)
{
    double len = b->t_s[b->n - 1];

    for (double rep = 0; rep == 0 || rep < duration_s; rep += len) {
        for (size_t i = 0; i < b->n; i++) {
            double tau = rep + b->t_s[i], t;
            int past = tau > duration_s;
            t = start + (past ? duration_s : tau);
            if (a->n && t <= a->t_s[a->n - 1] + 2 * PP_BATTERY_STEP_S_MIN)
                t = a->t_s[a->n - 1] + 2 * PP_BATTERY_STEP_S_MIN; /* a phase's switch */
            a->t_s[a->n] = t;
            a->p_w[a->n++] = past ? pp_phase_load_at(b, duration_s - rep) : b->p_w[i];
            if (past)
                return;
        }
        if (!(len > 0))
            return;
    }
}

int pp_sim_actual_planned(const pp_phases_problem *p, double scale_t_s, double scale_f,
                          pp_phase_load *actual)
{
    size_t cap = 4;
    double start = 0;

    for (size_t k = 0; k < p->n_phases; k++) {
        double len = p->base[k].t_s[p->base[k].n - 1];
        cap += (p->base[k].n + 1) * (len > 0 ? (size_t)ceil(p->duration_s[k] / len) + 1 : 1);
    }
    memset(actual, 0, sizeof *actual);
    if (!(actual->t_s = malloc(2 * cap * sizeof *actual->t_s)))
        return -ENOMEM;
    actual->p_w = actual->t_s + cap;
    for (size_t k = 0; k < p->n_phases; k++) {
        phase_samples(&p->base[k], start, p->duration_s[k], actual);
        start += p->duration_s[k];
    }
    /* the step at a threshold: a sample just before it keeps the old scale */
    scale_from(actual, scale_t_s, scale_f);
    return 0;
}

int pp_sim_actual_trace(const pp_phases_problem *p, const char *path, double scale_t_s,
                        double scale_f, pp_phase_load *actual)
{
    pp_phase_load l;
    int rc = pp_phase_load_trace(path, 0, mission_s(p), &l);

    if (rc < 0)
        return rc;
    memset(actual, 0, sizeof *actual);
    if (!(actual->t_s = malloc(2 * (l.n + 2) * sizeof *actual->t_s))) {
        pp_phase_load_free(&l);
        return -ENOMEM;
    }
    actual->p_w = actual->t_s + l.n + 2;
    actual->n = l.n;
    memcpy(actual->t_s, l.t_s, l.n * sizeof *l.t_s);
    memcpy(actual->p_w, l.p_w, l.n * sizeof *l.p_w);
    pp_phase_load_free(&l);
    scale_from(actual, scale_t_s, scale_f);
    return 0;
}

/* The battery's state, stepped. */
typedef struct cell {
    const pp_battery_params *b;
    double soc, v1;
    int brownout;
} cell;

/* dSoC/dt and dV1/dt at state (soc, v1) under load w. */
static void slope(const cell *c, double soc, double v1, double w, double *ds, double *dv)
{
    const pp_battery_params *b = c->b;
    pp_battery_point pt = pp_battery_operate(b, soc, v1, w);

    *ds = -pt.current_a / (b->capacity_ah * 3600.0);
    *dv = b->model == PP_BATTERY_THEVENIN ? pt.current_a / b->c1_f - v1 / (b->r1_ohm * b->c1_f)
                                          : 0;
}

/* One midpoint step of h under w0 at its start and w1 at its end. */
static void step(cell *c, double h, double w0, double w1)
{
    double ds, dv, ds2, dv2;

    slope(c, c->soc, c->v1, w0, &ds, &dv);
    slope(c, c->soc + 0.5 * h * ds, c->v1 + 0.5 * h * dv, 0.5 * (w0 + w1), &ds2, &dv2);
    c->soc += h * ds2;
    c->v1 += h * dv2;
    c->brownout |= pp_battery_operate(c->b, c->soc, c->v1, w1).disc_v2 < 0;
}

static size_t phase_at(const pp_phases_problem *p, double t, double *start)
{
    size_t k = 0;

    *start = 0;
    while (k + 1 < p->n_phases && t >= *start + p->duration_s[k] - 1e-9)
        *start += p->duration_s[k++];
    return k;
}

static int run_alloc(pp_sim_run *r, size_t cap)
{
    memset(r, 0, sizeof *r);
    if (!(r->t_s = malloc(4 * cap * sizeof *r->t_s)))
        return -ENOMEM;
    r->soc_frac = r->t_s + cap;
    r->qos = r->soc_frac + cap;
    r->est_soc_frac = r->qos + cap;
    return 0;
}

typedef struct flight {
    const pp_phases_problem *p, *w; /* the plan, the world flown */
    const pp_phase_load *actual;
    const pp_sim_options *o;
    const size_t *fixed;  /* a choice per phase held, or NULL: governed */
    pp_gov *gov;
    size_t plan[PP_MISSION_MAX_PHASES];
    double worst_err;
    cell c;
    size_t choice;
} flight;

/* A governor's update at t (phase k flown): the setting it says. */
static int govern(flight *f, double t, size_t k, pp_sim_run *r)
{
    const pp_phases_problem *p = f->p;
    double eff = p->battery.efficiency > 0 ? p->battery.efficiency : 1;
    pp_battery_point pt = pp_battery_operate(
        &f->w->battery, f->c.soc, f->c.v1,
        p->cand[f->choice].planned_w / eff + pp_phase_load_at(f->actual, t));
    pp_gov_reading rd = {t, f->o->measure_soc ? f->c.soc : NAN, pt.voltage_v, pt.current_a,
                         f->o->phase_told ? (int)k : -1};
    pp_gov_decision d;
    int rc = pp_gov_update(f->gov, &rd, &d);

    if (rc < 0)
        return rc;
    memcpy(f->plan, d.plan, sizeof f->plan);
    f->choice = d.choice;
    r->n_cannot += !d.feasible;
    if (!d.feasible && isnan(r->cannot_t_s)) {
        r->cannot_t_s = t;
        r->reserve_pred_t_s = d.reserve_t_s;
    }
    r->est_soc_frac[r->n] = d.soc_frac;
    if (t >= 60)
        f->worst_err = fmax(f->worst_err, fabs(d.soc_frac - f->c.soc));
    return 0;
}

static void record(pp_sim_run *r, const flight *f, double t)
{
    r->t_s[r->n] = t;
    r->soc_frac[r->n] = f->c.soc;
    r->qos[r->n] = f->p->cand[f->choice].qos;
    if (!f->gov)
        r->est_soc_frac[r->n] = NAN;
    r->n++;
}

/* The end of the step from t: the integration step, the next tick, the
 * phase's end, the mission's. */
static double step_end(const flight *f, double t, double tick, double phase_end, double total)
{
    return fmin(fmin(t + f->o->step_s, tick), fmin(phase_end, total));
}

static int fly(flight *f, pp_sim_run *r)
{
    const pp_phases_problem *p = f->p, *w = f->w;
    double total = mission_s(w), tick = 0, t = 0, num = 0, den = 0, start;
    double eff = p->battery.efficiency > 0 ? p->battery.efficiency : 1;
    size_t prev = (size_t)-1, cap = (size_t)(total / f->o->every_s) + 4;
    int rc;

    if ((rc = run_alloc(r, cap)) < 0)
        return rc;
    f->c = (cell){&w->battery, w->battery.soc_start_frac, 0, 0};
    r->reserve_reached_t_s = r->cannot_t_s = r->reserve_pred_t_s = NAN;
    r->floors_held = 1;
    r->soc_min_frac = f->c.soc;
    while (t < total - 1e-9) {
        size_t k = phase_at(w, t, &start);
        f->choice = f->fixed ? f->fixed[k] : f->plan[k];
        if (t >= tick - 1e-9) {
            if (f->gov && r->n < cap && (rc = govern(f, t, k, r)) < 0)
                return rc;
            if (r->n < cap)
                record(r, f, t);
            tick += f->o->every_s;
        }
        r->n_changes += prev != (size_t)-1 && f->choice != prev;
        prev = f->choice;
        r->floors_held &= p->allowed[k * p->n_cand + f->choice];
        double end = step_end(f, t, tick, start + w->duration_s[k], total);
        double pw = p->cand[f->choice].planned_w / eff;
        step(&f->c, end - t, pw + pp_phase_load_at(f->actual, t),
             pw + pp_phase_load_at(f->actual, end));
        num += p->weight[k] * (end - t) * p->cand[f->choice].qos;
        den += p->weight[k] * (end - t);
        t = end;
        if (f->c.soc < p->min_soc_frac && isnan(r->reserve_reached_t_s))
            r->reserve_reached_t_s = t;
        r->soc_min_frac = fmin(r->soc_min_frac, f->c.soc);
    }
    if (r->n < cap) {
        r->est_soc_frac[r->n] = NAN; /* the end: no update there */
        record(r, f, total);
    }
    r->flown = 1;
    r->soc_end_frac = f->c.soc;
    r->brownout = f->c.brownout;
    r->reserve_held = f->c.soc >= p->min_soc_frac - 1e-9 && !f->c.brownout;
    r->quality = den > 0 ? num / den : NAN;
    return 0;
}

/* The oracle's plan: the problem with the actual load cut per phase. */
static int oracle_plan(const pp_phases_problem *p, const pp_phase_load *actual, size_t *choice,
                       int *feasible)
{
    pp_phases_problem q = *p;
    pp_phase_load base[PP_MISSION_MAX_PHASES];
    pp_phases_result res;
    double start = 0;
    int rc = 0;

    memset(base, 0, sizeof base);
    for (size_t k = 0; k < p->n_phases && rc == 0; k++) {
        pp_phase_load *b = &base[k];
        size_t n = 0;
        if (!(b->t_s = malloc(2 * (actual->n + 2) * sizeof *b->t_s))) {
            rc = -ENOMEM;
            break;
        }
        b->p_w = b->t_s + actual->n + 2;
        b->t_s[n] = 0;
        b->p_w[n++] = pp_phase_load_at(actual, start + 1e-5); /* after a switch at start */
        for (size_t i = 0; i < actual->n; i++)
            if (actual->t_s[i] > start + 1e-5 && actual->t_s[i] < start + p->duration_s[k] - 1e-5) {
                b->t_s[n] = actual->t_s[i] - start;
                b->p_w[n++] = actual->p_w[i];
            }
        b->t_s[n] = p->duration_s[k];
        b->p_w[n++] = pp_phase_load_at(actual, start + p->duration_s[k] - 1e-5);
        b->n = n;
        start += p->duration_s[k];
    }
    q.base = base;
    q.quick = 0;
    if (rc == 0 && (rc = pp_phases_solve(&q, &res)) == 0) {
        *feasible = res.feasible;
        for (size_t k = 0; k < p->n_phases; k++)
            choice[k] = res.phase[k].choice;
        pp_phases_result_free(&res);
    }
    for (size_t k = 0; k < p->n_phases; k++)
        free(base[k].t_s);
    return rc;
}

int pp_sim_fly(const pp_phases_problem *p, const size_t *static_choice,
               const pp_phase_load *actual, const pp_sim_options *o, pp_sim_result *r)
{
    flight f = {p, NULL, actual, o, static_choice, NULL, {0}, 0, {0}, 0};
    size_t oracle[PP_MISSION_MAX_PHASES];
    int rc, feasible = 0;
    char why[160];
    pp_phases_problem w;

    memset(r, 0, sizeof *r);
    if (pp_sim_world(p, o, &w) < 0)
        return -EINVAL;
    f.w = &w;
    if (pp_gov_every_check(o->every_s, why, sizeof why) < 0) {
        pp_log_error("simulate: %s", why);
        return -EINVAL;
    }
    if (!(o->step_s > 0 && o->step_s <= o->every_s) || actual->n < 1) {
        pp_log_error("simulate: updates every %g s, steps of %g s: both > 0, the step not longer",
                     o->every_s, o->step_s);
        return -EINVAL;
    }
    r->mission_s = mission_s(&w);
    r->actual_mean_w = actual->mean_w;
    for (size_t k = 0; k < p->n_phases; k++)
        r->planned_mean_w += p->base[k].mean_w * p->duration_s[k] / mission_s(p);
    if ((rc = fly(&f, &r->run[PP_SIM_STATIC])) < 0)
        goto out;
    f.fixed = NULL;
    memcpy(f.plan, static_choice, p->n_phases * sizeof *static_choice);
    if ((rc = pp_gov_new(p, &o->gov, &f.gov)) < 0 || (rc = fly(&f, &r->run[PP_SIM_GOVERNED])) < 0)
        goto out;
    r->worst_est_err_frac = f.worst_err;
    if ((rc = oracle_plan(&w, actual, oracle, &feasible)) < 0)
        goto out;
    f.fixed = oracle;
    pp_gov_free(f.gov);
    f.gov = NULL;
    if (feasible && (rc = fly(&f, &r->run[PP_SIM_ORACLE])) < 0)
        goto out;
out:
    pp_gov_free(f.gov);
    if (rc < 0)
        pp_sim_result_free(r);
    return rc;
}

void pp_sim_result_free(pp_sim_result *r)
{
    for (size_t i = 0; i < PP_SIM_RUNS; i++) {
        free(r->run[i].t_s);
        r->run[i].t_s = NULL;
        r->run[i].n = 0;
    }
}
