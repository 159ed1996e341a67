/* Surface benchmark (issues 5 and 10): a 1000 x 1000 grid of the paper's
 * weighted average (nw) from 10,000 samples in two dimensions, powprof's
 * evaluator against the direct double loop in the same run (identical
 * within 1e-9 relative), and the cross-validated bandwidth search on the
 * same samples. Two sample sets: a 100 x 100 lattice (what a sweep gives)
 * and 10,000 scattered points (imports with arbitrary parameters). The
 * direct loop is timed on 20 grid rows and scaled to 1000 (it is exactly
 * linear in the grid points).
 * Targets: >= 50x faster than the direct loop, <= 0.5 s; the search <= 2 s;
 * issue 10: nw's grid within 2x of its time before the new estimators (its
 * ratio to the direct loop was 6400-8000x on the lattice and 390-470x
 * scattered on this machine: at least half of that). Then the thin-plate
 * spline (rbf) on 1,000 scattered samples: one fit (the (n + 3)-square
 * system, LAPACK dsytrf/dsytrs) <= 1 s, and its smoothing chosen by
 * leave-one-out (8 fits with the inverse's diagonal), beside the
 * local-linear bandwidth search on the same samples. */
#include "src/base/clock.h"
#include "src/layer2/estimator.h"
#include "src/layer2/nw.h"
#include "src/layer2/surface.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10000
#define G 1000
#define ROWS 20

static double now_s(void) { return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic)); }

static void run(const char *label, const double *x, const double *y, int search)
{
    pp_surface s;
    pp_est_spec fit = {PP_METHOD_NW, 0, 0.0113, {0}, 0};
    pp_cv cv;
    static double g[G], fast[G * G], direct[ROWS * G], pred[N];
    double fixed[2] = {0, 0}, t0, t_fast, t_direct, t_cv, worst = 0;

    for (int i = 0; i < G; i++)
        g[i] = i / (G - 1.0);
    if (pp_surface_init(&s, x, N, 2, NULL) < 0)
        return;
    t0 = now_s();
    if (search) {
        if (pp_est_tune(&s, y, PP_METHOD_NW, 0, NULL, 0, &fit, &cv) < 0) {
            printf("%s: cross-validation failed\n", label);
            pp_surface_free(&s);
            return;
        }
    } else { /* one leave-one-out pass only: the search takes ~50 of them */
        pp_est_loo(&s, y, &fit, pred);
        pp_cv_errors(&s, y, pred, &cv);
    }
    t_cv = now_s() - t0;
    t0 = now_s();
    pp_nw_grid(&s, y, fit.h, 0, g, G, 1, g, G, fixed, fast);
    t_fast = now_s() - t0;
    t0 = now_s();
    pp_nw_grid_direct(&s, y, fit.h, 0, g, ROWS, 1, g, G, fixed, direct);
    t_direct = (now_s() - t0) * (double)G / ROWS;
    for (int i = 0; i < ROWS * G; i++) {
        double r = fabs(fast[i] - direct[i]) / fabs(direct[i]);
        if (r > worst)
            worst = r;
    }
    if (search)
        printf("%-10s sigma %.4g (LOO RMSE %.3g, MAPE %.3f%%), search %.3f s (target <= 2 s)\n",
               label, fit.h, cv.rmse, cv.mape, t_cv);
    else
        printf("%-10s sigma %.4g: one leave-one-out pass %.3f s (the direct O(n^2) sum; a search "
               "makes about 50)\n", label, fit.h, t_cv);
    printf("%-10s grid 1000x1000: %.3f s (target <= 0.5 s); direct loop %.1f s (scaled from %d "
           "rows); %.0fx (target >= 50x); largest relative difference %.1e (target <= 1e-9)\n",
           "", t_fast, t_direct, ROWS, t_direct / t_fast, worst);
    pp_surface_free(&s);
}

/* n scattered samples of the benchmark's function in [0, 1]^2, with noise
 * of this amplitude. */
static void scattered(double *x, double *y, int n, unsigned seed, double noise)
{
    for (int i = 0; i < n; i++) {
        double a, b;
        seed = seed * 1103515245u + 12345u;
        a = (double)(seed >> 8) / 16777216.0;
        seed = seed * 1103515245u + 12345u;
        b = (double)(seed >> 8) / 16777216.0;
        x[2 * i] = a;
        x[2 * i + 1] = b;
        y[i] = 5.0 + 2.0 * sin(3.0 * a) * cos(2.0 * b) + a * b;
        if (noise > 0) { /* (without: the same samples as before the noise was added) */
            seed = seed * 1103515245u + 12345u;
            y[i] += noise * ((double)(seed >> 8) / 16777216.0 - 0.5);
        }
    }
}

/* rbf on 1,000 scattered samples of the same function with a little
 * noise: one fit, the smoothing search, and loclin's search beside. */
static void rbf(void)
{
    enum { M = 1000 };
    static double x[2 * M], y[M];
    pp_est_spec spec = {PP_METHOD_RBF, 0, 1e-4, {0}, 0}, tuned;
    pp_surface s;
    pp_cv cv;
    pp_est e;
    double t0, t_fit, t_tune, t_ll, xn[2] = {0.5, 0.5};

    scattered(x, y, M, 7, 0.01);
    if (pp_surface_init(&s, x, M, 2, NULL) < 0)
        return;
    t0 = now_s();
    if (pp_est_fit(&e, &s, y, &spec) < 0) {
        printf("rbf: the fit failed\n");
        pp_surface_free(&s);
        return;
    }
    t_fit = now_s() - t0;
    printf("rbf        1,000 scattered samples: one fit %.3f s (target <= 1 s); value at the middle "
           "%.6f (exact %.6f)\n", t_fit, pp_est_predict(&e, xn),
           5.0 + 2.0 * sin(1.5) * cos(1.0) + 0.25);
    pp_est_free(&e);
    t0 = now_s();
    pp_est_tune(&s, y, PP_METHOD_RBF, 0, NULL, 0, &tuned, &cv);
    t_tune = now_s() - t0;
    t0 = now_s();
    pp_est_tune(&s, y, PP_METHOD_LOCLIN, 0, NULL, 0, &spec, &cv);
    t_ll = now_s() - t0;
    printf("           its smoothing chosen by leave-one-out (8 fits): %.3f s, lambda %g; loclin's "
           "bandwidth search on the same samples %.3f s (%.1fx the rbf search)\n", t_tune,
           tuned.h, t_ll, t_ll / t_tune);
    pp_surface_free(&s);
}

int main(void)
{
    static double x[2 * N], y[N];

    for (int i = 0; i < N; i++) {
        double a = (i / 100) / 99.0, b = (i % 100) / 99.0;
        x[2 * i] = a;
        x[2 * i + 1] = b;
        y[i] = 5.0 + 2.0 * sin(3.0 * a) * cos(2.0 * b) + a * b;
    }
    run("lattice", x, y, 1);
    scattered(x, y, N, 5, 0.0);
    run("scattered", x, y, 1);
    rbf();
    return 0;
}
