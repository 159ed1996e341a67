/* repeat.h - skipping whole periods of a repeated trace (internal to
 * battery/; the solver integrates, this decides how far to jump).
 *
 * Time to cutoff repeats the trace as if the configuration ran on. After two
 * whole periods integrated, n periods are skipped: each is taken to change
 * the state of charge and the energies by what the last one did (b), the
 * next period (c) is integrated from there, and the skipped periods are
 * corrected to the mean of the changes of b and c (the trapezoid rule over
 * periods). The RC voltage relaxes with tau = r1 c1: over periods T much
 * shorter it drifts slowly and is carried like the others (over at most
 * tau), over longer ones it settles within each period and is carried one
 * period's change at most.
 *
 * The bound. The drain of a period only grows as the charge falls (a lower
 * open-circuit voltage, more RC voltage: more current for the same power),
 * so the true drain of the skipped periods lies between n times the first
 * and n times the last, and the trapezoid is off by at most n |d_c - d_b| / 2.
 * The RC voltage is off by at most min(n, max(1, tau / T)) |dV1_c - dV1_b|
 * (the same argument, over the periods it is carried), and an error e in it
 * changes the drain by about e tau / (T u) of a period's as it relaxes
 * afterwards. Both are added up in the result (skip_error_frac), and
 * pp_skip_periods keeps each within PP_SKIP_REL_ERR / 2 of the charge
 * skipped. For rint the drain of a period does not depend on the state:
 * skipping is exact (the bound is 0 but for rounding).
 */
#ifndef PP_BATTERY_REPEAT_H
#define PP_BATTERY_REPEAT_H

#include "battery.h"

#define PP_SKIP_REL_ERR 1e-3

typedef struct pp_period {
    double k;               /* which period */
    double dy[4];           /* change of SoC, RC voltage, energies over it */
    double vmin_v, dmin_v2; /* lowest voltage and u^2 - 4 R0 P, at its windows' peaks */
} pp_period;

/* The whole periods of period_s to skip from state y (at the start of a
 * period, left periods before the horizon) after periods a and b (b the
 * last): at most half the way to each event their trends foresee (state of
 * charge, voltage, brown-out), left - 1, and within the bound above. */
double pp_skip_periods(const pp_battery_params *p, const double *y, const pp_period *a,
                       const pp_period *b, double period_s, double left);

/* The states after n periods taken as b, before integrating period c. */
void pp_skip_predict(const pp_battery_params *p, double n, const pp_period *b, double period_s,
                     double *y);

/* After period c, with the states at its end in y: correct y to the
 * trapezoid rule and return the bound of the error in state of charge. */
double pp_skip_correct(const pp_battery_params *p, double n, const pp_period *b, const pp_period *c,
                       double period_s, double *y);

#endif
