/* Battery benchmark: a one-hour trace sampled at 1 kHz (3.6 million
 * samples), a smooth periodic load and the same with sensor noise at every
 * sample, integrated by pp_battery_run (one pass) and by a fixed-step RK4
 * at the sampling step, in the same run.
 *
 * Targets (issue 11): error <= 1e-6 of capacity against the closed form
 * (rint: pp_battery_rint_charge_c per segment, summed in long double) or a
 * fine RK4 (thevenin: half the sampling step); one hour in <= 0.1 s (rint)
 * and <= 0.25 s (thevenin). The ratio against RK4 at the sampling step is
 * printed, its error beside it (not required to be equal). Times are the
 * best of three runs (the machine is shared).
 *
 * Then the battery reproducers of issue 12, through the library: each a
 * correct answer within 1 s (the errors among them cost nothing).
 */
#include "battery/battery.h"
#include "src/base/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RATE_HZ 1000.0
#define SECONDS 3600.0

static double now_s(void) { return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic)); }

/* The exact rint drain: the closed form per segment, summed in long double
 * so that the sum's rounding stays far below the errors it measures. */
static double exact_drain(const pp_battery_params *p, const double *t, const double *w, size_t n)
{
    long double q = 0.0L;
    for (size_t i = 0; i + 1 < n; i++)
        q += pp_battery_rint_charge_c(p->voltage_v, p->r_int_ohm, w[i], w[i + 1], t[i + 1] - t[i]);
    return (double)(q / (long double)(p->capacity_ah * 3600.0));
}

/* The library's model (battery.h's OCV and current) with a classic RK4. */
typedef struct rk_state {
    double soc, v1;
} rk_state;

static rk_state rk_rhs(const pp_battery_params *p, rk_state y, double power)
{
    int brownout;
    double i = pp_battery_current_a(pp_battery_ocv_v(p, y.soc) - y.v1, p->r_int_ohm, power, &brownout);
    rk_state d = {-i / (p->capacity_ah * 3600.0),
                  p->model == PP_BATTERY_THEVENIN ? (i - y.v1 / p->r1_ohm) / p->c1_f : 0.0};
    return d;
}

static rk_state axpy(rk_state y, double a, rk_state k)
{
    rk_state r = {y.soc + a * k.soc, y.v1 + a * k.v1};
    return r;
}

/* RK4 with m steps a sample (the load linear between samples). */
static double rk4_drain(const pp_battery_params *p, const double *w, size_t n, double dt, int m)
{
    rk_state y = {p->soc_start_frac, 0};
    double h = dt / m;
    for (size_t i = 0; i + 1 < n; i++) {
        for (int k = 0; k < m; k++) {
            double a = w[i] + (w[i + 1] - w[i]) * k / m, b = w[i] + (w[i + 1] - w[i]) * (k + 1) / m;
            rk_state k1 = rk_rhs(p, y, a), k2 = rk_rhs(p, axpy(y, h / 2, k1), (a + b) / 2);
            rk_state k3 = rk_rhs(p, axpy(y, h / 2, k2), (a + b) / 2), k4 = rk_rhs(p, axpy(y, h, k3), b);
            y.soc += h / 6 * (k1.soc + 2 * k2.soc + 2 * k3.soc + k4.soc);
            y.v1 += h / 6 * (k1.v1 + 2 * k2.v1 + 2 * k3.v1 + k4.v1);
        }
    }
    return p->soc_start_frac - y.soc;
}

/* The best of three runs: seconds, or -1 if one failed. */
static double best_of_3(const pp_battery_params *p, const pp_battery_load *load,
                        const pp_battery_options *o, pp_battery_result *r)
{
    double best = INFINITY;

    for (int k = 0; k < 3; k++) {
        double t0 = now_s();
        if (pp_battery_run(p, load, o, r) < 0)
            return -1;
        best = fmin(best, now_s() - t0);
    }
    return best;
}

static void bench_model(const char *label, const pp_battery_params *p, const double *t,
                        const double *w, size_t n, double target_s)
{
    pp_battery_options o;
    pp_battery_result r;
    pp_battery_load load = {.t_s = t, .p_w = w, .n = n};
    double t0, cv_s, rk_s, rk, ref, err;

    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    if ((cv_s = best_of_3(p, &load, &o, &r)) < 0) {
        printf("%s: the run failed\n", label);
        return;
    }
    t0 = now_s();
    rk = rk4_drain(p, w, n, 1.0 / RATE_HZ, 1);
    rk_s = now_s() - t0;
    ref = p->model == PP_BATTERY_RINT ? exact_drain(p, t, w, n) : rk4_drain(p, w, n, 1.0 / RATE_HZ, 2);
    err = fabs(r.soc_drained_frac - ref);
    printf("%-17s pp_battery_run %6.3f s (target <= %.2f s: %s), %6ld steps, error %.1e "
           "(target <= 1e-6: %s)\n",
           label, cv_s, target_s, cv_s <= target_s ? "met" : "MISSED", r.n_steps, err,
           err <= 1e-6 ? "met" : "MISSED");
    printf("%-17s RK4 at 1 ms     %6.3f s, error %.1e; RK4 / pp_battery_run time %.1fx\n", "",
           rk_s, fabs(rk - ref), rk_s / cv_s);
}

/* One reproducer of issue 12: its time against the 1 s target. */
static void reproducer(const char *label, const pp_battery_params *p, const pp_battery_load *load,
                       int until_cutoff)
{
    pp_battery_options o;
    pp_battery_result r;
    double s;

    pp_battery_options_init(&o);
    o.until_cutoff = until_cutoff;
    s = best_of_3(p, load, &o, &r);
    printf("%-44s %8.4f s (target <= 1 s: %s), %7ld steps, cutoff %.1f s, soc_end %.6f\n",
           label, s, s >= 0 && s <= 1 ? "met" : "MISSED", r.n_steps, r.time_to_cutoff_s,
           r.soc_end_frac);
}

static void reproducers(void)
{
    static double t50[50], w50[50];
    double t2[2] = {0, 0.001}, w2[2] = {5, 5}, t1[1] = {0.001}, w1[1] = {0};
    pp_battery_load ms = {t2, w2, 2, 0}, hz50 = {t50, w50, 50, 0}, zero = {t1, w1, 1, 1};
    pp_battery_params p;

    for (int i = 0; i < 50; i++) {
        t50[i] = i * 0.02;
        w50[i] = 5 + 3 * sin(i / 5.0);
    }
    printf("issue 12 reproducers (library, drone-4s-3200):\n");
    for (int model = 0; model < 2; model++) {
        pp_battery_params_default(&p);
        p.model = model;
        printf("  %s\n", pp_battery_model_name(p.model));
        reproducer("    0,5 / 0.001,5 --until-cutoff", &p, &ms, 1);
        reproducer("    1 s at 50 Hz --until-cutoff", &p, &hz50, 1);
        reproducer("    one interval mean of 0 W at 1 kHz (import)", &p, &zero, 0);
        p.capacity_ah = PP_BATTERY_CAPACITY_AH_MIN;
        reproducer("    capacity_ah at its least, 0,5 / 0.001,5", &p, &ms, 1);
        p.capacity_ah = PP_BATTERY_CAPACITY_AH_MAX;
        reproducer("    capacity_ah at its most, 0,5 / 0.001,5", &p, &ms, 1);
    }
}

int main(void)
{
    size_t n = (size_t)(SECONDS * RATE_HZ) + 1;
    double *t = malloc(n * sizeof *t), *smooth = malloc(n * sizeof *smooth),
           *noisy = malloc(n * sizeof *noisy);
    pp_battery_params rint, thevenin;
    unsigned seed = 42;

    if (!t || !smooth || !noisy)
        return 1;
    for (size_t i = 0; i < n; i++) {
        double x = (double)i / RATE_HZ;
        t[i] = x;
        smooth[i] = 6.0 + 3.0 * sin(2 * M_PI * x / 10.0) + 1.0 * sin(2 * M_PI * x / 97.0);
        seed = seed * 1103515245u + 12345u;
        noisy[i] = smooth[i] + 0.5 * ((double)((seed >> 16) & 0x7fff) / 32767.0 - 0.5);
    }
    pp_battery_params_default(&rint); /* rint 14.8 V, 32 mOhm, 3.2 Ah */
    thevenin = rint;
    thevenin.model = PP_BATTERY_THEVENIN; /* OCV table, RC pair 16 mOhm x 1875 F */
    printf("one hour at %.0f Hz (%zu samples), drone-4s-3200\n", RATE_HZ, n);
    bench_model("rint smooth", &rint, t, smooth, n, 0.1);
    bench_model("rint noisy", &rint, t, noisy, n, 0.1);
    bench_model("thevenin smooth", &thevenin, t, smooth, n, 0.25);
    bench_model("thevenin noisy", &thevenin, t, noisy, n, 0.25);
    reproducers();
    free(t);
    free(smooth);
    free(noisy);
    return 0;
}
