/* What the model table and predict make of the parameters and metrics a
 * results folder has (issue 31): a parameter measured at one value is a
 * constant, two total_* columns equal in every row show one of them. */
#include "harness.h"

#include "src/layer2/model.h"
#include "src/layer2/model_held.h"
#include "src/results/summary.h"

#include <jansson.h>
#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An imported CSV whose power column is named total_w: its rail is renamed
 * total_rail, so total_rail_mean_w repeats total_mean_w and
 * total_rail_energy_j total_energy_j in every row. Each used to hide the
 * other: neither the power nor the energy row was shown. */
void test_model_table_total_rail(void);
void test_model_table_total_rail(void)
{
    char summary[2048], *out = NULL;
    size_t len;
    const char *dir;

    len = (size_t)snprintf(summary, sizeof summary,
                           "id,n,status,duration_s,total_rail_mean_w,total_rail_energy_j,"
                           "total_mean_w,total_energy_j,reason\n");
    for (int i = 0; i < 5; i++) {
        double w = 2.0 + 0.5 * i, t = 1.0 + i;
        len += (size_t)snprintf(summary + len, sizeof summary - len, "%d,%d,ok,%g,%g,%g,%g,%g,\n",
                                i, 100 * (i + 1), t, w, w * t, w, w * t);
    }
    dir = results_folder_with("total-rail", summary, NULL);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "  total_mean_w");
    CHECK_CONTAINS(out, "  total_energy_j");
    CHECK_CONTAINS(out, "total_rail_mean_w is not shown: it repeats total_mean_w");
    CHECK_CONTAINS(out, "total_rail_energy_j is not shown: it repeats total_energy_j");
    CHECK(strstr(out, "total_mean_w is not shown") == NULL);
    CHECK(strstr(out, "total_energy_j is not shown") == NULL);
    free(out);
}

/* m.threads = 1 in every row: no parameter of the model, implied by
 * predict when not given, and any other value flagged outside the
 * measured range (it used to be required, and 64 passed unflagged). */
void test_model_constant_parameter(void);
void test_model_constant_parameter(void)
{
    char summary[2048], *out = NULL, *err = NULL;
    size_t len;
    const char *dir;

    len = (size_t)snprintf(summary, sizeof summary,
                           "id,m.size,m.threads,status,duration_s,total_mean_w,total_energy_j,"
                           "reason\n");
    for (int i = 0; i < 5; i++)
        len += (size_t)snprintf(summary + len, sizeof summary - len, "%d,%d,1,ok,%d,%g,%g,\n", i,
                                64 * (i + 1), i + 1, 3.0 + i, (3.0 + i) * (i + 1));
    dir = results_folder_with("constant", summary, NULL);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "1 parameter: m.size (linear scale); measured at one value (a constant): "
                        "m.threads = 1");
    free(out);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "m.size=192", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"outside_measured_range\":false");
    CHECK(err == NULL || strstr(err, "outside") == NULL);
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "m.size=192", "m.threads=1", "--json",
                          NULL), 0);
    CHECK_CONTAINS(out, "\"outside_measured_range\":false");
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "m.size=192", "m.threads=64", "--json",
                          NULL), 0);
    CHECK_CONTAINS(out, "\"outside_measured_range\":true");
    CHECK_CONTAINS(err, "m.threads = 64: the results measured m.threads = 1 only (a constant)");
    free(out);
    free(err);
}

/* A prediction far past the measured values (an exponential continued
 * from p = 1..5 to p = 12: e^36 against at most e^15) is refused (exit
 * 3, nothing on stdout, the metric named on stderr) unless --extrapolate
 * is given, and then flagged on stderr and in --json; one inside the
 * range is not. */
void test_model_predict_beyond_values(void);
void test_model_predict_beyond_values(void)
{
    char summary[2048], *out = NULL, *err = NULL;
    size_t len;
    const char *dir;

    len = (size_t)snprintf(summary, sizeof summary,
                           "id,p,status,duration_s,total_mean_w,total_energy_j,reason\n");
    for (int i = 1; i <= 5; i++)
        len += (size_t)snprintf(summary + len, sizeof summary - len, "%d,%d,ok,1,%.9g,%.9g,\n",
                                i, i, 2.0 + 0.1 * i, exp(3.0 * i));
    dir = results_folder_with("beyond", summary, NULL);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, "--method", "loclin", NULL), 0);
    free(out);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "p=3.5", "--json", NULL), 0);
    CHECK(strstr(out, "\"beyond_measured_values\":true") == NULL);
    CHECK_CONTAINS(out, "\"beyond_measured_values\":false");
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "p=12", "--json", NULL), 3);
    CHECK(out == NULL || out[0] == '\0');
    CHECK_CONTAINS(err, "refused: total_energy_j predicted");
    CHECK_CONTAINS(err, "--extrapolate");
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "p=12", "--json", "--extrapolate", NULL), 0);
    CHECK_CONTAINS(out, "\"beyond_measured_values\":true");
    CHECK_CONTAINS(err, "warning: total_energy_j predicted");
    CHECK_CONTAINS(err, "beyond 10 times what was measured");
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "p=12", "--extrapolate", NULL), 0);
    CHECK_CONTAINS(out, "beyond the measured values");
    free(out);
    free(err);
}

/* The scale of a parameter does not switch when a level is left out
 * (issue 31): sizes 256 .. 4096 without 1024 stay on a log scale, steps
 * that are no whole powers of one ratio stay linear, and a list declared
 * in run.json is on the scale it declares (linear), whatever rows were
 * measured. */
void test_summary_scale_from_grid(void);
void test_summary_scale_from_grid(void)
{
    pp_summary s;
    const char *dir;

    dir = results_folder_with("scale-drop", "id,n,status,total_mean_w\n0,256,ok,1\n1,512,ok,2\n"
                                            "2,2048,ok,3\n3,4096,ok,4\n", NULL);
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.log_scale[0], 1);
    pp_summary_free(&s);
    dir = results_folder_with("scale-lin", "id,n,status,total_mean_w\n0,1,ok,1\n1,2,ok,2\n"
                                           "2,3,ok,3\n3,5,ok,4\n", NULL);
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.log_scale[0], 0);
    pp_summary_free(&s);
    /* declared exponential 1 .. 16; measured 1, 2, 16 */
    dir = results_folder_with("scale-exp", "id,n,status,total_mean_w\n0,1,ok,1\n1,3,ok,2\n"
                                           "2,16,ok,3\n",
                              "{\"params\":{\"n\":{\"kind\":\"exponential\",\"values\":"
                              "[1,2,4,8,16]}}}");
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.log_scale[0], 1);
    pp_summary_free(&s);
    dir = results_folder_with("scale-list-lin", "id,n,status,total_mean_w\n0,1,ok,1\n1,2,ok,2\n"
                                                "2,4,ok,3\n",
                              "{\"params\":{\"n\":{\"kind\":\"list\",\"values\":[1,2,3,4,5]}}}");
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.log_scale[0], 0);
    pp_summary_free(&s);
}

/* The E = P x T derivations stacked (issue 43), on held-out predictions
 * whose values are all 1, duration exact: deriving energy errs by power's
 * error (E = P x T and P itself), deriving power by energy's; both
 * metrics become E^(1 - a) P^a, a the weight of deriving energy:
 * - E and P 10 % off in turn, six pairs each its own fold: without pair
 *   0 (E off) the relative squared log errors are 2.4 (deriving energy,
 *   off at three pairs) and 1.6 (power, two), plus one fold's share (4 /
 *   2 / 5) each: a = 2.4 / 4.8 + ... = 5 / 12, and pair 0 is predicted
 *   1.1^(7 / 12) (5.7 %: the weights' own scatter over five folds; with
 *   every pair the tie is shared, 1 / 2 each, 4.9 % at every pair);
 * - power 9-11 % off, energy exact: deriving power wins in every fold,
 *   deriving energy keeps one fold's share, 1 / 12: P^(1 / 12);
 * - the first case in two folds of three: one fold left cannot tell the
 *   scatter, its best alone (power, then energy): two pairs of three
 *   10 % off. */
void test_model_derivation_nested(void);
void test_model_derivation_nested(void)
{
    static const double one[6] = {1, 1, 1, 1, 1, 1};
    static const double e_alt[6] = {1.1, 1, 1.1, 1, 1.1, 1}, p_alt[6] = {1, 1.1, 1, 1.1, 1, 1.1};
    static const double p_clear[6] = {1.1, 1.09, 1.11, 1.1, 1.095, 1.105};
    static const size_t two[6] = {0, 0, 0, 1, 1, 1};
    const double *const y[3] = {one, one, one}, *const alt[3] = {e_alt, p_alt, one};
    const double *const clear[3] = {one, p_clear, one};
    double blend = 100 * (pow(1.1, 7.0 / 12) - 1), share = 0;
    pp_cv ce = {0}, cp = {0}, ct = {0};
    pp_cv *const cv[3] = {&ce, &cp, &ct};

    for (int i = 0; i < 6; i++)
        share += 100 * (pow(p_clear[i], 1.0 / 12) - 1) / 6;
    CHECK_INT(pp_model_nest_derivation(y, alt, NULL, NULL, 6, 0, 1, cv), 0);
    CHECK_NEAR(ce.mape, blend, 1e-9);
    CHECK_NEAR(cp.mape, blend, 1e-9);
    CHECK_NEAR(ct.mape, 0.0, 1e-12); /* not blended here: left as it was */
    CHECK_INT(pp_model_nest_derivation(y, clear, NULL, NULL, 6, 0, 1, cv), 0);
    CHECK_NEAR(ce.mape, share, 1e-9);
    CHECK_NEAR(cp.mape, share, 1e-9);
    CHECK(ce.mape < 1);
    CHECK_INT(pp_model_nest_derivation(y, alt, NULL, two, 6, 2, 1, cv), 0);
    CHECK_NEAR(ce.mape, 20.0 / 3, 1e-9);
    CHECK_NEAR(cp.mape, 20.0 / 3, 1e-9);
}

/* A near tie costs nothing (issue 43): ten folds of two pairs, in eight
 * of them energy and power modelled alike (both 2 % off, either
 * derivation the same), in two energy's own model 30 % off where deriving
 * it from power is 2 % off: energy derived alone errs 2 % everywhere.
 * main's rule (the best 1, the other exp(-z^2 / 2), z its mean loss over
 * its standard error) let the loss seen in two folds of ten pass for
 * scatter, z about 1, and gave the own energy 0.38 of the weight there:
 * 3.7 % nested, 84 % above the best single derivation. Stacked, the eight
 * tied folds weigh nothing either way and the two decide: within 5 %. */
void test_model_derivation_near_tie(void);
void test_model_derivation_near_tie(void)
{
    double e[20], p[20], one[20];
    size_t fold[20];
    const double *const y[3] = {one, one, one}, *const own[3] = {e, p, one};
    pp_cv ce = {0}, cp = {0}, ct = {0};
    pp_cv *const cv[3] = {&ce, &cp, &ct};

    for (size_t i = 0; i < 20; i++) {
        fold[i] = i / 2;
        one[i] = 1;
        p[i] = 1 + (i % 2 ? 0.02 : -0.02);
        e[i] = fold[i] < 8 ? p[i] : 1.3;
    }
    CHECK_INT(pp_model_nest_derivation(y, own, NULL, fold, 20, 10, 1, cv), 0);
    CHECK(ce.mape <= 2.0 * 1.05);
    CHECK(cp.mape <= 2.0 * 1.05);
}

/* Pairs in no fold (fold SIZE_MAX, as edge_weights passes the pairs of
 * the other edges) weigh nothing: the near tie's folds with 4 such pairs
 * far off give the same nested errors. Before, log_gram marked them seen
 * at seen[SIZE_MAX], a byte before its buffer (make asan: a
 * heap-buffer-overflow). */
void test_model_derivation_pairs_in_no_fold(void);
void test_model_derivation_pairs_in_no_fold(void)
{
    double e[24], p[24], one[24], mape[2];
    size_t fold[24];
    const double *const y[3] = {one, one, one}, *const own[3] = {e, p, one};
    pp_cv ce = {0}, cp = {0}, ct = {0};
    pp_cv *const cv[3] = {&ce, &cp, &ct};

    for (size_t i = 0; i < 24; i++) {
        fold[i] = i < 20 ? i / 2 : SIZE_MAX;
        one[i] = 1;
        p[i] = i < 20 ? 1 + (i % 2 ? 0.02 : -0.02) : 5;
        e[i] = i < 16 ? p[i] : i < 20 ? 1.3 : 0.01;
    }
    CHECK_INT(pp_model_nest_derivation(y, own, NULL, fold, 20, 10, 1, cv), 0);
    mape[0] = ce.mape;
    mape[1] = cp.mape;
    CHECK_INT(pp_model_nest_derivation(y, own, NULL, fold, 24, 10, 1, cv), 0);
    CHECK_NEAR(ce.mape, mape[0], 1e-12);
    CHECK_NEAR(cp.mape, mape[1], 1e-12);
}

/* pp_model_options.derivation out of -1 .. 2 (a caller's typo, 3 or -2)
 * is refused by the library, naming the value: before, 3 built a model
 * whose every derived weight was 0, and -2 the blend, without a word. */
void test_model_derivation_option_refused(void);
void test_model_derivation_option_refused(void)
{
    static const int bad[] = {3, -2, 1000};
    const char *dir = results_folder_with("derivation-option",
                                          "id,a,status,duration_s,total_mean_w,total_energy_j\n"
                                          "0,1,ok,1,2,2\n1,2,ok,2,2,4\n2,3,ok,3,2,6\n"
                                          "3,4,ok,4,2,8\n",
                                          NULL);
    pp_model_options o;
    pp_model m;
    char want[64];

    pp_model_options_init(&o);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.derivation = bad[i];
        test_log_clear();
        CHECK_INT(pp_model_read(dir, &o, 0, &m), -EINVAL);
        snprintf(want, sizeof want, "derivation %d: -1 (the blend), 0, 1 or 2", bad[i]);
        CHECK_CONTAINS(test_log(), want);
    }
    o.derivation = 2;
    CHECK_INT(pp_model_read(dir, &o, 0, &m), 0);
    pp_model_free(&m);
}

/* Outside the measured range the band widens with the distance (issue
 * 43: no edge quantile, band_q times pp_band_scale): 40 values on a line
 * whose two ends jump (y = p, but 0.5 at p = 1 and 80 at p = 40). One
 * step past the range (p = 41) the band is wider, relative to its value,
 * than at a measured level (20) or between two (20.5), five steps past
 * (45) wider still, and its lower end stays above 0. */
void test_model_band_edges(void);
void test_model_band_edges(void)
{
    static const char *const at[] = {"p=20", "p=20.5", "p=41", "p=45"};
    char summary[8192];
    size_t len;
    const char *dir;
    double width[4];

    len = (size_t)snprintf(summary, sizeof summary,
                           "id,p,status,duration_s,total_mean_w,reason\n");
    for (int p = 1; p <= 40; p++)
        len += (size_t)snprintf(summary + len, sizeof summary - len, "%d,%d,ok,1,%g,\n", p - 1, p,
                                p == 1 ? 0.5 : p == 40 ? 80.0 : (double)p);
    dir = results_folder_with("edges", summary, NULL);
    for (size_t i = 0; i < 4; i++) {
        char *out = NULL;
        double v = NAN, lo = NAN, hi = NAN;
        CHECK_INT(run_powprof(&out, NULL, "predict", dir, at[i], "--json", NULL), 0);
        CHECK(predicted_band(out, "total_mean_w", &v, &lo, &hi));
        CHECK(lo > 0 && lo < v && v < hi);
        width[i] = log(hi / lo);
        free(out);
    }
    CHECK(width[2] > width[0] && width[2] > width[1] && width[3] > width[2]);
}

/* A model.json of version 3 (tests/fixtures/model-v3, written by git
 * add1fd2 with the band's edge quantile "q_edge", "q_edge_dims",
 * "n_edge") is still read, its choices reused: the edge keys are left
 * unread, the band past the range is band_q times its scale, and a model
 * written now is version 4 without them. */
void test_model_reads_version_3(void);
void test_model_reads_version_3(void)
{
    const char *dir = fixture_copy("model-v3");
    char path[700], *text;
    double x[2], lo, hi, raw[2] = {8, 2};
    pp_model m;

    snprintf(path, sizeof path, "%s/model.json", dir);
    text = slurp(path);
    CHECK(text && strstr(text, "\"version\": 3") && strstr(text, "\"q_edge_dims\""));
    free(text);
    CHECK_INT(pp_model_read(dir, NULL, 1, &m), 0);
    CHECK(m.from_file);
    for (size_t k = 0; k < m.sum.n_metrics; k++) {
        const pp_model_fit *f = pp_model_fit_of(&m, 0, k);
        if (!f || f->n_values < 2 || !f->choice.positive)
            continue;
        pp_surface_normalize(&m.groups[0].surf, raw, x);
        pp_band(&f->choice, 10.0, x, &lo, &hi);
        CHECK_NEAR(log(hi / 10.0), f->choice.band_q * pp_band_scale(&f->choice.range, x), 1e-9);
    }
    CHECK_INT(pp_model_save(&m, dir), 0);
    pp_model_free(&m);
    text = slurp(path);
    CHECK(text && strstr(text, "\"version\": 4") && !strstr(text, "q_edge"));
    free(text);
}

/* A blend's weight read back from model.json is range-checked like every
 * number there (issue 43): 2 is refused with the file and the key, and a
 * model saved by pp_model_derive reloads with its weights. */
void test_model_derivation_weight_checked(void);
void test_model_derivation_weight_checked(void)
{
    char csv[4096], path[700], *text, *at;
    size_t used = 0;
    const char *dir;
    pp_model m;
    int id = 0;

    used += (size_t)snprintf(csv, sizeof csv, "id,a,b,status,duration_s,total_mean_w,total_energy_j\n");
    for (int a = 1; a <= 5; a++)
        for (int b = 0; b < 5; b++, id++) {
            double t = 0.5 * a + 0.1 * b * b + 1, p = 3 + 0.4 * b + 0.01 * a * a;
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,%d,%d,ok,%.6g,%.6g,%.6g\n",
                                     id, a, b, t, p, p * t);
        }
    dir = results_folder_with("derive-weight", csv, NULL);
    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    CHECK_INT(pp_model_save(&m, dir), 0);
    pp_model_free(&m);
    CHECK_INT(pp_model_read(dir, NULL, 1, &m), 0);
    CHECK(m.groups[0].fits[0].derived && m.groups[0].fits[0].weight > 0);
    pp_model_free(&m);
    snprintf(path, sizeof path, "%s/model.json", dir);
    text = slurp(path);
    at = text ? strstr(text, "\"derived_weight\":") : NULL;
    CHECK(at != NULL);
    if (!at) {
        free(text);
        return;
    }
    at += strlen("\"derived_weight\":");
    while (*at == ' ')
        at++;
    *at++ = '2';
    for (; *at && *at != ',' && *at != '\n' && *at != '}'; at++)
        *at = ' ';
    write_file(path, text);
    free(text);
    test_log_clear();
    CHECK(pp_model_read(dir, NULL, 1, &m) < 0);
    CHECK_CONTAINS(test_log(), "model.json: groups[0]");
    CHECK_CONTAINS(test_log(), "derived_weight 2 is out of range");
}

/* Each entry's smoothing length of model.json as the key a version-2 file
 * gave it ("smoother_length" for boxcox, "sigma" for the kernels), the
 * options' as "h", version 2: how many entries were renamed. */
static int as_version_2(const char *path)
{
    json_t *root = json_load_file(path, 0, NULL), *g, *f;
    size_t i, j;
    int n = 0;

    if (!root)
        return -1;
    json_object_set_new(root, "version", json_integer(2));
    json_object_set(json_object_get(root, "options"), "h",
                    json_object_get(json_object_get(root, "options"), "smoothing_length"));
    json_object_del(json_object_get(root, "options"), "smoothing_length");
    json_array_foreach(json_object_get(root, "groups"), i, g) {
        json_array_foreach(json_object_get(g, "metrics"), j, f) {
            json_t *h = json_object_get(f, "smoothing_length");
            const char *method = json_string_value(json_object_get(f, "method"));
            if (!h || !method)
                continue;
            json_object_set(f, strcmp(method, "boxcox") == 0 ? "smoother_length" : "sigma", h);
            json_object_del(f, "smoothing_length");
            n++;
        }
    }
    if (json_dump_file(root, path, JSON_INDENT(1)) < 0)
        n = -1;
    json_decref(root);
    return n;
}

/* The smoothing length (est.h: a kernel's bandwidth, boxcox's residual
 * smoother) is "smoothing_length" in model.json whatever the method; a
 * file written before (version 2: "sigma" or "smoother_length") is still
 * read, its choices reused with the same lengths. */
void test_model_json_smoothing_length(void);
void test_model_json_smoothing_length(void)
{
    static const char *const method[] = {"auto", "loclin"};
    char summary[4096], path[700], *text;
    size_t len = (size_t)snprintf(summary, sizeof summary,
                                  "id,a,b,status,duration_s,total_mean_w,total_energy_j,reason\n");
    const char *dir;

    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++) {
            double t = (1.0 + i) * (1.0 + 0.3 * j), w = 3.0 + 0.5 * i * i + j;
            len += (size_t)snprintf(summary + len, sizeof summary - len,
                                    "%d,%d,%d,ok,%g,%g,%g,\n", 4 * i + j, i + 1, j + 1, t, w,
                                    w * t * (1 + 0.01 * ((i * 7 + j * 3) % 5)));
        }
    dir = results_folder_with("smoothing-length", summary, NULL);
    snprintf(path, sizeof path, "%s/model.json", dir);
    for (size_t k = 0; k < 2; k++) {
        pp_model m0, m1;
        CHECK_INT(run_powprof(NULL, NULL, "model", dir, "--method", method[k], NULL), 0);
        text = slurp(path);
        CHECK(text && strstr(text, "\"smoothing_length\"") && !strstr(text, "\"sigma\"") &&
              !strstr(text, "\"smoother_length\"") && strstr(text, "\"version\": 4"));
        free(text);
        CHECK_INT(pp_model_read(dir, NULL, 1, &m0), 0);
        CHECK(m0.from_file);
        CHECK(as_version_2(path) > 0);
        CHECK_INT(pp_model_read(dir, NULL, 1, &m1), 0);
        CHECK(m1.from_file);
        for (size_t g = 0; g < m0.n_groups && g < m1.n_groups; g++)
            for (size_t q = 0; q < m0.sum.n_metrics; q++) {
                const pp_model_fit *f0 = pp_model_fit_of(&m0, g, q), *f1 = pp_model_fit_of(&m1, g, q);
                CHECK(f0 && f1 && f0->n_values == f1->n_values);
                if (f0 && f1 && f0->n_values >= 2) {
                    CHECK_INT(f1->choice.spec.method, f0->choice.spec.method);
                    CHECK(f1->choice.spec.h == f0->choice.spec.h);
                }
            }
        pp_model_free(&m0);
        pp_model_free(&m1);
    }
}
