/* The 90 % bands (issue 31, items 3 and 5): how far a point between
 * measured levels lies from them, the bands of metrics a derivation was
 * tried on, and the band beyond the measured range. */
#include "harness.h"

#include "src/layer2/model_held.h"
#include "src/layer2/model_pool.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A uniform draw in [0, 1) from *seed (the benchmarks' generator). */
static double uniform(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)(*seed >> 8) / 16777216.0;
}

/* Levels 0, 1, 2, 3, 5, 6 (4 not measured) of one parameter, a second
 * one at 0 and 1: the distance to the measured levels counts in grid
 * steps (the finest spacing), so halfway between neighbours is 0.5 and
 * the middle of the gap where 4 is missing 1 (it used to be 1 at the
 * middle of every interval: the band between neighbours was as wide as
 * where a whole level was missing). */
void test_band_between_in_grid_steps(void);
void test_band_between_in_grid_steps(void)
{
    static const double lv[] = {0, 1, 2, 3, 5, 6};
    double x[2 * 12], y[12], raw[2], xn[2];
    pp_band_range r;
    pp_surface s;
    size_t n = 0;

    for (size_t a = 0; a < 6; a++)
        for (int b = 0; b < 2; b++, n++) {
            x[2 * n] = lv[a];
            x[2 * n + 1] = b;
            y[n] = 1.0 + lv[a] + b;
        }
    CHECK_INT(pp_surface_init(&s, x, n, 2, NULL), 0);
    pp_band_range_of(&s, y, &r);
    raw[1] = 0;
    raw[0] = 0.5;
    pp_surface_normalize(&s, raw, xn);
    CHECK_NEAR(pp_band_between(&r, xn), 0.5, 1e-9);
    raw[0] = 4;
    pp_surface_normalize(&s, raw, xn);
    CHECK_NEAR(pp_band_between(&r, xn), 1.0, 1e-9);
    raw[0] = 2;
    pp_surface_normalize(&s, raw, xn);
    CHECK_NEAR(pp_band_between(&r, xn), 0.0, 1e-12);
    raw[0] = 1.25;
    raw[1] = 0.5; /* a quarter step along one, half along the other */
    pp_surface_normalize(&s, raw, xn);
    CHECK_NEAR(pp_band_between(&r, xn), sqrt(0.25 * 0.25 + 0.5 * 0.5), 1e-9);
    pp_surface_free(&s);
}

/* A grid whose energy is mean power x duration: the three derivations
 * are blended (issue 43), their weights summing to 1, and each fit's band
 * is calibrated on the residuals of its blended nested predictions (the
 * ones an adaptive run's claim reads, pp_model_held_pairs), not on its
 * own estimator's (pp_choose's band, which the blend must replace). */
void test_band_derivation_blend_bands(void);
void test_band_derivation_blend_bands(void)
{
    char csv[8192];
    size_t used = 0, kept = 0;
    unsigned seed = 3;
    const char *dir;
    double weights = 0;
    pp_model_options o;
    pp_model m;
    int id = 0;

    used += (size_t)snprintf(csv, sizeof csv, "id,size,sleep_s,status,duration_s,total_mean_w,"
                                              "total_energy_j,reason\n");
    for (int a = 1; a <= 6; a++)
        for (int b = 0; b < 5; b++, id++) {
            double u[3];
            for (int k = 0; k < 3; k++)
                u[k] = 0.04 * (uniform(&seed) - 0.5);
            double t = (0.02 * a * a * a + 2.0 * b + 1.0) * (1 + u[0]);
            double p = (3.0 + 0.5 * a - 0.2 * b) * (1 + u[1]);
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,%d,%d,ok,%.6g,%.6g,%.6g,\n",
                                     id, 100 * a, b, t, p, p * t * (1 + u[2]));
        }
    dir = results_folder_with("band-derive", csv, NULL);
    pp_model_options_init(&o);
    o.keep_held = 1;
    CHECK_INT(pp_model_read(dir, &o, 0, &m), 0);
    for (size_t k = 0; k < m.sum.n_metrics; k++) {
        pp_model_group *g = &m.groups[0];
        pp_model_fit *f = &g->fits[k];
        pp_choose_options co;
        pp_held_pair *hp = NULL;
        double *rep = NULL, *y, r[64];
        size_t n = 0;
        long np;
        pp_choice c;
        if (f->n_values < 2 || !f->derived)
            continue;
        weights += f->weight;
        CHECK((np = pp_model_held_pairs(&m, 0, k, &hp)) > 0);
        for (long i = 0; i < np && n < 64; i++)
            n += !hp[i].between && pp_band_residual(&f->choice, hp[i].value, hp[i].pred, &r[n]);
        CHECK_INT(n, f->choice.band_n);
        CHECK_NEAR(f->choice.band_q, pp_band_quantile(r, n), 1e-12);
        y = pp_model_column(&m, g, k);
        CHECK(y != NULL);
        CHECK_INT(pp_model_choose_options(&m, g, k, &co, &rep), 0);
        CHECK_INT(pp_choose(&g->surf, y, &co, &c), 0);
        CHECK(fabs(f->choice.band_q - c.band_q) > 1e-9);
        kept++;
        pp_choice_free(&c);
        free(hp);
        free(rep);
        free(y);
    }
    CHECK_INT(kept, 3);
    CHECK_NEAR(weights, 1.0, 1e-12);
    pp_model_free(&m);
}

/* One row of a synthetic grid at (a, b): its duration, mean power and
 * energy into v; 0 to leave the row out (its draws made all the same, so
 * that the noise of the rows kept does not move). */
typedef int (*grid_row_fn)(int a, int b, unsigned *seed, const void *ctx, double v[3]);

/* The results folder name of the grid av[na] x bv[nb] (parameters named
 * in cols, "a,b"), each row from row (seeded by seed), one iteration. */
static const char *grid_folder(const char *name, const char *cols, const int *av, size_t na,
                               const int *bv, size_t nb, unsigned seed, grid_row_fn row,
                               const void *ctx)
{
    static char csv[8192];
    size_t used = (size_t)snprintf(csv, sizeof csv, "id,%s,status,duration_s,iterations,"
                                                    "total_mean_w,total_energy_j,reason\n", cols);
    int id = 0;

    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            double v[3];
            if (row(av[i], bv[j], &seed, ctx, v))
                used += (size_t)snprintf(csv + used, sizeof csv - used,
                                         "%d,%d,%d,ok,%.6g,1,%.6g,%.6g,\n", id++, av[i], bv[j],
                                         v[0], v[1], v[2]);
        }
    return results_folder_with(name, csv, NULL);
}

/* The benchmark's cubic grid (bench_accuracy.c: size 100..800, sleep
 * 0..5, 2 % noise, the same draws) without the sleeps below *ctx: power
 * 4 + 0.001 size - 0.05 sleep, energy 2e-7 size^3 + 3 sleep + 5, duration
 * energy / power. */
static int cubic_row(int a, int b, unsigned *seed, const void *ctx, double v[3])
{
    double u[2];

    for (int k = 0; k < 2; k++) {
        double sum = 0;
        for (int i = 0; i < 12; i++)
            sum += uniform(seed);
        u[k] = 0.02 * (sum - 6.0);
    }
    v[2] = (2e-7 * a * a * a + 3.0 * b + 5.0) * (1 + u[0]);
    v[1] = (4.0 + 1e-3 * a - 0.05 * b) * (1 + u[1]);
    v[0] = v[2] / v[1];
    return b >= *(const int *)ctx;
}

static const char *cubic_folder(const char *name, int sleep_from)
{
    static const int a[] = {100, 200, 300, 400, 500, 600, 700, 800}, b[] = {0, 1, 2, 3, 4, 5};

    return grid_folder(name, "a,b", a, 8, b, 6, 7, cubic_row, &sleep_from);
}

/* The sleep's lowest value (0) held out of the cubic grid: every size's
 * mean power there (4 + 0.001 size, without noise) lies in the 90 % band
 * one step past the measured range (7 of 8 at least). The chosen family continued a
 * transform of sleep past 1 and missed it by a factor of 1.7 with a band
 * of +-10 %; the band now also holds the trend of the last two sleeps. */
void test_band_edge_held_out_covered(void);
void test_band_edge_held_out_covered(void)
{
    const char *dir = cubic_folder("band-edge-cubic", 1);
    size_t covered = 0, n = 0;
    pp_model m;

    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    for (int a = 100; a <= 800; a += 100) {
        pp_model_point pt;
        pp_prediction p;
        char text[32];
        double truth = 4.0 + 1e-3 * a;
        memset(&pt, 0, sizeof pt);
        snprintf(text, sizeof text, "%d", a);
        CHECK_INT(pp_model_point_set(&m.sum, "a", text, &pt, NULL), 0);
        CHECK_INT(pp_model_point_set(&m.sum, "b", "0", &pt, NULL), 0);
        CHECK_INT(pp_model_predict(&m, (size_t)pp_summary_metric(&m.sum, "total_mean_w"), &pt, &p),
                  0);
        covered += p.lo <= truth && truth <= p.hi;
        n++;
    }
    CHECK_INT(n, 8);
    CHECK(covered >= 7); /* >= 85 %: it was 0 of 8 */
    pp_model_free(&m);
}

/* The weighted average past the range: y = 2 p + 1 measured at p = 1..10,
 * predicted at 13 by the trend of the last two levels (about 27), with a
 * band that holds it; it used to answer the value at 10 (21), flat. */
void test_band_nw_trend_beyond(void);
void test_band_nw_trend_beyond(void)
{
    char summary[2048];
    size_t len;
    const char *dir;
    pp_model_options o;
    pp_model_point pt;
    pp_prediction p;
    pp_model m;

    len = (size_t)snprintf(summary, sizeof summary, "id,p,status,duration_s,total_mean_w,reason\n");
    for (int i = 1; i <= 10; i++)
        len += (size_t)snprintf(summary + len, sizeof summary - len, "%d,%d,ok,1,%d,\n", i, i,
                                2 * i + 1);
    dir = results_folder_with("band-nw-trend", summary, NULL);
    pp_model_options_init(&o);
    o.method = PP_METHOD_NW;
    CHECK_INT(pp_model_read(dir, &o, 0, &m), 0);
    memset(&pt, 0, sizeof pt);
    CHECK_INT(pp_model_point_set(&m.sum, "p", "13", &pt, NULL), 0);
    CHECK_INT(pp_model_predict(&m, (size_t)pp_summary_metric(&m.sum, "total_mean_w"), &pt, &p), 0);
    CHECK(p.value > 24.0 && p.value < 29.0);
    CHECK(p.lo <= 27.0 && 27.0 <= p.hi);
    pp_model_free(&m);
}

/* Four networks (a categorical parameter) at 4 rates each: a group has 4
 * residuals behind its band, too few for a 90 % quantile (their largest
 * covers less). The network whose energy lies exactly on a power law
 * used to get a band of nothing; it now takes at least the quantile of
 * every network's residuals (the others scatter by about 5 %). */
void test_band_few_residuals_pooled(void);
void test_band_few_residuals_pooled(void)
{
    static const char *const nets[] = {"quiet", "b", "c", "d"};
    char csv[4096];
    size_t used = 0;
    unsigned seed = 5;
    const char *dir;
    pp_model_point pt;
    pp_prediction p;
    pp_model m;
    int id = 0;

    used += (size_t)snprintf(csv, sizeof csv, "id,net,fps,status,duration_s,total_mean_w,reason\n");
    for (int g = 0; g < 4; g++)
        for (int f = 1; f <= 4; f++, id++) {
            double u = 0.1 * (uniform(&seed) - 0.5) * (g > 0);
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,%s,%d,ok,1,%.9g,\n", id,
                                     nets[g], f, (1.0 + g) * pow(f, 0.5) * exp(u));
        }
    dir = results_folder_with("band-pooled", csv, NULL);
    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    memset(&pt, 0, sizeof pt);
    CHECK_INT(pp_model_point_set(&m.sum, "net", "quiet", &pt, NULL), 0);
    CHECK_INT(pp_model_point_set(&m.sum, "fps", "2", &pt, NULL), 0);
    CHECK_INT(pp_model_predict(&m, (size_t)pp_summary_metric(&m.sum, "total_mean_w"), &pt, &p), 0);
    CHECK(p.hi / p.value > 1.01 && p.value / p.lo > 1.01);
    pp_model_free(&m);
}

/* Past the range the band's scale counts the distance in the spacing of
 * the last two levels at that end: 450 beyond 25, 50, 100, 200, 400 (a
 * linear scale) is a quarter of the last step (200), 1.25; 12.5 below is
 * half the first (25), 1.5. The finest spacing anywhere made 450 two
 * steps of 25 past the end (3). */
void test_band_scale_in_end_steps(void);
void test_band_scale_in_end_steps(void)
{
    static const int linear[1] = {0};
    double x[5] = {25, 50, 100, 200, 400}, y[5] = {1, 2, 3, 4, 5}, raw, xn;
    pp_band_range r;
    pp_surface s;

    CHECK_INT(pp_surface_init(&s, x, 5, 1, linear), 0);
    pp_band_range_of(&s, y, &r);
    raw = 450;
    pp_surface_normalize(&s, &raw, &xn);
    CHECK_NEAR(pp_band_scale(&r, &xn), 1.25, 1e-9);
    raw = 12.5;
    pp_surface_normalize(&s, &raw, &xn);
    CHECK_NEAR(pp_band_scale(&r, &xn), 1.5, 1e-9);
    pp_surface_free(&s);
}

/* A 4 x 4 grid (linear scales) and a positive metric's choice over it with
 * these quantiles: for pp_band alone. */
static void grid_choice(pp_surface *s, pp_choice *c, double q, double q_between)
{
    double x[2 * 16], y[16];
    size_t n = 0;

    for (int a = 1; a <= 4; a++)
        for (int b = 1; b <= 4; b++, n++) {
            x[2 * n] = a;
            x[2 * n + 1] = b;
            y[n] = a + b;
        }
    CHECK_INT(pp_surface_init(s, x, n, 2, (const int[2]){0, 0}), 0);
    memset(c, 0, sizeof *c);
    pp_band_range_of(s, y, &c->range);
    c->positive = 1;
    c->band_q = q;
    c->band_q_between = q_between;
    c->band_n_between = 20;
}

/* Where data is thin the band widens (issue 43: the edge quantile gone,
 * the band outside is band_q times pp_band_scale): one end step past
 * either parameter it is twice its half-width at a measured level, two
 * steps three times, diagonally sqrt(2) steps 1 + sqrt(2) times; never
 * narrower than anywhere inside, and its lower end stays above 0. */
void test_band_wider_beyond(void);
void test_band_wider_beyond(void)
{
    static const double in[][2] = {{2, 2}, {2.5, 3}, {1, 4}}, out[][3] = {
        {2, 5, 2}, {5, 2, 2}, {0, 3, 2}, {2, 6, 3}, {5, 5, 1 + 1.4142135623730951}};
    double raw[2], xn[2], lo, hi, widest = 0;
    pp_choice c;
    pp_surface s;

    grid_choice(&s, &c, 0.1, 0.2);
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        pp_surface_normalize(&s, in[i], xn);
        pp_band(&c, 10.0, xn, &lo, &hi);
        widest = fmax(widest, log(hi / 10.0));
    }
    CHECK(widest >= 0.1 && widest <= 0.2 + 1e-12);
    for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
        raw[0] = out[i][0];
        raw[1] = out[i][1];
        pp_surface_normalize(&s, raw, xn);
        pp_band(&c, 10.0, xn, &lo, &hi);
        CHECK_NEAR(log(hi / 10.0), 0.1 * out[i][2], 1e-9);
        CHECK(log(hi / 10.0) > widest && lo > 0);
    }
    pp_surface_free(&s);
}

/* Each end of the band inside the range is calibrated on its own
 * residuals: band_q at measured levels (leave-one-out, edges included),
 * band_q_between a grid step from them (inner levels left out). When the
 * level-out residuals are the smaller, the band narrows between levels
 * (halfway between neighbours: the mean of the two) and never below
 * band_q_between, when that is a quantile of 9 residuals or more; it used
 * to stay at band_q (level-out residuals below it counted as needing
 * nothing). */
void test_band_between_may_narrow(void);
void test_band_between_may_narrow(void)
{
    double raw[2], xn[2], lo, hi;
    pp_choice c;
    pp_surface s;

    grid_choice(&s, &c, 0.2, 0.1);
    raw[0] = 2.5;
    raw[1] = 2;
    pp_surface_normalize(&s, raw, xn);
    pp_band(&c, 10.0, xn, &lo, &hi);
    CHECK_NEAR(log(hi / 10.0), 0.15, 1e-9);
    raw[1] = 2.5; /* halfway along both: b = 0.71, still between the two */
    pp_surface_normalize(&s, raw, xn);
    pp_band(&c, 10.0, xn, &lo, &hi);
    CHECK_NEAR(log(hi / 10.0), 0.2 - 0.1 * sqrt(0.5), 1e-9);
    c.band_n_between = 5; /* below 9 residuals, no quantile to narrow to */
    pp_band(&c, 10.0, xn, &lo, &hi);
    CHECK_NEAR(log(hi / 10.0), 0.2, 1e-9);
    pp_surface_free(&s);
}

/* On an even grid every value a level fold leaves out lies one grid step
 * from the levels left (b = 1), so band_q_between is the conformal
 * quantile of the level-out residuals themselves. Here the four corners
 * are off by a factor of 2 (leave-one-out sees them, no level fold leaves
 * them out): band_q is large, the level-out residuals small, and
 * band_q_between their quantile, below band_q (it used to be 0: every
 * residual under band_q counted as needing nothing). */
void test_band_between_own_quantile(void);
void test_band_between_own_quantile(void)
{
    double x[2 * 36], y[36], r[72];
    unsigned seed = 9;
    pp_choose_options o;
    pp_choice c;
    pp_surface s;
    size_t n = 0, m = 0;

    for (int a = 1; a <= 6; a++)
        for (int b = 1; b <= 6; b++, n++) {
            x[2 * n] = a;
            x[2 * n + 1] = b;
            y[n] = (2.0 + a + 0.5 * b) * (1 + 0.04 * (uniform(&seed) - 0.5));
            if ((a == 1 || a == 6) && (b == 1 || b == 6))
                y[n] *= 2;
        }
    CHECK_INT(pp_surface_init(&s, x, n, 2, (const int[2]){0, 0}), 0);
    pp_choose_options_init(&o);
    o.method = PP_METHOD_LOCLIN;
    o.value_space = 0;
    o.keep_held = 1;
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    for (size_t i = 0; i < c.n_held_between; i++)
        m += (size_t)pp_band_residual(&c, y[c.held_between_idx[i]], c.held_between[i], &r[m]);
    CHECK(m > 9);
    CHECK_NEAR(c.band_q_between, pp_band_quantile(r, m), 1e-12);
    CHECK(c.band_q_between < c.band_q);
    pp_choice_free(&c);
    pp_surface_free(&s);
}

/* dir/model.json's array at key (written by `powprof model`) with its
 * first number's leading characters overwritten by value: predict at
 * (p1, p2) exits 2 and its error names the file's group 0 and says
 * `expect`. */
static void edited_array_refused(const char *dir, const char *key, const char *value,
                                 const char *p1, const char *p2, const char *expect)
{
    char path[1024], find[96], *text, *at, *out = NULL, *err = NULL;

    snprintf(path, sizeof path, "%s/model.json", dir);
    snprintf(find, sizeof find, "\"%s\": [", key);
    text = slurp(path);
    at = text ? strstr(text, find) : NULL;
    CHECK(at != NULL);
    if (at) {
        at += strlen(find);
        at += strspn(at, " \n");
        memcpy(at, value, strlen(value));
        CHECK_INT(write_file(path, text), 0);
        CHECK_INT(run_powprof(&out, &err, "predict", dir, p1, p2, NULL), 2);
        CHECK_CONTAINS(err, "model.json: groups[0]");
        CHECK_CONTAINS(err, expect);
        free(out);
        free(err);
    }
    free(text);
}

/* Found by the model fuzz target (fuzz/corpus/model/extrapolated-below-zero.csv):
 * a positive metric measured at 10, 10, 5 for fps 4, 8, 16, modelled on
 * linear values, continued to fps 28 below zero (-18.3) with a band of
 * 0 .. 5.5 that did not hold it. An extrapolation at or below zero has
 * left what the values can be: the trend of the last two levels (above
 * zero) is the prediction, inside its band. */
void test_band_positive_below_zero_beyond(void);
void test_band_positive_below_zero_beyond(void)
{
    const char *dir = results_folder_with("band-below-zero",
                                          "id,fps,status,durntoi_as,t2,22\n2,4,ok,10,2.4,24\n"
                                          "3,8,ok,10,2.8,28\n4,16,ok,05,3.6,36\n", NULL);
    char *out = NULL;
    double v, lo, hi;

    CHECK_INT(run_powprof(&out, NULL, "predict", dir, "fps=28", "--extrapolate", "--json", NULL), 0);
    CHECK(predicted_band(out, "durntoi_as", &v, &lo, &hi));
    CHECK(v > 0 && lo <= v && v <= hi);
    free(out);
}

/* A sweep shaped like the TX2 matrix's (issue 43): size 256, 1024, 4096
 * (one interior value) x exponent 20..60, duration 2e-10 size^2.8 x
 * exponent, power 3 + 0.6 log2(size / 256) + 0.01 exponent, energy their
 * product, each with +-2 % noise; *ctx: with 512 and 2048 too. */
static int tx2_row(int size, int e, unsigned *seed, const void *ctx, double v[3])
{
    double u[3];

    for (int k = 0; k < 3; k++)
        u[k] = 0.04 * (uniform(seed) - 0.5);
    v[0] = 2e-10 * pow(size, 2.8) * e * (1 + u[0]);
    v[1] = (3.0 + 0.6 * log2(size / 256.0) + 0.01 * e) * (1 + u[1]);
    v[2] = v[0] * v[1] * (1 + u[2]);
    return *(const int *)ctx || (size != 512 && size != 2048);
}

static const char *tx2_like(const char *name, int with_sizes)
{
    static const int size[] = {256, 512, 1024, 2048, 4096}, e[] = {20, 30, 40, 50, 60};

    return grid_folder(name, "size,exponent", size, 5, e, 5, 11, tx2_row, &with_sizes);
}

/* Whole values left out (512 and 2048 of the sweep above): the 90 % bands
 * cover the noiseless truth of energy, power and duration, and are sized
 * by what they cover (model.h, pp_model_calibrate_bands): on the 2 values
 * of size left when its only interior one is left out, the estimator
 * chosen again errs tens of times more than the model ever does, and the
 * band calibrated on that was 1.3x the value wide on average here (the
 * TX2 matrix itself: 1.83x, 30 of 30 covered at a 7 % error). */
void test_band_sized_by_cover(void);
void test_band_sized_by_cover(void)
{
    static const char *const names[] = {"total_energy_j", "total_mean_w", "duration_s"};
    const char *dir = tx2_like("band-sized", 0);
    size_t covered = 0, n = 0;
    double width = 0;
    pp_model m;

    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    CHECK(isfinite(m.band_kappa) && m.band_kappa > 0);
    for (int size = 512; size <= 2048; size *= 4)
        for (int e = 20; e <= 60; e += 10)
            for (int k = 0; k < 3; k++) {
                double t = 2e-10 * pow(size, 2.8) * e, p = 3.0 + 0.6 * log2(size / 256.0) + 0.01 * e;
                double truth = k == 0 ? p * t : k == 1 ? p : t;
                pp_model_point pt;
                pp_prediction pr;
                char sz[16], ex[16];
                memset(&pt, 0, sizeof pt);
                snprintf(sz, sizeof sz, "%d", size);
                snprintf(ex, sizeof ex, "%d", e);
                CHECK_INT(pp_model_point_set(&m.sum, "size", sz, &pt, NULL), 0);
                CHECK_INT(pp_model_point_set(&m.sum, "exponent", ex, &pt, NULL), 0);
                CHECK_INT(pp_model_predict(&m, (size_t)pp_summary_metric(&m.sum, names[k]), &pt,
                                           &pr), 0);
                covered += pr.lo <= truth && truth <= pr.hi;
                width += (pr.hi - pr.lo) / pr.value;
                n++;
            }
    CHECK_INT(n, 30);
    CHECK(covered >= 27);
    CHECK(width / (double)n < 0.8);
    pp_model_free(&m);
}

/* The blend's weights outside the range (model.h: weight_edge, judged per
 * dimension on the edges held out) are saved with the model: a
 * prediction past the largest size is the same from model.json as from
 * the model just made; edited out of [0, 1], predict names the file,
 * group, metric and key, and exits 2. */
void test_band_edge_weights_saved(void);
void test_band_edge_weights_saved(void)
{
    const char *dir = tx2_like("band-edge-weights", 1);
    char *out = NULL;
    int energy, differs = 0;
    pp_prediction p0, p1;
    pp_model_point pt;
    pp_model m;

    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    energy = pp_summary_metric(&m.sum, "total_energy_j");
    for (size_t k = 0; k < m.sum.n_metrics; k++) {
        const pp_model_fit *f = pp_model_fit_of(&m, 0, k);
        differs |= f && f->edge_weighted && fabs(f->weight_edge[0] - f->weight) > 0.01;
    }
    CHECK(differs); /* else the file would not tell the two apart */
    memset(&pt, 0, sizeof pt);
    CHECK_INT(pp_model_point_set(&m.sum, "size", "6000", &pt, NULL), 0);
    CHECK_INT(pp_model_point_set(&m.sum, "exponent", "40", &pt, NULL), 0);
    CHECK_INT(pp_model_predict(&m, (size_t)energy, &pt, &p0), 0);
    pp_model_free(&m);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    free(out);
    CHECK_INT(pp_model_read(dir, NULL, 1, &m), 0);
    CHECK(m.from_file);
    CHECK_INT(pp_model_predict(&m, (size_t)energy, &pt, &p1), 0);
    CHECK_NEAR(p1.value / p0.value, 1.0, 1e-6);
    pp_model_free(&m);
    edited_array_refused(dir, "derived_weight_edge", "7", "size=1000", "exponent=30",
                         "derived_weight_edge[0]: 7");
}

/* What the band costs a plan (issue 43): plan --json gives band_cost,
 * the highest quality whose power band's upper end lasts the mission
 * (the best plan's with --risk upper) and the one whose prediction does
 * (the best's with --risk mean), the first never above the second; the
 * text says both. A mission that the whole range does not last, so that
 * the band has a price to show. */
void test_band_cost_in_plan(void);
void test_band_cost_in_plan(void)
{
    static const char *const risk[] = {"upper", "mean"};
    const char *dir = tx2_like("band-cost", 1);
    double q[2][2] = {{NAN, NAN}, {NAN, NAN}}; /* per risk: best, band_cost's own */
    char *out = NULL;

    for (int r = 0; r < 2; r++) {
        json_t *j, *cost;
        CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "5500", "--maximize", "size",
                              "--base-power-w", "20", "--risk", risk[r], "--json", NULL), 0);
        j = out ? json_loads(out, 0, NULL) : NULL;
        CHECK(j != NULL);
        cost = json_object_get(j, "band_cost");
        q[r][0] = json_number_value(json_object_get(json_object_get(j, "best"), "quality"));
        q[r][1] = json_number_value(json_object_get(cost, r ? "quality_mean" : "quality_upper"));
        if (r == 0)
            CHECK(json_number_value(json_object_get(cost, "quality_upper")) <=
                  json_number_value(json_object_get(cost, "quality_mean")));
        json_decref(j);
        free(out);
    }
    CHECK(q[0][0] > 0 && q[1][0] > 0);
    CHECK_NEAR(q[0][1], q[0][0], 1e-9);
    CHECK_NEAR(q[1][1], q[1][0], 1e-9);
    CHECK(q[0][0] < q[1][0]); /* the band costs something here */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "5500", "--maximize", "size",
                          "--base-power-w", "20", NULL), 0);
    CHECK_CONTAINS(out, "the band's cost: quality");
    CHECK(strstr(out, "nan") == NULL); /* the legend of nan only where one is */
    free(out);
}

/* The TX2 matrix (data/tx2) imported at the sizes from..4096 into a
 * scratch folder name: its path. */
static const char *tx2_matrix_from(const char *name, int from)
{
    static char dir[2][512], names[25][160];
    static int which;
    char *argv[40] = {getenv("POWPROF_BIN"), "import", "powprofiler"}, *out = NULL, *err = NULL;
    char *dst = dir[which++ % 2];
    int n = 3, k = 0;

    for (int size = from; size <= 4096; size *= 2)
        for (int e = 20; e <= 60; e += 10, k++) {
            snprintf(names[k], sizeof names[k],
                     "data/tx2/matrix-exponentiation/matrix-exponentiation_%d-%d_1layer.csv", size, e);
            argv[n++] = names[k];
        }
    snprintf(dst, 512, "%s/%s", test_tmpdir(), name);
    argv[n++] = "--pattern";
    argv[n++] = "matrix-exponentiation_{size}-{exponent}_1layer.csv";
    argv[n++] = "-o";
    argv[n++] = dst;
    argv[n] = NULL;
    CHECK_INT(run_argv(argv, &out, &err), 0);
    free(out);
    free(err);
    return dst;
}

/* Issue 43: the TX2 matrix without its smallest size, energy at size 256
 * (exponents 30-60) against the measured: the blend outside the range
 * weighed by the size's edges held out (model.h: weight_edge) errs 4 %
 * on average; with the weights judged between levels (the blend before)
 * it erred 29 % (23-34 % each), energy modelled directly extrapolating
 * worse along the size than mean power x duration. */
void test_band_edge_blend_tx2_small_size(void);
void test_band_edge_blend_tx2_small_size(void)
{
    const char *full = tx2_matrix_from("tx2-full", 256), *dir = tx2_matrix_from("tx2-no256", 512);
    pp_summary truth;
    double sum = 0;
    size_t n = 0;
    pp_model m;

    CHECK_INT(pp_summary_read(full, &truth), 0);
    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    for (size_t r = 0; r < truth.n_rows; r++) {
        int ks = pp_summary_param(&truth, "size"), ke = pp_summary_param(&truth, "exponent");
        double y = truth.y[r * truth.n_metrics + (size_t)pp_summary_metric(&truth, "total_energy_j")];
        pp_model_point pt;
        pp_prediction p;
        char sz[32], ex[32];
        if (truth.x[r * truth.n_params + (size_t)ks] != 256 ||
            truth.x[r * truth.n_params + (size_t)ke] < 30)
            continue;
        memset(&pt, 0, sizeof pt);
        snprintf(sz, sizeof sz, "%g", truth.x[r * truth.n_params + (size_t)ks]);
        snprintf(ex, sizeof ex, "%g", truth.x[r * truth.n_params + (size_t)ke]);
        CHECK_INT(pp_model_point_set(&m.sum, "size", sz, &pt, NULL), 0);
        CHECK_INT(pp_model_point_set(&m.sum, "exponent", ex, &pt, NULL), 0);
        CHECK_INT(pp_model_predict(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"), &pt,
                                   &p), 0);
        sum += fabs(p.value - y) / y;
        n++;
    }
    CHECK_INT(n, 4);
    CHECK(sum / (double)(n ? n : 1) < 0.10);
    pp_model_free(&m);
    pp_summary_free(&truth);
}
