/* plot.h - the plots of a results folder: gnuplot scripts and their data
 * under RESULTS/plots/, and their rendering.
 *
 * What is plotted (each a script <name>.gp, most with their data in
 * <name>.dat beside it, whitespace separated, a '#' line naming the
 * columns, blocks separated by two blank lines for gnuplot's `index`):
 *   trace-<id>          layer 1: every rail of a configuration over time
 *                       (the first 24 configurations)
 *   layer1-total        layer 1: the total power over time of up to 8
 *                       configurations spread over the range of mean power
 *   layer2-<metric>     layer 2 with one varying numeric parameter: the
 *                       prediction with its 90 % band, the measured points,
 *                       a line per combination of labels (categorical
 *                       parameters); total_mean_w and total_energy_j with
 *                       the state of charge after one run on a second axis
 *   layer2-rails-mean_w, layer2-rails-energy_j
 *                       the same for every rail beside the total (rails
 *                       that repeat the total left out)
 *   layer2-<metric>-<a>-<b>[-g<g>]
 *                       layer 2 with two or more: the surface over each
 *                       pair of varying numeric parameters, the others at a
 *                       measured value near their middle (said in the
 *                       title), with the measured configurations of that
 *                       slice as points and the 90 % band of the prediction
 *                       at each as an error bar; for total_mean_w,
 *                       total_energy_j, soc_drain and every rail's mean
 *                       power; one per combination of labels (g, the
 *                       group's index in model.json, when there are several)
 *   plan-soc            the state of charge over the mission time of a plan
 *                       (`powprof plan --json`): the best configuration at
 *                       its planned power, its 90 % band, the schedule and
 *                       the computer power it plans, the reserve and the
 *                       mission's end
 * Every value is predicted through pp_model_predict (model.h), the path of
 * every prediction. Ranges are set from the data (a constant one widened),
 * so gnuplot never autoscales an empty range.
 *
 * Names from data reach file names only through pp_path_fmt and scripts
 * only through pp_gp_printf (util.h). Library code: nothing is printed;
 * errors are logged and returned as -errno.
 */
#ifndef PP_PLOT_H
#define PP_PLOT_H

#include "plot_types.h"

#include "src/base/util.h"

#include "battery/battery.h"

#include <stddef.h>

/* png only, no plan, the default battery. */
void pp_plot_options_init(pp_plot_options *o);

/* Write the scripts and data of results (a folder with summary.csv; the
 * layer-2 plots need its model.json, see `powprof model`) under
 * results/plots/ (created) into r (r is initialized here: free it with
 * pp_plot_result_free, also after an error). A plot that cannot be made
 * (a trace that does not read, a name too long for a file) is left out
 * and logged. Returns 0, -EINVAL (logged: no summary, a plan whose
 * figures this battery does not give) or -errno. */
int pp_plot_write(const char *results, const pp_plot_options *o, pp_plot_result *r);

/* Run gnuplot on every script of r (in r->plots_dir, never through a
 * shell), its standard output and error captured: a failure is recorded
 * in the script's error (gnuplot's message, noise such as font
 * configuration left out) and counted in n_failed; a warning of a script
 * that rendered in warnings and n_warned (logged at debug level); an image
 * missing after gnuplot succeeded is a failure. No gnuplot: 0 with
 * gnuplot_missing set. Returns 0 or -errno. */
int pp_plot_render(const pp_plot_options *o, pp_plot_result *r);

void pp_plot_result_free(pp_plot_result *r);

#endif
