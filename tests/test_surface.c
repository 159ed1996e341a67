#include "harness.h"

#include "../src/surface.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void test_surface_exact_at_samples_and_constant(void);
void test_surface_exact_at_samples_and_constant(void)
{
    double x[] = {0, 0, 1, 0, 0, 1, 1, 1, 0.3, 0.6};
    double y[] = {1, 5, -2, 7, 3}, c[] = {4, 4, 4, 4, 4};
    pp_surface s;
    double p[2] = {0.77, 0.12};

    CHECK_INT(pp_surface_init(&s, x, 5, 2, NULL), 0);
    for (size_t i = 0; i < 5; i++)
        CHECK_NEAR(pp_surface_predict(&s, y, 1e-4, s.x + 2 * i), y[i], 1e-12);
    CHECK_NEAR(pp_surface_predict(&s, c, 0.3, p), 4.0, 1e-12);
    CHECK_NEAR(pp_surface_predict(&s, c, 30, p), 4.0, 1e-12);
    /* far from everything with a tiny sigma: the nearest value, not 0/0 */
    p[0] = 5.0;
    p[1] = 5.0;
    CHECK_NEAR(pp_surface_predict(&s, y, 1e-3, p), 7.0, 1e-12); /* nearest: (1, 1) */
    pp_surface_free(&s);
}

void test_surface_midpoint_and_log_scale(void);
void test_surface_midpoint_and_log_scale(void)
{
    double x[] = {10, 20}, y[] = {2, 4}, mid = 0.5;
    double sizes[] = {256, 512, 1024, 2048, 4096}, yy[5] = {0};
    int log_scale = 1;
    pp_surface s;

    CHECK_INT(pp_surface_init(&s, x, 2, 1, NULL), 0);
    CHECK_NEAR(pp_surface_predict(&s, y, 0.4, &mid), 3.0, 1e-12);
    pp_surface_free(&s);
    CHECK_INT(pp_surface_init(&s, sizes, 5, 1, &log_scale), 0);
    for (size_t i = 0; i < 5; i++)
        CHECK_NEAR(s.x[i], 0.25 * (double)i, 1e-12);
    CHECK_NEAR(pp_surface_denormalize(&s, 0, 0.5), 1024, 1e-9);
    CHECK_INT(s.k[0], 5);
    (void)yy;
    pp_surface_free(&s);
    sizes[0] = -1;
    CHECK_INT(pp_surface_init(&s, sizes, 5, 1, &log_scale), -EINVAL);
}

static double smooth(double a, double b) { return 3.0 + sin(3 * a) + 0.5 * cos(4 * b); }

/* On smooth data the cross-validated sigma beats a very small and a very
 * large one; the lattice sums equal the direct ones. */
void test_surface_cv_and_lattice(void);
void test_surface_cv_and_lattice(void)
{
    enum { K = 12 };
    double x[K * K * 2], y[K * K], fast[K * K], direct[K * K];
    pp_surface s;
    pp_surface_fit best, tiny, huge;

    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++) {
            x[(i * K + j) * 2] = i;
            x[(i * K + j) * 2 + 1] = j * 10.0;
            y[i * K + j] = smooth(i / (K - 1.0), j / (K - 1.0));
        }
    y[7] = NAN; /* a missing value is left out */
    CHECK_INT(pp_surface_init(&s, x, K * K, 2, NULL), 0);
    CHECK_INT(pp_surface_loo(&s, y, 0.07, fast), 0);
    CHECK_INT(pp_surface_loo_direct(&s, y, 0.07, direct), 0);
    for (int i = 0; i < K * K; i++)
        if (i != 7)
            CHECK_NEAR(fast[i], direct[i], 1e-9 * fabs(direct[i]));
    CHECK(isnan(fast[7]));
    pp_surface_free(&s);
    /* scattered samples of a smooth function with a little noise: on a
     * lattice the nearest neighbours are equidistant and a tiny sigma
     * averages them well; scattered, a tiny sigma is the nearest neighbour
     * alone, and noisy */
    {
        unsigned seed = 3;
        for (int i = 0; i < K * K; i++) {
            double a, b;
            seed = seed * 1103515245u + 12345u;
            a = (double)(seed >> 8) / 16777216.0;
            seed = seed * 1103515245u + 12345u;
            b = (double)(seed >> 8) / 16777216.0;
            seed = seed * 1103515245u + 12345u;
            x[i * 2] = a;
            x[i * 2 + 1] = b;
            y[i] = smooth(a, b) + 0.05 * ((double)(seed >> 8) / 16777216.0 - 0.5);
        }
    }
    CHECK_INT(pp_surface_init(&s, x, K * K, 2, NULL), 0);
    CHECK_INT(pp_surface_choose_sigma(&s, y, 0, &best), 0);
    CHECK_INT(pp_surface_cv(&s, y, 1e-3, 0, &tiny), 0);
    CHECK_INT(pp_surface_cv(&s, y, 3.0, 0, &huge), 0);
    CHECK(best.rmse < tiny.rmse);
    CHECK(best.rmse < huge.rmse);
    CHECK_INT(best.n_used, K * K);
    if (!(best.sigma > 1e-3 && best.sigma < 3.0))
        fprintf(stderr, "    sigma %g rmse %g (tiny %g, huge %g)\n", best.sigma, best.rmse, tiny.rmse, huge.rmse);
    CHECK(best.sigma > 1e-3 && best.sigma < 3.0);
    pp_surface_free(&s);
}

/* The fast grid equals the direct double loop, on a lattice and on
 * scattered samples, in 2 dimensions of 3. */
void test_surface_grid_matches_direct(void);
void test_surface_grid_matches_direct(void)
{
    enum { N = 300, G = 17 };
    static double x[N * 3], y[N], ga[G], gb[G], fast[G * G], direct[G * G];
    double fixed[3] = {0, 0, 0.4};
    unsigned seed = 9;
    pp_surface s;

    for (int i = 0; i < G; i++)
        ga[i] = gb[i] = -0.1 + 1.2 * i / (G - 1.0);
    for (int lattice = 0; lattice < 2; lattice++) {
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < 3; j++) {
                seed = seed * 1103515245u + 12345u;
                x[i * 3 + j] = lattice ? (double)((seed >> 16) % 5) : (double)(seed >> 8) / 16777216.0;
            }
            y[i] = smooth(x[i * 3], x[i * 3 + 1]) + x[i * 3 + 2];
        }
        CHECK_INT(pp_surface_init(&s, x, N, 3, NULL), 0);
        for (double sigma = 0.05; sigma < 2; sigma *= 4) {
            CHECK_INT(pp_surface_grid(&s, y, sigma, 0, ga, G, 1, gb, G, fixed, fast), 0);
            CHECK_INT(pp_surface_grid_direct(&s, y, sigma, 0, ga, G, 1, gb, G, fixed, direct), 0);
            for (int i = 0; i < G * G; i++)
                CHECK_NEAR(fast[i], direct[i], 1e-9 * fabs(direct[i]));
            /* a line */
            CHECK_INT(pp_surface_grid(&s, y, sigma, 2, ga, G, 2, NULL, 1, fixed, fast), 0);
            CHECK_INT(pp_surface_grid_direct(&s, y, sigma, 2, ga, G, 2, NULL, 1, fixed, direct), 0);
            for (int i = 0; i < G; i++)
                CHECK_NEAR(fast[i], direct[i], 1e-9 * fabs(direct[i]));
        }
        pp_surface_free(&s);
    }
}

/* Scattered samples (no lattice): the truncated leave-one-out sum equals the
 * direct one, in 1, 2 and 3 dimensions, for small and large bandwidths. */
void test_surface_loo_scattered(void);
void test_surface_loo_scattered(void)
{
    enum { N = 700 };
    static double x[N * 3], y[N], fast[N], direct[N];
    unsigned seed = 11;
    pp_surface s;

    for (size_t d = 1; d <= 3; d++) {
        for (int i = 0; i < N; i++) {
            for (size_t j = 0; j < d; j++) {
                seed = seed * 1103515245u + 12345u;
                /* clustered: some samples far from the others */
                x[i * d + j] = i % 50 == 0 ? 5.0 + (double)(seed >> 8) / 16777216.0
                                           : (double)(seed >> 8) / 16777216.0;
            }
            y[i] = smooth(x[i * d], d > 1 ? x[i * d + 1] : 0.3);
        }
        y[3] = NAN;
        CHECK_INT(pp_surface_init(&s, x, N, d, NULL), 0);
        for (double sigma = 0.002; sigma < 1.0; sigma *= 5) {
            CHECK_INT(pp_surface_loo(&s, y, sigma, fast), 0);
            CHECK_INT(pp_surface_loo_direct(&s, y, sigma, direct), 0);
            for (int i = 0; i < N; i++) {
                if (i == 3) {
                    CHECK(isnan(fast[i]));
                    continue;
                }
                if (!(fabs(fast[i] - direct[i]) <= 1e-9 * fabs(direct[i]))) {
                    pp_test_fail(__FILE__, __LINE__, "d %zu sigma %g sample %d: %.12g vs %.12g", d,
                                 sigma, i, fast[i], direct[i]);
                    break;
                }
            }
        }
        pp_surface_free(&s);
    }
}
