/* The governor's shortcuts (pp_gov_options.reuse_runs: a battery run whose
 * outcome an update already has is not made again) decide exactly as the
 * old path, which makes every run: the same decision at every update of
 * random missions (rint and thevenin, holds, re-plans, no schedule
 * keeping the reserve) and the same flights of the simulated surprises,
 * with fewer battery runs. */
#include "harness.h"

#include "src/governor/governor_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NP 5
#define NC 300

typedef struct world {
    pp_plan_choice cand[NC];
    unsigned char allowed[NP * NC];
    pp_phase_load base[NP];
    pp_phases_problem p;
} world;

static double rnd(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* A random mission of NP phases (one of them a 1 Hz trace), NC candidates
 * (some phases with a floor), on model's pack. */
static void build(world *w, pp_battery_model model, unsigned long long *s)
{
    memset(w, 0, sizeof *w);
    w->p = (pp_phases_problem){.n_phases = NP, .base = w->base, .n_cand = NC, .cand = w->cand,
                               .allowed = w->allowed, .min_soc_frac = 0.2};
    for (size_t i = 0; i < NC; i++) {
        w->cand[i].qos = 0.1 + 30 * rnd(s);
        w->cand[i].planned_w = 2 + 4 * rnd(s) + 0.3 * w->cand[i].qos;
    }
    for (size_t k = 0; k < NP; k++) {
        double fl = rnd(s) < 0.3 ? 10 * rnd(s) : 0, dur = 60 + 400 * rnd(s), mean = 40 + 80 * rnd(s);
        for (size_t i = 0; i < NC; i++)
            w->allowed[k * NC + i] = w->cand[i].qos >= fl;
        if (k == 2) {
            pp_phase_load *l = &w->base[k];
            l->n = (size_t)dur + 1;
            l->t_s = malloc(2 * l->n * sizeof *l->t_s);
            l->p_w = l->t_s + l->n;
            for (size_t i = 0; i < l->n; i++) {
                l->t_s[i] = (double)i;
                l->p_w[i] = mean + 30 * sin((double)i / 17.0);
            }
            l->t_s[l->n - 1] = dur;
            l->mean_w = mean;
        } else {
            pp_phase_load_constant(mean, dur, &w->base[k]);
        }
        w->p.duration_s[k] = dur;
        w->p.weight[k] = 0.5 + rnd(s);
    }
    pp_battery_params_default(&w->p.battery);
    w->p.battery.model = model;
}

static void unbuild(world *w)
{
    for (size_t k = 0; k < NP; k++)
        pp_phase_load_free(&w->base[k]);
}

/* Decisions a and b the same in every figure (the runs made aside). */
static int same_decision(const pp_gov_decision *a, const pp_gov_decision *b)
{
    pp_gov_decision x = *a, y = *b;

    x.n_battery_runs = y.n_battery_runs = 0;
    x.soc_source = y.soc_source = NULL;
    return memcmp(&x, &y, sizeof x) == 0 && strcmp(a->soc_source, b->soc_source) == 0;
}

/* Both governors over w's mission, readings every 30 s of a charge drained
 * rate times as fast as first planned (a spread of 20 %, every third
 * without a state of charge): the decisions compared at every update;
 * each why counted into seen. */
static void fly_both(world *w, double rate, unsigned long long *s, size_t *seen, size_t runs[2])
{
    pp_gov *g[2];
    pp_gov_options o[2];
    double soc = 1, drain = NAN, total = 0;
    size_t n_same = 0, n = 0;

    for (size_t k = 0; k < NP; k++)
        total += w->p.duration_s[k];
    for (int i = 0; i < 2; i++) {
        pp_gov_options_init(&o[i]);
        o[i].reuse_runs = i == 0;
        CHECK_INT(pp_gov_new(&w->p, &o[i], &g[i]), 0);
    }
    for (double t = 0; t < total + 60; t += 30, n++) {
        pp_gov_reading r = {t, (n % 3 == 2) ? NAN : soc, NAN, NAN, -1};
        pp_gov_decision d[2];
        CHECK_INT(pp_gov_update(g[0], &r, &d[0]), 0);
        CHECK_INT(pp_gov_update(g[1], &r, &d[1]), 0);
        n_same += same_decision(&d[0], &d[1]);
        seen[d[0].why]++;
        runs[0] += d[0].n_battery_runs;
        runs[1] += d[1].n_battery_runs;
        if (t == 0)
            drain = (1 - d[0].soc_end_frac) / total;
        soc = fmax(soc - rate * drain * 30 * (0.9 + 0.2 * rnd(s)), 0.01);
    }
    CHECK_INT(n_same, n);
    pp_gov_free(g[0]);
    pp_gov_free(g[1]);
}

void test_governor_reuse_same_decisions(void);
void test_governor_reuse_same_decisions(void)
{
    static const double rates[] = {0.9, 1.0, 1.15, 1.4};
    unsigned long long s = 7;
    size_t seen[PP_GOV_DONE + 1] = {0}, runs[2] = {0, 0};
    world *w = malloc(sizeof *w);

    for (int m = 0; m < 2; m++)
        for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
            build(w, m ? PP_BATTERY_THEVENIN : PP_BATTERY_RINT, &s);
            fly_both(w, rates[i], &s, seen, runs);
            unbuild(w);
        }
    free(w);
    /* every path was taken: held, re-planned, and no schedule keeping the reserve */
    CHECK(seen[PP_GOV_HOLD] > 0);
    CHECK(seen[PP_GOV_RESERVE] + seen[PP_GOV_BETTER] > 0);
    CHECK(seen[PP_GOV_CANNOT] > 0);
    CHECK(runs[0] * 3 < runs[1] * 2); /* a third of the runs spared at least */
}

/* The simulated surprises (a phase 30 % longer, the propulsion 15 % above
 * plan from a third in) flown governed with and without the shortcuts:
 * the same flight. */
void test_governor_reuse_same_flight(void);
void test_governor_reuse_same_flight(void)
{
    unsigned long long s = 11;
    world *w = malloc(sizeof *w);
    pp_phases_result plan;
    size_t st[NP];

    build(w, PP_BATTERY_THEVENIN, &s);
    CHECK_INT(pp_phases_solve(&w->p, &plan), 0);
    for (size_t k = 0; k < NP; k++)
        st[k] = plan.phase[k].choice;
    pp_phases_result_free(&plan);
    for (int surprise = 0; surprise < 2; surprise++) {
        pp_sim_result r[2];
        pp_phases_problem world_p;
        pp_phase_load actual;
        for (int i = 0; i < 2; i++) {
            pp_sim_options o;
            pp_sim_options_init(&o);
            o.every_s = 10;
            o.gov.reuse_runs = i == 0;
            o.stretch_phase = surprise ? -1 : 2;
            o.stretch_f = 1.3;
            CHECK_INT(pp_sim_world(&w->p, &o, &world_p), 0);
            CHECK_INT(pp_sim_actual_planned(&world_p, 600, surprise ? 1.15 : 1, &actual), 0);
            CHECK_INT(pp_sim_fly(&w->p, st, &actual, &o, &r[i]), 0);
            pp_phase_load_free(&actual);
        }
        const pp_sim_run *a = &r[0].run[PP_SIM_GOVERNED], *b = &r[1].run[PP_SIM_GOVERNED];
        CHECK(a->n == b->n && a->n > 0);
        CHECK(a->soc_end_frac == b->soc_end_frac && a->quality == b->quality);
        CHECK(a->n_changes == b->n_changes && a->n_cannot == b->n_cannot);
        CHECK(memcmp(a->est_soc_frac, b->est_soc_frac, a->n * sizeof *a->est_soc_frac) == 0);
        CHECK(isnan(a->est_soc_frac[a->n - 1])); /* the end: no update */
        CHECK(memcmp(a->qos, b->qos, a->n * sizeof *a->qos) == 0);
        pp_sim_result_free(&r[0]);
        pp_sim_result_free(&r[1]);
    }
    unbuild(w);
    free(w);
}
