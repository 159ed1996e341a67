/* plot_governor.h - `powprof govern --simulate --plot DIR`: the state of
 * charge and the setting over time of the static plan held, the governed
 * run and the oracle (src/governor/governor_sim.h), with the reserve. */
#ifndef PP_PLOT_GOVERNOR_H
#define PP_PLOT_GOVERNOR_H

#include "plot.h"

#include "src/governor/governor_sim.h"

/* DIR/governor.gp and governor.dat written (DIR created), then rendered
 * with gnuplot when there is one (r: free with pp_plot_result_free, also
 * after an error). quality names what the setting's quality is. 0 or
 * -errno (logged). */
int pp_plot_governor(const char *dir, const pp_sim_result *s, double reserve_frac,
                     const char *quality, pp_plot_result *r);

#endif
