/* Adaptive profiling (issue 21), replayed on full grids measured once:
 *
 *  1. per grid, the hold-out energy error (MAPE of total_energy_j over
 *     the configurations not measured, against their measured rows) as
 *     measurement seconds are spent, for the adaptive choice, a random
 *     order (5 seeds) and the grid order; the full grid's own hold-out
 *     error is its nested cross-validated error (`powprof model`). Does
 *     the adaptive run reach it with at most a third of the full grid's
 *     seconds?
 *  2. the time to choose the next configurations with 200 measured and
 *     10,000 candidates (target < 0.5 s), beside the refit's.
 *
 * Grids: the TX2 matrix exponentiation (25) and darknet (4) of data/tx2,
 * imported with powprof import; the sets measured on this machine in
 * data/local (see its README) when there. Run from the repository root
 * after make (make bench). The constants of the acquisition (overhead_s,
 * batch, the damping radius) were set on the TX2 matrix grid and the
 * synthetic surfaces of the tests; the data/local grids were not used to
 * set them.
 */
#include "util.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/adaptive/adaptive_model.h"
#include "src/results/summary.h"
#include "src/adaptive/adaptive.h"
#include "src/adaptive/adaptive_run.h"
#include "tests/replay_oracle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_POINTS 512
#define SEEDS 5

static const char *bin = "build/powprof";
static const char *only; /* --only NAME: the grids whose name holds it */

static int wanted(const char *name)
{
    return !only || strstr(name, only) != NULL;
}
static char tmp[256];

/* The TX2 matrix-exponentiation traces, imported as one folder. */
static int import_matrix(const char *dir)
{
    static const int sizes[] = {256, 512, 1024, 2048, 4096};

    return pp_bench_import_tx2_matrix(bin, dir, sizes, 5);
}

/* The darknet traces, one import each, their rows in one folder. */
static int import_darknet(const char *dir)
{
    return pp_bench_import_tx2_darknet(bin, dir);
}

/* One point of a curve. */
typedef struct point {
    double seconds, error_pct;
    size_t n;
} point;

typedef struct curve {
    point p[MAX_POINTS];
    size_t n;
} curve;

/* The hold-out energy MAPE of the predictor's last refit f over the
 * candidates not in[] (INFINITY when one cannot be predicted; NAN with
 * none left). */
static double holdout_error(const pp_bench_grid *g, const pp_adaptive_predictor *pr,
                            const pp_adaptive_fit *f, const uint8_t *in)
{
    double sum = 0, v, lo, hi;
    size_t n = 0, k = 0;

    while (k < f->n_metrics && strcmp(f->metrics[k], "total_energy_j") != 0)
        k++;
    if (k == f->n_metrics)
        return INFINITY;
    for (size_t c = 0; c < g->s.n; c++) {
        if (in[c])
            continue;
        if (pr->predict(pr->ctx, &g->s, c, k, &v, &lo, &hi) < 0 || isnan(v))
            return INFINITY;
        sum += fabs(v - g->energy_j[c]) / fabs(g->energy_j[c]);
        n++;
    }
    return n ? 100 * sum / (double)n : NAN;
}

/* The adaptive run's rounds, as a curve. */
typedef struct watch {
    const pp_bench_grid *g;
    const pp_adaptive_predictor *pr;
    const char *dir;
    curve *cv;
    uint8_t *in;
} watch;

static void on_round(void *ctx, const pp_adaptive_progress *p)
{
    watch *w = ctx;

    pp_bench_measured_flags(w->g, w->dir, w->in);
    if (w->cv->n < MAX_POINTS)
        w->cv->p[w->cv->n++] = (point){p->fit->measured_s,
                                       holdout_error(w->g, w->pr, p->fit, w->in), p->fit->n_rows};
}

/* The adaptive curve, until stop_frac of the grid's seconds. */
static int adaptive_curve(pp_bench_grid *g, double stop_frac, curve *cv, double *choose_s)
{
    char dir[400];
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_oracle orc = {&g->rp, pp_replay_measure, NULL};
    pp_adaptive_options o;
    pp_adaptive_result res;
    watch w = {g, &pr, dir, cv, calloc(g->s.n, 1)};
    double t0 = pp_bench_now_s();
    int rc;

    snprintf(dir, sizeof dir, "%s/%s-adaptive", tmp, g->name);
    pp_bench_remove_tree(dir);
    cv->n = 0;
    pp_adaptive_options_init(&o);
    o.target_error_pct = 0;
    o.budget_s = stop_frac * g->total_s;
    pp_adaptive_model_predictor(&am, &pr);
    rc = pp_adaptive_run(&g->s, &o, &pr, &orc, dir, on_round, &w, NULL, &res);
    *choose_s = pp_bench_now_s() - t0;
    pp_adaptive_model_free(&am);
    free(w.in);
    return rc;
}

/* A replayed run with the defaults (--target-error 5): where it stops, the
 * error it claims, its hold-out error on the configurations it left. */
static void target_run(pp_bench_grid *g)
{
    char dir[400];
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_options o;
    pp_adaptive_result res;
    uint8_t *in = calloc(g->s.n, 1);

    snprintf(dir, sizeof dir, "%s/%s-target", tmp, g->name);
    pp_adaptive_options_init(&o);
    if (pp_bench_replay(g, dir, &o, &am, &pr, &res) == 0) {
        pp_bench_measured_flags(g, dir, in);
        printf("  --target-error 5: stopped (%s) after %zu of %zu configurations, %.0f %% of the "
               "seconds; nested errors", pp_adaptive_stop_name(res.stop), res.n_chosen, g->s.n,
               100 * res.fit.measured_s / g->total_s);
        for (size_t k = 0; k < res.fit.n_metrics; k++)
            printf(" %s %.1f %%", res.fit.metrics[k], res.fit.error_pct[k]);
        printf("; hold-out energy error on the %zu left %.1f %%\n", g->s.n - res.n_chosen,
               holdout_error(g, &pr, &res.fit, in));
    }
    pp_adaptive_model_free(&am);
    free(in);
}

/* A fixed order's curve: configurations order[0 ..] one at a time, a refit
 * after each, until stop_frac of the seconds. */
static int order_curve(pp_bench_grid *g, const size_t *order, double stop_frac, curve *cv)
{
    char dir[400];
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_fit f;
    uint8_t *in = calloc(g->s.n, 1);
    double spent = 0;
    int rc = 0;

    snprintf(dir, sizeof dir, "%s/%s-order", tmp, g->name);
    pp_bench_remove_tree(dir);
    cv->n = 0;
    pp_adaptive_model_predictor(&am, &pr);
    for (size_t i = 0; i < g->s.n && rc == 0 && spent <= stop_frac * g->total_s; i++) {
        if ((rc = pp_replay_measure(&g->rp, &g->s, &order[i], 1, dir)) < 0)
            break;
        in[order[i]] = 1;
        spent += g->duration_s[order[i]];
        if (pr.refit(pr.ctx, dir, &f) < 0) { /* e.g. one row: nothing predicts yet */
            cv->p[cv->n++] = (point){spent, INFINITY, i + 1};
            continue;
        }
        cv->p[cv->n++] = (point){spent, holdout_error(g, &pr, &f, in), i + 1};
    }
    pp_adaptive_model_free(&am);
    free(in);
    return rc;
}

/* The first fraction of the grid's seconds at which the curve's error is
 * at or below target (INFINITY: never). */
static double reach_frac(const pp_bench_grid *g, const curve *cv, double target)
{
    for (size_t i = 0; i < cv->n; i++)
        if (cv->p[i].error_pct <= target)
            return cv->p[i].seconds / g->total_s;
    return INFINITY;
}

/* The curve's error at a fraction of the seconds: its last point there. */
static double error_at(const pp_bench_grid *g, const curve *cv, double frac)
{
    double e = INFINITY;

    for (size_t i = 0; i < cv->n && cv->p[i].seconds <= frac * g->total_s + 1e-9; i++)
        e = cv->p[i].error_pct;
    return e;
}

static void shuffle(size_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j, t;
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        j = (size_t)((seed >> 33) % i);
        t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_curve(const char *what, const pp_bench_grid *g, const curve *cv)
{
    printf("    %-9s", what);
    for (size_t i = 0; i < cv->n; i++)
        printf(" %.0f%%:%.1f", 100 * cv->p[i].seconds / g->total_s, cv->p[i].error_pct);
    printf("\n");
}

/* The adaptive run's choices, in order, from its adaptive.json. */
static void print_order(const pp_bench_grid *g)
{
    char path[500], *text;
    const char *at;

    snprintf(path, sizeof path, "%s/%s-adaptive/adaptive.json", tmp, g->name);
    text = pp_read_file(path);
    printf("    chosen   ");
    for (at = text; at && (at = strstr(at, "\"id\": ")); at += 6) {
        long id = strtol(at + 6, NULL, 10);
        const char *why = strstr(at, "\"why\": \"");
        printf(" %ld%s", id, !why                               ? "?"
                             : strncmp(why + 8, "band", 4) == 0    ? ""
                             : strncmp(why + 8, "unseen", 6) == 0 ? "u"
                                                                   : "*");
    }
    printf("  (* the design, u labels not measured together before)\n");
    free(text);
}

/* Section 1 for one grid. */
static void bench_grid(pp_bench_grid *g)
{
    static curve cv, rnd;
    double reach[SEEDS], at3[SEEDS], choose_s, fracs[] = {0.1, 0.2, 1.0 / 3, 0.5};
    size_t *order = malloc(g->s.n * sizeof *order);

    printf("\n%s: %zu configurations, %.1f s measured in all; the full grid's nested energy "
           "error %.2f %%\n", g->name, g->s.n, g->total_s, g->full_error_pct);
    if (adaptive_curve(g, 0.6, &cv, &choose_s) == 0) {
        printf("  adaptive: reaches it at %.0f %% of the seconds; error at 10/20/33/50 %%:",
               100 * reach_frac(g, &cv, g->full_error_pct));
        for (int i = 0; i < 4; i++)
            printf(" %.1f", error_at(g, &cv, fracs[i]));
        printf(" %%  (%.1f s of computing, refits included)\n", choose_s);
        print_curve("adaptive", g, &cv);
        print_order(g);
    }
    target_run(g);
    for (int s = 0; s < SEEDS; s++) {
        shuffle(order, g->s.n, (uint64_t)s + 1);
        order_curve(g, order, 0.6, &rnd);
        reach[s] = reach_frac(g, &rnd, g->full_error_pct);
        at3[s] = error_at(g, &rnd, 1.0 / 3);
        if (s == 0)
            print_curve("random/1", g, &rnd);
    }
    qsort(reach, SEEDS, sizeof *reach, cmp_double);
    qsort(at3, SEEDS, sizeof *at3, cmp_double);
    printf("  random (%d seeds): reaches it at %.0f %% (median; best %.0f %%), error at 33 %%: "
           "median %.1f %%\n", SEEDS, 100 * reach[SEEDS / 2], 100 * reach[0], at3[SEEDS / 2]);
    for (size_t i = 0; i < g->s.n; i++)
        order[i] = i;
    order_curve(g, order, 0.6, &rnd);
    printf("  grid order: reaches it at %.0f %%, error at 33 %%: %.1f %%\n",
           100 * reach_frac(g, &rnd, g->full_error_pct), error_at(g, &rnd, 1.0 / 3));
    print_curve("grid", g, &rnd);
    free(order);
}

/* Section 2: the choice with 200 measured among 10,000 candidates. */
static void bench_choice(void)
{
    char full[400], dir[400], path[500];
    pp_bench_grid g;
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_fit f;
    pp_adaptive_pick picks[8];
    size_t order[10000];
    uint8_t *chosen;
    double t0, fit_s, choose1_s, choose8_s;
    FILE *fp;

    snprintf(full, sizeof full, "%s/synthetic-10000", tmp);
    snprintf(dir, sizeof dir, "%s/synthetic-200", tmp);
    mkdir(full, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", full);
    if (!(fp = fopen(path, "w")))
        return;
    fprintf(fp, "id,a,b,status,duration_s,total_mean_w,total_energy_j\n");
    for (int i = 0; i < 100; i++)
        for (int j = 0; j < 100; j++) {
            double a = i + 1, b = j + 1, w = 2 + 0.01 * a + 3 * exp(-((a - 80) * (a - 80) +
                                                                     (b - 20) * (b - 20)) / 200);
            fprintf(fp, "%d,%g,%g,ok,%g,%g,%g\n", i * 100 + j, a, b, 1 + a / 10, w,
                    w * (1 + a / 10));
        }
    fclose(fp);
    if (pp_bench_grid_open(&g, "synthetic", full, 0) < 0)
        return;
    pp_bench_remove_tree(dir);
    shuffle(order, g.s.n, 42);
    pp_replay_measure(&g.rp, &g.s, order, 200, dir);
    chosen = calloc(g.s.n, 1);
    for (size_t i = 0; i < 200; i++)
        chosen[order[i]] = 1;
    pp_adaptive_model_predictor(&am, &pr);
    t0 = pp_bench_now_s();
    pr.refit(pr.ctx, dir, &f);
    fit_s = pp_bench_now_s() - t0;
    t0 = pp_bench_now_s();
    pp_adaptive_choose(&g.s, &pr, &f, chosen, 0.5, INFINITY, 1, picks, 1);
    choose1_s = pp_bench_now_s() - t0;
    t0 = pp_bench_now_s();
    pp_adaptive_choose(&g.s, &pr, &f, chosen, 0.5, INFINITY, 1, picks, 8);
    choose8_s = pp_bench_now_s() - t0;
    printf("\nchoice with 200 measured and %zu candidates: %.3f s for one, %.3f s for a round "
           "of 8 (target < 0.5 s); the refit before it (nested cross-validation of %zu "
           "metrics): %.2f s\n", g.s.n, choose1_s, choose8_s, f.n_metrics + (size_t)f.has_cost,
           fit_s);
    pp_adaptive_model_free(&am);
    free(chosen);
    pp_bench_grid_free(&g);
}

/* --live DIR FULL: the model of an adaptive run made live into DIR
 * against the rows FULL measured of the configurations it left. */
static int live_check(const char *dir, const char *full)
{
    pp_bench_grid g;
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_fit f;
    uint8_t *in;
    size_t n = 0;

    if (pp_bench_grid_open(&g, "live", full, 1) < 0)
        return 1;
    in = calloc(g.s.n, 1);
    pp_bench_measured_flags(&g, dir, in);
    for (size_t c = 0; c < g.s.n; c++)
        n += in[c];
    pp_adaptive_model_predictor(&am, &pr);
    if (pr.refit(pr.ctx, dir, &f) == 0) {
        size_t k = 0;
        while (k + 1 < f.n_metrics && strcmp(f.metrics[k], "total_energy_j") != 0)
            k++;
        printf("live adaptive run %s: %zu of %zu configurations, %.1f s measured (the full grid "
               "measured %.1f s); nested energy error it claims %.2f %%, its energy error on the "
               "%zu configurations it left, against %s: %.2f %% (the full grid's own nested "
               "error %.2f %%)\n", dir, n, g.s.n, f.measured_s, g.total_s,
               f.error_pct[k], g.s.n - n, full, holdout_error(&g, &pr, &f, in),
               g.full_error_pct);
    }
    pp_adaptive_model_free(&am);
    free(in);
    pp_bench_grid_free(&g);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name, *dir;
    } local[] = {{"local-matrix-cpu-size-sleep", "data/local/matrix-cpu-size-sleep"},
                 {"local-xz-level-lines", "data/local/xz-level-lines"},
                 {"local-darknet-fps-cfg", "data/local/darknet-fps-cfg"}};
    char mx[300], dk[300];
    pp_bench_grid g;

    if (getenv("POWPROF_BIN"))
        bin = getenv("POWPROF_BIN");
    pp_log_set_level(PP_LOG_ERROR);
    snprintf(tmp, sizeof tmp, "/tmp/bench-adaptive-%d", (int)getpid());
    mkdir(tmp, 0755);
    printf("Adaptive profiling replayed on full grids (shared, loaded 2-core machine: the "
           "computing times are indicative).\nCurves: percent of the full grid's measurement "
           "seconds : hold-out energy MAPE %% of the configurations not measured.\n");
    if (argc == 3 && strcmp(argv[1], "--only") == 0)
        only = argv[2];
    if (argc == 4 && strcmp(argv[1], "--live") == 0)
        return live_check(argv[2], argv[3]);
    if (wanted("choice"))
        bench_choice();
    snprintf(mx, sizeof mx, "%s/tx2-matrix-exponentiation", tmp);
    snprintf(dk, sizeof dk, "%s/tx2-darknet", tmp);
    if (wanted("tx2-matrix-exponentiation") && import_matrix(mx) == 0 && pp_bench_grid_open(&g, "tx2-matrix-exponentiation", mx, 1) == 0) {
        bench_grid(&g);
        pp_bench_grid_free(&g);
    }
    if (wanted("tx2-darknet") && import_darknet(dk) == 0 && pp_bench_grid_open(&g, "tx2-darknet", dk, 1) == 0) {
        bench_grid(&g);
        pp_bench_grid_free(&g);
    }
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        if (!wanted(local[i].name))
            continue;
        if (access(local[i].dir, F_OK) != 0) {
            printf("\n%s: not there (data/local, measured on this machine)\n", local[i].name);
            continue;
        }
        if (pp_bench_grid_open(&g, local[i].name, local[i].dir, 1) == 0)
            bench_grid(&g);
        pp_bench_grid_free(&g);
    }
    if (!getenv("BENCH_KEEP"))
        pp_bench_remove_tree(tmp);
    return 0;
}
