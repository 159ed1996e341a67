/* What makes `powprof model` cheap (issue 31, item 6) without changing
 * what it computes: boxcox's folds left out of one fit by the hat matrix
 * give what a fit without them gives, and a few values that coincide by
 * chance do not turn a scattered design into levels to leave out. */
#include "harness.h"

#include "src/layer2/boxcox.h"
#include "src/layer2/boxcox_gp.h"
#include "src/layer2/lapack.h"
#include "src/layer2/estimator.h"
#include "src/layer2/surface.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double unif(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)(*seed >> 8) / 16777216.0;
}

/* A positive surface of the matrix sets' shape at (a, b) with 3 % noise. */
static double shape(double a, double b, unsigned *seed)
{
    return (0.2 + 1e-3 * a * a + 0.4 * b) * (1.0 + 0.03 * (unif(seed) - 0.5));
}

/* pp_est_loo of spec against refitting without each sample (n of them,
 * 2 parameters, at most 64), within tol of the value. */
static void check_loo_is_refit(const pp_surface *s, const double *y, const pp_est_spec *spec,
                               double tol)
{
    double loo[64], y2[64];

    CHECK_INT(pp_est_loo(s, y, spec, loo), 0);
    for (size_t i = 0; i < s->n; i++) {
        pp_est e;
        if (isnan(y[i])) {
            CHECK(isnan(loo[i]));
            continue;
        }
        memcpy(y2, y, s->n * sizeof *y2);
        y2[i] = NAN;
        CHECK_INT(pp_est_fit(&e, s, y2, spec), 0);
        CHECK_NEAR(loo[i], pp_est_predict(&e, s->x + 2 * i), tol * fabs(y[i]));
        pp_est_free(&e);
    }
}

/* Leave-one-out of a boxcox spec (no residual smoother) equals refitting
 * without each sample, in linear and log values, with interactions and
 * unequal run weights. */
void test_model_cost_boxcox_loo_is_refit(void);
void test_model_cost_boxcox_loo_is_refit(void)
{
    enum { N = 40 };
    double x[2 * N], y[N], w[N];
    unsigned seed = 3;
    pp_surface s;

    for (int i = 0; i < N; i++) {
        x[2 * i] = 1 + 63 * unif(&seed);
        x[2 * i + 1] = 5 * unif(&seed);
        y[i] = shape(x[2 * i], x[2 * i + 1], &seed);
        w[i] = i % 4 ? 1.0 : 0.3;
    }
    y[7] = NAN;
    CHECK_INT(pp_surface_init(&s, x, N, 2, NULL), 0);
    CHECK_INT(pp_surface_set_weights(&s, w), 0);
    for (int lg = 0; lg <= 1; lg++) {
        pp_est_spec spec = {PP_METHOD_BOXCOX, lg, 0, {1.5, -0.5}, 1};
        check_loo_is_refit(&s, y, &spec, 1e-7);
    }
    pp_surface_free(&s);
}

/* Folds of two samples (each value of a measured twice, b scattered): the
 * tuner's errors over the folds, from one fit, equal those of refitting
 * its choice without each fold; b's scattered values make no folds. */
void test_model_cost_boxcox_folds_are_refits(void);
void test_model_cost_boxcox_folds_are_refits(void)
{
    enum { N = 24 };
    double x[2 * N], y[N];
    unsigned seed = 9;
    pp_est_spec spec;
    pp_fold *folds;
    pp_cv tuned, refit;
    pp_surface s;
    long nf;

    for (int i = 0; i < N; i++) {
        x[2 * i] = 4.0 * (1 + i / 2);
        x[2 * i + 1] = 5 * unif(&seed);
        y[i] = shape(x[2 * i], x[2 * i + 1], &seed);
    }
    CHECK_INT(pp_surface_init(&s, x, N, 2, NULL), 0);
    nf = pp_level_folds(&s, y, &folds);
    CHECK_INT(nf, N / 2 - 2); /* a's interior values only */
    for (long f = 0; f < nf; f++)
        CHECK_INT(folds[f].dim, 0);
    for (int lg = 0; nf > 0 && lg <= 1; lg++) {
        CHECK_INT(pp_boxcox_tune(&s, y, lg, folds, (size_t)nf, &spec, &tuned), 0);
        CHECK_INT(pp_est_cv(&s, y, &spec, folds, (size_t)nf, &refit, NULL), 0);
        CHECK_NEAR(tuned.mape, refit.mape, 1e-6 * refit.mape);
        CHECK_NEAR(tuned.crit, refit.crit, 1e-6 * refit.crit);
    }
    free(folds);
    pp_surface_free(&s);
}

/* 300 scattered samples in 3 dimensions, two of which share a value of c
 * by chance: no level folds (each fold would be a sample or two, and each
 * would re-make the choice: 300 choices instead of 10). */
void test_model_cost_scattered_coincidence(void);
void test_model_cost_scattered_coincidence(void)
{
    enum { N = 300 };
    static double x[3 * N], y[N];
    unsigned seed = 21;
    pp_fold *folds;
    pp_surface s;

    for (int i = 0; i < N; i++) {
        for (int j = 0; j < 3; j++)
            x[3 * i + j] = unif(&seed);
        y[i] = 1 + x[3 * i];
    }
    x[3 * 10 + 2] = x[3 * 20 + 2];
    CHECK_INT(pp_surface_init(&s, x, N, 3, NULL), 0);
    CHECK_INT(pp_level_folds(&s, y, &folds), 0);
    CHECK(folds == NULL);
    pp_surface_free(&s);
}

/* Each fold's samples predicted by refitting spec without the fold,
 * against what pp_est_cv predicts for them (pairs in fold order). */
static void check_folds_are_refits(const pp_surface *s, const double *y, const pp_est_spec *spec,
                                   const pp_fold *folds, size_t nf)
{
    double y2[64], fast[64 * 8];
    size_t k = 0;
    pp_cv cv;

    CHECK_INT(pp_est_cv(s, y, spec, folds, nf, &cv, fast), 0);
    for (size_t f = 0; f < nf; f++) {
        pp_est e;
        for (size_t i = 0; i < s->n; i++)
            y2[i] = pp_fold_has(s, &folds[f], i) ? NAN : y[i];
        CHECK_INT(pp_est_fit(&e, s, y2, spec), 0);
        for (size_t i = 0; i < s->n; i++)
            if (!isnan(y[i]) && pp_fold_has(s, &folds[f], i)) {
                double want = pp_est_predict(&e, s->x + i * s->d);
                CHECK_NEAR(fast[k], want, 1e-8 * fabs(want));
                k++;
            }
        pp_est_free(&e);
    }
}

/* boxcox with a residual smoother: its level folds, from
 * one solve, and boxcox's leave-one-out, from one inverse, give what
 * refitting gives; so do the kernels' level folds, from the values less
 * the fold's and the surface's distances. */
/* n samples of a wavy surface, a in pairs of levels, b scattered (seeded),
 * y[nan_at] NaN (none: n): the surface into s, its level folds (at least
 * 4) into folds; their count. */
static long wavy_levels(int n, unsigned seed, int nan_at, double *x, double *y, pp_surface *s,
                        pp_fold **folds)
{
    long nf;

    for (int i = 0; i < n; i++) {
        x[2 * i] = 4.0 * (1 + i / 2);
        x[2 * i + 1] = 5 * unif(&seed);
        y[i] = shape(x[2 * i], x[2 * i + 1], &seed) * (1 + 0.2 * sin(x[2 * i + 1]));
    }
    if (nan_at < n)
        y[nan_at] = NAN;
    CHECK_INT(pp_surface_init(s, x, (size_t)n, 2, NULL), 0);
    nf = pp_level_folds(s, y, folds);
    CHECK(nf > 3);
    return nf;
}

void test_model_cost_smoother_cv_is_refit(void);
void test_model_cost_smoother_cv_is_refit(void)
{
    enum { N = 24 };
    double x[2 * N], y[N];
    pp_fold *folds;
    pp_surface s;
    long nf = wavy_levels(N, 13, 5, x, y, &s, &folds);

    for (int lg = 0; lg <= 1; lg++) {
        pp_est_spec spec = {PP_METHOD_BOXCOX, lg, 0.3, {0.5, 1.0}, lg};
        pp_est_spec nw = {PP_METHOD_NW, lg, 0.2, {0}, 0}, ll = {PP_METHOD_LOCLIN, lg, 0.3, {0}, 0};
        check_folds_are_refits(&s, y, &spec, folds, (size_t)nf);
        check_folds_are_refits(&s, y, &nw, folds, (size_t)nf); /* the kernels: the same sums */
        check_folds_are_refits(&s, y, &ll, folds, (size_t)nf);
        /* its least squares by Sherman-Morrison, not an SVD: rounding */
        check_loo_is_refit(&s, y, &spec, 1e-7);
    }
    free(folds);
    pp_surface_free(&s);
}

/* Above PP_CHOOSE_SUB samples the choice is made on a part of them, but
 * what it may choose is judged by all: 500 samples of a wavy surface
 * (where a kernel wins on a hundred) are given boxcox
 * without a residual smoother, the only candidate auto affords there; the
 * same surface on 80 samples may choose anything (the test's control). */
void test_model_cost_subsample_choice_judged_by_all(void);
void test_model_cost_subsample_choice_judged_by_all(void)
{
    enum { N = 500 };
    static double x[2 * N], y[N];
    unsigned seed = 5;
    pp_choose_options o;
    pp_choice c;
    pp_surface s;

    for (int i = 0; i < N; i++) {
        x[2 * i] = unif(&seed);
        x[2 * i + 1] = unif(&seed);
        y[i] = 3 + sin(9 * x[2 * i]) * cos(7 * x[2 * i + 1]);
    }
    pp_choose_options_init(&o);
    o.choice_only = 1;
    CHECK_INT(pp_surface_init(&s, x, 80, 2, NULL), 0);
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK(c.spec.method != PP_METHOD_BOXCOX || c.spec.h > 0);
    pp_choice_free(&c);
    pp_surface_free(&s);
    CHECK_INT(pp_surface_init(&s, x, N, 2, NULL), 0);
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK_INT(c.spec.method, PP_METHOD_BOXCOX);
    CHECK(c.spec.h == 0);
    pp_choice_free(&c);
    pp_surface_free(&s);
}

/* A grid of 11 values of a (one of them, 5, not measured) by 3 of b:
 * a's 8 measured interior values are left out 2 groups at a time apart
 * (PP_FOLD_GROUPS), b's one interior value alone. Every interior value is
 * left out exactly once, never with the measured value next to it (the
 * gap at 5 included: 4 and 6 are measured neighbours), and no edge. */
void test_model_cost_fold_groups(void);
void test_model_cost_fold_groups(void)
{
    enum { NA = 11, NB = 3, N = NA * NB };
    double x[2 * N], y[N];
    size_t *group = NULL, ng = 0, out_count[NA] = {0};
    pp_fold *folds = NULL;
    pp_surface s;
    long nf;

    for (size_t i = 0; i < N; i++) {
        x[2 * i] = (double)(i / NB);
        x[2 * i + 1] = (double)(i % NB);
        y[i] = i / NB == 5 ? NAN : 1.0 + x[2 * i] + 0.1 * x[2 * i + 1];
    }
    CHECK_INT(pp_surface_init(&s, x, N, 2, NULL), 0);
    nf = pp_level_fold_groups(&s, y, &folds, &group, &ng);
    CHECK_INT(nf, 9);                            /* a: 8 interior values measured, b: 1 */
    CHECK_INT((long)ng, PP_FOLD_GROUPS + 1);     /* a grouped, b alone */
    for (size_t g = 0; g < ng; g++) {
        int level_out[NA] = {0}, any = 0;
        for (size_t i = 0; i < N; i++) {
            int in = !isnan(y[i]) && pp_fold_group_has(&s, folds, group, (size_t)nf, g, i);
            if (in && g < PP_FOLD_GROUPS) /* a's groups come first */
                level_out[i / NB] = 1;
            any |= in;
        }
        CHECK(any);
        if (g >= PP_FOLD_GROUPS)
            continue;
        CHECK(!level_out[0] && !level_out[NA - 1]); /* never an edge */
        for (size_t a = 0; a < NA; a++) {
            out_count[a] += (size_t)level_out[a];
            if (!level_out[a])
                continue;
            /* the nearest measured values on either side are not left out */
            size_t lo = a - 1, hi = a + 1;
            lo -= lo == 5;
            hi += hi == 5;
            CHECK(!level_out[lo] && !level_out[hi]);
        }
    }
    for (size_t a = 1; a + 1 < NA; a++)
        CHECK_INT((long)out_count[a], a == 5 ? 0 : 1);
    free(folds);
    free(group);
    pp_surface_free(&s);
}

/* pp_choose on a 10 x 10 grid: 4 groups of levels left out, not 16 (each
 * re-makes the whole choice), every interior sample predicted once per
 * parameter with its value left out; 5 folds at measured levels, not 10
 * (100 samples: above the choice's subsample). */
void test_model_cost_choose_grouped(void);
void test_model_cost_choose_grouped(void)
{
    enum { SIDE = 10, N = SIDE * SIDE };
    double x[2 * N], y[N];
    pp_choose_options o;
    pp_choice c;
    pp_surface s;
    size_t per_sample[N] = {0};

    for (size_t i = 0; i < N; i++) {
        x[2 * i] = (double)(i / SIDE);
        x[2 * i + 1] = (double)(i % SIDE);
        y[i] = 2.0 + x[2 * i] * x[2 * i] + 0.5 * x[2 * i + 1] + 0.01 * (double)((i * 7) % 5);
    }
    CHECK_INT(pp_surface_init(&s, x, N, 2, NULL), 0);
    pp_choose_options_init(&o);
    o.keep_held = 1;
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK_INT((long)c.between_folds, 2 * PP_FOLD_GROUPS);
    /* at measured levels: 5 folds above the choice's subsample of 64 */
    CHECK_INT((long)c.folds, 5);
    CHECK_INT((long)c.n_held_between, 2 * (SIDE - 2) * SIDE);
    for (size_t k = 0; k < c.n_held_between; k++)
        per_sample[c.held_between_idx[k]]++;
    for (size_t i = 0; i < N; i++) {
        size_t a = i / SIDE, b = i % SIDE;
        CHECK_INT((long)per_sample[i], (a > 0 && a + 1 < SIDE) + (b > 0 && b + 1 < SIDE));
    }
    CHECK(c.between.n == c.n_held_between && isfinite(c.between.mape));
    pp_choice_free(&c);
    pp_surface_free(&s);
}

/* loclin's systems of order 1-3 solved inline (pp_lapack_dposv_small)
 * give LAPACK's dposv bits and info (the library's own call:
 * pp_lapack_dposv by columns), on well and badly conditioned systems and
 * on ones that are not positive definite; and a row-major system (its
 * triangle copied here, not by LAPACKE) gives what the same triangle by
 * columns gives, the other triangle holding other numbers. */
void test_model_cost_small_solves_are_lapack(void);
void test_model_cost_small_solves_are_lapack(void)
{
    unsigned seed = 21;
    int same = 1, info_same = 1, not_pd = 0;

    if (!pp_lapack_available())
        return;
    for (int it = 0; it < 30000; it++) {
        int n = 1 + it % 3;
        double x[9], a[9], a2[9], b[3], b2[3], r[9], rb[3];
        for (int i = 0; i < 9; i++)
            x[i] = unif(&seed) - 0.5;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double g = 0;
                for (int k = 0; k < n; k++)
                    g += x[i * 3 + k] * x[j * 3 + k];
                a[i + j * n] = g * pow(10.0, 6 * (unif(&seed) - 0.5)) +
                               (i == j ? (it % 5 ? 1e-3 : 1e-15) * unif(&seed) : 0);
            }
        if (it % 50 == 0)
            a[(n - 1) * (n + 1)] = -unif(&seed);
        for (int i = 0; i < n; i++)
            b[i] = (unif(&seed) - 0.5) * pow(10.0, 4 * (unif(&seed) - 0.5));
        memcpy(a2, a, sizeof a);
        memcpy(b2, b, sizeof b);
        for (int i = 0; i < n; i++) /* row-major: the upper triangle, junk below */
            for (int j = 0; j < n; j++)
                r[i * n + j] = j >= i ? a[i + j * n] : 1e3 * unif(&seed);
        memcpy(rb, b, sizeof b);
        int i1 = pp_lapack_dposv_small(n, a, b);
        int i2 = pp_lapack_dposv(PP_LAPACK_COL_MAJOR, 'U', n, 1, a2, n, b2, n);
        int i3 = pp_lapack_dposv(PP_LAPACK_ROW_MAJOR, 'U', n, 1, r, n, rb, 1);
        info_same &= i1 == i2 && i3 == i2;
        not_pd += i2 != 0;
        if (i2 == 0)
            same &= memcmp(b, b2, (size_t)n * sizeof *b) == 0 &&
                    memcmp(rb, b2, (size_t)n * sizeof *b) == 0;
    }
    CHECK(info_same);
    CHECK(same);
    CHECK(not_pd > 300); /* the refusals were exercised */
}

/* The residual smoother's length scales scored together (each fold's
 * least squares made once) predict what each scale alone predicts, to the
 * bit, in linear and log values. */
void test_model_cost_smoother_scales_together(void);
void test_model_cost_smoother_scales_together(void)
{
    enum { N = 24 };
    static const double h[3] = {0.15, 0.3, 0.6};
    double x[2 * N], y[N], together[3 * N], alone[N];
    size_t idx[N], idx1[N], n[3], n1;
    int rc[3];
    pp_fold *folds;
    pp_surface s;
    long nf = wavy_levels(N, 17, N, x, y, &s, &folds);
    for (int lg = 0; nf > 0 && lg <= 1; lg++) {
        pp_est_spec spec = {PP_METHOD_BOXCOX, lg, 0, {0.5, 1.0}, lg};
        CHECK_INT(pp_boxcox_gp_folds_scales(&s, y, &spec, h, 3, folds, (size_t)nf, idx, together,
                                            N, n, rc),
                  0);
        for (int j = 0; j < 3; j++) {
            spec.h = h[j];
            CHECK_INT(rc[j], 0);
            CHECK_INT(pp_boxcox_gp_folds(&s, y, &spec, folds, (size_t)nf, idx1, alone, &n1), 0);
            CHECK_INT(n[j], n1);
            CHECK(n1 > 0 && memcmp(idx, idx1, n1 * sizeof *idx) == 0);
            CHECK(memcmp(together + (size_t)j * N, alone, n1 * sizeof *alone) == 0);
        }
    }
    free(folds);
    pp_surface_free(&s);
}
