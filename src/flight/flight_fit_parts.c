/* The parts of flights a fit is chosen and judged on (flight_fit_parts.h). */
#include "flight_fit_parts.h"

#include <math.h>
#include <stdlib.h>

/* Degenerate: a pack parameter at a bound, or a start at its low end. */
int pp_fit_degenerate(const pp_fit_result *f, size_t n)
{
    int d = (f->at_bound & (PP_FIT_P_START - 1)) != 0;

    for (size_t i = 0; i < n; i++)
        d |= (f->at_bound & (PP_FIT_P_START << i)) && f->soc_start_frac[i] < 0.5;
    return d;
}

/* Each training part cut at 1 - frac of its time. */
int pp_fit_cut(const pp_fit_flight *ff, size_t n, double frac, pp_fit_flight *c)
{
    for (size_t f = 0; f < n; f++) {
        double t_end = ff[f].t_s[0] + (1 - frac) *
                                          (ff[f].t_s[ff[f].n_train - 1] - ff[f].t_s[0]);
        c[f] = ff[f];
        c[f].n_train = 0;
        while (c[f].n_train < ff[f].n_train && ff[f].t_s[c[f].n_train] <= t_end + 1e-9)
            c[f].n_train++;
        if (c[f].n_train < 3 || ff[f].n_train - c[f].n_train < 2)
            return 0;
    }
    return 1;
}

/* Pack p over the validation parts. */
double pp_fit_validation_rms(const pp_battery_params *p, const double *soc,
                             const pp_fit_flight *ff, const pp_fit_flight *c, size_t n)
{
    double sum2 = 0;
    size_t m = 0;

    for (size_t f = 0; f < n; f++) {
        pp_fit_flight w = ff[f];
        double *v = malloc(ff[f].n_train * sizeof *v);
        if (!v)
            return NAN;
        w.n = ff[f].n_train;
        pp_battery_fit_voltage(p, soc[f], &w, v, NULL);
        for (size_t k = c[f].n_train; k < ff[f].n_train; k++, m++)
            sum2 += (v[k] - ff[f].voltage_v[k]) * (v[k] - ff[f].voltage_v[k]);
        free(v);
    }
    return m ? sqrt(sum2 / (double)m) : NAN;
}

/* The prior over the validation parts, started from the first voltage. */
double pp_fit_prior_validation_rms(const pp_battery_params *p, const pp_fit_flight *ff,
                                   const pp_fit_flight *c, size_t n)
{
    double soc[PP_FIT_FLIGHTS_MAX];

    for (size_t f = 0; f < n; f++) {
        double s = pp_battery_soc_of_ocv(p, ff[f].voltage_v[0] + p->r_int_ohm * ff[f].current_a[0]);
        soc[f] = isfinite(s) ? fmin(fmax(s, 1e-3), 1) : p->soc_start_frac;
    }
    return pp_fit_validation_rms(p, soc, ff, c, n);
}
