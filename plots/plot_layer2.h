/* plot_layer2.h - the layer-2 plots (plot.h), for plot.c. plot_layer2.c
 * calls gnuplot.c, nothing of plot.c. Not installed. */
#ifndef PP_PLOT_LAYER2_H
#define PP_PLOT_LAYER2_H

#include "gnuplot.h"

#include "src/layer2/model.h"

/* Every layer-2 plot of m. 0 or -errno. */
int pp_plot_layer2(pp_plotter *pl, const pp_model *m);

#endif
