/* A plan per phase (issue 25, src/plan/phases.h).
 *
 * 1. Speed: 5 phases x 1,000 candidates (a concave quality-power front,
 *    each phase with its own base load, the 12-minute one a recorded-like
 *    trace at 1 Hz), with the rint model and with thevenin; the best of 5
 *    runs. Its end state of charge against one battery run over the chosen
 *    schedule (pp_phases_run).
 * 2. On measured data: takeoff 1 min, transit 12 min, landing 2 min whose
 *    detector needs 15 fps (TX2 darknet, data/tx2/darknet, imported) while
 *    transit can run it at 2 fps; on the quickstart's results (darknet.fps
 *    0.5 to 2: landing at 2, transit at 0.5) when POWPROF_QUICKSTART names
 *    them. The motors' base loads (2 : 1 : 1.3) are scaled to two budgets:
 *    one where the floor held throughout does not last (the single
 *    configuration reaches the reserve early: minutes), one where it does
 *    but the highest rate does not (the gain in quality).
 * Environment: POWPROF_BIN (to import the TX2 data), POWPROF_QUICKSTART.
 */
#include "util.h"

#include "src/base/clock.h"
#include "src/plan/phases_model.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PHASES PP_BENCH_PHASES
#define CANDS PP_BENCH_CANDS


static void speed(pp_battery_model model)
{
    static pp_plan_choice cand[CANDS];
    static unsigned char allowed[PHASES * CANDS];
    pp_phase_load load[PHASES];
    pp_phases_problem p = {0};
    pp_phases_result r;
    double best = INFINITY, w[PHASES], end;
    int event;

    pp_bench_phases_problem(model, cand, allowed, load, &p);
    p.min_soc_frac = 0.2;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = pp_bench_now_s();
        if (pp_phases_solve(&p, &r) < 0) {
            printf("solve failed\n");
            return;
        }
        best = fmin(best, pp_bench_now_s() - t0);
        if (rep < 4)
            pp_phases_result_free(&r);
    }
    for (size_t k = 0; k < PHASES; k++)
        w[k] = cand[r.phase[k].choice].planned_w;
    pp_phases_run(&p, w, &end, &event);
    printf("%-9s %d phases x %d candidates: %.3f s (best of 5; %zu battery runs); feasible %d, "
           "quality %.3f, end %.6f %%, one battery run over the schedule %.6f %% (|diff| %.1e)\n",
           model == PP_BATTERY_RINT ? "rint" : "thevenin", PHASES, CANDS, best, r.n_battery_runs,
           r.feasible, r.quality, 100 * r.soc_end_frac, 100 * end, fabs(end - r.soc_end_frac));
    pp_phases_result_free(&r);
    for (size_t k = 0; k < PHASES; k++)
        pp_phase_load_free(&load[k]);
}

/* The mission with the motors at scale x (takeoff 2x, transit x, landing
 * 1.3x W), its floors on param. */
static void mission(pp_mission_spec *mi, double x, const char *param, double transit_min,
                    double landing_min)
{
    static const char *names[3] = {"takeoff", "transit", "landing"};
    static const double dur[3] = {60, 720, 120}, share[3] = {2, 1, 1.3};

    pp_mission_init(mi);
    mi->n_phases = 3;
    mi->min_soc_frac = 0.2;
    for (size_t k = 0; k < 3; k++) {
        pp_mission_phase *ph = &mi->phase[k];
        memset(ph, 0, sizeof *ph);
        snprintf(ph->name, sizeof ph->name, "%s", names[k]);
        ph->duration_s = dur[k];
        ph->base_power_w = share[k] * x;
        ph->weight = 1;
        if (k > 0) {
            ph->n_bounds = 1;
            snprintf(ph->bound[0].param, sizeof ph->bound[0].param, "%s", param);
            ph->bound[0].min = k == 1 ? transit_min : landing_min;
            ph->bound[0].max = INFINITY;
        }
    }
}

/* The motors' scale where plan(x) first fails (bisection); feasible(x)
 * says whether "single" (held throughout at the floor) or "phases" lasts. */
static double edge(const pp_model *m, const pp_plan_options *o, pp_mission_spec *mi, pp_phases_plan *r,
                   const char *param, double tmin, double lmin, int single)
{
    double lo = 0, hi = 2000;

    for (int it = 0; it < 40; it++) {
        double mid = 0.5 * (lo + hi);
        int ok;
        mission(mi, mid, param, tmin, lmin);
        if (pp_plan_phases(m, o, mi, r) < 0)
            return NAN;
        ok = single ? r->res.single_feasible : r->res.feasible;
        pp_phases_plan_free(r);
        if (ok)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void report(const char *label, const pp_model *m, const pp_plan_options *o,
                   pp_mission_spec *mi, pp_phases_plan *r, double x, const char *param, double tmin,
                   double lmin)
{
    mission(mi, x, param, tmin, lmin);
    if (pp_plan_phases(m, o, mi, r) < 0)
        return;
    printf("  %s (motors %.1f / %.1f / %.1f W): ", label, 2 * x, x, 1.3 * x);
    if (!r->res.feasible)
        printf("no plan per phase lasts\n");
    else {
        printf("phases %s = ", param);
        for (size_t k = 0; k < 3; k++) {
            const pp_plan_choice *c = &r->cand[r->res.phase[k].choice];
            printf("%.3g (quality %.3g)%s", c->point.raw[r->head.maximize], c->qos,
                   k < 2 ? " / " : "");
        }
        printf(", quality %.3f, end %.2f %%; ", r->res.quality, 100 * r->res.soc_end_frac);
        if (r->res.single_feasible)
            printf("best single %.3g: quality %.3f -> gain %+.3f (%+.1f %%)\n",
                   r->cand[r->res.single].point.raw[r->head.maximize], r->res.single_quality,
                   r->res.quality - r->res.single_quality,
                   100 * (r->res.quality / r->res.single_quality - 1));
        else
            printf("no single configuration lasts: held at the floor it reaches the reserve "
                   "after %.1f of %.1f min (the plan per phase flies %.1f min more)\n",
                   r->res.single_reserve_t_s / 60, pp_mission_duration_s(mi) / 60,
                   (pp_mission_duration_s(mi) - r->res.single_reserve_t_s) / 60);
    }
    pp_phases_plan_free(r);
}

static void on_data(const char *label, const char *dir, const char *param, double tmin,
                    double lmin)
{
    pp_mission_spec *mi = malloc(sizeof *mi);
    pp_phases_plan *r = malloc(sizeof *r);
    pp_plan_options o;
    pp_model m;
    double single_edge, phase_edge;

    if (pp_model_read(dir, NULL, 0, &m) < 0) {
        printf("%s: no model in %s\n", label, dir);
        free(mi);
        free(r);
        return;
    }
    pp_plan_options_init(&o);
    o.maximize = param;
    single_edge = edge(&m, &o, mi, r, param, tmin, lmin, 1);
    phase_edge = edge(&m, &o, mi, r, param, tmin, lmin, 0);
    printf("%s (%s): landing %s >= %g, transit >= %g; held throughout lasts to motors x = %.2f "
           "W, per phase to %.2f W\n", label, dir, param, lmin, tmin, single_edge, phase_edge);
    report("tight", &m, &o, mi, r, 0.5 * (single_edge + phase_edge), param, tmin, lmin);
    report("looser", &m, &o, mi, r, single_edge * 0.995, param, tmin, lmin);
    pp_model_free(&m);
    free(mi);
    free(r);
}

/* data/tx2/darknet imported into dir (fps from the names). */
static int import_tx2(const char *bin, const char *dir)
{
    static const char *const rates[][2] = {{"5-8", "5.8"}, {"10", "10"}, {"25", "25"}, {"32", "32"}};
    char src[4200], link[4200], out[4200], cwd[4096];
    char *argv[16];
    int n = 0;

    if (!getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(out, sizeof out, "%s/tx2", dir);
    argv[n++] = (char *)bin;
    argv[n++] = "import";
    argv[n++] = "powprofiler";
    for (size_t i = 0; i < 4; i++) {
        snprintf(src, sizeof src, "%s/data/tx2/darknet/1layer_yolo-%sfps.csv", cwd, rates[i][0]);
        snprintf(link, sizeof link, "%s/yolo-%s.csv", dir, rates[i][1]);
        if (symlink(src, link) < 0)
            return -1;
        argv[n++] = strdup(link);
    }
    argv[n++] = "--pattern";
    argv[n++] = "yolo-{fps}.csv";
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n] = NULL;
    if (pp_bench_run_quiet(argv) < 0)
        return -1;
    char *model_argv[] = {(char *)bin, "model", out, NULL};
    return pp_bench_run_quiet(model_argv);
}

int main(void)
{
    const char *bin = getenv("POWPROF_BIN"), *qs = getenv("POWPROF_QUICKSTART");
    char dir[] = "/tmp/powprof-bench-phases.XXXXXX", out[4200];

    printf("speed (a shared, loaded 2-core machine: figures are upper bounds):\n");
    speed(PP_BATTERY_RINT);
    speed(PP_BATTERY_THEVENIN);
    if (bin && mkdtemp(dir) && import_tx2(bin, dir) == 0) {
        snprintf(out, sizeof out, "%s/tx2", dir);
        on_data("TX2 darknet (data/tx2/darknet)", out, "fps", 2, 15);
    } else {
        printf("TX2 darknet: not imported (POWPROF_BIN unset or the import failed)\n");
    }
    if (strchr(dir, 'X') == NULL) { /* the temporary folder was made: remove it */
        char *rm[] = {"/bin/rm", "-rf", dir, NULL};
        pp_bench_run_quiet(rm);
    }
    if (qs)
        on_data("quickstart", qs, "darknet.fps", 0.5, 2);
    else
        printf("quickstart: POWPROF_QUICKSTART=RESULTS not given\n");
    return 0;
}
