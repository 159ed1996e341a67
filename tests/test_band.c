/* The 90 % bands (issue 31, items 3 and 5): how far a point between
 * measured levels lies from them, the bands of metrics a derivation was
 * tried on, and the band beyond the measured range. */
#include "harness.h"

#include "src/layer2/model_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A grid whose energy is mean power x duration: one of the three is
 * derived, and the two that are not keep the band their own choice
 * calibrated (each trial derivation used to leave its band behind: the
 * power's band was that of energy / duration). */
void test_band_derivation_trials_leave_bands(void);
void test_band_derivation_trials_leave_bands(void)
{
    char csv[8192];
    size_t used = 0, kept = 0;
    unsigned seed = 3;
    const char *dir;
    pp_model m;
    int id = 0;

    used += (size_t)snprintf(csv, sizeof csv, "id,size,sleep_s,status,duration_s,total_mean_w,"
                                              "total_energy_j,reason\n");
    for (int a = 1; a <= 6; a++)
        for (int b = 0; b < 5; b++, id++) {
            double u[3];
            for (int k = 0; k < 3; k++) {
                seed = seed * 1103515245u + 12345u;
                u[k] = 0.04 * ((double)(seed >> 8) / 16777216.0 - 0.5);
            }
            double t = (0.02 * a * a * a + 2.0 * b + 1.0) * (1 + u[0]);
            double p = (3.0 + 0.5 * a - 0.2 * b) * (1 + u[1]);
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,%d,%d,ok,%.6g,%.6g,%.6g,\n",
                                     id, 100 * a, b, t, p, p * t * (1 + u[2]));
        }
    dir = results_folder_with("band-derive", csv, NULL);
    CHECK_INT(pp_model_open(dir, NULL, 0, &m), 0);
    for (size_t k = 0; k < m.sum.n_metrics; k++) {
        pp_model_group *g = &m.groups[0];
        pp_model_fit *f = &g->fits[k];
        pp_choose_options co;
        double *rep = NULL, *y;
        pp_choice c;
        if (f->n_values < 2 || f->derived)
            continue;
        y = pp_model_column(&m, g, k);
        CHECK(y != NULL);
        CHECK_INT(pp_model_choose_options(&m, g, k, &co, &rep), 0);
        CHECK_INT(pp_choose(&g->surf, y, &co, &c), 0);
        CHECK_NEAR(f->choice.band_q, c.band_q, 1e-12);
        CHECK(isnan(c.band_q_between) ? isnan(f->choice.band_q_between)
                                      : fabs(f->choice.band_q_between - c.band_q_between) < 1e-12);
        kept++;
        pp_choice_free(&c);
        free(rep);
        free(y);
    }
    CHECK_INT(kept, 2);
    pp_model_free(&m);
}
