/* plot_flight.h - a flight log beside the battery model (powprof battery
 * LOG --plot DIR), as Flight Review shows a log's battery: per battery
 * instance, the terminal voltage, the current and the charge left over
 * time, logged beside modelled (the model driven by the logged power,
 * voltage x current). DIR/battery-flight.gp and .dat, rendered to
 * battery-flight.png with gnuplot (plot.c). Calls gnuplot.c. */
#ifndef PP_PLOT_FLIGHT_H
#define PP_PLOT_FLIGHT_H

#include "plot.h"

#include "battery/battery.h"
#include "src/flight/ulog.h"

/* Drive each pack[i] (as `powprof battery LOG` sets it for instance i of
 * f) with its instance's logged power, and write and render the plot under
 * dir (created) into r (free with pp_plot_result_free, also after an
 * error). 0 or -errno (logged). */
int pp_plot_flight(const char *dir, const pp_ulog_flight *f, const pp_battery_params *pack,
                   pp_plot_result *r);

#endif
