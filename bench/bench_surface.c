/* Surface benchmark (issues 5 and 10): the cross-validated bandwidth
 * search of the paper's weighted average (nw) on 10,000 samples in two
 * dimensions, a 100 x 100 lattice (what a sweep gives) and 10,000
 * scattered points (imports with arbitrary parameters). Target: the
 * search <= 2 s. (Its 1000 x 1000 grid evaluator, nw_grid.c, went with
 * issue 43: nothing but this benchmark and its test called it.) Then the
 * local-linear bandwidth search on 1,000 scattered samples (the thin-plate
 * spline timed beside it went with issue 43: never chosen). */
#include "src/base/clock.h"
#include "src/layer2/estimator.h"
#include "src/layer2/surface.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10000

static double now_s(void) { return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic)); }

static void run(const char *label, const double *x, const double *y)
{
    pp_surface s;
    pp_est_spec fit = {PP_METHOD_NW, 0, 0.0113, {0}, 0};
    pp_cv cv;
    double t0;

    if (pp_surface_init(&s, x, N, 2, NULL) < 0)
        return;
    t0 = now_s();
    if (pp_est_tune(&s, y, PP_METHOD_NW, 0, NULL, 0, &fit, &cv) < 0)
        printf("%s: cross-validation failed\n", label);
    else
        printf("%-10s sigma %.4g (LOO RMSE %.3g, MAPE %.3f%%), search %.3f s (target <= 2 s)\n",
               label, fit.h, cv.rmse, cv.mape, now_s() - t0);
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

/* loclin's bandwidth search on 1,000 scattered samples of the same
 * function with a little noise. */
static void loclin(void)
{
    enum { M = 1000 };
    static double x[2 * M], y[M];
    pp_est_spec spec;
    pp_surface s;
    pp_cv cv;
    double t0;

    scattered(x, y, M, 7, 0.01);
    if (pp_surface_init(&s, x, M, 2, NULL) < 0)
        return;
    t0 = now_s();
    if (pp_est_tune(&s, y, PP_METHOD_LOCLIN, 0, NULL, 0, &spec, &cv) < 0)
        printf("loclin: the search failed\n");
    else
        printf("loclin     1,000 scattered samples: bandwidth search %.3f s, sigma %.4g\n",
               now_s() - t0, spec.h);
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
    run("lattice", x, y);
    scattered(x, y, N, 5, 0.0);
    run("scattered", x, y);
    loclin();
    return 0;
}
