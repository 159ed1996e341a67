/* The claim an adaptive run makes of the configurations it left (issue
 * 31, item 1): the nested hold-outs pair by pair (model_held.h), and the
 * error estimated at the distances of the configurations not measured
 * (adaptive_claim.h). */
#include "harness.h"

#include "src/layer2/model_held.h"
#include "src/adaptive/adaptive_claim.h"
#include "src/adaptive/adaptive_design.h"
#include "src/results/summary.h"
#include "tests/replay_oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 7 x 7 grid, energy exp(1 + a + 3 b^2) with 2 % noise, the rows keep()
 * accepts. */
static const char *grid_folder(const char *name, int (*keep)(int i, int j))
{
    size_t cap = 49 * 160 + 200, used = 0;
    char *text = malloc(cap);
    unsigned st = 7;
    const char *dir;

    used += (size_t)snprintf(text + used, cap - used, "id,a,b,status,total_energy_j\n");
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            double a = i / 6.0, b = j / 6.0, u;
            st = st * 1103515245u + 12345u;
            u = (double)(st >> 8) / 16777216.0 - 0.5;
            if (keep(i, j))
                used += (size_t)snprintf(text + used, cap - used, "%d,%d,%d,ok,%.9g\n", i * 7 + j,
                                         i, j, exp(1 + a + 3 * b * b) * (1 + 0.04 * u));
        }
    dir = results_folder_with(name, text, NULL);
    free(text);
    return dir;
}

static int all(int i, int j) { return i >= 0 && j >= 0; }
static int no_block(int i, int j) { return !(i >= 2 && i <= 3 && j >= 2 && j <= 3); }
static int no_level(int i, int j) { return i != 3 && j != 3; }
static int coarse(int i, int j) { return i % 3 == 0 && j % 3 == 0; }

static pp_model open_kept(const char *dir)
{
    pp_model_options o;
    pp_model m;

    pp_model_options_init(&o);
    o.keep_held = 1;
    CHECK_INT(pp_model_read(dir, &o, 0, &m), 0);
    return m;
}

/* The pairs rebuild the printed errors: their MAPE at measured levels and
 * between them is the model's. */
void test_claim_held_pairs_match_printed(void);
void test_claim_held_pairs_match_printed(void)
{
    pp_model m = open_kept(grid_folder("claim-all", all));
    size_t k = (size_t)pp_summary_metric(&m.sum, "total_energy_j");
    const pp_model_fit *f = pp_model_fit_of(&m, 0, k);
    pp_held_pair *p;
    long n = pp_model_held_pairs(&m, 0, k, &p);
    double at = 0, btw = 0;
    size_t n_at = 0, n_btw = 0;

    CHECK(f != NULL && f->choice.between.n > 0);
    CHECK_INT(n, (long)(49 + f->choice.between.n));
    for (long i = 0; i < n; i++) {
        double e = fabs(p[i].pred - p[i].value) / p[i].value;
        if (p[i].between) {
            btw += e;
            n_btw++;
        } else {
            at += e;
            n_at++;
        }
    }
    CHECK(fabs(100 * at / (double)n_at - f->choice.honest.mape) < 1e-9);
    /* the folds as pp_choose made them: 10 at measured levels above 20
     * configurations (dealt out in turn, not adjacent), one per level left
     * out between them */
    {
        size_t folds_at = 0, folds_btw = 0;
        for (long i = 0; i < n; i++) {
            long j = 0;
            while (j < i && p[j].fold != p[i].fold)
                j++;
            if (j == i)
                *(p[i].between ? &folds_btw : &folds_at) += 1;
        }
        CHECK_INT((long)folds_at, (long)f->choice.folds);
        CHECK(f->choice.folds < 49);
        CHECK_INT((long)folds_btw, (long)f->choice.between_folds);
        CHECK(p[0].fold != p[1].fold);
    }
    CHECK(fabs(100 * btw / (double)n_btw - f->choice.between.mape) < 1e-9);
    free(p);
    pp_model_free(&m);
    /* without keep_held, none */
    CHECK_INT(pp_model_read(grid_folder("claim-all2", all), NULL, 0, &m), 0);
    CHECK_INT(pp_model_held_pairs(&m, 0, k, &p), 0);
    pp_model_free(&m);
}

/* The claim on what a run left: configurations at measured values (a 2 x 2
 * block missing) are estimated from the errors at measured levels, a
 * whole value missing of each parameter from those between levels; each
 * a positive estimate with its bound above it. */
void test_claim_at_and_between_levels(void);
void test_claim_at_and_between_levels(void)
{
    const char *full = grid_folder("claim-full", all);
    int (*keeps[2])(int, int) = {no_block, no_level};
    const char *names[2] = {"claim-block", "claim-level"};
    double est[2], hi[2];
    pp_adaptive_space s;
    pp_replay rp;

    CHECK_INT(pp_replay_open(full, &rp, &s), 0);
    for (int t = 0; t < 2; t++) {
        pp_model m = open_kept(grid_folder(names[t], keeps[t]));
        uint8_t chosen[49];
        for (size_t c = 0; c < s.n; c++)
            chosen[c] = (uint8_t)keeps[t]((int)s.raw[c * 2], (int)s.raw[c * 2 + 1]);
        CHECK_INT(pp_adaptive_claim_estimate(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"),
                                             &s, chosen, &hi[t], &est[t]), 0);
        CHECK(isfinite(est[t]) && est[t] > 0);
        CHECK(hi[t] > est[t]);
        pp_model_free(&m);
    }
    /* a 3 x 3 design: 2 level folds only, too few to claim the error
     * between levels: no claim */
    {
        pp_model m = open_kept(grid_folder("claim-coarse", coarse));
        uint8_t chosen[49];
        for (size_t c = 0; c < s.n; c++)
            chosen[c] = (uint8_t)coarse((int)s.raw[c * 2], (int)s.raw[c * 2 + 1]);
        CHECK_INT(pp_adaptive_claim_estimate(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"),
                                             &s, chosen, &hi[0], &est[0]), 0);
        CHECK(isinf(hi[0]) && isnan(est[0]));
        pp_model_free(&m);
    }
    /* nothing left: no claim */
    {
        pp_model m = open_kept(full);
        uint8_t chosen[49];
        memset(chosen, 1, sizeof chosen);
        CHECK_INT(pp_adaptive_claim_estimate(&m, 0, &s, chosen, &hi[0], &est[0]), 0);
        CHECK(isnan(hi[0]) && isnan(est[0]));
        pp_model_free(&m);
    }
    pp_replay_free(&rp);
    pp_adaptive_space_free(&s);
}

/* A 10 x 4 grid: a's 8 interior values are left out two groups at a time
 * (every other value together), b's 2 alone; the pairs keep one fold per
 * group, as pp_choose made them, and rebuild the printed between-levels
 * error; two values of a in one fold are never neighbours. */
void test_claim_held_pairs_grouped(void);
void test_claim_held_pairs_grouped(void)
{
    size_t cap = 40 * 80 + 100, used = 0, k, folds_btw = 0;
    char *text = malloc(cap);
    const pp_model_fit *f;
    pp_held_pair *p;
    double btw = 0;
    size_t n_btw = 0;
    pp_model m;
    long n;

    used += (size_t)snprintf(text + used, cap - used, "id,a,b,status,total_energy_j\n");
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 4; j++)
            used += (size_t)snprintf(text + used, cap - used, "%d,%d,%d,ok,%.9g\n", i * 4 + j, i,
                                     j, exp(1 + 0.2 * i + 0.3 * j * j) * (1 + 0.01 * ((i * 7 + j * 3) % 5)));
    m = open_kept(results_folder_with("claim-grouped", text, NULL));
    free(text);
    k = (size_t)pp_summary_metric(&m.sum, "total_energy_j");
    f = pp_model_fit_of(&m, 0, k);
    CHECK(f != NULL);
    CHECK_INT((long)f->choice.between_folds, PP_FOLD_GROUPS + 2);
    n = pp_model_held_pairs(&m, 0, k, &p);
    CHECK(n > 0);
    for (long i = 0; i < n; i++) {
        long j = 0;
        if (!p[i].between)
            continue;
        btw += fabs(p[i].pred - p[i].value) / p[i].value;
        n_btw++;
        while (j < i && !(p[j].between && p[j].fold == p[i].fold))
            j++;
        folds_btw += j == i;
        for (j = 0; j < i; j++) /* a fold of a's values (its b varies): never neighbours */
            if (p[j].between && p[j].fold == p[i].fold && p[j].row % 4 != p[i].row % 4)
                for (long q = 0; q < n; q++)
                    if (p[q].between && p[q].fold == p[i].fold)
                        CHECK(p[q].row / 4 == p[i].row / 4 ||
                              labs((long)(p[q].row / 4) - (long)(p[i].row / 4)) >= 2);
    }
    CHECK_INT((long)folds_btw, (long)f->choice.between_folds);
    CHECK_INT((long)n_btw, (long)f->choice.between.n);
    CHECK(fabs(100 * btw / (double)n_btw - f->choice.between.mape) < 1e-9);
    free(p);
    pp_model_free(&m);
}

/* Two 7 x 7 designs of an adaptive run's shape: 4 values of a by 5 of b,
 * 3 of a by 5 of b, the rest left. */
static int four_by_five(int i, int j) { return i % 2 == 0 && j != 2 && j != 4; }
static int three_by_five(int i, int j) { return i % 3 == 0 && j != 3 && j != 5; }

/* The MAPE of m's energy on the configurations keep() drops, against the
 * full grid's rows (the truth bench_claims measures). */
static double truth_left(const pp_model *m, const pp_model *full, int (*keep)(int, int))
{
    size_t k = (size_t)pp_summary_metric(&m->sum, "total_energy_j");
    size_t kf = (size_t)pp_summary_metric(&full->sum, "total_energy_j");
    double sum = 0;
    size_t n = 0;

    for (size_t r = 0; r < full->sum.n_rows; r++) {
        pp_model_point pt;
        pp_prediction p;
        double y = full->sum.y[r * full->sum.n_metrics + kf];
        memcpy(pt.raw, full->sum.x + r * full->sum.n_params, 2 * sizeof *pt.raw);
        if (keep((int)pt.raw[0], (int)pt.raw[1]))
            continue;
        CHECK_INT(pp_model_predict(m, k, &pt, &p), 0);
        sum += fabs(p.value - y) / y;
        n++;
    }
    return 100 * sum / (double)n;
}

/* Issue 43: the claim is a quantile of the error left, not a bound of a
 * mean over a few folds: on two 7 x 7 designs with configurations left
 * between measured ones it is at or above the truth (the MAPE on what was
 * left) and within 3x of it (the t bound of the line's mean was 3.33x and
 * 3.14x the truth here: 5.53 % for 1.66 %, 5.10 % for 1.62 %). */
void test_claim_quantile_within_3x(void);
void test_claim_quantile_within_3x(void)
{
    const char *full_dir = grid_folder("claim-q-full", all);
    int (*keeps[])(int, int) = {four_by_five, three_by_five};
    const char *names[] = {"claim-q-4x5", "claim-q-3x5"};
    pp_model full = open_kept(full_dir);
    pp_adaptive_space s;
    pp_replay rp;

    CHECK_INT(pp_replay_open(full_dir, &rp, &s), 0);
    for (size_t t = 0; t < sizeof keeps / sizeof keeps[0]; t++) {
        pp_model m = open_kept(grid_folder(names[t], keeps[t]));
        uint8_t chosen[49];
        double hi, est, truth;
        for (size_t c = 0; c < s.n; c++)
            chosen[c] = (uint8_t)keeps[t]((int)s.raw[c * 2], (int)s.raw[c * 2 + 1]);
        CHECK_INT(pp_adaptive_claim_estimate(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"),
                                             &s, chosen, &hi, &est), 0);
        truth = truth_left(&m, &full, keeps[t]);
        CHECK(isfinite(truth) && truth > 0);
        CHECK(hi >= truth);
        CHECK(hi <= 3 * truth);
        CHECK(est <= hi);
        pp_model_free(&m);
    }
    pp_model_free(&full);
    pp_replay_free(&rp);
    pp_adaptive_space_free(&s);
}

/* The MAPE of metric k of the run's last refit on the candidates of s its
 * folder dir did not measure, against the mean of their rows in full. */
static double truth_of_run(const pp_adaptive_predictor *pr, const pp_adaptive_space *s,
                           const char *dir, const pp_summary *full, const char *metric, size_t k)
{
    pp_summary run;
    uint8_t *in = calloc(s->n, 1);
    int km = pp_summary_metric(full, metric);
    double sum = 0;
    size_t n = 0;

    CHECK_INT(pp_summary_read(dir, &run), 0);
    for (size_t r = 0; r < run.n_rows; r++)
        in[pp_adaptive_space_find(s, (uint64_t)run.ids[r])] = 1;
    for (size_t c = 0; km >= 0 && c < s->n; c++) {
        double y = 0, v, lo, hi;
        size_t m = 0;
        if (in[c])
            continue;
        for (size_t r = 0; r < full->n_rows; r++)
            if ((uint64_t)full->ids[r] == s->ids[c]) {
                y += full->y[r * full->n_metrics + (size_t)km];
                m++;
            }
        CHECK_INT(pr->predict(pr->ctx, s, c, k, &v, &lo, &hi), 0);
        sum += fabs(v - y / (double)m) / (y / (double)m);
        n++;
    }
    pp_summary_free(&run);
    free(in);
    return n ? 100 * sum / (double)n : NAN;
}

/* Issue 43: the claim an adaptive run stops on, replayed on the 8 x 8
 * matrix-cpu grid of data/local (target 10 %, seed 1): at or above what
 * its last refit misses on the configurations left, on every planning
 * metric. (Within 3x of it is the other target, missed: the stop
 * at 17 of 64 claims 8.24 % (power) and 7.99 % (energy) where 2.20 and
 * 2.29 % are true; bench/README.md.) */
void test_claim_replay_covers_truth(void);
void test_claim_replay_covers_truth(void)
{
    const char *full_dir = "data/local/matrix-cpu-size-sleep";
    char dir[600];
    pp_adaptive_options o;
    pp_replayed r;
    pp_summary full;

    snprintf(dir, sizeof dir, "%s/replay", test_tmpdir());
    pp_adaptive_options_init(&o);
    o.target_error_pct = 10;
    o.seed = 1;
    CHECK_INT(pp_replay_run(&r, full_dir, dir, &o), 0);
    CHECK_INT(pp_summary_read(full_dir, &full), 0);
    CHECK_INT(r.res.stop, PP_STOP_TARGET);
    CHECK(r.res.n_chosen < r.s.n);
    CHECK_INT((int)r.res.fit.n_metrics, 2);
    for (size_t k = 0; k < r.res.fit.n_metrics; k++) {
        double t = truth_of_run(&r.pr, &r.s, dir, &full, r.res.fit.metrics[k], k);
        CHECK(t > 0 && isfinite(t));
        CHECK(r.res.fit.error_hi_pct[k] >= t);
    }
    pp_summary_free(&full);
    pp_replayed_free(&r);
}
