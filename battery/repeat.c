/* Skipping whole periods of a repeated trace: how many, and the bound
 * (repeat.h). y is (SoC, V1, energy drawn, energy delivered). */
#include "repeat.h"

#include <math.h>

/* How far a margin falling by fall a period may be run down in one skip. */
static double approach(double margin, double fall) { return fall > 0 ? 0.5 * margin / fall : INFINITY; }

/* tau / T, the RC time constant in periods (0 for rint). */
static double tau_periods(const pp_battery_params *p, double period_s)
{
    return p->model == PP_BATTERY_THEVENIN ? p->r1_ohm * p->c1_f / period_s : 0.0;
}

/* The state of charge that an error of 1 V in the RC voltage costs as it
 * relaxes, for a drain d a period (repeat.h). */
static double v1_cost(const pp_battery_params *p, const double *y, double d, double period_s)
{
    return tau_periods(p, period_s) * d / (pp_battery_ocv_v(p, y[0]) - y[1]);
}

double pp_skip_periods(const pp_battery_params *p, const double *y, const pp_period *a,
                       const pp_period *b, double period_s, double left)
{
    double gap = b->k - a->k, d = -b->dy[0], n = left - 1.0, most = PP_SKIP_REL_ERR * d / 2;
    double dd = fabs(b->dy[0] - a->dy[0]) / gap, ddv = fabs(b->dy[1] - a->dy[1]) / gap;
    double tau = tau_periods(p, period_s), v1_err = ddv * v1_cost(p, y, d, period_s);

    if (d > 0)
        n = fmin(n, approach(y[0] - p->soc_cutoff_frac, d));
    if (p->cutoff_v > 0)
        n = fmin(n, approach(b->vmin_v - p->cutoff_v, (a->vmin_v - b->vmin_v) / gap));
    if (p->r_int_ohm > 0)
        n = fmin(n, approach(b->dmin_v2, (a->dmin_v2 - b->dmin_v2) / gap));
    if (dd > 0) /* n (n dd) / 2 <= most n */
        n = fmin(n, 2.0 * most / dd);
    if (tau > 1) /* the RC voltage, slow: linear over at most tau, the same bound */
        n = fmin(n, fmin(tau, most / v1_err));
    else if (tau > 0 && v1_err > most) /* fast: it settles within a period */
        n = fmin(n, 1.0);
    return floor(n);
}

void pp_skip_predict(const pp_battery_params *p, double n, const pp_period *b, double period_s,
                     double *y)
{
    y[0] += n * b->dy[0];
    y[1] += fmin(n, tau_periods(p, period_s)) * b->dy[1];
    y[2] += n * b->dy[2];
    y[3] += n * b->dy[3];
}

double pp_skip_correct(const pp_battery_params *p, double n, const pp_period *b, const pp_period *c,
                       double period_s, double *y)
{
    double m = fmin(n, fmax(1.0, tau_periods(p, period_s)));

    y[0] += n * (c->dy[0] - b->dy[0]) / 2;
    y[2] += n * (c->dy[2] - b->dy[2]) / 2;
    y[3] += n * (c->dy[3] - b->dy[3]) / 2;
    return n * fabs(c->dy[0] - b->dy[0]) / 2 +
           m * fabs(c->dy[1] - b->dy[1]) * v1_cost(p, y, -c->dy[0], period_s);
}
