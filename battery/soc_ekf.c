/* The state of charge from voltage and current (soc_ekf.h). */
#include "soc_ekf.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define SOC_SD0 0.10      /* the start from the open-circuit curve: 10 points */
#define V1_SD0_V 0.05
#define V1_Q_V2_S 1e-6    /* V1 process noise per second (the model's RC error) */
#define SOC_Q_S 1e-9      /* SoC process noise per second (capacity error) */

const char *pp_soc_source_name(pp_soc_source s)
{
    switch (s) {
    case PP_SOC_MEASURED:
        return "measured";
    case PP_SOC_EKF:
        return "ekf";
    case PP_SOC_COULOMB:
        return "coulomb";
    default:
        return "none";
    }
}

int pp_soc_ekf_init(pp_soc_ekf *f, const pp_battery_params *pack)
{
    const char *key;
    char why[160];

    memset(f, 0, sizeof *f);
    if (pp_battery_params_check(pack, &key, why, sizeof why) < 0) {
        pp_log_error("state of charge: battery: %s %s", key, why);
        return -EINVAL;
    }
    f->pack = *pack;
    f->sigma_v = 0.01;
    f->sigma_i_frac = 0.01;
    f->sigma_i_a = 0.05;
    f->x[0] = f->x[1] = NAN;
    return 0;
}

double pp_soc_from_ocv(const pp_battery_params *p, double ocv_v)
{
    double lo = 0, hi = 1;

    if (p->model == PP_BATTERY_RINT || !isfinite(ocv_v))
        return NAN;
    if (ocv_v <= pp_battery_ocv_v(p, 0))
        return 0;
    if (ocv_v >= pp_battery_ocv_v(p, 1))
        return 1;
    for (int it = 0; it < 60; it++) { /* the table rises with the charge */
        double mid = 0.5 * (lo + hi);
        if (pp_battery_ocv_v(p, mid) < ocv_v)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void pp_soc_ekf_reset(pp_soc_ekf *f, double t_s, double soc_frac)
{
    f->started = 1;
    f->t_s = t_s;
    f->x[0] = soc_frac;
    f->x[1] = 0;
    f->p[0][0] = 1e-6;
    f->p[0][1] = f->p[1][0] = 0;
    f->p[1][1] = V1_SD0_V * V1_SD0_V;
    f->source = PP_SOC_MEASURED;
}

/* The first sample: the measured charge, else the curve at V + R0 I. */
static int start(pp_soc_ekf *f, double t_s, double v, double i, double soc)
{
    double s = isfinite(soc) ? soc : pp_soc_from_ocv(&f->pack, v + f->pack.r_int_ohm * (isfinite(i) ? i : 0));

    int coulomb = !isfinite(s) && f->pack.model == PP_BATTERY_RINT;

    if (coulomb) /* nothing says the charge: the pack's start, counted from */
        s = f->pack.soc_start_frac;
    if (!isfinite(s))
        return -EINVAL;
    pp_soc_ekf_reset(f, t_s, s);
    if (!isfinite(soc)) {
        f->p[0][0] = SOC_SD0 * SOC_SD0;
        f->source = coulomb ? PP_SOC_COULOMB : PP_SOC_EKF;
    }
    f->current_a = isfinite(i) ? i : 0;
    return 0;
}

/* The model over dt with the mean current i. */
static void predict(pp_soc_ekf *f, double dt, double i)
{
    const pp_battery_params *b = &f->pack;
    double q_c = b->capacity_ah * 3600.0, a = 1, g = 0, si;
    double p00 = f->p[0][0], p01 = f->p[0][1], p11 = f->p[1][1];

    if (b->model == PP_BATTERY_THEVENIN) {
        double tau = b->r1_ohm * b->c1_f;
        a = exp(-dt / tau);
        g = b->r1_ohm * (1 - a);
    }
    f->x[0] -= i * dt / q_c;
    f->x[1] = a * f->x[1] + g * i;
    si = f->sigma_i_frac * fabs(i) + f->sigma_i_a;
    /* F = [[1, 0], [0, a]]; the current's error enters both states */
    f->p[0][0] = p00 + (si * dt / q_c) * (si * dt / q_c) + SOC_Q_S * dt;
    f->p[0][1] = f->p[1][0] = a * p01 - (si * dt / q_c) * (g * si);
    f->p[1][1] = a * a * p11 + (g * si) * (g * si) + V1_Q_V2_S * dt;
}

/* The terminal voltage v measured at current i. */
static void correct(pp_soc_ekf *f, double v, double i)
{
    const pp_battery_params *b = &f->pack;
    double s = f->x[0], h = 1e-3, h0, h1 = -1, y, sv, k0, k1, p00, p01, p11;

    h0 = (pp_battery_ocv_v(b, fmin(s + h, 1)) - pp_battery_ocv_v(b, fmax(s - h, 0))) /
         (fmin(s + h, 1) - fmax(s - h, 0));
    y = v - (pp_battery_ocv_v(b, s) - f->x[1] - b->r_int_ohm * i);
    p00 = f->p[0][0];
    p01 = f->p[0][1];
    p11 = f->p[1][1];
    sv = h0 * h0 * p00 + 2 * h0 * h1 * p01 + h1 * h1 * p11 + f->sigma_v * f->sigma_v +
         (b->r_int_ohm * f->sigma_i_frac * fabs(i)) * (b->r_int_ohm * f->sigma_i_frac * fabs(i));
    k0 = (p00 * h0 + p01 * h1) / sv;
    k1 = (p01 * h0 + p11 * h1) / sv;
    f->x[0] += k0 * y;
    f->x[1] += k1 * y;
    f->p[0][0] = p00 - k0 * (h0 * p00 + h1 * p01);
    f->p[0][1] = f->p[1][0] = p01 - k0 * (h0 * p01 + h1 * p11);
    f->p[1][1] = p11 - k1 * (h0 * p01 + h1 * p11);
    f->innovation_v = y;
}

int pp_soc_ekf_update(pp_soc_ekf *f, double t_s, double voltage_v, double current_a,
                      double soc_frac)
{
    double dt;

    if (!isfinite(t_s) || (f->started && !(t_s > f->t_s)))
        return -EINVAL;
    if (!f->started)
        return start(f, t_s, voltage_v, current_a, soc_frac);
    if (!isfinite(current_a)) {
        if (!isfinite(soc_frac))
            return -EINVAL;
        pp_soc_ekf_reset(f, t_s, soc_frac); /* a charge only: it is all there is */
        return 0;
    }
    dt = t_s - f->t_s;
    predict(f, dt, 0.5 * (current_a + f->current_a));
    f->t_s = t_s;
    f->current_a = current_a;
    if (isfinite(voltage_v) && f->pack.model == PP_BATTERY_THEVENIN) {
        correct(f, voltage_v, current_a);
        f->source = PP_SOC_EKF;
    } else if (f->source != PP_SOC_EKF) {
        f->source = PP_SOC_COULOMB;
    }
    f->x[0] = fmin(fmax(f->x[0], 0), 1);
    return 0;
}

double pp_soc_ekf_soc(const pp_soc_ekf *f) { return f->started ? f->x[0] : NAN; }

double pp_soc_ekf_sd(const pp_soc_ekf *f) { return f->started ? sqrt(fmax(f->p[0][0], 0)) : NAN; }
