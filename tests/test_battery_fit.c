/* powprof battery fit: the pack from flight logs (battery/fit.h,
 * src/results/flight_fit.h, src/traces/flight_log.h). Synthetic flights
 * are drained by the project's own battery model (pp_battery_run, CVODE)
 * from known parameters, with a logger's noise, and written as pyulog's
 * ulog2csv CSV and as a ULog. */
#include "harness.h"

#include "battery/fit.h"
#include "src/config/battery_config.h"
#include "src/results/flight_fit.h"
#include "src/traces/flight_log.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOISE_V 0.005     /* voltage, V (one sigma) */
#define NOISE_I_FRAC 0.01 /* current, of the reading */
#define DT_S 0.3          /* logging interval */

typedef struct flight {
    double *t_s, *v, *i, *soc; /* t_s in s from 0 */
    size_t n, cap;
} flight;

static void flight_free(flight *f)
{
    free(f->t_s);
    free(f->v);
    free(f->i);
    free(f->soc);
    memset(f, 0, sizeof *f);
}

static void on_sample(void *ctx, double t, double soc, double v, double i)
{
    flight *f = ctx;

    if (f->n == f->cap)
        return;
    if (f->n && t <= f->t_s[f->n - 1])
        return;
    f->t_s[f->n] = t;
    f->v[f->n] = v;
    f->i[f->n] = i;
    f->soc[f->n++] = soc;
}

/* A deterministic normal deviate (Box-Muller over a 64-bit LCG). */
static double gauss(uint64_t *s)
{
    double u1, u2;

    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    u1 = ((*s >> 11) + 0.5) / 9007199254740992.0;
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    u2 = ((*s >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The power a quadcopter draws at t of a flight of duration_s: on the
 * ground, a take-off burst, cruise with gusts, a loiter, landing. */
static double profile_w(double t, double duration_s, double scale_w, uint64_t *s)
{
    double w;

    if (t < 10)
        w = 8;
    else if (t < 25)
        w = 3.0 * scale_w;
    else if (t < 0.6 * duration_s)
        w = scale_w * (1.2 + 0.15 * sin(t / 7.0) + 0.05 * gauss(s));
    else if (t < duration_s - 20)
        w = scale_w * (0.9 + 0.05 * sin(t / 11.0) + 0.03 * gauss(s));
    else
        w = 0.6 * scale_w;
    return fmax(w, 1);
}

/* Drain truth with the profile over duration_s, sampled every DT_S, and
 * add the logger's noise. 0 or -1. */
static int make_flight(const pp_battery_params *truth, double duration_s, double scale_w,
                       uint64_t seed, flight *f)
{
    size_t n = (size_t)(duration_s / DT_S) + 1;
    double *t = malloc(n * sizeof *t), *w = malloc(n * sizeof *w);
    pp_battery_options o;
    pp_battery_result r;
    uint64_t s = seed;
    int rc;

    memset(f, 0, sizeof *f);
    f->cap = n;
    f->t_s = malloc(n * sizeof *f->t_s);
    f->v = malloc(n * sizeof *f->v);
    f->i = malloc(n * sizeof *f->i);
    f->soc = malloc(n * sizeof *f->soc);
    for (size_t k = 0; k < n; k++) {
        t[k] = (double)k * DT_S;
        w[k] = profile_w(t[k], duration_s, scale_w, &s);
    }
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    o.output = on_sample;
    o.output_ctx = f;
    rc = pp_battery_run(truth, &(pp_battery_load){t, w, n, 0}, &o, &r);
    free(t);
    free(w);
    for (size_t k = 0; k < f->n; k++) {
        f->v[k] += NOISE_V * gauss(&s);
        f->i[k] *= 1 + NOISE_I_FRAC * gauss(&s);
    }
    return rc == 0 && f->n == n ? 0 : -1;
}

/* The flight as pyulog's ulog2csv writes battery_status: timestamp in us
 * (from boot), columns in its order with others beside. */
static void write_csv(const char *path, const flight *f, int cells)
{
    FILE *fp = fopen(path, "w");
    double mah = 0;

    if (!fp)
        return;
    fprintf(fp, "timestamp,connected,voltage_v,voltage_filtered_v,current_a,current_filtered_a,"
                "average_current_a,discharged_mah,remaining,scale,temperature,cell_count,source,"
                "priority,capacity,warning\n");
    for (size_t k = 0; k < f->n; k++) {
        if (k)
            mah += 0.5 * (f->i[k] + f->i[k - 1]) * (f->t_s[k] - f->t_s[k - 1]) / 3.6;
        fprintf(fp, "%llu,1,%.6f,%.6f,%.6f,%.6f,0,%.4f,%.4f,1,nan,%d,0,0,0,0\n",
                (unsigned long long)llround(5e6 + f->t_s[k] * 1e6), f->v[k], f->v[k], f->i[k],
                f->i[k], mah, 0.5, cells);
    }
    fclose(fp);
}

static void truth_thevenin(pp_battery_params *p)
{
    pp_battery_params_default(p);
    p->model = PP_BATTERY_THEVENIN;
    p->capacity_ah = 2.8;
    p->r_int_ohm = 0.045;
    p->r1_ohm = 0.025;
    p->c1_f = 40.0 / p->r1_ohm;
    for (size_t i = 0; i < p->ocv_n; i++)
        p->ocv_v[i] += 0.02;
    p->soc_start_frac = 0.97;
    p->soc_cutoff_frac = 0;
    p->cutoff_v = 0;
}

static const char *tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", test_tmpdir(), name);
    return buf;
}

void test_battery_fit_thevenin_synthetic(void);
void test_battery_fit_thevenin_synthetic(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    flight f;
    char path[4200];
    const char *paths[1];

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 1500, 60, 7, &f), 0);
    write_csv(tmp_path(path, sizeof path, "thev_battery_status_0.csv"), &f, 4);
    write_csv("/tmp/h29_thev.csv", &f, 4);
    paths[0] = path;
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    printf("cap %g +- %g R0 %g +- %g R1 %g tau %g scale %g off %g s0 %g +- %g train %g held %g "
           "fitted %g before %g span %g nfev %d info %d\n", r.fit.pack.capacity_ah, r.fit.capacity_sd_ah,
           r.fit.pack.r_int_ohm, r.fit.r_int_sd_ohm, r.fit.pack.r1_ohm, r.fit.tau_s, r.fit.ocv_scale,
           r.fit.ocv_offset_v, r.fit.soc_start_frac[0], r.fit.soc_start_sd_frac[0], r.fit.train_rms_v,
           r.fl[0].held_rms_v, r.fl[0].fitted.v_rms, r.fl[0].before.v_rms, r.fit.soc_span_frac,
           r.fit.n_evaluations, r.fit.minpack_info);
    printf("soc end %g\n", f.soc[f.n - 1]);
    pp_flight_fit_free(&r);
    flight_free(&f);
}
