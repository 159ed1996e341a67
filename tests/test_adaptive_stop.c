/* The target stop of an adaptive run earns its claim (issue 31): the
 * minimum design, two successive rounds on an upper bound of the nested
 * error, no stop when the bands imply far more error or when rows sat at
 * a power estimate's ceiling, and the noise floor of the data. */
#include "harness.h"

#include "src/adaptive/adaptive_model.h"
#include "src/adaptive/adaptive.h"
#include "src/adaptive/adaptive_design.h"
#include "src/adaptive/adaptive_run.h"
#include "tests/replay_oracle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A predictor that answers every candidate with value 10 and a band of
 * +-half (relative), and a fit with given claims. */
static double g_half;

static int fixed_predict(void *ctx, const pp_adaptive_space *s, size_t c, size_t k, double *value,
                         double *lo, double *hi)
{
    (void)ctx;
    (void)s;
    (void)c;
    (void)k;
    *value = 10;
    *lo = 10 * exp(-g_half);
    *hi = 10 * exp(g_half);
    return 0;
}

/* a (5 values) x b (4 values). */
static void space_5x4(pp_adaptive_space *s)
{
    CHECK_INT(pp_adaptive_space_init(s, 2, 20), 0);
    for (size_t c = 0; c < 20; c++) {
        s->raw[c * 2] = (double)(c / 4);
        s->raw[c * 2 + 1] = (double)(c % 4);
        s->ids[c] = c;
    }
    CHECK_INT(pp_adaptive_space_finish(s), 0);
}

static void fit_with(pp_adaptive_fit *f, double claim, double noise)
{
    memset(f, 0, sizeof *f);
    f->n_metrics = 2;
    for (size_t k = 0; k < 2; k++) {
        snprintf(f->metrics[k], sizeof f->metrics[k], "m%zu", k);
        f->error_pct[k] = claim / 2;
        f->error_hi_pct[k] = claim;
        f->noise_pct[k] = noise;
        f->noise_repeats_pct[k] = noise;
    }
}

void test_adaptive_claim_rules(void);
void test_adaptive_claim_rules(void)
{
    pp_adaptive_space s;
    pp_adaptive_predictor pr = {NULL, NULL, fixed_predict, NULL};
    pp_adaptive_fit f;
    pp_adaptive_claim c;
    uint8_t chosen[20] = {0};

    space_5x4(&s);
    g_half = 0.02; /* bands imply about 1 % */
    /* a at 2 values only (0 and 4): no stop however good the claim */
    for (size_t b = 0; b < 4; b++)
        chosen[0 * 4 + b] = chosen[4 * 4 + b] = 1;
    fit_with(&f, 1.0, NAN);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 5, 0, 5, &c), PP_STOP_NONE);
    CHECK_INT(c.hold, PP_HOLD_DESIGN);
    /* a at 0, 1 and 2 (every b): three values, but not its largest */
    {
        uint8_t low[20] = {0};
        for (size_t i = 0; i < 12; i++)
            low[i] = 1;
        CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, low, 5, 0, 5, &c), PP_STOP_NONE);
        CHECK_INT(c.hold, PP_HOLD_DESIGN);
    }
    /* a third value of a: the first round the claim holds is not enough */
    chosen[2 * 4 + 1] = 1;
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 5, 0, 0, &c), PP_STOP_NONE);
    CHECK_INT(c.hold, PP_HOLD_ONE_ROUND);
    CHECK_INT(c.streak, 1);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 5, 0, c.streak, &c), PP_STOP_TARGET);
    CHECK_NEAR(c.claim_pct, 1.0, 1e-12);
    /* the upper bound is what is compared, not the mean; unknown holds */
    fit_with(&f, 6.0, NAN);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 5, 0, 1, &c), PP_STOP_NONE);
    CHECK_INT(c.hold, PP_HOLD_ERROR);
    CHECK_INT(c.streak, 0);
    fit_with(&f, NAN, NAN);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 5, 0, 1, &c), PP_STOP_NONE);
    CHECK(isinf(c.claim_pct));
    /* rows at the estimate's ceiling: no stop */
    fit_with(&f, 1.0, NAN);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 5, 3, 1, &c), PP_STOP_NONE);
    CHECK_INT(c.hold, PP_HOLD_CEILING);
    /* bands from a tenth to ten times the value (half-width ln 10) against
     * a claim of 1 %: far below what they imply */
    g_half = log(10.0);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 5, 0, 1, &c), PP_STOP_NONE);
    CHECK_INT(c.hold, PP_HOLD_BANDS);
    CHECK_NEAR(c.implied_pct, 48.5 * log(10.0), 0.01);
    /* a target below the noise floor: its multiple is pursued, and the
     * stop says so */
    g_half = 0.05;
    fit_with(&f, 5.5, 4.0);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 2, 0, 1, &c), PP_STOP_NOISE);
    CHECK_NEAR(c.pursued_pct, 6.0, 1e-12);
    CHECK_NEAR(c.noise_pct, 4.0, 1e-12);
    CHECK_INT(pp_adaptive_claim_check(&s, &pr, &f, chosen, 10, 0, 1, &c), PP_STOP_TARGET);
    pp_adaptive_space_free(&s);
}

/* A folder of an na x nb grid: energy exp(1 + a + 2 b) times lognormal
 * noise of sigma (a fixed pseudo-random sequence), power 2, duration 1;
 * each configuration measured repeats times (1: no repeat column). */
static const char *noisy_grid_rep(const char *name, int na, int nb, double sigma, int repeats)
{
    size_t cap = (size_t)(na * nb * repeats + 2) * 160, used = 0;
    char *text = malloc(cap);
    unsigned long long st = 12345;
    const char *dir;

    used += (size_t)snprintf(text + used, cap - used,
                             "id,a,b,status,duration_s,total_mean_w,total_energy_j%s\n",
                             repeats > 1 ? ",repeat" : "");
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            for (int q = 0; q < repeats; q++) {
            double a = (double)i / (na - 1), b = (double)j / (nb - 1), u1, u2, z;
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            u1 = ((double)(st >> 11) + 0.5) / 9007199254740992.0;
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            u2 = ((double)(st >> 11) + 0.5) / 9007199254740992.0;
            z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
            used += (size_t)snprintf(text + used, cap - used, "%d,%.6g,%.6g,ok,1,%.9g,%.9g",
                                     i * nb + j, a, b, 2.0 * exp(sigma * z),
                                     exp(1 + a + 2 * b + sigma * z));
            used += (size_t)snprintf(text + used, cap - used, repeats > 1 ? ",%d\n" : "\n", q);
            }
    dir = results_folder_with(name, text, NULL);
    free(text);
    return dir;
}

static const char *noisy_grid(const char *name, int na, int nb, double sigma)
{
    return noisy_grid_rep(name, na, nb, sigma, 1);
}

/* The noise floor of a grid whose energy has 5 % lognormal noise (a MAPE
 * of 4 %) on a surface linear in log units, and of the same without
 * noise. */
void test_adaptive_noise_floor(void);
void test_adaptive_noise_floor(void)
{
    pp_model m;
    double floor_pct, rep_pct;

    CHECK_INT(pp_model_read(noisy_grid("noisy", 10, 10, 0.05), NULL, 0, &m), 0);
    floor_pct = pp_adaptive_noise_pct(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"),
                                      &rep_pct);
    CHECK(floor_pct > 2.5 && floor_pct < 6.0);
    CHECK(isnan(rep_pct)); /* no repeats */
    pp_model_free(&m);
    CHECK_INT(pp_model_read(noisy_grid("clean", 6, 6, 0.0), NULL, 0, &m), 0);
    floor_pct = pp_adaptive_noise_pct(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"),
                                      &rep_pct);
    CHECK(floor_pct < 0.01);
    pp_model_free(&m);
    /* each configuration measured 3 times: the repeats alone give it */
    CHECK_INT(pp_model_read(noisy_grid_rep("repeats", 5, 5, 0.05, 3), NULL, 0, &m), 0);
    floor_pct = pp_adaptive_noise_pct(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"),
                                      &rep_pct);
    CHECK(rep_pct > 2.5 && rep_pct < 6.0);
    pp_model_free(&m);
}

/* An oracle over recorded rows whose estimate sits at its ceiling. */
static uint64_t all_saturated(void *ctx)
{
    const pp_replay *rp = ctx;
    return rp->measured;
}

/* Replayed on a smooth grid: the target stop comes with every parameter
 * at 3 measured values or more and after a round that met it already; at
 * the estimate's ceiling the same grid is measured whole. */
void test_adaptive_stop_earns_claim(void);
void test_adaptive_stop_earns_claim(void)
{
    const char *full = noisy_grid("smooth", 6, 6, 0.0);
    char dir[600], path[700], *text;
    pp_replayed r;
    pp_adaptive_options o;
    pp_adaptive_result res;
    uint8_t in[36] = {0};
    size_t values_a = 0, values_b = 0;

    pp_adaptive_options_init(&o);
    o.target_error_pct = 5;
    snprintf(dir, sizeof dir, "%s/claim", test_tmpdir());
    CHECK_INT(pp_replay_run(&r, full, dir, &o), 0);
    res = r.res;
    CHECK_INT(res.stop, PP_STOP_TARGET);
    CHECK(res.n_chosen < 36);
    CHECK(res.claim.claim_pct <= 5);
    CHECK_INT(res.claim.streak, 2);
    for (size_t k = 0; k < res.fit.n_metrics; k++)
        CHECK(res.fit.error_hi_pct[k] >= res.fit.error_pct[k]);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    text = slurp(path);
    for (const char *line = text ? strchr(text, '\n') : NULL; line && line[1];
         line = strchr(line + 1, '\n'))
        in[strtol(line + 1, NULL, 10)] = 1;
    free(text);
    for (int v = 0; v < 6; v++) {
        int seen_a = 0, seen_b = 0;
        for (int w = 0; w < 6; w++) {
            seen_a |= in[v * 6 + w];
            seen_b |= in[w * 6 + v];
        }
        values_a += (size_t)seen_a;
        values_b += (size_t)seen_b;
    }
    CHECK(values_a >= 3 && values_b >= 3);
    snprintf(path, sizeof path, "%s/adaptive.json", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "\"held_by\": \"one-round\"");
    CHECK_CONTAINS(text, "\"claim_pct\"");
    free(text);
    pp_replayed_free(&r);
    /* every row at the ceiling: the claim is the machine's, no stop */
    CHECK_INT(pp_replay_open(full, &r.rp, &r.s), 0);
    pp_adaptive_model_predictor(&r.am, &r.pr);
    r.orc = (pp_adaptive_oracle){&r.rp, pp_replay_measure, all_saturated};
    snprintf(dir, sizeof dir, "%s/ceiling", test_tmpdir());
    CHECK_INT(pp_adaptive_run(&r.s, &o, &r.pr, &r.orc, dir, NULL, NULL, NULL, &res), 0);
    CHECK_INT(res.stop, PP_STOP_GRID);
    CHECK_INT(res.claim.hold, PP_HOLD_CEILING);
    pp_replayed_free(&r);
}
