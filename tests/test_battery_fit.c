/* powprof battery fit: the pack from flight logs (battery/fit.h,
 * src/flight/flight_fit.h, src/flight/flight_log.h). Synthetic flights
 * are drained by the project's own battery model (pp_battery_run, CVODE)
 * from known parameters, with a logger's noise, and written as pyulog's
 * ulog2csv CSV and as a ULog. */
#include "harness.h"
#include "include/powprof/battery.h"
#include "ulog_build.h" /* the ULog buffer and messages the other tests build with */

#include "battery/fit.h"
#include "src/config/battery_config.h"
#include "src/plan/phases.h"
#include "src/flight/flight_fit.h"
#include "src/flight/flight_log.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
 * (from boot), its columns with others beside; values rounded to float as
 * the ULog stores them, so that the CSV and the .ulg hold the same. */
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
        fprintf(fp, "%llu,1,%.9g,%.9g,%.9g,%.9g,0,%.9g,0.5,1,nan,%d,0,0,0,0\n",
                (unsigned long long)llround(5e6 + f->t_s[k] * 1e6), (double)(float)f->v[k],
                (double)(float)f->v[k], (double)(float)f->i[k], (double)(float)f->i[k],
                (double)(float)mah, cells);
    }
    fclose(fp);
}

/* A ulog2csv CSV at path, its header written: timestamp, voltage_v,
 * current_a and then more (",a,b"). NULL (a failed check) when it cannot
 * be made. */
static FILE *csv_open(const char *path, const char *more)
{
    FILE *fp = fopen(path, "w");

    CHECK(fp != NULL);
    if (fp)
        fprintf(fp, "timestamp,voltage_v,current_a%s\n", more);
    return fp;
}

/* The flight as a bare ulog2csv CSV with the pack's cell_count (0: none
 * said) and capacity (mAh) columns. */
static void write_csv_pack(const char *path, const flight *f, int cells, int capacity_mah)
{
    FILE *fp = csv_open(path, ",cell_count,capacity");

    if (!fp)
        return;
    for (size_t k = 0; k < f->n; k++)
        fprintf(fp, "%.0f,%.5f,%.5f,%d,%d\n", 1e6 + f->t_s[k] * 1e6, f->v[k], f->i[k], cells,
                capacity_mah);
    fclose(fp);
}

/* ---- a ULog of the same samples --------------------------------------- */

/* A parameter message: "type name" and a 4-byte value. */
static void param(ulog_buf *u, const char *key, const void *value)
{
    uint8_t d[64];
    size_t k = strlen(key);

    d[0] = (uint8_t)k;
    memcpy(d + 1, key, k);
    memcpy(d + 1 + k, value, 4);
    ulog_msg(u, 'P', d, 1 + k + 4);
}

/* The flight as a ULog (PX4's format: header, formats, parameters, a
 * subscription, data), with BAT1_N_CELLS and BAT1_CAPACITY. */
static void write_ulg(const char *path, const flight *f, int32_t cells, float capacity_mah)
{
    static const char fmt[] = "battery_status:uint64_t timestamp;float voltage_v;float current_a;"
                              "float discharged_mah;float remaining;bool connected;";
    uint8_t head[16] = {'U', 'L', 'o', 'g', 0x01, 0x12, 0x35, 1}, sub[3 + 14] = {0, 3, 0};
    ulog_buf u = {0};
    double mah = 0;
    FILE *fp;

    ulog_put(&u, head, sizeof head);
    ulog_msg(&u, 'F', fmt, strlen(fmt));
    param(&u, "int32_t BAT1_N_CELLS", &cells);
    param(&u, "float BAT1_CAPACITY", &capacity_mah);
    memcpy(sub + 3, "battery_status", 14);
    ulog_msg(&u, 'A', sub, sizeof sub);
    for (size_t k = 0; k < f->n; k++) {
        uint8_t d[2 + 8 + 4 * 4 + 1];
        uint16_t id = 3;
        uint64_t t_us = (uint64_t)llround(5e6 + f->t_s[k] * 1e6);
        float v = (float)f->v[k], i = (float)f->i[k], m, rem = 0.5f;
        if (k)
            mah += 0.5 * (f->i[k] + f->i[k - 1]) * (f->t_s[k] - f->t_s[k - 1]) / 3.6;
        m = (float)mah;
        memcpy(d, &id, 2);
        memcpy(d + 2, &t_us, 8);
        memcpy(d + 10, &v, 4);
        memcpy(d + 14, &i, 4);
        memcpy(d + 18, &m, 4);
        memcpy(d + 22, &rem, 4);
        d[26] = 1;
        ulog_msg(&u, 'D', d, sizeof d);
    }
    fp = fopen(path, "wb");
    if (fp) {
        fwrite(u.b, 1, u.n, fp);
        fclose(fp);
    }
    free(u.b);
}

/* ---- the packs that made the flights ------------------------------------ */

/* A 4S pack unlike the default preset: 2.8 Ah, 45 mOhm, an RC pair of
 * 40 s, its curve 20 mV a cell above the table; flown from 97 %. */
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

/* The same pack with the Li-ion (NMC) curve and 5 Ah. */
static void truth_liion(pp_battery_params *p)
{
    truth_thevenin(p);
    pp_battery_ocv_curve("liion", p);
    p->capacity_ah = 5;
}

static const char *tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", test_tmpdir(), name);
    return buf;
}

static int within_frac(double got, double want, double frac)
{
    return fabs(got / want - 1) <= frac;
}

/* One synthetic flight of truth (make_flight's arguments) written as the
 * ulog2csv CSV name under the test's folder (its path into path, 4200
 * bytes) and fitted with model: pp_flight_fit_run's return, the fit in r. */
static int fit_one_csv(const pp_battery_params *truth, double duration_s, double scale_w,
                       uint64_t seed, const char *name, pp_battery_model model, flight *f,
                       char *path, pp_flight_fit *r)
{
    const char *paths[1] = {path};
    pp_flight_fit_options o;

    if (make_flight(truth, duration_s, scale_w, seed, f) < 0)
        return -1;
    write_csv(tmp_path(path, 4200, name), f, 4);
    pp_flight_fit_options_init(&o);
    o.model = model;
    return pp_flight_fit_run(paths, 1, &o, r);
}

/* A 25-minute flight of the thevenin pack, fitted on its first half:
 * capacity and resistance within 3 %, the start within 2 points, the
 * held-out voltage RMS within 1.5 x the voltage noise, far better than the
 * preset. */
void test_battery_fit_thevenin_synthetic(void);
void test_battery_fit_thevenin_synthetic(void)
{
    pp_battery_params truth;
    pp_flight_fit r;
    flight f;
    char path[4200];

    truth_thevenin(&truth);
    CHECK_INT(fit_one_csv(&truth, 1500, 60, 7, "thev_battery_status_0.csv", PP_BATTERY_THEVENIN,
                          &f, path, &r),
              0);
    CHECK(f.soc[f.n - 1] < 0.4); /* the flight goes below 40 % */
    CHECK_INT(r.n_flights, 1);
    CHECK(r.fit.capacity_fitted && r.capacity_pinned && !r.capacity_held);
    CHECK(within_frac(r.fit.pack.capacity_ah, truth.capacity_ah, 0.03));
    CHECK(within_frac(r.fit.pack.r_int_ohm, truth.r_int_ohm, 0.03));
    CHECK(within_frac(r.fit.pack.r1_ohm, truth.r1_ohm, 0.10));
    CHECK(within_frac(r.fit.tau_s, 40, 0.10));
    CHECK_NEAR(r.fit.soc_start_frac[0], truth.soc_start_frac, 0.02);
    CHECK_NEAR(r.fl[0].held_rms_v, 0, 1.5 * NOISE_V);
    CHECK_NEAR(r.fl[0].fitted.v_rms, 0, 1.5 * NOISE_V); /* battery FLIGHT's way (CVODE) */
    CHECK(r.fl[0].before.v_rms > 20 * r.fl[0].fitted.v_rms);
    CHECK(within_frac(r.fl[0].fitted.mah_model, r.fl[0].fitted.mah_current, 0.01));
    /* the uncertainty covers the error it states */
    CHECK(fabs(r.fit.pack.capacity_ah - truth.capacity_ah) < 5 * r.fit.capacity_sd_ah + 0.01);
    CHECK_INT(r.fl[0].n, f.n);
    CHECK(r.fl[0].n_train > f.n / 2 - 2 && r.fl[0].n_train < f.n / 2 + 2);
    pp_flight_fit_free(&r);
    flight_free(&f);
}

/* The rint model: its voltage and resistance within 3 %; its capacity is
 * not fitted (the voltage carries no charge) and said so. */
void test_battery_fit_rint_synthetic(void);
void test_battery_fit_rint_synthetic(void)
{
    pp_battery_params truth;
    pp_flight_fit r;
    flight f;
    char path[4200], *out = NULL;

    pp_battery_params_default(&truth);
    truth.voltage_v = 15.6;
    truth.r_int_ohm = 0.05;
    truth.capacity_ah = 5;
    truth.soc_cutoff_frac = 0;
    truth.cutoff_v = 0;
    CHECK_INT(fit_one_csv(&truth, 900, 60, 11, "rint.csv", PP_BATTERY_RINT, &f, path, &r), 0);
    CHECK(!r.fit.capacity_fitted);
    CHECK(within_frac(r.fit.pack.voltage_v, truth.voltage_v, 0.03));
    CHECK(within_frac(r.fit.pack.r_int_ohm, truth.r_int_ohm, 0.03));
    CHECK_NEAR(r.fl[0].held_rms_v, 0, 1.5 * NOISE_V);
    CHECK_NEAR(r.fit.pack.capacity_ah, 3.2, 1e-12); /* kept: the pack's */
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, "--model", "rint", NULL), 0);
    CHECK_CONTAINS(out, "rint's voltage says nothing of the charge");
    free(out);
    flight_free(&f);
}

/* Two flights of one pack, from different starts, fitted together: one
 * capacity, a start each. */
void test_battery_fit_two_flights_jointly(void);
void test_battery_fit_two_flights_jointly(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    flight f1, f2;
    char p1[4200], p2[4200];
    const char *paths[2] = {p1, p2};

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 900, 60, 3, &f1), 0);
    truth.soc_start_frac = 0.8;
    CHECK_INT(make_flight(&truth, 700, 50, 5, &f2), 0);
    write_csv(tmp_path(p1, sizeof p1, "one.csv"), &f1, 4);
    write_csv(tmp_path(p2, sizeof p2, "two.csv"), &f2, 4);
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 2, &o, &r), 0);
    CHECK_INT(r.n_flights, 2);
    CHECK_INT(r.fit.n_params, 6 + 2);
    CHECK_INT(r.fit.n_residuals, (int)(r.fl[0].n_train + r.fl[1].n_train));
    CHECK(within_frac(r.fit.pack.capacity_ah, truth.capacity_ah, 0.03));
    CHECK(within_frac(r.fit.pack.r_int_ohm, truth.r_int_ohm, 0.03));
    CHECK_NEAR(r.fit.soc_start_frac[0], 0.97, 0.02);
    CHECK_NEAR(r.fit.soc_start_frac[1], 0.80, 0.02);
    CHECK_NEAR(r.fl[1].held_rms_v, 0, 1.5 * NOISE_V);
    pp_flight_fit_free(&r);
    flight_free(&f1);
    flight_free(&f2);
}

/* A flight of two minutes covers too little of the charge: with the
 * log's capacity (a ULog's BAT1_CAPACITY) the capacity and the curve are
 * held at it; without (the CSV), the capacity is said undetermined, with
 * what to do; never a preset's capacity held. */
void test_battery_fit_short_flight_warned(void);
void test_battery_fit_short_flight_warned(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    flight f;
    char path[4200], ulg[4200], cover[128], *out = NULL;
    const char *paths[1] = {ulg};

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 120, 60, 13, &f), 0);
    write_csv(tmp_path(path, sizeof path, "short.csv"), &f, 4);
    write_ulg(tmp_path(ulg, sizeof ulg, "short.ulg"), &f, 4, 2800);
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK(r.curve_held && r.capacity_held && !r.capacity_pinned && !r.fit.capacity_fitted);
    CHECK_NEAR(r.fit.pack.capacity_ah, 2.8, 1e-12); /* the log's */
    CHECK(r.first_span_frac < 0.10);
    CHECK(r.fl[0].held_rms_v < 0.05);
    /* issue 41 defect 6: the charge covered is the reported pack's, not the
     * first (discarded) fit's */
    snprintf(cover, sizeof cover, "(%.1f %% with the capacity held, 2.8 Ah)",
             100 * r.fit.soc_span_frac);
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", ulg, NULL), 0);
    CHECK_CONTAINS(out, cover);
    CHECK_CONTAINS(out, "too little of the charge");
    CHECK_CONTAINS(out, "Fly to below 40 %");
    free(out);
    paths[0] = path; /* no capacity in the log: the pack it replaces keeps its own */
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK(r.curve_held && r.capacity_held && !r.capacity_pinned && !r.fit.capacity_fitted);
    CHECK_NEAR(r.fit.pack.capacity_ah, r.prior.capacity_ah, 1e-12);
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, NULL), 0);
    CHECK_CONTAINS(out, "too little of the charge");
    CHECK_CONTAINS(out, "held (the pack it replaces)");
    free(out);
    flight_free(&f);
}

/* A 35-minute flight of a large LiPo pack that uses a fifth of its charge
 * (the fitted half: 13 %): the curve is held at the table's and the
 * capacity read from its slope, said. */
void test_battery_fit_partial_discharge(void);
void test_battery_fit_partial_discharge(void)
{
    pp_battery_params truth;
    pp_flight_fit r;
    flight f;
    char path[4200], *out = NULL;

    truth_thevenin(&truth);
    truth.capacity_ah = 16;
    CHECK_INT(fit_one_csv(&truth, 2100, 100, 29, "partial.csv", PP_BATTERY_THEVENIN, &f, path, &r),
              0);
    CHECK(r.curve_held && !r.capacity_held && r.fit.capacity_fitted && !r.capacity_pinned);
    /* the truth's curve is 20 mV a cell above the table held: the capacity
     * is off by 6 % (far more than its +-, which leaves the curve's error
     * out), the held-out voltage still within 2 x the noise */
    CHECK(within_frac(r.fit.pack.capacity_ah, 16, 0.10));
    CHECK_NEAR(r.fl[0].fitted.v_rms, 0, 2 * NOISE_V);
    CHECK(r.fl[0].before.v_rms > 0.2 || isnan(r.fl[0].before.v_rms));
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, NULL), 0);
    CHECK_CONTAINS(out, "the curve is held at the table's and the capacity read from its slope");
    free(out);
    flight_free(&f);
}

/* The ulog2csv CSV and the .ulg of the same samples give the same fit; the
 * ULog's BAT1_* parameters are read (the cells from BAT1_N_CELLS). */
void test_battery_fit_csv_and_ulog_agree(void);
void test_battery_fit_csv_and_ulog_agree(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit a, b;
    pp_ulog_flight lf;
    flight f;
    char csv[4200], ulg[4200];
    const char *pc[1] = {csv}, *pu[1] = {ulg};

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 1200, 60, 17, &f), 0);
    write_csv(tmp_path(csv, sizeof csv, "same.csv"), &f, 4);
    write_ulg(tmp_path(ulg, sizeof ulg, "same.ulg"), &f, 4, 2800);
    CHECK(pp_flight_log_is(csv) && pp_flight_log_is(ulg));
    CHECK_INT(pp_flight_log_read(ulg, &lf), 0);
    CHECK_NEAR(lf.params[0].n_cells, 4, 0);
    CHECK_NEAR(lf.params[0].capacity_mah, 2800, 0);
    CHECK(isnan(lf.params[0].v_empty));
    CHECK_INT(lf.bat[0].n, f.n);
    pp_ulog_flight_free(&lf);
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(pc, 1, &o, &a), 0);
    CHECK_INT(pp_flight_fit_run(pu, 1, &o, &b), 0);
    CHECK_STR(a.cells_source, "the log's cell_count");
    CHECK_STR(b.cells_source, "the log's BAT_N_CELLS");
    CHECK_INT(a.fl[0].n, b.fl[0].n);
    CHECK_NEAR(a.fit.pack.capacity_ah, b.fit.pack.capacity_ah, 1e-6 * a.fit.pack.capacity_ah);
    CHECK_NEAR(a.fit.pack.r_int_ohm, b.fit.pack.r_int_ohm, 1e-6 * a.fit.pack.r_int_ohm);
    CHECK_NEAR(a.fit.soc_start_frac[0], b.fit.soc_start_frac[0], 1e-6);
    CHECK_NEAR(a.fl[0].fitted.v_rms, b.fl[0].fitted.v_rms, 1e-6);
    pp_flight_fit_free(&a);
    pp_flight_fit_free(&b);
    flight_free(&f);
}

/* Hostile and untidy battery_status CSVs: errors name the file and line;
 * what is left out is counted; column order, extra columns, CRLF, empty
 * fields and NaN are read. */
void test_battery_fit_hostile_csv(void);
void test_battery_fit_hostile_csv(void)
{
    pp_ulog_flight f;
    char path[4200], *err = NULL;

    tmp_path(path, sizeof path, "h.csv");
    write_file(path, "timestamp,voltage_v,remaining\n1000000,16.0,0.9\n");
    CHECK_INT(pp_flight_log_read(path, &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "h.csv:1: no 'current_a' column");
    pp_ulog_flight_free(&f);
    write_file(path, "timestamp,voltage_v,current_a\n1000000,16.0,1\n1300000,16.0,1\n"
                     "1200000,16.0,1\n");
    CHECK_INT(pp_flight_log_read(path, &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "h.csv:4: timestamp 1200000 us goes back");
    pp_ulog_flight_free(&f);
    write_file(path, "timestamp,voltage_v,current_a\n1000000,16.0,1\n1300000,abc,1\n");
    CHECK_INT(pp_flight_log_read(path, &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "h.csv:3: column 'voltage_v': 'abc' is not a number");
    pp_ulog_flight_free(&f);
    write_file(path, "timestamp,voltage_v,current_a\n1000000,16.0\n");
    CHECK_INT(pp_flight_log_read(path, &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "h.csv:2: 2 fields");
    pp_ulog_flight_free(&f);
    write_file(path, "timestamp,voltage_v,current_a\n0,16,-1.5\n100000,16,-1.5\n200000,16,-2\n"
                     "300000,16,-2\n");
    {
        pp_flight_fit_options o;
        pp_flight_fit r;
        const char *paths[1] = {path};
        pp_flight_fit_options_init(&o);
        CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), -EINVAL);
        CHECK_CONTAINS(test_log(), "h.csv: battery 0: the logged current draws -");
        pp_flight_fit_free(&r);
    }
    write_file(path, "timestamp,voltage_v,current_a\nnan,16,1\n");
    CHECK_INT(pp_flight_log_read(path, &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "h.csv:2: timestamp nan");
    pp_ulog_flight_free(&f);
    /* untidy but readable: columns reordered, CRLF, spaces, extra columns;
     * left out: NaN, empty, -1 (not measured), disconnected, a repeated
     * time, a current of 0 while the voltage sags */
    write_file(path, "scale, current_a ,connected,timestamp,voltage_v,warning\r\n"
                     "1,1.0,1,1000000,16.40,0\r\n"
                     "1,10.0,1,1300000,16.00,0\r\n"
                     "1,nan,1,1600000,16.00,0\r\n"
                     "1,,1,1900000,16.00,0\r\n"
                     "1,-1,1,2200000,16.00,0\r\n"
                     "1,10.0,0,2500000,16.00,0\r\n"
                     "1,10.0,1,2800000,15.90,0\r\n"
                     "1,10.0,1,2800000,15.90,0\r\n"
                     "1,0,1,3100000,15.80,0\r\n"
                     "1,0.5,1,3400000,16.35,0\r\n"
                     "1,0.0,1,3700000,0.0,0\r\n"
                     "\r\n");
    CHECK_INT(pp_flight_log_read(path, &f), 0);
    CHECK_INT(f.n_batteries, 1);
    CHECK_INT(f.bat[0].n, 4);
    CHECK_NEAR(f.bat[0].t_s[3], 3.4, 1e-12);
    CHECK_NEAR(f.bat[0].current_a[1], 10, 0);
    CHECK_INT(f.n_unmeasured, 3);
    CHECK_INT(f.n_implausible, 1); /* a voltage of 0, as the ULog reader counts it */
    CHECK_INT(f.n_disconnected, 1);
    CHECK_INT(f.n_duplicate, 1);
    CHECK_INT(f.n_zero_sag, 1);
    pp_ulog_flight_free(&f);
    /* ulog2csv -d ';' (and numpy's True/False for a bool column) */
    write_file(path, "timestamp;connected;voltage_v;current_a\n1000000;True;16.4;1.0\n"
                     "1300000;False;16.0;10\n1600000;True;16.1;9\n");
    CHECK_INT(pp_flight_log_read(path, &f), 0);
    CHECK_INT(f.bat[0].n, 2);
    CHECK_INT(f.n_disconnected, 1);
    pp_ulog_flight_free(&f);
    /* the command: the error with its line, exit 2, nothing written */
    write_file(path, "timestamp,voltage_v,current_a\n1000000,16.0,1\n900000,16.0,1\n");
    CHECK_INT(run_powprof(NULL, &err, "battery", "fit", path, "-o", tmp_path((char[4200]){0}, 4200, "no.cfg"), NULL), 2);
    CHECK_CONTAINS(err, "h.csv:3: timestamp 900000 us goes back");
    free(err);
    CHECK(access(tmp_path((char[4200]){0}, 4200, "no.cfg"), F_OK) != 0);
    CHECK_INT(run_powprof(NULL, &err, "battery", path, NULL), 2);
    CHECK_CONTAINS(err, "goes back");
    free(err);
}

/* -o writes a battery group that every command reads: the fitted values
 * back, `battery FLIGHT -c` reproduces the fitted flight, `battery TRACE
 * -c` and `plan -c` fly it. */
void test_battery_fit_pack_read_back(void);
void test_battery_fit_pack_read_back(void)
{
    pp_battery_params truth, back;
    flight f;
    char csv[4200], cfg[4200], trace[4200], *out = NULL, *text;
    const char *dir;

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 1500, 60, 7, &f), 0);
    write_csv(tmp_path(csv, sizeof csv, "flight_battery_status_0.csv"), &f, 4);
    tmp_path(cfg, sizeof cfg, "pack.cfg");
    tmp_path(trace, sizeof trace, "fitplot");
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", csv, "-o", cfg, "--plot", trace, NULL), 0);
    CHECK_CONTAINS(out, "held out (not fitted)");
    free(out);
    strcat(trace, "/battery-fit.gp");
    text = slurp(trace);
    CHECK_CONTAINS(text, "set object 1 rect from 0, graph 0 to 750, graph 1"); /* the fitted part */
    CHECK_CONTAINS(text, "using 1:4 with lines"); /* the residual */
    free(text);
    if (access("/usr/bin/gnuplot", X_OK) == 0) {
        strcpy(strrchr(trace, '.'), ".png");
        CHECK(access(trace, F_OK) == 0);
    }
    text = slurp(cfg);
    CHECK_CONTAINS(text, "# A pack fitted by powprof battery fit (thevenin model) on ");
    CHECK_CONTAINS(text, "flight_battery_status_0.csv (battery 0): fitted on 750 of 1500 s");
    CHECK_CONTAINS(text, "held out: voltage RMS 0.00");
    free(text);
    pp_battery_params_default(&back);
    CHECK_INT(pp_battery_params_load(cfg, &back), 0);
    CHECK_INT(back.model, PP_BATTERY_THEVENIN);
    CHECK(within_frac(back.capacity_ah, truth.capacity_ah, 0.03));
    CHECK(within_frac(back.r_int_ohm, truth.r_int_ohm, 0.03));
    CHECK_NEAR(back.soc_start_frac, 1, 0);
    /* battery FLIGHT -c PACK: the fitted flight again */
    CHECK_INT(run_powprof(&out, NULL, "battery", csv, "-c", cfg, "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"model\":\"thevenin\"");
    {
        const char *k = out ? strstr(out, "\"voltage_rms_v\":") : NULL;
        CHECK(k && atof(k + 16) < 1.5 * NOISE_V);
    }
    free(out);
    /* a trace drained with it */
    tmp_path(trace, sizeof trace, "trace.csv");
    write_file(trace, "t_s,total_w\n0,50\n600,50\n");
    CHECK_INT(run_powprof(&out, NULL, "battery", trace, "-c", cfg, NULL), 0);
    CHECK_CONTAINS(out, "thevenin model, 4 cells, 2.8");
    free(out);
    /* a plan on it */
    dir = results_folder_with("fitplan", "id,fps,status,duration_s,iterations,late_frames,"
                              "total_mean_w,reason\n0,1,ok,1,1,0,10,\n1,2,ok,1,1,0,20,\n"
                              "2,3,ok,1,1,0,30,\n", NULL);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "-c", cfg, NULL), 0);
    CHECK_CONTAINS(out, "best:");
    free(out);
    flight_free(&f);
}

/* battery FLIGHT.ulg (issue 32, items 5 and 8): by default the thevenin
 * model with the autopilot's BAT_* parameters of the log; the gaps put
 * where they come from (the voltage model; the log's sampling), never the
 * voltage's blamed on the sampling. */
void test_battery_flight_log_pack_and_gaps(void);
void test_battery_flight_log_pack_and_gaps(void)
{
    pp_ulog_flight f;
    char *out = NULL;

    CHECK_INT(pp_ulog_read_battery(fixture("ulog/sample_log_small.ulg"), &f), 0);
    CHECK_NEAR(f.params[0].n_cells, 6, 0);
    CHECK_NEAR(f.params[0].capacity_mah, 30000, 0);
    CHECK_NEAR(f.params[0].v_empty, 3.5, 1e-6);
    CHECK_NEAR(f.params[0].v_charged, 4.05, 1e-6);
    CHECK_NEAR(f.params[1].n_cells, 12, 0);
    CHECK_NEAR(f.params[1].capacity_mah, 6000, 0);
    CHECK_NEAR(f.params[1].r_internal_ohm, 0.00617284, 1e-7);
    pp_ulog_flight_free(&f);
    CHECK_INT(run_powprof(&out, NULL, "battery", fixture("ulog/sample_log_small.ulg"), NULL), 0);
    CHECK_CONTAINS(out, "thevenin model (with the autopilot's BAT_* parameters of the log)");
    CHECK_CONTAINS(out, "this gap is the log's sampling, not the model");
    CHECK(out && !strstr(out, "so the sampling, not the pack, explains it"));
    free(out);
    /* the preset's rint: the voltage gap named as the voltage model's */
    CHECK_INT(run_powprof(&out, NULL, "battery", fixture("ulog/sample_log_small.ulg"), "--model",
                          "rint", NULL), 0);
    CHECK_CONTAINS(out, "lower than the logged one on average: this pack's open-circuit curve");
    free(out);
    /* import ulog flies the log's pack in its summary, and says so */
    {
        char dir[4200], *err = NULL;
        tmp_path(dir, sizeof dir, "logpack");
        CHECK_INT(run_powprof(NULL, &err, "import", "ulog", fixture("ulog/sample_log_small.ulg"),
                              "-o", dir, NULL), 0);
        CHECK_CONTAINS(err, "the summary's battery: the autopilot's BAT_* parameters");
        CHECK_CONTAINS(err, "(thevenin, 6 cells, 30 Ah");
        free(err);
    }
}

/* The short real log (pyulog's sample, 6 s, two packs): a fit runs,
 * holds what 6 s cannot give, and beats the preset on the held-out part. */
void test_battery_fit_real_short_log(void);
void test_battery_fit_real_short_log(void)
{
    pp_flight_fit_options o;
    pp_flight_fit r;
    const char *paths[1] = {fixture("ulog/sample_log_small.ulg")};

    pp_flight_fit_options_init(&o);
    o.instance = 1;
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_INT(r.fit.pack.cells, 12);
    CHECK(r.capacity_held && r.rc_held);
    CHECK_NEAR(r.fit.pack.capacity_ah, 6, 1e-12); /* the log's */
    CHECK(r.fl[0].fitted.v_rms < 0.1);
    CHECK(r.fl[0].before.v_rms > 1);
    pp_flight_fit_free(&r);
    paths[0] = fixture("ulog/sample.ulg");
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), -EINVAL);
    CHECK_CONTAINS(test_log(), "sample.ulg: no battery_status sample");
    pp_flight_fit_free(&r);
}

/* The ulog2csv CSV is a flight log everywhere a .ulg is: `import ulog`
 * and a mission phase's base trace. */
void test_battery_fit_csv_everywhere(void);
void test_battery_fit_csv_everywhere(void)
{
    pp_battery_params truth;
    pp_phase_load l;
    flight f;
    char csv[4200], dir[4200], trace[4300], *out = NULL;
    double e = 0;

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 120, 60, 19, &f), 0);
    write_csv(tmp_path(csv, sizeof csv, "log_battery_status_0.csv"), &f, 4);
    tmp_path(dir, sizeof dir, "imported");
    CHECK_INT(run_powprof(&out, NULL, "import", "ulog", csv, "-o", dir, NULL), 0);
    CHECK_CONTAINS(out, "battery 0: 401 samples over 120.0 s");
    free(out);
    snprintf(trace, sizeof trace, "%s/traces/0.csv", dir);
    CHECK(access(trace, F_OK) == 0);
    CHECK_INT(pp_phase_load_trace(csv, 0, 60, &l), 0);
    for (size_t k = 1; k < f.n && f.t_s[k] <= 60 + 1e-9; k++)
        e += 0.5 * (f.v[k] * f.i[k] + f.v[k - 1] * f.i[k - 1]) * (f.t_s[k] - f.t_s[k - 1]);
    CHECK_NEAR(l.mean_w, e / 60, 1e-3 * e / 60);
    pp_phase_load_free(&l);
    flight_free(&f);
}

/* A Li-ion pack (the NMC curve, steeper below half charge): --ocv auto
 * fits both curves and keeps Li-ion's on the fitted part alone; the LiPo
 * table forced on it extrapolates the held-out part worse. */
void test_battery_fit_ocv_auto_liion(void);
void test_battery_fit_ocv_auto_liion(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    flight f;
    char path[4200];
    const char *paths[1] = {path};
    double held_auto;

    truth_liion(&truth);
    CHECK_INT(make_flight(&truth, 2100, 100, 23, &f), 0);
    write_csv(tmp_path(path, sizeof path, "liion.csv"), &f, 4);
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_STR(r.ocv_curve, "liion");
    CHECK(r.ocv_other_rms_v > 2 * r.fit.train_rms_v);
    CHECK(within_frac(r.fit.pack.capacity_ah, 5, 0.03));
    CHECK_NEAR(r.fl[0].fitted.v_rms, 0, 1.5 * NOISE_V);
    held_auto = r.fl[0].fitted.v_rms;
    pp_flight_fit_free(&r);
    o.ocv = "pack";
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_STR(r.ocv_curve, "the pack's");
    CHECK(r.fl[0].fitted.v_rms > 5 * held_auto);
    pp_flight_fit_free(&r);
    flight_free(&f);
}

/* Issue 46 item 10: reading a log is linear in its samples. Ten minutes
 * at 1 kHz (600,000 rows; the old rescan of the last 60 s per sample took
 * about 30 s of CPU) read in under 3 s of CPU, and the sag rule still
 * holds: a current of 0 with the voltage 3 % under the minute's highest
 * is left out, one 1 % under is kept. */
void test_battery_fit_log_read_linear(void);
void test_battery_fit_log_read_linear(void)
{
    char path[4200];
    FILE *fp = csv_open(tmp_path(path, sizeof path, "khz.csv"), "");
    pp_ulog_flight f;
    size_t n = 600000;
    clock_t c0;
    double cpu_s;

    if (!fp)
        return;
    for (size_t k = 0; k < n; k++) {
        double v = 16.0 - 1e-6 * (double)k, i = 10 + sin((double)k / 50);
        if (k == n - 2)
            v *= 0.97, i = 0; /* sags with no current: left out */
        if (k == n - 1)
            v *= 0.99, i = 0; /* within 2 %: kept */
        fprintf(fp, "%zu,%.6f,%.4f\n", 1000000 + k * 1000, v, i);
    }
    fclose(fp);
    c0 = clock();
    CHECK_INT(pp_flight_log_read(path, &f), 0);
    cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
    CHECK(cpu_s < 3);
    if (f.n_batteries == 1)
        CHECK_INT(f.bat[0].n, n - 1);
    CHECK_INT(f.n_zero_sag, 1);
    pp_ulog_flight_free(&f);
}

/* Read with at most about 2 x 1,000 kept (issue 46 item 14): the storage
 * stays bounded while the 10,000 samples come, each value is the mean of
 * its bin of the samples read whole (the last bin of fewer), the dropout
 * rule as on the whole read. */
void test_flight_log_read_max_bins(void);
void test_flight_log_read_max_bins(void)
{
    char path[4200];
    FILE *fp = csv_open(tmp_path(path, sizeof path, "bins.csv"), ",discharged_mah");
    pp_ulog_flight all, f;
    size_t n = 10001, bin, k0;

    if (!fp)
        return;
    for (size_t k = 0; k < n; k++) {
        double v = 16.0 - 1e-4 * (double)k, i = 10 + sin((double)k / 50);
        if (k == 5000)
            v *= 0.97, i = 0; /* sags with no current: left out */
        fprintf(fp, "%zu,%.6f,%.4f,%.1f\n", 1000000 + k * 1000, v, i, 0.1 * (double)k);
    }
    fclose(fp);
    CHECK_INT(pp_flight_log_read(path, &all), 0);
    CHECK_INT(pp_flight_log_read_max(path, &f, 1000), 0);
    CHECK_INT(all.n_zero_sag, 1);
    CHECK_INT(f.n_zero_sag, 1);
    CHECK_INT(f.bat[0].n_logged, all.bat[0].n);
    bin = f.bat[0].bin;
    CHECK_INT(bin, 8); /* halved at 2,000, 4,000 and 8,000 samples taken */
    CHECK_INT(f.bat[0].n, (all.bat[0].n + bin - 1) / bin);
    CHECK(f.bat[0].cap <= 2048);
    for (size_t j = 0; j < f.bat[0].n; j++) {
        double t = 0, v = 0, i = 0;
        size_t e = (j + 1) * bin < all.bat[0].n ? (j + 1) * bin : all.bat[0].n;
        for (k0 = j * bin; k0 < e; k0++)
            t += all.bat[0].t_s[k0], v += all.bat[0].voltage_v[k0], i += all.bat[0].current_a[k0];
        double m = (double)(e - j * bin);
        if (fabs(f.bat[0].t_s[j] - t / m) > 1e-9 || fabs(f.bat[0].voltage_v[j] - v / m) > 1e-9 ||
            fabs(f.bat[0].current_a[j] - i / m) > 1e-9 ||
            f.bat[0].discharged_mah[j] != all.bat[0].discharged_mah[e - 1]) {
            CHECK(!"a bin is not the mean of its samples");
            break;
        }
    }
    pp_ulog_flight_free(&all);
    pp_ulog_flight_free(&f);
}

/* A flight no pack of the model flies. rising: its voltage rises while it
 * draws 10 A (the capacity runs to its bound); else its voltage rises
 * with the current (R0 runs to its lower bound). */
static void write_unphysical(const char *path, int rising)
{
    FILE *fp = fopen(path, "w");

    if (!fp)
        return;
    fputs("timestamp,voltage_v,current_a\n", fp);
    for (int k = 0; k < 1200; k++) {
        double i = 10 + (rising ? 3 : 6) * sin(k / 37.0);
        fprintf(fp, "%d,%.4f,%.4f\n", 1000000 + k * 500000,
                rising ? 14.8 + 1.2 * k / 1200 - 0.05 * i : 16.0 - 0.6 * k / 1200 + 0.05 * i, i);
    }
    fclose(fp);
}

/* Issue 46 item 7: a parameter at a bound of its range is "at its bound",
 * its +- undetermined (NaN), never "+- 0"; the fit is said degenerate,
 * not pinned, warned, and -o writes nothing without --force. The real
 * short log's first fit ran its capacity to 1e4 Ah: its +- is no 0. */
void test_battery_fit_bound_not_exact(void);
void test_battery_fit_bound_not_exact(void)
{
    char path[4200], pack[4200], *out = NULL, *err = NULL;
    const char *paths[1] = {path};
    pp_flight_fit_options o;
    pp_flight_fit r;
    pp_fit_result fr;
    pp_ulog_flight lf;
    pp_battery_params g;

    write_unphysical(tmp_path(path, sizeof path, "rising.csv"), 1);
    CHECK_INT(pp_flight_log_read(path, &lf), 0);
    if (lf.n_batteries == 1) {
        pp_ulog_battery *b = &lf.bat[0];
        pp_fit_flight ff = {b->t_s, b->voltage_v, b->current_a, b->n, b->n / 2};
        pp_battery_params_default(&g);
        g.model = PP_BATTERY_THEVENIN;
        CHECK_INT(pp_battery_fit(&g, &ff, 1, PP_FIT_HOLD_CURVE | PP_FIT_HOLD_RC, &fr), 0);
        CHECK(fr.at_bound & PP_FIT_P_CAPACITY); /* 1e4 Ah */
        CHECK(isnan(fr.capacity_sd_ah));        /* was 0 */
    }
    pp_ulog_flight_free(&lf);
    write_unphysical(tmp_path(path, sizeof path, "negative_r.csv"), 0);
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK(r.fit.at_bound & PP_FIT_P_R0);
    CHECK(isnan(r.fit.r_int_sd_ohm));
    CHECK(r.degenerate);
    CHECK(!r.capacity_pinned);
    pp_flight_fit_free(&r);
    tmp_path(pack, sizeof pack, "negative_r.cfg");
    CHECK(run_powprof(&out, &err, "battery", "fit", path, "-o", pack, NULL) != 0);
    CHECK_CONTAINS(out, "0.00001 ohm, at its bound: undetermined");
    CHECK_CONTAINS(out, "warning: the fit is degenerate");
    CHECK(strstr(out, "+- 0 ") == NULL && strstr(out, "+- nan") == NULL);
    CHECK_CONTAINS(err, "negative_r.cfg not written: the fit is degenerate");
    CHECK(access(pack, F_OK) != 0);
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, "-o", pack, "--force", NULL), 0);
    CHECK(access(pack, F_OK) == 0);
    free(out);
    paths[0] = fixture("ulog/sample_log_small.ulg");
    o.instance = 0;
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK(r.capacity_held);
    CHECK(isnan(r.first_capacity_sd_ah)); /* was 0: "1e+04 +- 0 Ah" */
    CHECK(!r.degenerate);
    pp_flight_fit_free(&r);
}

/* Issue 46 item 11: a flight given twice (or a .ulg beside its ulog2csv
 * CSV) is refused, naming both; and the two readers keep the same
 * samples when the current goes below -1 A (regeneration), so they fit
 * alike (the ULog reader used to drop those as "values no battery has"). */
void test_battery_fit_duplicates_and_negative_current(void);
void test_battery_fit_duplicates_and_negative_current(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    pp_ulog_flight fu, fc;
    flight f;
    char csv[4200], ulg[4200];
    const char *paths[2] = {csv, ulg};
    double r0_csv;

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 600, 60, 31, &f), 0);
    for (size_t k = 300; k < 400 && k < f.n; k++)
        f.i[k] = -3.0; /* 30 s of regeneration */
    write_csv(tmp_path(csv, sizeof csv, "neg_battery_status_0.csv"), &f, 4);
    write_ulg(tmp_path(ulg, sizeof ulg, "neg.ulg"), &f, 4, 2800);
    CHECK_INT(pp_flight_log_read(csv, &fc), 0);
    CHECK_INT(pp_flight_log_read(ulg, &fu), 0);
    if (fc.n_batteries == 1 && fu.n_batteries == 1)
        CHECK_INT(fu.bat[0].n, fc.bat[0].n);
    CHECK_INT(fu.n_implausible, 0);
    pp_ulog_flight_free(&fc);
    pp_ulog_flight_free(&fu);
    pp_flight_fit_options_init(&o);
    o.ocv = "pack";
    o.start.capacity_ah = 2.8; /* one pack replaced for both: the .ulg's BAT1_CAPACITY would */
    o.start_given = 1;         /* be its prior alone, held where the capacity is undetermined */
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    r0_csv = r.fit.pack.r_int_ohm;
    pp_flight_fit_free(&r);
    paths[0] = ulg;
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_NEAR(r.fit.pack.r_int_ohm, r0_csv, 1e-3 * r0_csv);
    pp_flight_fit_free(&r);
    paths[0] = csv;
    CHECK_INT(pp_flight_fit_run(paths, 2, &o, &r), -EINVAL);
    CHECK_CONTAINS(test_log(), "neg.ulg: the same flight as ");
    pp_flight_fit_free(&r);
    paths[1] = csv;
    CHECK_INT(pp_flight_fit_run(paths, 2, &o, &r), -EINVAL);
    CHECK_CONTAINS(test_log(), "give each flight once");
    pp_flight_fit_free(&r);
    flight_free(&f);
}

/* Issue 46 item 9 and issue 41 defect 7: one cell-count rule for battery
 * fit, battery LOG and import ulog. A log's cell_count that its voltage
 * rules out (6 on a 4S pack: 2.8 V a cell) is passed over, said, and the
 * cells read from the voltage; a --cells that does not fit is refused;
 * battery LOG with a 4S preset on a 6S log without cell_count takes 6;
 * the pack a log gives (import ulog's summary) takes battery_status's own
 * cell_count and capacity. */
void test_battery_fit_cells_one_rule(void);
void test_battery_fit_cells_one_rule(void)
{
    pp_battery_params truth, p;
    pp_flight_fit_options o;
    pp_flight_fit r;
    pp_flight_check c;
    pp_ulog_flight lf;
    flight f;
    char path[4200], six[4200];
    const char *paths[1] = {path};

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 600, 60, 37, &f), 0);
    write_csv(tmp_path(path, sizeof path, "cells6.csv"), &f, 6);
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_INT(r.fit.pack.cells, 4);
    CHECK_CONTAINS(r.cells_note, "the log's cell_count 6 gives 2.");
    CHECK(r.fl[0].soc_start_frac > 0.8);
    pp_flight_fit_free(&r);
    o.cells = 6;
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), -EINVAL);
    CHECK_CONTAINS(test_log(), "cells6.csv: the cells asked (--cells 6) do not fit");
    pp_flight_fit_free(&r);
    truth.cells = 6; /* the same curve per cell, six cells */
    flight_free(&f);
    CHECK_INT(make_flight(&truth, 300, 90, 41, &f), 0);
    write_csv_pack(tmp_path(six, sizeof six, "six.csv"), &f, 0, 5000);
    CHECK_INT(pp_flight_log_read(six, &lf), 0);
    CHECK_INT(lf.n_batteries, 1);
    if (lf.n_batteries == 1) {
        pp_battery_params_default(&p);
        p.model = PP_BATTERY_THEVENIN;
        CHECK_INT(pp_flight_check_run(&lf.bat[0], &p, &c), 0);
        CHECK_INT(c.pack.cells, 6); /* was 4: the preset's */
        CHECK_INT(pp_flight_pack_for(&lf, &lf.bat[0], &p), 1);
        CHECK_NEAR(p.capacity_ah, 5, 1e-12); /* was the preset's 3.2 */
    }
    pp_ulog_flight_free(&lf);
    flight_free(&f);
}

/* Issue 41 defects 2 and 5 on the real multirotor log (the fixture
 * roboto-nn-5s: 3.5 min idle on the ground, then flight; its first half
 * fitted): the fit is set beside the pack `battery LOG` uses (thevenin
 * with the log's cell_count and capacity), not the rint preset (1.8 V);
 * the fitted part has no load step (0.5 to 0.7 A), so R0 and the RC pair
 * stay at that pack's and it is said; and the held-out RMS is within 1.1 x
 * battery LOG's (it was 0.168 V against 0.038 V: 4.4 x worse). */
void test_battery_fit_real_idle_prior_kept(void);
void test_battery_fit_real_idle_prior_kept(void)
{
    const char *paths[1] = {fixture("flights/roboto-nn-5s/battery_status_0.csv")};
    pp_flight_fit_options o;
    pp_flight_fit r;
    pp_ulog_flight f;
    pp_battery_params def;
    pp_flight_check_options co;
    pp_flight_check c;
    char *out = NULL;

    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_INT(pp_flight_log_read(paths[0], &f), 0);
    CHECK_INT(f.n_batteries, 1);
    if (f.n_batteries == 1) {
        pp_flight_pack_for(&f, &f.bat[0], &def);
        pp_flight_check_options_init(&co);
        co.compare_from_s = r.fl[0].t_s[r.fl[0].n_train];
        CHECK_INT(pp_flight_check_with(&f.bat[0], &def, &co, &c), 0);
        CHECK_NEAR(r.fl[0].before.v_rms, c.v_rms, 1e-9); /* battery LOG's, over the same part */
        CHECK(c.v_rms < 0.05);
    }
    pp_ulog_flight_free(&f);
    CHECK(r.prior.model == PP_BATTERY_THEVENIN && r.prior.cells == 5);
    CHECK(r.r0_held && r.rc_held);
    CHECK_NEAR(r.fit.pack.r_int_ohm, r.prior.r_int_ohm, 1e-12);
    CHECK(r.train_i_hi_a - r.train_i_lo_a < 0.5);
    CHECK(r.fl[0].fitted.v_rms <= 1.1 * r.fl[0].before.v_rms);
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", paths[0], NULL), 0);
    CHECK_CONTAINS(out, "no load step to tell the resistances from the curve");
    CHECK_CONTAINS(out, "held (the pack it replaces): no load step");
    CHECK_CONTAINS(out, "s: held (the pack it replaces), the flights do not determine the RC");
    CHECK(strstr(out, "+- 0 ") == NULL); /* a held value never reads "+- 0" (defect 3) */
    CHECK_CONTAINS(out, "battery LOG's");
    free(out);
}

/* Issue 41 defect 1 and the rule of choices made on unseen data: --ocv
 * auto fits both curves to MINPACK's full budget on the first four fifths
 * of the fitted part and keeps the one closer on the last fifth (said
 * with both figures); the prior is judged there too. */
void test_battery_fit_ocv_chosen_on_validation(void);
void test_battery_fit_ocv_chosen_on_validation(void)
{
    pp_battery_params truth;
    pp_flight_fit r;
    flight f;
    char path[4200], *out = NULL;

    truth_liion(&truth);
    CHECK_INT(fit_one_csv(&truth, 2100, 100, 43, "liion_v.csv", PP_BATTERY_THEVENIN, &f, path, &r),
              0);
    CHECK(r.validated);
    CHECK_STR(r.ocv_curve, "liion");
    CHECK(r.ocv_kept_rms_v < r.ocv_other_rms_v);
    CHECK_NEAR(r.validation_fit_rms_v, r.ocv_kept_rms_v, 0);
    CHECK(r.validation_fit_rms_v < 3 * NOISE_V);
    CHECK_INT(r.beats_prior, 1);
    CHECK(r.fit.minpack_info != 5);
    CHECK(strncmp(r.ocv_why, "the lower RMS", 13) == 0);
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, NULL), 0);
    CHECK_CONTAINS(out, "kept: the lower RMS");
    CHECK_CONTAINS(out, "on the validation part, the last fifth of each fitted part");
    free(out);
    flight_free(&f);
}

/* The central rule: a fit that does not beat the pack it replaces on the
 * validation part is said so and not written without --force. The pack
 * given (-c) is the truth itself, and the logged voltage drifts up by
 * 0.2 V over the first four fifths of the fitted part (a sensor warming)
 * and is back at the truth for the last fifth: the fit follows the drift,
 * the truth does not. */
void test_battery_fit_not_better_not_written(void);
void test_battery_fit_not_better_not_written(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    flight f;
    char path[4200], pack[4200], given[4200], *out = NULL, *err = NULL;
    const char *paths[1] = {path};

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 400, 60, 47, &f), 0);
    for (size_t k = 0; k < f.n && f.t_s[k] < 0.8 * 240; k++)
        f.v[k] += 0.2 * f.t_s[k] / (0.8 * 240);
    write_csv(tmp_path(path, sizeof path, "drift.csv"), &f, 4);
    pp_flight_fit_options_init(&o);
    o.start = truth;
    o.start_given = 1;
    o.train_frac = 0.6;
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK(r.validated);
    CHECK_INT(r.beats_prior, 0);
    CHECK(r.validation_prior_rms_v < r.validation_fit_rms_v);
    pp_flight_fit_free(&r);
    truth.soc_start_frac = 1;
    CHECK_INT(pp_battery_config_write(tmp_path(given, sizeof given, "truth.cfg"), &truth, "truth"),
              0);
    tmp_path(pack, sizeof pack, "drift.cfg");
    CHECK(run_powprof(&out, &err, "battery", "fit", path, "-c", given, "--train-frac", "0.6",
                      "-o", pack, NULL) != 0);
    CHECK_CONTAINS(out, "the fit is no better than the pack it replaces");
    CHECK_CONTAINS(err, "does not beat the pack it replaces on the validation part");
    CHECK(access(pack, F_OK) != 0);
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, "-c", given, "--train-frac", "0.6",
                          "-o", pack, "--force", NULL), 0);
    CHECK(access(pack, F_OK) == 0);
    free(out);
    flight_free(&f);
}

/* Issue 41, never worse than the pack replaced: a shallow synthetic flight
 * of a Li-ion pack (tests/fixtures/flights/README.md) whose fit holds the
 * default pack's LiPo table and beats that pack on the validation part,
 * yet misses the held-out half by 3.3 x as much: fitted on the first half
 * of its fitted part, it does not halve the pack's error on the second
 * (not decisively better that far ahead), so the library refuses it, and
 * -o writes nothing without --force (written before). */
/* `battery fit CSV -o PACK` refused: a non-zero exit, said (out holds
 * said, err "not written: " and why), nothing written; the pack's path
 * into pack (4200 bytes). */
static void refused_by_cli(const char *csv, const char *said, const char *why, char *pack)
{
    char *out = NULL, *err = NULL, want[256];

    tmp_path(pack, 4200, "refused.cfg");
    CHECK(run_powprof(&out, &err, "battery", "fit", csv, "-o", pack, NULL) != 0);
    CHECK_CONTAINS(out, said);
    snprintf(want, sizeof want, "not written: %s", why);
    CHECK_CONTAINS(err, want);
    CHECK(access(pack, F_OK) != 0);
    free(out);
    free(err);
}

/* A fixture of tests/fixtures/flights fitted with the defaults into r. */
static const char *fit_fixture(const char *name, pp_flight_fit *r)
{
    const char *paths[1] = {fixture(name)};
    pp_flight_fit_options o;

    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, r), 0);
    return paths[0];
}

void test_battery_fit_not_decisive_not_written(void);
void test_battery_fit_not_decisive_not_written(void)
{
    pp_flight_fit r;
    char pack[4200];
    const char *csv = fit_fixture("flights/synthetic-liion-shallow.csv", &r);

    CHECK(r.fl[0].fitted.v_rms > 2 * r.fl[0].before.v_rms); /* the case: worse held out */
    CHECK_INT(r.beats_prior, 1);
    CHECK_INT(r.decisive, 0);
    CHECK(r.ahead_fit_rms_v >= PP_FIT_DECISIVE * r.ahead_prior_rms_v);
    CHECK(pp_flight_fit_refusal(&r) && strstr(pp_flight_fit_refusal(&r), "decisively"));
    pp_flight_fit_free(&r);
    refused_by_cli(csv, "not decisively better", "the fit is not decisively better", pack);
}

/* The C API's fit (include/powprof/battery.h): the command's document and
 * its refusal, decided by the library: -EPERM and the same reason, nothing
 * written; with force, written. */
void test_battery_fit_api_refuses_as_cli(void);
void test_battery_fit_api_refuses_as_cli(void)
{
    const char *logs[1] = {fixture("flights/synthetic-liion-shallow.csv")};
    pp_battery_fit_request q;
    char pack[4200], *doc = NULL, *out = NULL;
    json_t *a, *b;

    pp_battery_fit_request_init(&q);
    CHECK_INT(pp_battery_fit_logs_json(logs, 1, &q, &doc), 0);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", logs[0], "--json", NULL), 0);
    a = json_loads(doc, 0, NULL);
    b = json_loads(out ? out : "", 0, NULL);
    CHECK(a && b && json_equal(a, b));
    CHECK(a && strstr(json_string_value(json_object_get(a, "refused")), "decisively"));
    json_decref(a);
    json_decref(b);
    free(doc);
    free(out);
    q.output = tmp_path(pack, sizeof pack, "api-shallow.cfg");
    test_log_clear();
    CHECK_INT(pp_battery_fit_logs_json(logs, 1, &q, &doc), -EPERM);
    CHECK(doc == NULL);
    CHECK_CONTAINS(test_log(), "api-shallow.cfg not written: the fit is not decisively better");
    CHECK(access(pack, F_OK) != 0);
    q.force = 1;
    CHECK_INT(pp_battery_fit_logs_json(logs, 1, &q, &doc), 0);
    CHECK(access(pack, F_OK) == 0);
    free(doc);
    q.train_frac = 0;
    CHECK_INT(pp_battery_fit_logs_json(logs, 1, &q, &doc), -EINVAL);
    CHECK_CONTAINS(test_log(), "fraction 0");
    CHECK_INT(pp_battery_fit_logs_json(NULL, 1, NULL, &doc), -EINVAL);
    CHECK_INT(pp_battery_fit_logs_json(logs, 0, NULL, &doc), -EINVAL);
    CHECK_CONTAINS(test_log(), "0 logs: 1 to");
}

/* Column name of the first data row of the CSV text (NaN: none). */
static double csv_cell(const char *text, const char *name)
{
    const char *row = text ? strchr(text, '\n') : NULL;
    size_t col = 0, len = strlen(name);

    if (!row)
        return NAN;
    for (const char *p = text; p < row; p = strchr(p, ',') + 1, col++) {
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\n'))
            break;
        if (!strchr(p, ',') || strchr(p, ',') > row)
            return NAN;
    }
    row++;
    while (col-- > 0 && (row = strchr(row, ',')))
        row++;
    return row ? strtod(row, NULL) : NAN;
}

/* Battery instance b of f drained by its own logged power (V x I) from its
 * first sample: the fraction of p drained. */
static double own_drain(const pp_ulog_battery *b, const pp_battery_params *p)
{
    double *w = malloc(b->n * sizeof *w), d = NAN;
    pp_battery_options o;
    pp_battery_result r;

    for (size_t k = 0; w && k < b->n; k++)
        w[k] = b->voltage_v[k] * b->current_a[k];
    pp_battery_options_init(&o);
    if (w && pp_battery_run(p, &(pp_battery_load){b->t_s, w, b->n, 0}, &o, &r) == 0)
        d = r.soc_drained_frac;
    free(w);
    return d;
}

/* Issue 41 item 7: import ulog of a log of two batteries (the 6S 30 Ah
 * instance 0 and the 12S 6 Ah instance 1 of sample_log_small.ulg) drains
 * each pack by its own battery's power, the summary giving the first to
 * run out's figures; both powers used to drain instance 0's pack (a
 * drained fraction less than half of instance 1's own). With -c, the pack
 * given is each instance's. */
void test_battery_import_ulog_pack_per_instance(void);
void test_battery_import_ulog_pack_per_instance(void)
{
    pp_ulog_flight f;
    pp_battery_params p0, p1, given;
    char dir[4200], sum[4300], cfg[4200], *text;
    double d0, d1;

    CHECK_INT(pp_ulog_read_battery(fixture("ulog/sample_log_small.ulg"), &f), 0);
    CHECK_INT((int)f.n_batteries, 2);
    pp_flight_pack_for(&f, &f.bat[0], &p0);
    pp_flight_pack_for(&f, &f.bat[1], &p1);
    CHECK(p0.cells == 6 && p1.cells == 12);
    d0 = own_drain(&f.bat[0], &p0);
    d1 = own_drain(&f.bat[1], &p1);
    CHECK(d1 > 2 * d0);
    CHECK_INT(run_powprof(NULL, NULL, "import", "ulog", fixture("ulog/sample_log_small.ulg"),
                          "-o", tmp_path(dir, sizeof dir, "two-packs"), NULL), 0);
    snprintf(sum, sizeof sum, "%s/summary.csv", dir);
    text = slurp(sum);
    CHECK_NEAR(csv_cell(text, "soc_drain"), d1, 0.03 * d1);
    CHECK_NEAR(csv_cell(text, "soc_end"), 1 - d1, 0.03 * d1);
    free(text);
    snprintf(sum, sizeof sum, "%s/run.json", dir); /* run.json names each pack, not one */
    text = slurp(sum);
    CHECK(text && strstr(text, "\"packs\":[{\"model\":\"thevenin\",\"cells\":6,") &&
          strstr(text, "\"cells\":12,\"capacity_ah\":6.0,") &&
          strstr(text, "\"rail\":\"battery1\""));
    free(text);
    pp_battery_params_default(&given); /* one 4S 3.2 Ah pack given: each instance drains one */
    given.soc_start_frac = 1;
    CHECK_INT(pp_battery_config_write(tmp_path(cfg, sizeof cfg, "given.cfg"), &given, "given"),
              0);
    CHECK_INT(run_powprof(NULL, NULL, "import", "ulog", fixture("ulog/sample_log_small.ulg"),
                          "-c", cfg, "-o", tmp_path(dir, sizeof dir, "two-given"), NULL), 0);
    snprintf(sum, sizeof sum, "%s/summary.csv", dir);
    text = slurp(sum);
    d1 = own_drain(&f.bat[1], &given);
    CHECK(d1 > own_drain(&f.bat[0], &given));
    CHECK_NEAR(csv_cell(text, "soc_drain"), d1, 0.03 * d1);
    free(text);
    snprintf(sum, sizeof sum, "%s/run.json", dir); /* -c: one pack, run.json's battery */
    text = slurp(sum);
    CHECK(text && !strstr(text, "\"packs\"") && strstr(text, "\"cells\":4,"));
    free(text);
    pp_ulog_flight_free(&f);
}

/* Issue 41, discharged_mah as a check on the charge: a flight whose current
 * sensor reads 13 % low while the log's discharged_mah counts the true
 * charge. The fit counts the logged current, so its capacity comes out 13 %
 * low; the check says the two counts differ (+15 %) and gives the capacity
 * by the log's count, within 4 % of the truth. The same flight with a
 * discharged_mah that agrees says nothing. */
void test_battery_fit_discharged_mah_checked(void);
void test_battery_fit_discharged_mah_checked(void)
{
    pp_battery_params truth;
    pp_flight_fit r;
    flight f;
    char path[4200], *out = NULL;
    const char *paths[1] = {path};
    pp_flight_fit_options o;
    FILE *fp;
    double mah = 0;

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 1500, 60, 7, &f), 0);
    fp = csv_open(tmp_path(path, sizeof path, "low_current.csv"), ",discharged_mah");
    for (size_t k = 0; fp && k < f.n; k++) {
        if (k)
            mah += 0.5 * (f.i[k] + f.i[k - 1]) * (f.t_s[k] - f.t_s[k - 1]) / 3.6;
        fprintf(fp, "%.0f,%.5f,%.5f,%.4f\n", 1e6 + f.t_s[k] * 1e6, f.v[k], 0.87 * f.i[k], mah);
    }
    if (fp)
        fclose(fp);
    pp_flight_fit_options_init(&o);
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK(r.fit.capacity_fitted);
    CHECK(within_frac(r.fit.pack.capacity_ah, 0.87 * truth.capacity_ah, 0.04));
    CHECK_NEAR(r.charge_ratio, 1 / 0.87, 0.005);
    CHECK_INT(r.charge_disagrees, 1);
    CHECK(within_frac(r.fit.pack.capacity_ah * r.charge_ratio, truth.capacity_ah, 0.04));
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, NULL), 0);
    CHECK_CONTAINS(out, "discharged_mah counts +15 % against the logged current");
    CHECK_CONTAINS(out, "the capacity fitted is as far off");
    free(out);
    write_csv(path, &f, 4); /* discharged_mah from the current logged: they agree */
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_NEAR(r.charge_ratio, 1, 0.001);
    CHECK_INT(r.charge_disagrees, 0);
    pp_flight_fit_free(&r);
    flight_free(&f);
}

/* Issue 41, what the flights do not inform stays the prior's: a Li-ion
 * flight to about half charge with AR(1) voltage noise, fitted on its first
 * half with the Li-ion table. Its scale and offset, fitted, trade against
 * the start and the capacity over the part of the charge seen (a start too
 * low and a curve too high fit it alike); fitted, they come no 10 % closer
 * on the validation part, so the table is kept as it is: the capacity
 * within 2 % (free, it was 8 % off or more) and the held-out half followed
 * to 3 x the noise. */
void test_battery_fit_table_kept_where_not_informed(void);
void test_battery_fit_table_kept_where_not_informed(void)
{
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    flight f;
    char path[4200], *out = NULL;
    const char *paths[1] = {path};
    double ar = 0;
    uint64_t s = 77;

    truth_liion(&truth);
    CHECK_INT(make_flight(&truth, 1500, 110, 59, &f), 0);
    for (size_t k = 0; k < f.n; k++) {
        ar = 0.95 * ar + 0.010 * sqrt(1 - 0.95 * 0.95) * gauss(&s);
        f.v[k] += ar;
    }
    write_csv(tmp_path(path, sizeof path, "kept.csv"), &f, 4);
    pp_flight_fit_options_init(&o);
    o.ocv = "liion";
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK_INT(r.curve_kept, 1);
    CHECK(!r.curve_held && r.fit.capacity_fitted);
    CHECK(within_frac(r.fit.pack.capacity_ah, truth.capacity_ah, 0.02));
    CHECK(!within_frac(r.free_curve_capacity_ah, truth.capacity_ah, 0.08));
    CHECK(fabs(r.fit.pack.capacity_ah - truth.capacity_ah) <= 1.645 * r.fit.capacity_sd_ah);
    CHECK(r.fl[0].fitted.v_rms < 3 * 0.010);
    pp_flight_fit_free(&r);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, "--ocv", "liion", NULL), 0);
    CHECK_CONTAINS(out, "liion table as it is (its scale and offset fitted came no 10 % closer");
    free(out);
    flight_free(&f);
}

/* Issue 41 defect 7: on a flight log, battery -c keeps the pack's capacity
 * (a fitted pack reproduces its flight; the log's capacity column used to
 * win), -o writes the model beside the log per sample, --until-cutoff and
 * --rail are refused (they did nothing, rc 0). */
void test_battery_flight_log_options_honoured(void);
void test_battery_flight_log_options_honoured(void)
{
    pp_battery_params truth;
    flight f;
    char csv[4200], pack[4200], rows[4200], *out = NULL, *err = NULL, *text = NULL;
    size_t lines = 0;

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 200, 60, 53, &f), 0);
    write_csv_pack(tmp_path(csv, sizeof csv, "cap_battery_status_0.csv"), &f, 4, 5000);
    CHECK_INT(pp_battery_config_write(tmp_path(pack, sizeof pack, "p.cfg"), &truth, "the truth"), 0);
    tmp_path(rows, sizeof rows, "rows.csv");
    CHECK_INT(run_powprof(&out, NULL, "battery", csv, "-c", pack, "--json", "-o", rows, NULL), 0);
    CHECK_CONTAINS(out, "\"capacity_ah\":2.8");
    free(out);
    text = slurp(rows);
    CHECK(text != NULL);
    for (const char *p = text; p && *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, f.n + 1);
    CHECK(text && strncmp(text, "battery,t_s,soc_frac,voltage_model_v,voltage_logged_v,current_a\n",
                          64) == 0);
    free(text);
    CHECK_INT(run_powprof(NULL, &err, "battery", csv, "--until-cutoff", NULL), 2);
    CHECK_CONTAINS(err, "--until-cutoff on a flight log");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "battery", csv, "--rail", "VDD_IN", NULL), 2);
    CHECK_CONTAINS(err, "--rail on a flight log");
    free(err);
    flight_free(&f);
}

/* Issue 41 defect 4: no false precision. A Li-ion 5 Ah flight to about
 * half charge with time-correlated voltage noise (AR(1), phi 0.95, 10 mV)
 * fitted on its first 40, 50 and 70 %: the capacity's +- (the larger of
 * the covariance's, the spread over time blocks and the sub-window's) is
 * at least 2 % of it (it claimed 0.6 % while 12 % off), each 90 %
 * interval covers the truth or the capacity is said undetermined, and two
 * train fractions' capacities lie within their stated intervals. */
void test_battery_fit_uncertainty_honest(void);
void test_battery_fit_uncertainty_honest(void)
{
    static const double fracs[3] = {0.4, 0.5, 0.7};
    pp_battery_params truth;
    pp_flight_fit_options o;
    pp_flight_fit r;
    flight f;
    char path[4200];
    const char *paths[1] = {path};
    double cap[3], sd[3], ar = 0;
    uint64_t s = 77;

    truth_liion(&truth);
    CHECK_INT(make_flight(&truth, 1500, 110, 59, &f), 0);
    for (size_t k = 0; k < f.n; k++) { /* replace the white noise's part by AR(1) */
        ar = 0.95 * ar + 0.010 * sqrt(1 - 0.95 * 0.95) * gauss(&s);
        f.v[k] += ar;
    }
    write_csv(tmp_path(path, sizeof path, "ar1.csv"), &f, 4);
    for (int k = 0; k < 3; k++) {
        pp_flight_fit_options_init(&o);
        o.train_frac = fracs[k];
        CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
        cap[k] = r.fit.pack.capacity_ah;
        sd[k] = r.fit.capacity_sd_ah;
        if (r.fit.capacity_fitted && !r.capacity_undetermined) {
            CHECK(sd[k] >= 0.02 * cap[k] || r.curve_kept); /* kept: the table is the truth's */
            CHECK(fabs(cap[k] - 5) <= 1.645 * sd[k]);
        } else {
            sd[k] = INFINITY;
        }
        pp_flight_fit_free(&r);
    }
    for (int k = 1; k < 3; k++)
        CHECK(fabs(cap[k] - cap[k - 1]) <= 1.645 * hypot(sd[k], sd[k - 1]) || isinf(sd[k]));
    flight_free(&f);
}

/* Issue 46 item 14 (time): a flight of more than PP_FIT_SAMPLES_MAX
 * samples is fitted and checked on bin averages (said): 200,000 samples
 * at 50 Hz as 40,000 means of 5, each the mean of its samples; the fit
 * in under 10 s of CPU (a 10-hour 50 Hz log took 145 s before). */
void test_battery_fit_long_log_binned(void);
void test_battery_fit_long_log_binned(void)
{
    char path[4200];
    const char *paths[1] = {path};
    FILE *fp = csv_open(tmp_path(path, sizeof path, "long.csv"), ",cell_count,capacity");
    pp_flight_fit_options o;
    pp_flight_fit r;
    pp_ulog_flight f;
    size_t n = 200000;
    clock_t c0;

    if (!fp)
        return;
    for (size_t k = 0; k < n; k++) {
        double i = 10 + 4 * sin((double)k / 500), s = 1 - 10.0 * (double)k / 50 / 3600 / 20;
        fprintf(fp, "%zu,%.4f,%.4f,4,20000\n", 1000000 + k * 20000, 4 * (3.5 + 0.7 * s) - 0.03 * i,
                i);
    }
    fclose(fp);
    CHECK_INT(pp_flight_log_read(path, &f), 0);
    double v8 = 0;
    for (size_t k = 8; k < 16 && f.n_batteries == 1; k++)
        v8 += f.bat[0].voltage_v[k] / 8;
    pp_ulog_flight_free(&f);
    CHECK_INT(pp_flight_log_read_max(path, &f, 20000), 0); /* halved at 40,000, 80,000, 160,000 */
    if (f.n_batteries == 1) {
        CHECK_INT(f.bat[0].bin, 8);
        CHECK_INT(f.bat[0].n, 25000);
        CHECK_NEAR(f.bat[0].voltage_v[1], v8, 1e-12);
        CHECK_NEAR(f.bat[0].t_s[1], 1 + 11.5 * 0.02, 1e-9); /* the mean of samples 8 to 15 */
    }
    pp_ulog_flight_free(&f);
    pp_flight_fit_options_init(&o);
    c0 = clock();
    CHECK_INT(pp_flight_fit_run(paths, 1, &o, &r), 0);
    CHECK((double)(clock() - c0) / CLOCKS_PER_SEC < 10);
    CHECK_INT(r.fl[0].n_logged, n);
    CHECK_INT(r.fl[0].bin, 8);
    CHECK_INT(r.fl[0].n, 25000);
    pp_flight_fit_free(&r);
}

/* A log whose pack cannot fly it (a capacity of 1 mAh: both packs brown
 * out at once): the held-out comparison says "none" where nothing was
 * compared, never "nan" nor a deviation of +0.000 V (issue 46 verification,
 * the round-five review's generated cap_small.csv). */
void test_battery_fit_nothing_compared_none(void);
void test_battery_fit_nothing_compared_none(void)
{
    pp_battery_params truth;
    flight f;
    char path[4200], *out = NULL;

    truth_thevenin(&truth);
    CHECK_INT(make_flight(&truth, 600, 100, 46, &f), 0);
    write_csv_pack(tmp_path(path, sizeof path, "cap_1mah.csv"), &f, 4, 1);
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", path, NULL), 0);
    CHECK_CONTAINS(out, "terminal voltage RMS");
    CHECK(out && !strstr(out, "nan") && !strstr(out, "+0.000 V"));
    CHECK_CONTAINS(out, "none V");
    free(out);
    flight_free(&f);
}

/* A log the pack cannot give (9,999.9 A from a 5 Ah 4S pack for 20 min, as
 * the round-five review's generated i_huge_all.csv): the fit's RMS over its
 * fitted part is hundreds of volts, more than the pack's whole open-circuit
 * span. Said, and the pack not written without --force (it was, exit 0). */
void test_battery_fit_off_log_not_written(void);
void test_battery_fit_off_log_not_written(void)
{
    char path[4200], pack[4200], row[160], *out = NULL, *err = NULL;
    FILE *fp;

    fp = fopen(tmp_path(path, sizeof path, "i_huge.csv"), "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    fputs("timestamp,voltage_v,current_a,discharged_mah,remaining,connected,cell_count,"
          "capacity\n", fp);
    for (int k = 0; k < 2400; k++) {
        snprintf(row, sizeof row, "%d,%.4f,9999.9,%.2f,%.4f,1,4,5000\n", 20000000 + 500000 * k,
                 16.2787 - 0.0012 * k, 1.67 * (k + 1), 0.9997 - 0.0004 * k);
        fputs(row, fp);
    }
    fclose(fp);
    tmp_path(pack, sizeof pack, "i_huge_pack.cfg");
    CHECK(run_powprof(&out, &err, "battery", "fit", path, "-o", pack, NULL) != 0);
    CHECK_CONTAINS(out, "the model does not follow the log");
    CHECK_CONTAINS(err, "not written: the model does not follow the log");
    CHECK(access(pack, F_OK) != 0);
    free(out);
    free(err);
    out = err = NULL;
    CHECK_INT(run_powprof(&out, &err, "battery", "fit", path, "-o", pack, "--force", NULL), 0);
    CHECK(access(pack, F_OK) == 0);
    free(out);
    free(err);
}

/* The truth's curve moved off the Li-ion table: scaled about its mean,
 * shifted, plus a bump of bump_v per cell at 75 % of the charge (no table
 * the fit knows). */
static void truth_off_table(pp_battery_params *p, double scale, double offset_v, double bump_v)
{
    double mean = 0;

    truth_liion(p);
    for (size_t k = 0; k < p->ocv_n; k++)
        mean += p->ocv_v[k] / (double)p->ocv_n;
    for (size_t k = 0; k < p->ocv_n; k++) {
        double d = (p->ocv_soc[k] - 0.75) / 0.1;
        p->ocv_v[k] = mean + scale * (p->ocv_v[k] - mean) + offset_v + bump_v * exp(-d * d);
    }
}

/* Issue 41: the curve's shape moves where the flights cover it, and only
 * there (battery/fit.h, PP_FIT_FREE_SHAPE). A flight from 97 % to about 55 %
 * of a pack whose curve has a 50 mV bump at 75 %: fitted on the Li-ion
 * table held, with the shape free the knot at 75 % moves most of the way
 * to the bump and the training RMS falls; the knots at 0 and 25 %, never
 * flown, stay at the table's within their prior; the curve stays
 * increasing; and the capacity's +- is wider than on the table (the
 * curve's own uncertainty carried into it). */
void test_battery_fit_shape_moves_where_flown(void);
void test_battery_fit_shape_moves_where_flown(void)
{
    pp_battery_params truth, guess;
    pp_fit_result table, shape;
    pp_fit_flight ff;
    flight f;

    truth_off_table(&truth, 1, 0, 0.05);
    CHECK_INT(make_flight(&truth, 1500, 70, 7, &f), 0);
    CHECK(f.soc[f.n - 1] > 0.45 && f.soc[f.n - 1] < 0.65);
    ff = (pp_fit_flight){f.t_s, f.v, f.i, f.n, f.n};
    truth_liion(&guess);
    CHECK_INT(pp_battery_fit(&guess, &ff, 1, PP_FIT_HOLD_CURVE, &table), 0);
    CHECK_INT(pp_battery_fit(&guess, &ff, 1, PP_FIT_HOLD_CURVE | PP_FIT_FREE_SHAPE, &shape), 0);
    CHECK(shape.shape_free && !table.shape_free);
    CHECK(shape.knot_v[3] > 0.025 && shape.knot_v[3] < 0.07);
    CHECK(fabs(shape.knot_v[0]) < 0.01 && fabs(shape.knot_v[1]) < 0.02);
    CHECK(shape.knot_sd_v[0] > 0.8 * PP_FIT_SHAPE_SD_V && shape.knot_sd_v[3] < PP_FIT_SHAPE_SD_V);
    CHECK(shape.train_rms_v < 0.8 * table.train_rms_v);
    for (size_t k = 1; k < shape.pack.ocv_n; k++)
        CHECK(shape.pack.ocv_v[k] > shape.pack.ocv_v[k - 1]);
    CHECK(shape.capacity_sd_ah > 1.5 * table.capacity_sd_ah);
    flight_free(&f);
}

/* Issue 41: the capacity's 90 % interval holds where the pack's curve is
 * no table's. Four flights (seeds 1-4, 40-60 % deep) of packs whose curve
 * is the Li-ion table scaled 1.05 and shifted +0.03 V a cell: each
 * capacity is said undetermined or its interval (+- 1.645 sd) covers the
 * truth (5 Ah). Before the curve's own error was in the +- (h-fit2), the
 * table fitted over part of the charge gave intervals a few % wide around
 * capacities 10-20 % off. */
void test_battery_fit_interval_holds_off_table(void);
void test_battery_fit_interval_holds_off_table(void)
{
    pp_battery_params truth;
    int held = 0;

    truth_off_table(&truth, 1.05, 0.03, 0);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        pp_flight_fit r;
        flight f;
        char path[4200], name[64];
        snprintf(name, sizeof name, "off-table-%d.csv", (int)seed);
        CHECK_INT(fit_one_csv(&truth, 1500, 80 + 10 * (double)seed, seed, name,
                              PP_BATTERY_THEVENIN, &f, path, &r), 0);
        held += r.capacity_undetermined || !r.fit.capacity_fitted ||
                fabs(r.fit.pack.capacity_ah - 5) <= 1.645 * r.fit.capacity_sd_ah;
        pp_flight_fit_free(&r);
        flight_free(&f);
    }
    CHECK_INT(held, 4);
}

/* Issue 41, never worse (the study's flight 59, tests/fixtures/flights/
 * README.md): the default LiPo table held on a Li-ion pack over 20 % of
 * the charge. The fit beats the prior on the validation part and
 * decisively ahead, yet misses the held-out half by more than the prior:
 * the charge not flown follows the Li-ion shape. The Li-ion table fits the
 * validation part about as well (not twice apart): the flights do not tell
 * the curves apart, so the library refuses the fit, on training data only,
 * and -o writes nothing without --force (written before). */
void test_battery_fit_curves_not_told_apart_not_written(void);
void test_battery_fit_curves_not_told_apart_not_written(void)
{
    pp_flight_fit r;
    char pack[4200];
    const char *csv = fit_fixture("flights/synthetic-liion-59.csv", &r);

    CHECK(r.fl[0].fitted.v_rms > r.fl[0].before.v_rms); /* the case: worse held out */
    CHECK(r.beats_prior == 1 && r.decisive == 1 && !r.degenerate && !r.off_log);
    CHECK_INT(r.curves_apart, 0);
    CHECK(r.ocv_other_rms_v < 2 * r.ocv_kept_rms_v);
    CHECK(pp_flight_fit_refusal(&r) && strstr(pp_flight_fit_refusal(&r), "curves apart"));
    pp_flight_fit_free(&r);
    refused_by_cli(csv, "not twice apart", "the flights do not tell the open-circuit curves apart",
                   pack);
    CHECK_INT(run_powprof(NULL, NULL, "battery", "fit", csv, "-o", pack, "--force", NULL), 0);
    CHECK(access(pack, F_OK) == 0);
}

/* The study's fixture name (tests/fixtures/flights/README.md) fitted into
 * r: the case (worse held out, yet beating the prior on the validation
 * part and decisively ahead), so only the rule under test can refuse it. */
static const char *worse_yet_ahead(const char *name, pp_flight_fit *r)
{
    const char *csv = fit_fixture(name, r);

    CHECK(r->fl[0].fitted.v_rms > r->fl[0].before.v_rms);
    CHECK(r->beats_prior == 1 && r->decisive == 1 && !r->degenerate && !r->off_log);
    return csv;
}

/* Issue 41, never worse (the study's bump truth, flight 3): the flights
 * leave the capacity undetermined, so it is held at the default's 3.2 Ah
 * (a preset's: no capacity in the log) with the LiPo table; fitted around
 * it, the start and resistances beat the prior on the validation part and
 * decisively ahead, yet the held-out part (the pack is 5 Ah) is missed by
 * more than the prior. Refused now, on training data only: the capacity is
 * no one's word; given by the user (-c), the same fit is not refused for it. */
void test_battery_fit_guessed_capacity_not_written(void);
void test_battery_fit_guessed_capacity_not_written(void)
{
    pp_flight_fit r;
    pp_flight_fit_options o;
    char pack[4200];
    const char *csv = worse_yet_ahead("flights/synthetic-bump-3.csv", &r);

    CHECK(r.capacity_held && !r.capacity_from_log && !r.fit.capacity_fitted);
    CHECK_INT(r.curves_apart, 1);
    CHECK_INT(r.capacity_guessed, 1);
    CHECK(pp_flight_fit_refusal(&r) &&
          strstr(pp_flight_fit_refusal(&r), "do not determine the capacity"));
    /* what would fix it, in the one line --json -o leaves on stderr too */
    CHECK(pp_flight_fit_refusal(&r) &&
          strstr(pp_flight_fit_refusal(&r), "give the capacity (-c FILE with capacity_ah, or "
                                            "a log with BAT1_CAPACITY) or fly to below 40 %"));
    pp_flight_fit_free(&r);
    refused_by_cli(csv, "would run on 3.2 Ah, the preset's",
                   "the flights do not determine the capacity", pack);
    pp_flight_fit_options_init(&o);
    pp_battery_params_default(&o.start);
    o.start.model = PP_BATTERY_THEVENIN;
    o.start.capacity_ah = 3.2;
    o.start_given = 1;
    CHECK_INT(pp_flight_fit_run((const char *[]){csv}, 1, &o, &r), 0);
    CHECK_INT(r.capacity_guessed, 0);
    pp_flight_fit_free(&r);
}

/* The same truth's flight 13: the capacity fitted (the LiPo table's scale
 * free) but its 90 % interval over +-30 % (4.07 +- 1.15 Ah): undetermined,
 * and no one gives it: refused (held out 0.134 V against the prior's
 * 0.034 V). */
void test_battery_fit_undetermined_capacity_not_written(void);
void test_battery_fit_undetermined_capacity_not_written(void)
{
    pp_flight_fit r;
    char pack[4200];
    const char *csv = worse_yet_ahead("flights/synthetic-bump-13.csv", &r);

    CHECK(r.fit.capacity_fitted && !r.capacity_held && r.curves_apart == 1);
    CHECK(r.fit.capacity_sd_ah > PP_FIT_UNDETERMINED_REL * r.fit.pack.capacity_ah);
    CHECK_INT(r.capacity_guessed, 1);
    pp_flight_fit_free(&r);
    refused_by_cli(csv, "does not bound to +-30 %", "the flights do not determine the capacity",
                   pack);
}

/* The knee truth's flight 29: the LiPo table held over 22 % of the charge,
 * the capacity right (5.0 Ah), the Li-ion table's fit ran its scale to a
 * bound yet follows the validation part in 0.009 V against the kept
 * curve's 0.051 V: the curves are told apart, but against the one kept.
 * Written before, and worse held out (0.18 V against 0.13 V): refused. */
void test_battery_fit_kept_curve_beaten_not_written(void);
void test_battery_fit_kept_curve_beaten_not_written(void)
{
    pp_flight_fit r;
    char pack[4200];
    const char *csv = worse_yet_ahead("flights/synthetic-knee-29.csv", &r);

    CHECK(r.fit.capacity_fitted && fabs(r.fit.pack.capacity_ah - 5) < 0.3);
    CHECK(r.ocv_other_rms_v < 0.5 * r.ocv_kept_rms_v);
    CHECK_INT(r.curve_beaten, 1);
    CHECK(pp_flight_fit_refusal(&r) && strstr(pp_flight_fit_refusal(&r), "not this pack's"));
    CHECK(pp_flight_fit_refusal(&r) &&
          strstr(pp_flight_fit_refusal(&r), "keep the pack it replaces, or fly deeper"));
    pp_flight_fit_free(&r);
    refused_by_cli(csv, "the other curve follows the log", "the other open-circuit curve follows",
                   pack);
}

/* A -c file that names no capacity (neither capacity_ah nor a preset)
 * leaves the default's 3.2 Ah, no one's word: before, any -c counted as
 * the user giving it, and the guessed capacity of bump flight 3 passed.
 * The CLI and the C API alike; a file that gives it is still the user's. */
void test_battery_fit_config_without_capacity_guessed(void);
void test_battery_fit_config_without_capacity_guessed(void)
{
    const char *csv = fixture("flights/synthetic-bump-3.csv");
    char nocap[4200], cap[4200], *out = NULL, *doc = NULL;
    pp_battery_fit_request q;

    write_file(tmp_path(nocap, sizeof nocap, "nocap.cfg"),
               "battery = { model = \"thevenin\"; };\n");
    write_file(tmp_path(cap, sizeof cap, "cap.cfg"),
               "battery = { model = \"thevenin\"; capacity_ah = 3.2; };\n");
    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", csv, "-c", nocap, "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"capacity_guessed\":true");
    free(out);
    pp_battery_fit_request_init(&q);
    q.config = nocap;
    CHECK_INT(pp_battery_fit_logs_json(&csv, 1, &q, &doc), 0);
    CHECK(doc && strstr(doc, "\"capacity_guessed\":true"));
    free(doc);
    q.config = cap;
    CHECK_INT(pp_battery_fit_logs_json(&csv, 1, &q, &doc), 0);
    CHECK(doc && strstr(doc, "\"capacity_guessed\":false"));
    free(doc);
}

/* battery fit --help says every refusal --force overrides (the capacity
 * guessed and the curve beaten too, and -c or --preset as giving the
 * capacity) and the exit statuses a script tells them apart by. */
void test_battery_fit_help_says_refusals(void);
void test_battery_fit_help_says_refusals(void)
{
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "battery", "fit", "--help", NULL), 0);
    CHECK_CONTAINS(out, "log nor -c nor --preset gives it");
    CHECK_CONTAINS(out, "the one closer on the validation part kept"); /* as fit() judges */
    CHECK_CONTAINS(out, "curves not told apart or the kept one beaten,\n"
                        "                         the capacity guessed");
    CHECK_CONTAINS(out, "exit status: 0 fitted (and written with -o); 2 usage or a log "
                        "refused; 125\na log unreadable, or -o's pack not written");
    free(out);
}
