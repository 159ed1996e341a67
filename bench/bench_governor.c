/* The in-flight governor (issue 30, src/plan/governor.h).
 *
 * 1. Speed: pp_gov_update re-planning 5 phases x 1,000 candidates (the
 *    problem of bench_phases: a concave quality-power front, each phase
 *    its own base load, the 12-minute one a trace at 1 Hz), rint and
 *    thevenin: the first plan, then an update every 30 s with the charge
 *    drained 10 % faster than planned (re-plans that are held or taken),
 *    the median and the worst update. Target: < 10 ms rint, < 50 ms
 *    thevenin.
 * 2. The scenario of the issue (src/plan/governor_sim.h) on the TX2
 *    darknet data: static plan held / governed / oracle, propulsion +15 %
 *    and -15 % from a third of the mission in.
 * 3. `powprof govern --simulate` run as a child: its maximum resident set
 *    (getrusage), target < 20 MB.
 * Environment: POWPROF_BIN (the TX2 import, the child run).
 */
#include "util.h"

#include "src/plan/governor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PHASES 5
#define CANDS 1000
#define MAX_UPDATES 128

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void problem(pp_battery_model model, pp_plan_choice *cand, unsigned char *allowed,
                    pp_phase_load *load, pp_phases_problem *p)
{
    static const double dur[PHASES] = {60, 120, 720, 300, 120}, base[PHASES] = {150, 100, 0, 80, 120};

    for (size_t i = 0; i < CANDS; i++) {
        cand[i].qos = 0.1 + 0.03 * (double)i;
        cand[i].planned_w = 2 + 0.9 * pow(cand[i].qos, 1.1);
    }
    memset(allowed, 1, PHASES * CANDS);
    for (size_t i = 0; i < CANDS; i++)
        allowed[4 * CANDS + i] = cand[i].qos >= 15;
    memset(p, 0, sizeof *p);
    for (size_t k = 0; k < PHASES; k++) {
        if (k == 2) {
            load[k].n = 721;
            load[k].t_s = malloc(2 * 721 * sizeof(double));
            load[k].p_w = load[k].t_s + 721;
            for (size_t i = 0; i < 721; i++) {
                load[k].t_s[i] = (double)i;
                load[k].p_w[i] = 90 + 30 * sin(i / 17.0);
            }
            load[k].mean_w = 90;
        } else {
            pp_phase_load_constant(base[k], dur[k], &load[k]);
        }
        p->duration_s[k] = dur[k];
        p->weight[k] = 1;
    }
    p->n_phases = PHASES;
    p->base = load;
    p->n_cand = CANDS;
    p->cand = cand;
    p->allowed = allowed;
    pp_battery_params_default(&p->battery);
    p->battery.model = model;
    p->min_soc_frac = 0.2;
}

static void speed(pp_battery_model model)
{
    static pp_plan_choice cand[CANDS];
    static unsigned char allowed[PHASES * CANDS];
    pp_phase_load load[PHASES];
    pp_phases_problem p;
    pp_gov *g;
    pp_gov_decision d;
    double times[MAX_UPDATES], cpu[MAX_UPDATES], first = NAN, soc = 1, planned_drain_per_s = NAN;
    size_t n = 0, replans = 0, runs = 0;

    problem(model, cand, allowed, load, &p);
    if (pp_gov_new(&p, NULL, &g) < 0)
        return;
    for (double t = 0; t < 1320 && n < MAX_UPDATES; t += 30) {
        pp_gov_reading r = {t, soc, NAN, NAN, -1};
        double t0 = pp_bench_now_s(), c0 = cpu_s();
        if (pp_gov_update(g, &r, &d) < 0) {
            printf("update failed\n");
            break;
        }
        times[n] = pp_bench_now_s() - t0;
        cpu[n] = cpu_s() - c0;
        if (t == 0) {
            first = times[n];
            planned_drain_per_s = (1 - d.soc_end_frac) / 1320;
        } else {
            n++;
            replans += d.replanned;
        }
        runs += d.n_battery_runs;
        soc -= 1.1 * planned_drain_per_s * 30;
    }
    qsort(times, n, sizeof *times, by_value);
    qsort(cpu, n, sizeof *cpu, by_value);
    printf("%-9s %d phases x %d candidates: first plan %.1f ms; %zu updates every 30 s with the "
           "charge drained 10 %% faster than planned: wall median %.1f ms, worst %.1f ms; CPU "
           "median %.1f ms, worst %.1f ms (%zu re-plans taken, %.1f battery runs per update)\n",
           model == PP_BATTERY_RINT ? "rint" : "thevenin", PHASES, CANDS, 1e3 * first, n,
           1e3 * times[n / 2], 1e3 * times[n - 1], 1e3 * cpu[n / 2], 1e3 * cpu[n - 1], replans,
           (double)runs / (double)(n + 1));
    pp_gov_free(g);
    for (size_t k = 0; k < PHASES; k++)
        pp_phase_load_free(&load[k]);
}

int main(void)
{
    printf("speed of pp_gov_update (a shared 2-core machine: figures are upper bounds):\n");
    speed(PP_BATTERY_RINT);
    speed(PP_BATTERY_THEVENIN);
    return 0;
}
