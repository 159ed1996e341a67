/* The claims of adaptive runs that stop on a target (issue 31), replayed
 * on grids measured whole: for targets 5, 10 and 15 % and seeds 1 to 5,
 * where each run stops, the claim (each planning metric's claim on the
 * configurations left: adaptive_claim.h) against the truth (the metric's
 * MAPE on the configurations the run left, against their measured rows),
 * the fewest measured values of a varying parameter at the stop; per grid
 * and over the real and synthetic grids apart, the shares of early stops
 * with the claim at or above the truth and at most 3x it (issue 43:
 * >= 90 % and >= 80 %). Grids: the TX2 matrix exponentiation (25) and
 * darknet (4) of data/tx2, the three sets of data/local (measured on the
 * development machine; none of the stop's constants was set on them), the
 * live 6 x 6 of bench/live-matrix-cpu-6x6.cfg as a subset of data/local's
 * matrix-cpu (its rows there, 30 steps each), and synthetic 8 x 8 grids of known
 * lognormal noise (sigma 0, 3 % and 10 % on energy and power). The
 * replay is deterministic: the figures do not depend on the machine's
 * load. `bench_claims NAME` runs the grids whose name holds NAME.
 */
#include "util.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/adaptive/adaptive_model.h"
#include "src/results/summary.h"
#include "src/adaptive/adaptive.h"
#include "tests/replay_oracle.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEEDS 5

static const char *bin = "build/powprof";
static const char *only; /* the grids whose name holds it */
static char tmp[256];

static int wanted(const char *name)
{
    return !only || strstr(name, only) != NULL;
}

static int import_matrix(const char *dir)
{
    static const int sizes[] = {256, 512, 1024, 2048, 4096};

    return pp_bench_import_tx2_matrix(bin, dir, sizes, 5);
}

static int import_darknet(const char *dir)
{
    return pp_bench_import_tx2_darknet(bin, dir);
}

/* The measured value of metric name per candidate (the mean of its rows)
 * into out; 0 or -1 without the column. */
static int metric_values(const pp_bench_grid *g, const char *name, double *out)
{
    pp_summary sum;
    int k;

    if (pp_summary_read(g->dir, &sum) < 0)
        return -1;
    k = pp_summary_metric(&sum, name);
    for (size_t c = 0; k >= 0 && c < g->s.n; c++) {
        size_t n = 0;
        out[c] = 0;
        for (size_t r = 0; r < sum.n_rows; r++)
            if ((uint64_t)sum.ids[r] == g->s.ids[c]) {
                out[c] += sum.y[r * sum.n_metrics + (size_t)k];
                n++;
            }
        out[c] = n ? out[c] / (double)n : NAN;
    }
    pp_summary_free(&sum);
    return k >= 0 ? 0 : -1;
}

/* The MAPE of metric k of the refit f over the candidates not in[],
 * against truth (INFINITY when one cannot be predicted). */
static double truth_error(const pp_bench_grid *g, const pp_adaptive_predictor *pr, size_t k,
                          const double *truth, const uint8_t *in)
{
    double sum = 0, v, lo, hi;
    size_t n = 0;

    for (size_t c = 0; c < g->s.n; c++) {
        if (in[c] || isnan(truth[c]) || truth[c] == 0)
            continue;
        if (pr->predict(pr->ctx, &g->s, c, k, &v, &lo, &hi) < 0 || isnan(v))
            return INFINITY;
        sum += fabs(v - truth[c]) / fabs(truth[c]);
        n++;
    }
    return n ? 100 * sum / (double)n : NAN;
}

/* The fewest distinct measured values over the varying parameters. */
static size_t min_values(const pp_bench_grid *g, const uint8_t *in)
{
    size_t least = SIZE_MAX;

    for (size_t k = 0; k < g->s.n_params; k++) {
        double *seen = malloc(g->s.n * sizeof *seen);
        size_t n = 0;
        for (size_t c = 0; seen && c < g->s.n; c++) {
            size_t i = 0;
            while (in[c] && i < n && seen[i] != g->s.raw[c * g->s.n_params + k])
                i++;
            if (in[c] && i == n)
                seen[n++] = g->s.raw[c * g->s.n_params + k];
        }
        if (g->s.levels[k] >= 2 && n < least)
            least = n;
        free(seen);
    }
    return least;
}

/* What the claims table adds up over the early stops. */
typedef struct claims {
    size_t runs, early, covered, within3, below_design;
    double ratio_lo, ratio_hi; /* claim / truth over the early stops and metrics */
} claims;

/* One replayed run with a target and a seed: its stop, claim and truth per
 * planning metric, a line of the table. */
static void claim_run(pp_bench_grid *g, double target, uint64_t seed, double *const *truth,
                      claims *cl)
{
    char dir[400];
    pp_adaptive_model am = {0};
    pp_adaptive_predictor pr;
    pp_adaptive_options o;
    pp_adaptive_result res;
    uint8_t *in = calloc(g->s.n, 1);
    int all = 1, near = 1;

    snprintf(dir, sizeof dir, "%s/%s-claim", tmp, g->name);
    pp_adaptive_options_init(&o);
    o.target_error_pct = target;
    o.seed = seed;
    cl->runs++;
    if (in && pp_bench_replay(g, dir, &o, &am, &pr, &res) == 0) {
        pp_bench_measured_flags(g, dir, in);
        printf("    target %2.0f %% seed %llu: %-6s after %2zu of %zu (fewest values %zu; held by "
               "%s)", target, (unsigned long long)seed, pp_adaptive_stop_name(res.stop),
               res.n_chosen, g->s.n, min_values(g, in), pp_adaptive_hold_name(res.claim.hold));
        if (res.n_chosen < g->s.n && (res.stop == PP_STOP_TARGET || res.stop == PP_STOP_NOISE)) {
            cl->early++;
            cl->below_design += min_values(g, in) < PP_ADAPTIVE_MIN_VALUES;
            for (size_t k = 0; k < res.fit.n_metrics; k++) {
                double t = truth[k] ? truth_error(g, &pr, k, truth[k], in) : NAN;
                double r = res.fit.error_hi_pct[k] / t;
                printf("; %s claims %.2f %% (estimate %.2f, nested %.2f, floor %.2f), true %.2f %%",
                       res.fit.metrics[k], res.fit.error_hi_pct[k], res.fit.error_left_pct[k],
                       res.fit.error_pct[k], res.fit.noise_pct[k], t);
                all &= !(t > res.fit.error_hi_pct[k]);
                near &= res.fit.error_hi_pct[k] <= 3 * t;
                if (t > 0 && isfinite(r)) {
                    cl->ratio_lo = fmin(cl->ratio_lo, r);
                    cl->ratio_hi = fmax(cl->ratio_hi, r);
                }
            }
            cl->covered += (size_t)all;
            cl->within3 += (size_t)near;
        }
        printf("\n");
    }
    pp_adaptive_model_free(&am);
    free(in);
}

/* A summary line: the early stops, the share whose claim is at or above
 * the truth (every planning metric) and the share whose claim is at most
 * 3x the truth (every planning metric): the targets of issue 43 (>= 90 %
 * and >= 80 %). */
static void print_claims(const char *what, const claims *cl)
{
    double e = cl->early ? (double)cl->early : NAN;

    printf("  %s: %zu runs, %zu early stops, claim >= truth (every planning metric) in %zu "
           "(%.0f %%), claim <= 3x truth in %zu (%.0f %%), claim / truth %.2f .. %.2f, stops "
           "below the minimum design %zu\n", what, cl->runs, cl->early, cl->covered,
           100.0 * (double)cl->covered / e, cl->within3, 100.0 * (double)cl->within3 / e,
           cl->early ? cl->ratio_lo : NAN, cl->early ? cl->ratio_hi : NAN, cl->below_design);
}

/* Section 3 for one grid: targets 5, 10, 15 % x seeds 1 .. SEEDS. */
static void bench_claims(pp_bench_grid *g, claims *total)
{
    static const double targets[] = {5, 10, 15};
    double *truth[PP_ADAPTIVE_MAX_METRICS] = {0};
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_fit f;
    claims cl = {0, 0, 0, 0, 0, INFINITY, 0};

    pp_adaptive_model_predictor(&am, &pr);
    if (pr.refit(pr.ctx, g->dir, &f) < 0) {
        pp_adaptive_model_free(&am);
        return;
    }
    pp_adaptive_model_free(&am);
    for (size_t k = 0; k < f.n_metrics; k++) {
        truth[k] = malloc(g->s.n * sizeof *truth[k]);
        if (truth[k] && metric_values(g, f.metrics[k], truth[k]) < 0) {
            free(truth[k]);
            truth[k] = NULL;
        }
    }
    printf("\n%s: claims of the target stops (claim: the 90 %% quantile; true: the MAPE on "
           "the configurations left)\n", g->name);
    for (size_t t = 0; t < 3; t++)
        for (uint64_t seed = 1; seed <= SEEDS; seed++)
            claim_run(g, targets[t], seed, truth, &cl);
    print_claims(g->name, &cl);
    total->runs += cl.runs;
    total->early += cl.early;
    total->covered += cl.covered;
    total->within3 += cl.within3;
    total->below_design += cl.below_design;
    total->ratio_lo = fmin(total->ratio_lo, cl.ratio_lo);
    total->ratio_hi = fmax(total->ratio_hi, cl.ratio_hi);
    for (size_t k = 0; k < f.n_metrics; k++)
        free(truth[k]);
}

/* Synthetic grids of known noise: energy exp(1 + a + 2 b^2) (a curved
 * direction), power 2 + a, duration 1 + a (x lognormal noise of sigma on
 * energy and power). */
static int synthetic_grid(const char *dir, int na, int nb, double sigma)
{
    char path[500];
    unsigned long long st = 99;
    FILE *fp;

    pp_bench_remove_tree(dir);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(fp = fopen(path, "w")))
        return -1;
    fprintf(fp, "id,a,b,status,duration_s,total_mean_w,total_energy_j\n");
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            double a = (double)i / (na - 1), b = (double)j / (nb - 1), z[2];
            for (int q = 0; q < 2; q++) {
                double u1, u2;
                st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                u1 = ((double)(st >> 11) + 0.5) / 9007199254740992.0;
                st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                u2 = ((double)(st >> 11) + 0.5) / 9007199254740992.0;
                z[q] = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
            }
            fprintf(fp, "%d,%g,%g,ok,%g,%.9g,%.9g\n", i * nb + j, 1 + 9 * a, 1 + 9 * b, 1 + a,
                    (2 + a) * exp(sigma * z[0]), exp(1 + a + 2 * b * b + sigma * z[1]));
        }
    return fclose(fp) == 0 ? 0 : -1;
}

/* The live grid of bench/live-matrix-cpu-6x6.cfg (sizes 128-1024 but 640
 * and 896, sleeps 0.01-0.2 s but 0.06 and 0.1) is a subset of
 * data/local/matrix-cpu-size-sleep (30 steps there, 10 live): its rows
 * into dir/summary.csv. */
static int live_subset(const char *from, const char *dir)
{
    static const double gone[] = {640, 896, 0.06, 0.1};
    char path[500];
    char *text, *line, *nl;
    FILE *fp;

    pp_bench_remove_tree(dir);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", from);
    if (!(text = pp_read_file(path)))
        return -1;
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(fp = fopen(path, "w"))) {
        free(text);
        return -1;
    }
    for (line = text; line && *line; line = nl) {
        char *end, *p = strchr(line, ',');
        double size = p ? strtod(p + 1, &end) : NAN, sleep_s = p ? strtod(end + 1, NULL) : NAN;
        int keep = line == text;
        nl = strchr(line, '\n');
        nl = nl ? nl + 1 : NULL;
        if (line != text)
            keep = size != gone[0] && size != gone[1] && sleep_s != gone[2] && sleep_s != gone[3];
        if (keep)
            fwrite(line, 1, nl ? (size_t)(nl - line) : strlen(line), fp);
    }
    free(text);
    return fclose(fp) == 0 ? 0 : -1;
}

static void claims_section(void)
{
    static const struct {
        const char *name, *dir;
    } local[] = {{"local-matrix-cpu-size-sleep", "data/local/matrix-cpu-size-sleep"},
                 {"local-xz-level-lines", "data/local/xz-level-lines"},
                 {"local-darknet-fps-cfg", "data/local/darknet-fps-cfg"}};
    static const double sigmas[] = {0.0, 0.03, 0.10};
    claims real = {0, 0, 0, 0, 0, INFINITY, 0}, live = real, synth = real;
    char path[400], name[64];
    pp_bench_grid g;

    snprintf(path, sizeof path, "%s/tx2-matrix-exponentiation", tmp);
    if (wanted("tx2-matrix") && import_matrix(path) == 0 &&
        pp_bench_grid_open(&g, "tx2-matrix-exponentiation", path, 0) == 0) {
        bench_claims(&g, &real);
        pp_bench_grid_free(&g);
    }
    snprintf(path, sizeof path, "%s/tx2-darknet", tmp);
    if (wanted("tx2-darknet") && import_darknet(path) == 0 &&
        pp_bench_grid_open(&g, "tx2-darknet", path, 0) == 0) {
        bench_claims(&g, &real);
        pp_bench_grid_free(&g);
    }
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (wanted(local[i].name) && access(local[i].dir, F_OK) == 0 &&
            pp_bench_grid_open(&g, local[i].name, local[i].dir, 0) == 0) {
            bench_claims(&g, &real);
            pp_bench_grid_free(&g);
        }
    snprintf(path, sizeof path, "%s/local-matrix-cpu-6x6-live", tmp);
    if (wanted("local-matrix-cpu-6x6-live") && live_subset(local[0].dir, path) == 0 &&
        pp_bench_grid_open(&g, "local-matrix-cpu-6x6-live", path, 0) == 0) {
        bench_claims(&g, &live);
        pp_bench_grid_free(&g);
    }
    for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++) {
        snprintf(name, sizeof name, "synthetic-noise-%g", sigmas[i]);
        snprintf(path, sizeof path, "%s/%s", tmp, name);
        if (wanted(name) && synthetic_grid(path, 8, 8, sigmas[i]) == 0 &&
            pp_bench_grid_open(&g, name, path, 0) == 0) {
            bench_claims(&g, &synth);
            pp_bench_grid_free(&g);
        }
    }
    printf("\n");
    print_claims("real grids (TX2, data/local)", &real);
    print_claims("the live 6 x 6 (a subset of data/local's matrix-cpu)", &live);
    print_claims("synthetic grids", &synth);
}

int main(int argc, char **argv)
{
    if (getenv("POWPROF_BIN"))
        bin = getenv("POWPROF_BIN");
    if (argc == 2)
        only = argv[1];
    pp_log_set_level(PP_LOG_ERROR);
    snprintf(tmp, sizeof tmp, "/tmp/bench-claims-%d", (int)getpid());
    mkdir(tmp, 0755);
    printf("Claims of adaptive runs stopped by a target, replayed on grids measured whole.\n");
    claims_section();
    if (!getenv("BENCH_KEEP"))
        pp_bench_remove_tree(tmp);
    return 0;
}
