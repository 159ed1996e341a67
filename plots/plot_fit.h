/* plot_fit.h - the battery fitted to flight logs (powprof battery fit
 * --plot DIR): per flight, the logged and the modelled terminal voltage
 * over time with the fitted part shaded, and below it the residual
 * (modelled - logged). DIR/battery-fit.gp and .dat, rendered to
 * battery-fit.png with gnuplot (plot.c). Calls gnuplot.c. */
#ifndef PP_PLOT_FIT_H
#define PP_PLOT_FIT_H

#include "plot.h"

#include "src/flight/flight_fit.h"

/* Write the plot of fit f under dir (created) and render it into r (free
 * with pp_plot_result_free, also after an error): r->n_rendered, its
 * error, r->gnuplot_missing. 0 or -errno (logged). */
int pp_plot_fit(const char *dir, const pp_flight_fit *f, pp_plot_result *r);

#endif
