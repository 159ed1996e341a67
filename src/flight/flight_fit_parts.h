/* flight_fit_parts.h - the parts of flights a pack fit is chosen and
 * judged on (flight_fit.c): each training part cut into a part fitted and
 * a part after it (forward validation), and a pack's RMS there. */
#ifndef PP_FLIGHT_FIT_PARTS_H
#define PP_FLIGHT_FIT_PARTS_H

#include "battery/fit.h"

#include <stddef.h>

/* Whether fit f of n flights is degenerate: a pack parameter at a bound of
 * its range, or a start at its lower end (a start at 100 % is a full pack). */
int pp_fit_degenerate(const pp_fit_result *f, size_t n);

/* The flights ff cut into c: each training part's first 1 - frac by time
 * fitted (c[f].n_train), the rest its validation part. 0 when a part
 * would hold fewer than 3 samples or a validation part fewer than 2 (no
 * choice made on it), else 1. */
int pp_fit_cut(const pp_fit_flight *ff, size_t n, double frac, pp_fit_flight *c);

/* The RMS of pack p (flight f from soc[f], its logged current, fit.h's
 * equations) over the validation parts: samples c[f].n_train to
 * ff[f].n_train. NaN on no memory. */
double pp_fit_validation_rms(const pp_battery_params *p, const double *soc,
                             const pp_fit_flight *ff, const pp_fit_flight *c, size_t n);

/* The same for the prior p, each flight started as `battery LOG` starts
 * it: from its first voltage (plus R0 I) through p's curve (rint: its own
 * start). */
double pp_fit_prior_validation_rms(const pp_battery_params *p, const pp_fit_flight *ff,
                                   const pp_fit_flight *c, size_t n);

#endif
