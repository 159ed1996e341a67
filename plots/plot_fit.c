/* The battery fitted to flight logs (plot_fit.h). */
#include "plot_fit.h"
#include "gnuplot.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#define NAME "battery-fit"

/* One block per flight: t_s, logged, modelled, residual (V). */
static int write_data(pp_plotter *pl, const pp_flight_fit *f)
{
    FILE *fp = pp_plot_data_open(pl, NAME);

    if (!fp)
        return -EIO;
    for (size_t i = 0; i < f->n_flights; i++) {
        const pp_flight_fit_flight *fl = &f->fl[i];
        fprintf(fp, "# flight %zu\n", i + 1);
        for (size_t k = 0; k < fl->n; k++)
            fprintf(fp, "%.3f %.5f %.5f %.5f\n", fl->t_s[k], fl->voltage_v[k], fl->model_v[k],
                    fl->model_v[k] - fl->voltage_v[k]);
        fprintf(fp, "\n\n");
    }
    return pp_plot_data_close(pl, fp, NAME);
}

/* Flight i's two panels. */
static void panels(FILE *fp, const pp_flight_fit *f, size_t i)
{
    const pp_flight_fit_flight *fl = &f->fl[i];
    double split = fl->t_s[fl->n_train - 1];
    char title[160];

    pp_text(title, sizeof title, "flight %zu: held-out RMS %.3f V (fitted pack, battery FLIGHT's "
            "way)", i + 1, fl->fitted.v_rms);
    pp_gp_printf(fp, "set title %s\nset xlabel 'time [s]'\nset ylabel 'terminal voltage [V]'\n"
                     "set object 1 rect from 0, graph 0 to %g, graph 1 fc rgb '#e6e6e6' "
                     "fs solid noborder behind\nset key below horizontal\nset autoscale xfix\n", title, split);
    pp_gp_printf(fp, "plot '" NAME ".dat' index %zu using 1:2 with lines lt 8 title 'logged', "
                     "'' index %zu using 1:3 with lines lt 1 title 'modelled (fitted where "
                     "shaded)'\n", i, i);
    pp_gp_printf(fp, "set title 'residual, modelled - logged'\nset ylabel 'residual [V]'\n"
                     "plot '" NAME ".dat' index %zu using 1:4 with lines lt 2 notitle, 0 with "
                     "lines lt 7 lw 1 notitle\nunset object 1\n", i);
}

static int write_script(pp_plotter *pl, const pp_flight_fit *f)
{
    FILE *fp = pp_plot_script_open(pl, NAME, NULL);

    if (!fp)
        return -EIO;
    pp_gp_printf(fp, "set terminal pngcairo size %d,%d font 'sans,10'\nset output '" NAME
                     ".png'\nset multiplot layout 2,%zu columnsfirst\n",
                 (int)fmin(600 * (double)f->n_flights, 4000), 700, f->n_flights);
    for (size_t i = 0; i < f->n_flights; i++)
        panels(fp, f, i);
    pp_gp_printf(fp, "unset multiplot\n");
    return pp_plot_script_close(pl, fp, NAME);
}

int pp_plot_fit(const char *dir, const pp_flight_fit *f, pp_plot_result *r)
{
    pp_plot_options o;
    pp_plotter pl;
    int rc;

    pp_plot_options_init(&o);
    if ((rc = pp_plotter_in_dir(dir, &o, &pl, r)) < 0 || (rc = write_data(&pl, f)) < 0 || (rc = write_script(&pl, f)) < 0)
        return rc;
    return pp_plot_render(&o, r);
}
