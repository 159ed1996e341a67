/* Layer 2 between measured levels (issue 20): the parametric family, the
 * level-out choice, bands that widen between levels and stay positive,
 * consistent metrics, capped rates. */
#include "harness.h"

#include "src/layer2/boxcox.h"
#include "src/layer2/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned seed_of = 11;

static double noise(void)
{
    double u = 0;
    for (int i = 0; i < 12; i++) {
        seed_of = seed_of * 1103515245u + 12345u;
        u += (double)(seed_of >> 8) / 16777216.0;
    }
    return u - 6.0;
}

/* An 8 x 6 grid of (size, sleep) and y = 2e-7 size^3 + 3 sleep + 5. */
static size_t cubic_grid(double *x, double *y, double noise_frac)
{
    size_t n = 0;
    for (int a = 1; a <= 8; a++)
        for (int b = 0; b < 6; b++) {
            x[2 * n] = 100.0 * a;
            x[2 * n + 1] = b;
            y[n] = (2e-7 * pow(100.0 * a, 3) + 3.0 * b + 5.0) * (1 + noise_frac * noise());
            n++;
        }
    return n;
}

/* boxcox recovers a cubic-by-linear additive surface exactly: the size's
 * exponent comes out 3, the sleep's 1, and points never measured (between
 * levels, and past the last) are predicted to 1e-6. */
void test_shape_boxcox_recovers_cubic(void);
void test_shape_boxcox_recovers_cubic(void)
{
    double x[96], y[48], q[][2] = {{350, 2.5}, {750, 0.5}, {150, 4.2}, {900, 5.0}};
    pp_est_spec spec;
    pp_surface s;
    pp_cv cv;
    pp_est e;
    size_t n = cubic_grid(x, y, 0.0);

    CHECK_INT(pp_surface_init(&s, x, n, 2, NULL), 0);
    CHECK_INT(pp_est_tune_boxcox_n(&s, y, 0, 0, &spec, &cv), 0);
    CHECK_NEAR(spec.expo[0], 3.0, 1e-12);
    CHECK_NEAR(spec.expo[1], 1.0, 1e-12);
    CHECK(cv.mape < 1e-6);
    CHECK_INT(pp_est_fit(&e, &s, y, &spec), 0);
    for (size_t i = 0; i < 4; i++) {
        double xn[2], want = 2e-7 * pow(q[i][0], 3) + 3.0 * q[i][1] + 5.0;
        pp_surface_normalize(&s, q[i], xn);
        CHECK_NEAR(pp_est_predict(&e, xn) / want, 1.0, 1e-6);
    }
    pp_est_free(&e);
    pp_surface_free(&s);
}

/* A categorical factor: two networks whose energy is a power law of the
 * rate with their own factor; the model (boxcox) predicts each at a rate
 * never measured exactly. */
void test_shape_boxcox_categorical(void);
void test_shape_boxcox_categorical(void)
{
    char csv[2048];
    size_t used = 0;
    const char *dir;
    pp_model_options o;
    pp_model_point pt;
    pp_model m;
    int id = 0;

    used += (size_t)snprintf(csv, sizeof csv, "id,net,fps,status,duration_s,total_energy_j,reason\n");
    for (int net = 0; net < 2; net++)
        for (int f = 1; f <= 5; f++, id++)
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,%s,%d,ok,10,%.10g,\n", id,
                                     net ? "big" : "tiny", 5 * f,
                                     (net ? 3.0 : 1.0) * 4.0 * pow(5.0 * f, 0.5));
    dir = results_folder_with("cat", csv, NULL);
    pp_model_options_init(&o);
    o.method = PP_METHOD_BOXCOX;
    CHECK_INT(pp_model_read(dir, &o, 0, &m), 0);
    for (int net = 0; net < 2; net++) {
        pp_prediction p;
        memset(&pt, 0, sizeof pt);
        CHECK_INT(pp_model_point_set(&m.sum, "net", net ? "big" : "tiny", &pt, NULL), 0);
        CHECK_INT(pp_model_point_set(&m.sum, "fps", "17.5", &pt, NULL), 0);
        CHECK_INT(pp_model_predict(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"), &pt, &p), 0);
        CHECK_NEAR(p.value / ((net ? 3.0 : 1.0) * 4.0 * sqrt(17.5)), 1.0, 1e-6);
    }
    pp_model_free(&m);
}

/* A 7 x 21 grid, y = exp(0.5 a) (1 + 0.1 b): steep along a, whose levels
 * are few, gentle along b, whose levels are many. */
static size_t exp_grid(double *x, double *y, double noise_frac)
{
    size_t n = 0;
    for (int a = 0; a < 7; a++)
        for (int b = 0; b < 21; b++, n++) {
            x[2 * n] = a;
            x[2 * n + 1] = b;
            y[n] = exp(0.5 * a) * (1.0 + 0.1 * b) * (1 + noise_frac * noise());
        }
    return n;
}

/* local-linear with a bandwidth below the spacing of a, above that of b */
static void narrow_loclin(pp_choose_options *o)
{
    pp_choose_options_init(o);
    o->method = PP_METHOD_LOCLIN;
    o->h = 0.08;
    o->value_space = 0;
}

/* Where a level is needed, leaving it out is what tells: local-linear with
 * a narrow bandwidth predicts a sample from its own level's neighbours
 * along b almost exactly (leave-one-out), but a whole level of a from the
 * levels around it badly. The error between levels is the larger, and
 * auto, choosing by it, picks the family that follows the shape. */
void test_shape_level_out_differs(void);
void test_shape_level_out_differs(void)
{
    double x[2 * 147], y[147];
    size_t n = exp_grid(x, y, 0.0);
    pp_choose_options o;
    pp_choice c;
    pp_surface s;

    CHECK_INT(pp_surface_init(&s, x, n, 2, NULL), 0);
    narrow_loclin(&o);
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK(c.between.n > 0);
    CHECK(c.between.mape > 3.0 * c.honest.mape);
    pp_choice_free(&c);
    pp_choose_options_init(&o);
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK_INT(c.spec.method, PP_METHOD_BOXCOX);
    CHECK(c.between.mape < 0.5);
    pp_choice_free(&c);
    pp_surface_free(&s);
}

/* The band at a measured level has band_q, halfway between two
 * neighbouring levels band_q + (band_q_between - band_q) / 2 (half a grid
 * step from a measured level, where a level left out lies a whole step
 * away), and widens in between; calibrated where local-linear misses
 * between levels, band_q_between > band_q. */
void test_shape_band_widens_between_levels(void);
void test_shape_band_widens_between_levels(void)
{
    double x[2 * 147], y[147], lo, hi, w_at, w_mid, w_quarter;
    double at[2], mid[2], quarter[2];
    size_t n = exp_grid(x, y, 0.01);
    pp_choose_options o;
    pp_choice c;
    pp_surface s;

    CHECK_INT(pp_surface_init(&s, x, n, 2, NULL), 0);
    narrow_loclin(&o);
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK(c.positive);
    CHECK(c.band_q_between > c.band_q);
    at[0] = s.x[2 * 73];
    at[1] = s.x[2 * 73 + 1]; /* a measured configuration: a = 3, b = 10 */
    mid[0] = at[0] + 0.5 / 6.0; /* halfway to a = 4 */
    quarter[0] = at[0] + 0.25 / 6.0;
    mid[1] = quarter[1] = at[1];
    pp_band(&c, 10.0, at, &lo, &hi);
    w_at = log(hi / lo);
    CHECK_NEAR(w_at, 2 * c.band_q, 1e-9);
    pp_band(&c, 10.0, mid, &lo, &hi);
    w_mid = log(hi / lo);
    CHECK_NEAR(w_mid, c.band_q + c.band_q_between, 1e-9);
    pp_band(&c, 10.0, quarter, &lo, &hi);
    w_quarter = log(hi / lo);
    CHECK(w_at < w_quarter && w_quarter < w_mid);
    pp_choice_free(&c);
    pp_surface_free(&s);
}

/* A positive metric with large scatter: the band's lower end stays above
 * zero everywhere, extrapolations included (linear values, where a band
 * of value +- half would go below). */
void test_shape_bands_stay_positive(void);
void test_shape_bands_stay_positive(void)
{
    double x[96], y[48];
    pp_choose_options o;
    pp_choice c;
    pp_surface s;
    pp_est e;
    size_t n = cubic_grid(x, y, 0.3);

    for (size_t i = 0; i < n; i++)
        y[i] = fabs(y[i]) + 0.1;
    CHECK_INT(pp_surface_init(&s, x, n, 2, NULL), 0);
    pp_choose_options_init(&o);
    o.value_space = 0;
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK_INT(pp_est_fit(&e, &s, y, &c.spec), 0);
    for (double a = -0.3; a <= 1.3; a += 0.05)
        for (double b = -0.2; b <= 1.2; b += 0.1) {
            double xn[2] = {a, b}, v = pp_est_predict(&e, xn), lo, hi;
            pp_band(&c, v, xn, &lo, &hi);
            CHECK(lo >= 0 && hi >= lo);
        }
    pp_est_free(&e);
    pp_choice_free(&c);
    pp_surface_free(&s);
}

/* A results folder over a grid: energy, power and duration with noise. */
static const char *ept_folder(void)
{
    static char csv[8192];
    size_t used = 0;
    int id = 0;

    used += (size_t)snprintf(csv, sizeof csv,
                             "id,size,sleep_s,cam.fps,status,duration_s,total_mean_w,"
                             "total_energy_j,cam.achieved_fps,reason\n");
    for (int a = 1; a <= 6; a++)
        for (int b = 0; b < 4; b++, id++) {
            double t = (0.02 * a * a * a + 2.0 * b + 1.0) * (1 + 0.03 * noise());
            double p = (3.0 + 0.5 * a - 0.2 * b) * (1 + 0.03 * noise());
            double e = p * t * (1 + 0.03 * noise());
            used += (size_t)snprintf(csv + used, sizeof csv - used,
                                     "%d,%d,%d,%d,ok,%.6g,%.6g,%.6g,%.6g,\n", id, 100 * a, b, 5 * a,
                                     t, p, e, 5.0 * a * 1.04);
        }
    return results_folder_with("ept", csv, NULL);
}

static double predict_at(const pp_model *m, const char *metric, const char *size,
                         const char *sleep, const char *fps, pp_prediction *p)
{
    pp_model_point pt;

    memset(&pt, 0, sizeof pt);
    pp_model_point_set(&m->sum, "size", size, &pt, NULL);
    pp_model_point_set(&m->sum, "sleep_s", sleep, &pt, NULL);
    pp_model_point_set(&m->sum, "cam.fps", fps, &pt, NULL);
    if (pp_model_predict(m, (size_t)pp_summary_metric(&m->sum, metric), &pt, p) < 0)
        return NAN;
    return p->value;
}

/* After fitting, energy = mean power x duration at configurations never
 * measured (the three derivations blended), the same after reloading
 * model.json; and an achieved rate measured 4 % above the request is
 * predicted at the request, not above. */
void test_shape_consistent_metrics_and_capped_rate(void);
void test_shape_consistent_metrics_and_capped_rate(void)
{
    const char *dir = ept_folder();
    pp_prediction pe, pp, pt, pa;
    pp_model m;
    int derived = 0;
    double weights = 0;

    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    for (size_t k = 0; k < m.sum.n_metrics; k++) {
        derived += pp_model_fit_of(&m, 0, k)->derived;
        weights += pp_model_fit_of(&m, 0, k)->weight;
    }
    CHECK_INT(derived, 3); /* the three derivations blended (issue 43) */
    CHECK_NEAR(weights, 1.0, 1e-12);
    CHECK_INT(pp_model_save(&m, dir), 0);
    for (int pass = 0; pass < 2; pass++) {
        double e = predict_at(&m, "total_energy_j", "250", "1.5", "12.5", &pe);
        double p = predict_at(&m, "total_mean_w", "250", "1.5", "12.5", &pp);
        double t = predict_at(&m, "duration_s", "250", "1.5", "12.5", &pt);
        CHECK_NEAR(e / (p * t), 1.0, 1e-9);
        CHECK(pe.lo > 0 && pe.lo < e && e < pe.hi);
        CHECK(predict_at(&m, "cam.achieved_fps", "500", "1", "25", &pa) <= 25.0);
        CHECK(pa.hi <= 25.0);
        pp_model_free(&m);
        if (pass == 0) {
            CHECK_INT(pp_model_read(dir, NULL, 1, &m), 0);
            CHECK_INT(m.from_file, 1);
        }
    }
}

/* Rows whose energy is not mean power x duration (another tool's energy,
 * a warm-up left out of the means) are modelled metric by metric, none
 * derived, and the disagreement is said: a derived energy would be off by
 * the disagreement itself. */
void test_shape_inconsistent_rows_not_derived(void);
void test_shape_inconsistent_rows_not_derived(void)
{
    char csv[8192];
    size_t used = 0;
    pp_model m;
    int id = 0;

    used += (size_t)snprintf(csv, sizeof csv, "id,a,b,status,duration_s,total_mean_w,total_energy_j\n");
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++, id++) {
            double e = 10 + 5 * a + 3 * b;
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,%d,%d,ok,1,%.6g,%.6g\n", id,
                                     a, b, 2 + e / 10, e);
        }
    test_log_clear();
    CHECK_INT(pp_model_read(results_folder_with("inconsistent", csv, NULL), NULL, 0, &m), 0);
    for (size_t k = 0; k < m.sum.n_metrics; k++)
        CHECK_INT(pp_model_fit_of(&m, 0, k)->derived, 0);
    CHECK_CONTAINS(test_log(), "total_energy_j differs from total_mean_w x duration_s");
    CHECK(pp_model_fit_of(&m, 0, (size_t)pp_summary_metric(&m.sum, "total_energy_j"))
              ->choice.honest.mape < 5);
    pp_model_free(&m);
}
