#include "harness.h"

#include "../battery/battery.h"
#include "../src/config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Reference for the rint model: the exact charge through a load that is
 * linear in time between samples, in closed form per segment. */
static double rint_exact_charge_c(double u, double r, const double *t, const double *p, size_t n)
{
    double q = 0.0;

    for (size_t i = 0; i + 1 < n; i++) {
        double h = t[i + 1] - t[i];
        double x0 = u * u - 4 * r * p[i], x1 = u * u - 4 * r * p[i + 1];
        double root_integral = (2.0 / 3.0) * h * (x0 + sqrt(x0 * x1) + x1) / (sqrt(x0) + sqrt(x1));
        q += (u * h - root_integral) / (2 * r);
    }
    return q;
}

static double rint_current(double u, double r, double p) { return (u - sqrt(u * u - 4 * r * p)) / (2 * r); }

static void pack(pp_battery_params *p, double u, double r, double ah)
{
    pp_battery_params_default(p);
    p->model = PP_BATTERY_RINT;
    p->voltage_v = u;
    p->r_int_ohm = r;
    p->capacity_ah = ah;
    p->cutoff_v = 0;
}

void test_battery_rint_constant_power(void);
void test_battery_rint_constant_power(void)
{
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    double t[2] = {0, 600}, w[2] = {40, 40};
    pp_battery_load load = {t, w, 2};
    double i = rint_current(14.8, 0.032, 40), q = 3.2 * 3600;

    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_NEAR(r.duration_s, 600, 1e-9);
    CHECK_NEAR(r.soc_end_frac, 1 - i * 600 / q, 1e-6);
    CHECK_NEAR(r.soc_drained_frac, i * 600 / q, 1e-6);
    CHECK_NEAR(r.load_energy_j, 40 * 600, 1e-3);
    CHECK_NEAR(r.energy_j, 14.8 * i * 600, 1e-3); /* includes the I^2 R loss */
    CHECK_NEAR(r.min_voltage_v, 14.8 - 0.032 * i, 1e-9);
    CHECK_INT(r.n_events, 0);
    CHECK_INT(r.cutoff_kind, PP_BATTERY_EVENT_SOC_CUTOFF);
    CHECK_NEAR(r.time_to_cutoff_s, 0.8 * q / i, 0.1);
}

/* The figure, written out: 10 W for an hour from 14.8 V, 3.2 Ah,
 * 1.2 mOhm: I = (U - sqrt(U^2 - 4RP)) / 2R = 0.67571 A, 2432.6 C of
 * 11520 C: 21.1 %. */
void test_battery_units_one_hour(void);
void test_battery_units_one_hour(void)
{
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    double t[2] = {0, 3600}, w[2] = {10, 10};
    pp_battery_load load = {t, w, 2};

    pack(&p, 14.8, 0.0012, 3.2);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_NEAR(r.soc_drained_frac, 0.2112, 0.0005);
    CHECK_NEAR(r.soc_drained_frac, rint_current(14.8, 0.0012, 10) * 3600 / 11520, 1e-6);
    CHECK(r.soc_end_frac > 0.78 && r.soc_end_frac < 0.79); /* never negative */
}

/* Same mean power: the square wave drains more (the current is convex in
 * power), the paper's observation. */
void test_battery_square_wave_drains_more(void);
void test_battery_square_wave_drains_more(void)
{
    enum { N = 1201 };
    static double t[N], sq[N], flat[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result rs, rf;
    pp_battery_load ls = {t, sq, N}, lf = {t, flat, N};

    for (int i = 0; i < N; i++) {
        t[i] = i * 0.5;
        sq[i] = (i / 20) % 2 ? 5.0 : 95.0; /* 10 s at 95 W, 10 s at 5 W */
        flat[i] = 50.0;
    }
    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    CHECK_INT(pp_battery_run(&p, &ls, &o, &rs), 0);
    CHECK_INT(pp_battery_run(&p, &lf, &o, &rf), 0);
    CHECK(rs.soc_drained_frac > rf.soc_drained_frac);
    CHECK(rs.min_voltage_v < rf.min_voltage_v);
    /* and both against the closed form */
    CHECK_NEAR(rs.soc_drained_frac, rint_exact_charge_c(14.8, 0.032, t, sq, N) / 11520, 1e-6);
    CHECK_NEAR(rf.soc_drained_frac, rint_exact_charge_c(14.8, 0.032, t, flat, N) / 11520, 1e-6);
}

/* A rough trace (a new random value every 0.1 s, like the TX2 traces):
 * the solver must follow it to 1e-6 in state of charge. */
void test_battery_rough_trace_accuracy(void);
void test_battery_rough_trace_accuracy(void)
{
    enum { N = 6001 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    pp_battery_load load = {t, w, N};
    unsigned seed = 12345;

    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        t[i] = i * 0.1;
        w[i] = 2.0 + 30.0 * (double)((seed >> 16) & 0x7fff) / 32767.0;
    }
    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_NEAR(r.soc_drained_frac, rint_exact_charge_c(14.8, 0.032, t, w, N) / 11520, 1e-6);
}

void test_battery_brownout_is_an_event(void);
void test_battery_brownout_is_an_event(void)
{
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    /* U^2/4R = 14.8^2 / 0.128 = 1711 W: ramp from 1000 W to 2000 W over 10 s */
    double t[2] = {0, 10}, w[2] = {1000, 2000};
    pp_battery_load load = {t, w, 2};

    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_INT(r.n_events, 1);
    CHECK_INT(r.events[0].kind, PP_BATTERY_EVENT_BROWNOUT);
    CHECK_NEAR(r.events[0].t_s, (14.8 * 14.8 / (4 * 0.032) - 1000) / 100.0, 1e-3);
    CHECK(isfinite(r.soc_end_frac) && isfinite(r.energy_j) && isfinite(r.min_voltage_v));
    CHECK_NEAR(r.duration_s, r.events[0].t_s, 1e-9);
    CHECK_INT(r.cutoff_kind, PP_BATTERY_EVENT_BROWNOUT);
    /* a load beyond it from the start: an event at t = 0 */
    w[0] = 3000;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_INT(r.n_events, 1);
    CHECK_INT(r.events[0].kind, PP_BATTERY_EVENT_BROWNOUT);
    CHECK_NEAR(r.events[0].t_s, 0, 0);
}

void test_battery_voltage_cutoff(void);
void test_battery_voltage_cutoff(void)
{
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    double t[2] = {0, 100}, w[2] = {0, 200};
    pp_battery_load load = {t, w, 2};
    double p_cut;

    pack(&p, 14.8, 0.1, 3.2);
    p.cutoff_v = 13.2;
    /* V = U - R I hits 13.2 V when I = 16 A: P = 13.2 x 16 = 211.2 W > 200: no event */
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_INT(r.n_events, 0);
    p.cutoff_v = 13.5; /* I = 13 A, P = 175.5 W at t = 87.75 s */
    p_cut = 13.5 * 13.0;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_INT(r.n_events, 1);
    CHECK_INT(r.events[0].kind, PP_BATTERY_EVENT_VOLTAGE_CUTOFF);
    CHECK_NEAR(r.events[0].t_s, p_cut / 2.0, 1e-3);
    CHECK_NEAR(r.events[0].voltage_v, 13.5, 1e-6);
}

void test_battery_one_sample_trace(void);
void test_battery_one_sample_trace(void)
{
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    double t[1] = {0}, w[1] = {20};
    pp_battery_load load = {t, w, 1};
    double i = rint_current(14.8, 0.032, 20);

    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_NEAR(r.duration_s, 0, 0);
    CHECK_NEAR(r.soc_end_frac, 1.0, 0);
    CHECK_NEAR(r.time_to_cutoff_s, 0.8 * 11520 / i, 0.1);
}

/* Skipping whole periods (rint) gives the same time to cutoff as
 * integrating all of them. */
void test_battery_time_to_cutoff_skip_exact(void);
void test_battery_time_to_cutoff_skip_exact(void)
{
    enum { N = 101 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result fast, full;
    pp_battery_load load = {t, w, N};

    for (int i = 0; i < N; i++) {
        t[i] = i * 0.1;
        w[i] = 10 + 30 * (i % 7 == 0);
    }
    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    CHECK_INT(pp_battery_run(&p, &load, &o, &fast), 0);
    o.until_cutoff = 1;
    CHECK_INT(pp_battery_run(&p, &load, &o, &full), 0);
    CHECK_INT(full.cutoff_kind, PP_BATTERY_EVENT_SOC_CUTOFF);
    CHECK_NEAR(fast.time_to_cutoff_s, full.time_to_cutoff_s, 0.1);
    CHECK(fast.n_steps < full.n_steps / 10);
    CHECK_NEAR(full.soc_end_frac, 0.2, 1e-6);
    /* a load too small to reach cutoff within the horizon */
    for (int i = 0; i < N; i++)
        w[i] = 0.0;
    o.until_cutoff = 0;
    CHECK_INT(pp_battery_run(&p, &load, &o, &fast), 0);
    CHECK(isnan(fast.time_to_cutoff_s));
    CHECK_INT(fast.cutoff_kind, -1);
}

typedef struct sag_probe {
    double v_before, v_loaded_early, v_loaded_late, v_rest_early, v_rest_late;
} sag_probe;

static void probe(void *ctx, double t, double soc, double v, double i)
{
    sag_probe *s = ctx;
    (void)soc;
    (void)i;
    if (fabs(t - 9.0) < 1e-9)
        s->v_before = v;
    if (fabs(t - 10.5) < 1e-9)
        s->v_loaded_early = v;
    if (fabs(t - 69.0) < 1e-9)
        s->v_loaded_late = v;
    if (fabs(t - 70.5) < 1e-9)
        s->v_rest_early = v;
    if (fabs(t - 150.0) < 1e-9)
        s->v_rest_late = v;
}

/* The RC pair: the voltage sags on under a load and recovers after it. */
void test_battery_thevenin_sag_and_recovery(void);
void test_battery_thevenin_sag_and_recovery(void)
{
    enum { N = 301 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    pp_battery_load load = {t, w, N};
    sag_probe s = {0};

    for (int i = 0; i < N; i++) {
        t[i] = i * 0.5;
        w[i] = (t[i] >= 10 && t[i] < 70) ? 100.0 : 1.0;
    }
    pp_battery_params_default(&p);
    p.model = PP_BATTERY_THEVENIN;
    pp_battery_options_init(&o);
    o.output = probe;
    o.output_ctx = &s;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK(s.v_loaded_early < s.v_before - 0.1); /* R0 drop at once */
    CHECK(s.v_loaded_late < s.v_loaded_early - 0.05); /* then the RC sag */
    CHECK(s.v_rest_early > s.v_loaded_late);     /* R0 drop gone */
    CHECK(s.v_rest_late > s.v_rest_early + 0.05); /* RC recovers */
    CHECK(s.v_rest_late < s.v_before);           /* charge was used */
    CHECK(r.soc_end_frac < 1.0);
    CHECK_NEAR(r.min_voltage_v, s.v_loaded_late, 0.05);
}

void test_battery_bad_parameters(void);
void test_battery_bad_parameters(void)
{
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    double t[2] = {0, 1}, w[2] = {1, -1};
    pp_battery_load load = {t, w, 2};
    const char *key;
    char why[256];

    pp_battery_params_default(&p);
    pp_battery_options_init(&o);
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), -EINVAL); /* negative power */
    CHECK_CONTAINS(test_log(), "sample 2");
    p.capacity_ah = 0;
    CHECK_INT(pp_battery_params_check(&p, &key, why, sizeof why), -EINVAL);
    CHECK_STR(key, "capacity_ah");
    pp_battery_params_default(&p);
    p.soc_start_frac = 0.1;
    CHECK_INT(pp_battery_params_check(&p, &key, why, sizeof why), -EINVAL);
    CHECK_STR(key, "soc_start");
    pp_battery_params_default(&p);
    p.model = PP_BATTERY_THEVENIN;
    p.ocv_v[3] = 3.0;
    CHECK_INT(pp_battery_params_check(&p, &key, why, sizeof why), -EINVAL);
    CHECK_STR(key, "ocv_v");
    CHECK_CONTAINS(why, "not monotonic");
}

static int load_battery_config(const char *text, pp_battery_params *p)
{
    char path[512];
    pp_config *cfg;
    int rc;

    snprintf(path, sizeof path, "%s/b.cfg", test_tmpdir());
    write_file(path, text);
    rc = pp_config_load(path, &cfg);
    if (rc < 0)
        return rc;
    pp_battery_params_default(p);
    rc = pp_battery_params_from_config(cfg, p);
    pp_config_free(cfg);
    return rc;
}

void test_battery_config(void);
void test_battery_config(void)
{
    pp_battery_params p;

    CHECK_INT(load_battery_config("battery = {\n  preset = \"drone-3s-2200\";\n  model = \"thevenin\";\n"
                                  "  capacity_ah = 2;\n  base_power_w = 120;\n};\n", &p), 0);
    CHECK_INT(p.cells, 3);
    CHECK_INT(p.model, PP_BATTERY_THEVENIN);
    CHECK_NEAR(p.capacity_ah, 2.0, 0); /* an integer where a float is expected */
    CHECK_NEAR(p.base_power_w, 120.0, 0);
    test_log_clear();
    CHECK_INT(load_battery_config("battery = {\n  capacity_ah = -3.0;\n};\n", &p), -EINVAL);
    CHECK_CONTAINS(test_log(), "b.cfg:2: battery.capacity_ah: must be > 0 (got -3)");
    test_log_clear();
    CHECK_INT(load_battery_config("battery = {\n\n  capacty_ah = 3.0;\n};\n", &p), -EINVAL);
    CHECK_CONTAINS(test_log(), "b.cfg:3: battery.capacty_ah: unknown key");
    test_log_clear();
    CHECK_INT(load_battery_config("battery = {\n  voltage_v = \"high\";\n};\n", &p), -EINVAL);
    CHECK_CONTAINS(test_log(), ":2: battery.voltage_v: must be a number");
    test_log_clear();
    CHECK_INT(load_battery_config("battery = {\n  soc_start = 0.1;\n  soc_cutoff = 0.2;\n};\n", &p),
              -EINVAL);
    CHECK_CONTAINS(test_log(), ":2: battery.soc_start: 0.1 is not above soc_cutoff 0.2");
    test_log_clear();
    CHECK_INT(load_battery_config("battery = {\n model = \"thevenin\";\n ocv_soc = [0.0, 0.5, 1.0];\n"
                                  " ocv_v = [3.3, 3.2, 4.2];\n};\n", &p), -EINVAL);
    CHECK_CONTAINS(test_log(), ":4: battery.ocv_v: is not monotonic");
    test_log_clear();
    CHECK_INT(load_battery_config("battery = {\n  capacity_ah = 3.0\n", &p), -EINVAL);
    CHECK_CONTAINS(test_log(), "b.cfg:");
}

void test_cli_battery(void);
void test_cli_battery(void)
{
    char trace[512], soc[512];
    char *out = NULL, *text = NULL;
    size_t rows = 0;

    snprintf(trace, sizeof trace, "%s/t.csv", test_tmpdir());
    snprintf(soc, sizeof soc, "%s/soc.csv", test_tmpdir());
    /* 10 W on the board input, 4 W inside it: the battery sees 10 W */
    write_file(trace, "t_s,VDD_IN_w,VDD_GPU_w\n0,10,4\n1,10,4\n2,10,4\n3,10,4\n");
    CHECK_INT(run_powprof(&out, NULL, "battery", trace, "--json", "-o", soc, NULL), 0);
    CHECK_CONTAINS(out, "\"soc_end\":");
    CHECK_CONTAINS(out, "\"energy_j\":");
    CHECK_CONTAINS(out, "\"duration_s\":3,");
    CHECK_CONTAINS(out, "\"min_voltage_v\":");
    CHECK_CONTAINS(out, "\"time_to_cutoff_s\":");
    CHECK_CONTAINS(out, "\"events\":[]");
    CHECK_CONTAINS(out, "\"load_energy_j\":30,");
    free(out);
    text = slurp(soc);
    CHECK(text && strncmp(text, "t_s,soc_frac,voltage_v,current_a\n0.000000,1.000000000,", 54) == 0);
    for (const char *c = text; c && *c; c++)
        rows += *c == '\n';
    CHECK_INT(rows, 5);
    free(text);
    CHECK_INT(run_powprof(NULL, &out, "battery", "/nonexistent.csv", NULL), 2);
    CHECK_CONTAINS(out, "/nonexistent.csv");
    free(out);
    CHECK_INT(run_powprof(NULL, &out, "battery", trace, "--model", "lead-acid", NULL), 2);
    CHECK_CONTAINS(out, "lead-acid");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "battery", "--help", NULL), 0);
    CHECK_CONTAINS(out, "usage: powprof battery");
    free(out);
}

/* The shipped example configurations parse and describe a valid battery. */
void test_battery_shipped_configs(void);
void test_battery_shipped_configs(void)
{
    static const char *const files[] = {"configs/drone-4s.cfg"};
    pp_battery_params p;
    pp_config *cfg;

    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        CHECK_INT(pp_config_load(files[i], &cfg), 0);
        if (!cfg)
            continue;
        pp_battery_params_default(&p);
        CHECK_INT(pp_battery_params_from_config(cfg, &p), 0);
        CHECK_INT(p.model, PP_BATTERY_THEVENIN);
        CHECK_NEAR(p.efficiency, 0.9, 0);
        pp_config_free(cfg);
    }
}

/* Noise at every sample: the load is reduced to window means within the
 * stated bound (1e-7 of the capacity), and a one-sample spike beyond what
 * the battery can give is still a brown-out at its sample. */
void test_battery_noisy_trace_reduced(void);
void test_battery_noisy_trace_reduced(void)
{
    enum { N = 20001 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    pp_battery_load load = {t, w, N};
    unsigned seed = 77;
    double exact;

    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        t[i] = i * 0.01;
        w[i] = 8.0 + 2.0 * sin(t[i] / 7.0) + 0.5 * ((double)((seed >> 16) & 0x7fff) / 32767.0 - 0.5);
    }
    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    exact = rint_exact_charge_c(14.8, 0.032, t, w, N) / 11520;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    /* the bound is 1e-7; with the windows' terms of order 2 to 4 the error
     * is far below (1e-14 here; with the mean alone, 1e-8) */
    CHECK_NEAR(r.soc_drained_frac, exact, 1e-12);
    if (!(r.n_steps < N / 2))
        fprintf(stderr, "    steps %ld\n", r.n_steps);
    CHECK(r.n_steps < N); /* unreduced, it stops about 3 times a sample */
    /* a spike of one sample past U^2/4R = 1711 W at t = 123.45 s */
    w[12345] = 2000.0;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_INT(r.n_events, 1);
    CHECK_INT(r.events[0].kind, PP_BATTERY_EVENT_BROWNOUT);
    CHECK_NEAR(r.events[0].t_s, 123.445, 0.005); /* on the ramp up to the spike */
}

/* Step loads (interval means, as profile and import rows drive the battery):
 * a jump at every sample, against the exact sum of I(P_i) h, short (every
 * jump integrated) and long (reduced to windows). */
void test_battery_step_loads(void);
void test_battery_step_loads(void)
{
    static const int sizes[] = {50, 3000};
    enum { MAX = 3000 };
    static double t[2 * MAX], w[2 * MAX];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    unsigned seed = 5;

    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    for (size_t k = 0; k < 2; k++) {
        int n = sizes[k];
        double exact = 0;
        pp_battery_load load = {t, w, 2 * (size_t)n};
        for (int i = 0; i < n; i++) {
            double pw;
            seed = seed * 1103515245u + 12345u;
            pw = 4.0 + 4.0 * (double)((seed >> 16) & 0x7fff) / 32767.0;
            t[2 * i] = i * 0.1;
            t[2 * i + 1] = (i + 1) * 0.1;
            w[2 * i] = w[2 * i + 1] = pw;
            exact += rint_current(14.8, 0.032, pw) * 0.1;
        }
        CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
        CHECK_NEAR(r.soc_drained_frac, exact / 11520, k == 0 ? 1e-9 : 1e-12);
    }
}

/* The survey of the trace (one pass, in blocks, see sim_init) checks every
 * sample with sums and extremes instead of a test per sample: each kind of
 * bad sample, inside a block of a trace longer than several blocks, is
 * still found and named. */
void test_battery_bad_samples_in_long_traces(void);
void test_battery_bad_samples_in_long_traces(void)
{
    enum { N = 20001, BAD = 9999 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    pp_battery_load load = {t, w, N};
    const struct {
        double t_s, p_w; /* what goes into sample BAD (index BAD - 1) */
        const char *log;
    } cases[] = {
        {NAN, 5.0, "sample 9999: power 5 W at nan s"},
        {-1.0, 5.0, "sample 9999: time goes backwards"},
        {INFINITY, 5.0, "sample 9999: power 5 W at inf s"},
        {0.0, NAN, "sample 9999: power nan W"},
        {0.0, INFINITY, "sample 9999: power inf W"},
        {0.0, -0.25, "sample 9999: power -0.25 W"},
    };

    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int i = 0; i < N; i++) {
            t[i] = i * 0.01;
            w[i] = 5.0;
        }
        if (cases[k].t_s != 0.0)
            t[BAD - 1] = cases[k].t_s;
        else
            w[BAD - 1] = cases[k].p_w;
        test_log_clear();
        CHECK_INT(pp_battery_run(&p, &load, &o, &r), -EINVAL);
        CHECK_CONTAINS(test_log(), cases[k].log);
    }
    /* huge but finite powers overflow the check's sums: not an error (the
     * battery cannot give them: a brown-out at the first) */
    for (int i = 0; i < N; i++)
        w[i] = i % 1000 == 500 ? 1e308 : 5.0;
    test_log_clear();
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK_INT(r.cutoff_kind, PP_BATTERY_EVENT_BROWNOUT);
    CHECK_NEAR(r.time_to_cutoff_s, 4.99, 0.01);
}

/* Kinks are taken as candidates against the largest power seen so far and
 * filtered once the largest is known: one-sample spikes early in a long
 * trace whose largest power comes at its end must still end solver steps
 * (a step over a spike does not see it), with even and uneven spacing. */
void test_battery_early_spikes_late_maximum(void);
void test_battery_early_spikes_late_maximum(void)
{
    enum { N = 20001 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    pp_battery_load load = {t, w, N};

    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    for (int uneven = 0; uneven < 2; uneven++) {
        double exact;
        for (int i = 0; i < N; i++) {
            t[i] = i * 0.1 + (uneven && i % 3 == 1 ? 0.03 : 0.0);
            w[i] = i % 997 == 0 && i < N / 2 ? 3.0 : 1.0;
            if (i > N - 100)
                w[i] = 1.0 + (i - (N - 100)) * 1.0; /* up to 100 W */
        }
        exact = rint_exact_charge_c(14.8, 0.032, t, w, N) / 11520;
        CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
        CHECK_NEAR(r.soc_drained_frac, exact, 1e-9); /* one spike is 0.2 J, 1.2e-6 of the charge */
    }
}

static void count_rows(void *ctx, double t_s, double soc, double v, double i)
{
    (void)t_s;
    (void)soc;
    (void)v;
    (void)i;
    ++*(size_t *)ctx;
}

/* Without output, the lowest voltage of a step is taken at its highest
 * sample, found by index (even spacing) or search (uneven); with output,
 * every sample is evaluated. Both give the same minimum, also over
 * repetitions of the trace until cutoff. */
void test_battery_min_voltage_without_output(void);
void test_battery_min_voltage_without_output(void)
{
    enum { N = 3001 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result with, without;
    pp_battery_load load = {t, w, N};

    pack(&p, 14.8, 0.032, 3.2);
    for (int uneven = 0; uneven < 2; uneven++) {
        for (int i = 0; i < N; i++) {
            t[i] = i * 0.1 + (uneven && i % 2 ? 0.04 : 0.0);
            w[i] = 5.0 + 0.1 * sin(i / 50.0) + (i == 1234 ? 40.0 : 0.0);
        }
        for (int until = 0; until < 2; until++) {
            size_t rows = 0;
            pp_battery_options_init(&o);
            o.time_to_cutoff = 0;
            o.until_cutoff = until;
            CHECK_INT(pp_battery_run(&p, &load, &o, &without), 0);
            o.output = count_rows;
            o.output_ctx = &rows;
            CHECK_INT(pp_battery_run(&p, &load, &o, &with), 0);
            CHECK(until ? rows > 10 * N : rows == N);
            CHECK_NEAR(without.min_voltage_v, with.min_voltage_v, 1e-6);
            /* the spike's voltage: U - R I(45 W) at the state then */
            CHECK(without.min_voltage_v < 14.8 - 0.032 * rint_current(14.8, 0.032, 44.9));
        }
    }
}

/* A glitch (one sample of absurd power) is a brown-out on the ramp up to
 * it, whatever its size: CVODE must not be left to step into it (its error
 * test fails, or steps shrink to nothing), and it must not hide the kinks
 * of the rest of the trace. Both models. */
void test_battery_glitch_is_a_brownout(void);
void test_battery_glitch_is_a_brownout(void)
{
    enum { N = 2001 };
    static double t[N], w[N];
    static const double sizes[] = {3000.0, 1e9, 1e20, 1e300};
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    pp_battery_load load = {t, w, N};

    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    for (int model = 0; model < 2; model++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            double u, cap, expect;
            pack(&p, 14.8, 0.032, 3.2);
            if (model)
                p.model = PP_BATTERY_THEVENIN;
            for (int i = 0; i < N; i++) {
                t[i] = i * 0.01;
                w[i] = i == 1500 ? sizes[k] : 5.0 + (i % 2) * 0.5; /* kinks everywhere */
            }
            u = pp_battery_ocv_v(&p, 1.0);
            cap = u * u / (4 * 0.032);
            /* the ramp from 14.99 s reaches U^2/4R (rint: exactly, thevenin:
             * a little earlier, the OCV having dropped) */
            expect = 14.99 + (cap - w[1499]) / (sizes[k] - w[1499]) * 0.01;
            test_log_clear();
            CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
            CHECK_INT(r.cutoff_kind, PP_BATTERY_EVENT_BROWNOUT);
            CHECK_NEAR(r.time_to_cutoff_s, expect, model ? 2e-4 : 1e-6);
            CHECK(r.time_to_cutoff_s <= expect + 1e-9);
        }
    }
}

/* With rint every long load is reduced to windows; windows may span the
 * edges of plateaus, whose effect the windows' moments carry: a square wave
 * of 5 and 95 W (1 s each) with one-sample spikes, against the closed form,
 * and its time to cutoff (whole periods skipped) against a run of the trace
 * repeated until cutoff. */
void test_battery_reduced_plateaus(void);
void test_battery_reduced_plateaus(void)
{
    enum { N = 20001 };
    static double t[N], w[N];
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r, full;
    pp_battery_load load = {t, w, N};
    double exact;

    for (int i = 0; i < N; i++) {
        t[i] = i * 0.01;
        w[i] = (i / 100) % 2 ? 5.0 : 95.0;
        if (i % 777 == 0)
            w[i] = 400.0;
    }
    pack(&p, 14.8, 0.032, 3.2);
    pp_battery_options_init(&o);
    exact = rint_exact_charge_c(14.8, 0.032, t, w, N) / 11520;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    /* the budget is 1e-7; the windows' moments make it 3e-11 here */
    CHECK_NEAR(r.soc_drained_frac, exact, 1e-9);
    o.until_cutoff = 1;
    CHECK_INT(pp_battery_run(&p, &load, &o, &full), 0);
    CHECK_INT(full.cutoff_kind, PP_BATTERY_EVENT_SOC_CUTOFF);
    CHECK_NEAR(r.time_to_cutoff_s, full.time_to_cutoff_s, 0.01);
}
