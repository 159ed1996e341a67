/* The plan chooses the clock with the rate (issue 44): a synthetic surface
 * over frame rate x GPU frequency whose best setting is known, planned for
 * five battery sizes by `powprof plan` (the model of the rows, its upper
 * band), each choice within one level of the known best and a level the
 * board has: a clock parameter (clocks.*) is planned on its measured
 * levels, also where the table's steps are uneven. */
#include "harness.h"

#include "battery/battery.h"
#include "src/plan/plan.h"
#include "src/plan/plan_battery.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_FPS 8
#define N_GPU 6
#define MISSION_S 3600.0

/* Every other level of the AGX Xavier's GPU table (evenly spaced, 204 MHz),
 * and six of its levels unevenly spaced (153 to 331.5 MHz apart: the
 * common step of such a list, 25.5 MHz, is no level of the board). */
static const double even_mhz[N_GPU] = {216.75, 420.75, 624.75, 828.75, 1032.75, 1236.75};
static const double uneven_mhz[N_GPU] = {114.75, 318.75, 522.75, 675.75, 905.25, 1236.75};
static const double *gpu_mhz = even_mhz;

/* A frame takes 12 Mcycles of GPU work, but never less than 22 ms (the
 * memory-bound floor): s per frame at f MHz. */
static double frame_s(double f) { return fmax(12.0 / f, 0.022); }

static double volts(double f) { return 0.65 + 0.35 * f / 1236.75; }

/* The index of the level of gpu_mhz nearest f. */
static int level_of(double f)
{
    int best = 0;

    for (int j = 1; j < N_GPU; j++)
        if (fabs(gpu_mhz[j] - f) < fabs(gpu_mhz[best] - f))
            best = j;
    return best;
}

/* The rate achieved when fps is asked at f, and the board's power: 3 W
 * static, leakage ~ V^2, switching ~ f V^2 x the share of time busy. */
static void truth(double fps, double f, double *achieved, double *power_w)
{
    double v = volts(f);

    *achieved = fmin(fps, 1.0 / frame_s(f));
    *power_w = 3.0 + 1.0 * v * v + (8.0 / 1236.75) * f * v * v * (*achieved * frame_s(f));
}

/* summary.csv of the whole grid (noise-free: the model's own error is
 * what the plan's band covers). */
static const char *surface_folder(const char *name)
{
    static char text[16384];
    char meta[512], levels[256];
    size_t len = 0, at = 0;
    int id = 0;

    len += (size_t)snprintf(text, sizeof text, "id,det.fps,clocks.gpu_mhz,status,duration_s,"
                            "iterations,late_frames,det.achieved_fps,samples,short_run,"
                            "total_mean_w,reason\n");
    for (int i = 0; i < N_FPS; i++)
        for (int j = 0; j < N_GPU; j++, id++) {
            double fps = 5.0 * (i + 1), a, w;
            truth(fps, gpu_mhz[j], &a, &w);
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "%d,%g,%g,ok,10,%d,%d,%.6f,100,0,%.6f,\n", id, fps,
                                    gpu_mhz[j], (int)(10 * a), a < fps * 0.999 ? 10 : 0, a, w);
        }
    for (int j = 0; j < N_GPU; j++)
        at += (size_t)snprintf(levels + at, sizeof levels - at, "%s%g", j ? "," : "", gpu_mhz[j]);
    snprintf(meta, sizeof meta, "{\"params\":{\"det.fps\":{\"scale\":\"linear\",\"values\":"
             "[5,10,15,20,25,30,35,40]},\"clocks.gpu_mhz\":{\"scale\":\"list\",\"values\":"
             "[%s]}}}", levels);
    return results_folder_with(name, text, meta);
}

/* The known best on the grid for a battery carrying max_w: the highest
 * achieved rate that is not short of its request by more than 5 % (the
 * plan's tolerance) and fits, the cheaper on a tie. Its indices. */
static void known_best(double max_w, int *bi, int *bj)
{
    double best_q = -1, best_w = INFINITY;

    *bi = *bj = -1;
    for (int i = 0; i < N_FPS; i++)
        for (int j = 0; j < N_GPU; j++) {
            double fps = 5.0 * (i + 1), a, w;
            truth(fps, gpu_mhz[j], &a, &w);
            if (a < 0.95 * fps || w > max_w)
                continue;
            if (a > best_q + 1e-9 || (fabs(a - best_q) <= 1e-9 && w < best_w)) {
                best_q = a;
                best_w = w;
                *bi = i;
                *bj = j;
            }
        }
}

static double after(const char *text, const char *key)
{
    const char *at = text ? strstr(text, key) : NULL;
    return at ? atof(at + strlen(key)) : NAN;
}

/* Plan the surface over the levels of table for five batteries. */
static void plan_five_batteries(const double *table, const char *name)
{
    static const double capacity_ah[5] = {0.33, 0.40, 0.47, 0.55, 0.70};
    const char *dir;
    int distinct = 0, last_i = -2, last_j = -2;

    gpu_mhz = table;
    dir = surface_folder(name);

    for (int b = 0; b < 5; b++) {
        pp_battery_params bat;
        char cfg[4096], text[256], *out = NULL;
        double max_w = 0, fps, gpu;
        int bi, bj, pi, pj;

        pp_battery_params_default(&bat);
        bat.capacity_ah = capacity_ah[b];
        CHECK_INT(pp_plan_max_power(&bat, MISSION_S, bat.soc_cutoff_frac, &max_w), 0);
        known_best(max_w, &bi, &bj);
        CHECK(bi >= 0);
        distinct += bi != last_i || bj != last_j;
        last_i = bi;
        last_j = bj;
        snprintf(cfg, sizeof cfg, "%s/battery%d.cfg", test_tmpdir(), b);
        snprintf(text, sizeof text, "battery = { capacity_ah = %g; };\n", capacity_ah[b]);
        write_file(cfg, text);
        CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "-c", cfg,
                              "--json", NULL), 0);
        fps = after(out, "\"best\":{\"det.fps\":");
        gpu = after(out ? strstr(out, "\"best\":{") : NULL, "\"clocks.gpu_mhz\":");
        pi = (int)lround(fps / 5.0) - 1;
        pj = level_of(gpu);
        /* a setting the board has: a level of the table */
        CHECK_NEAR(gpu, gpu_mhz[pj], 1e-6);
        if (abs(pi - bi) > 1 || abs(pj - bj) > 1)
            pp_test_fail(__FILE__, __LINE__, "battery %g Ah (%.2f W): plan %g fps at %g MHz, "
                         "known best %g fps at %g MHz", capacity_ah[b], max_w, fps, gpu,
                         5.0 * (bi + 1), gpu_mhz[bj]);
        if (getenv("POWPROF_TEST_VERBOSE"))
            printf("  %.2f Ah (%.2f W): plan %g fps @ %g MHz; best %g fps @ %g MHz\n",
                   capacity_ah[b], max_w, fps, gpu, 5.0 * (bi + 1), gpu_mhz[bj]);
        free(out);
    }
    CHECK(distinct >= 3); /* the batteries ask for different settings */
}

void test_clock_plan_recovers_best_gpu_and_rate(void);
void test_clock_plan_recovers_best_gpu_and_rate(void)
{
    plan_five_batteries(even_mhz, "clockplan");
}

/* Uneven steps: the plan's clock is one of the levels measured, never a
 * point of the list's common step between them. */
void test_clock_plan_uneven_table_measured_levels(void);
void test_clock_plan_uneven_table_measured_levels(void)
{
    plan_five_batteries(uneven_mhz, "clockplan-uneven");
}

/* The governor plans with the same candidates: its setting carries a clock
 * of the table too, with the rate (one phase, two readings of the charge). */
void test_clock_plan_governor_sets_clock_level(void);
void test_clock_plan_governor_sets_clock_level(void)
{
    char cfg[4096], readings[4096], *out = NULL;
    const char *dir;
    int rc;
    double gpu;

    gpu_mhz = uneven_mhz;
    dir = surface_folder("clockplan-gov");
    snprintf(cfg, sizeof cfg, "%s/battery-gov.cfg", test_tmpdir());
    write_file(cfg, "battery = { capacity_ah = 0.40; };\n");
    snprintf(readings, sizeof readings, "%s/readings.txt", test_tmpdir());
    write_file(readings, "0 1.0\n60 0.985\n");
    rc = run_powprof(&out, NULL, "govern", dir, "--mission-s", "3600", "-c", cfg, "--source",
                     readings, "--json", NULL);
    CHECK(rc == 0 || rc == 3);
    gpu = after(out, "\"clocks.gpu_mhz\":");
    CHECK(!isnan(gpu));
    if (!isnan(gpu))
        CHECK_NEAR(gpu, gpu_mhz[level_of(gpu)], 1e-6);
    CHECK(!isnan(after(out, "\"det.fps\":")));
    free(out);
}
