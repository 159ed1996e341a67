/* The simulated flight's plot (plot_governor.h). */
#include "plot_governor.h"

#include "gnuplot.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#define NAME "governor"

static int write_data(pp_plotter *pl, const pp_sim_result *s)
{
    FILE *fp = pp_plot_data_open(pl, NAME);

    if (!fp)
        return -EIO;
    for (size_t k = 0; k < PP_SIM_RUNS; k++) {
        const pp_sim_run *run = &s->run[k];
        fprintf(fp, "# run %zu: t_min soc_pct quality\n", k);
        for (size_t i = 0; i < run->n; i++)
            fprintf(fp, "%.6g %.6g %.6g\n", run->t_s[i] / 60, 100 * run->soc_frac[i], run->qos[i]);
        if (run->n == 0) /* the oracle found no plan: an empty block keeps the index */
            fprintf(fp, "0 NaN NaN\n");
        fprintf(fp, "\n\n");
    }
    return pp_plot_data_close(pl, fp, NAME);
}

static int write_script(pp_plotter *pl, double reserve_frac, const char *quality)
{
    FILE *fp = pp_plot_script_open(pl, NAME, NULL);

    if (!fp)
        return -EIO;
    pp_plot_script_output(pl, fp, NAME);
    /* the key beside the panels, never over the lines; the time axis the
     * mission's, not rounded up past it */
    pp_gp_printf(fp, "set multiplot layout 2,1\nset key outside right top vertical Left reverse\n"
                     "set autoscale xfix\n"
                     "set title 'state of charge: static plan held, governed, oracle'\n"
                     "set ylabel 'state of charge [%%]'\nset xlabel 'time [min]'\n"
                     "set arrow 1 from graph 0, first %g to graph 1, first %g nohead dt 2 lc rgb '#999999'\n"
                     "plot '" NAME ".dat' index 0 using 1:2 with lines lt 2 title 'static', "
                     "'' index 1 using 1:2 with lines lt 1 title 'governed', "
                     "'' index 2 using 1:2 with lines lt 3 title 'oracle'\n"
                     "unset arrow 1\nset title 'the setting'\nset ylabel %s\n"
                     "plot '" NAME ".dat' index 0 using 1:3 with steps lt 2 title 'static', "
                     "'' index 1 using 1:3 with steps lt 1 title 'governed', "
                     "'' index 2 using 1:3 with steps lt 3 title 'oracle'\n"
                     "unset multiplot\n",
                 100 * reserve_frac, 100 * reserve_frac, quality);
    return pp_plot_script_close(pl, fp, NAME);
}

int pp_plot_governor(const char *dir, const pp_sim_result *s, double reserve_frac,
                     const char *quality, pp_plot_result *r)
{
    pp_plot_options o;
    pp_plotter pl;
    int rc;

    pp_plot_options_init(&o);
    if ((rc = pp_plotter_in_dir(dir, &o, &pl, r)) < 0 || (rc = write_data(&pl, s)) < 0 || (rc = write_script(&pl, reserve_frac, quality)) < 0)
        return rc;
    return pp_plot_render(&o, r);
}
