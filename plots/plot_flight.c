/* A flight log beside the battery model (plot_flight.h). */
#include "plot_flight.h"
#include "gnuplot.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME "battery-flight"

/* The model's output at each sample, in the order the log has them. */
typedef struct model_out {
    size_t n, cap;
    double *t, *v, *i, *soc;
} model_out;

static void on_output(void *ctx, double t_s, double soc, double v, double i)
{
    model_out *m = ctx;

    if (m->n < m->cap) {
        m->t[m->n] = t_s;
        m->v[m->n] = v;
        m->i[m->n] = i;
        m->soc[m->n++] = soc;
    }
}

/* The model's output at time t (j: where the search goes on), or -1. */
static long at(const model_out *m, size_t *j, double t)
{
    while (*j < m->n && m->t[*j] < t - 1e-6)
        (*j)++;
    return *j < m->n && fabs(m->t[*j] - t) <= 1e-6 ? (long)*j : -1;
}

/* One block: t from the first sample, logged V, modelled V, logged A,
 * modelled A, logged remaining %, modelled charge % (NaN where none). */
static int write_block(FILE *fp, const pp_ulog_battery *b, const pp_battery_params *pack)
{
    size_t n = b->n, j = 0, cap = n + PP_BATTERY_EVENTS_MAX; /* the samples, and events */
    double *w = malloc((2 * n + 4 * cap) * sizeof *w), *t = w ? w + n : NULL;
    model_out m = {0, cap, NULL, NULL, NULL, NULL};
    pp_battery_options bo;
    pp_battery_result br;
    int rc;

    if (!w)
        return -ENOMEM;
    m.t = w + 2 * n;
    m.v = m.t + cap;
    m.i = m.v + cap;
    m.soc = m.i + cap;
    for (size_t k = 0; k < n; k++) {
        w[k] = fmax(b->voltage_v[k] * b->current_a[k], 0); /* charging is no load */
        t[k] = b->t_s[k] - b->t_s[0];
    }
    pp_battery_options_init(&bo);
    bo.output = on_output;
    bo.output_ctx = &m;
    rc = pp_battery_run(pack, &(pp_battery_load){t, w, n, 0}, &bo, &br);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        long q = at(&m, &j, t[k]);
        fprintf(fp, "%.3f %.5f %.5f %.5f %.5f %.4f %.4f\n", t[k], b->voltage_v[k],
                q >= 0 ? m.v[q] : NAN, b->current_a[k], q >= 0 ? m.i[q] : NAN,
                100 * b->remaining[k], q >= 0 ? 100 * m.soc[q] : NAN);
    }
    fprintf(fp, "\n\n");
    free(w);
    return rc;
}

static int write_script(pp_plotter *pl, const pp_ulog_flight *f)
{
    FILE *fp = pp_plot_script_open(pl, NAME, NULL);
    size_t nb = f->n_batteries;

    if (!fp)
        return -EIO;
    pp_gp_printf(fp, "set terminal pngcairo size %d,900 font 'sans,10'\nset output '" NAME
                     ".png'\nset multiplot layout 3,%zu columnsfirst\nset key below horizontal\n"
                     "set autoscale xfix\nset xlabel 'time from the first sample [s]'\n",
                 (int)fmin(700 * (double)nb, 4000), nb);
    for (size_t b = 0; b < nb; b++) {
        pp_gp_printf(fp, "set title 'battery %d: terminal voltage'\nset ylabel 'voltage [V]'\n"
                         "plot '" NAME ".dat' index %zu using 1:2 with lines lt 8 title 'logged', "
                         "'' index %zu using 1:3 with lines lt 1 title 'modelled'\n",
                     f->bat[b].instance, b, b);
        pp_gp_printf(fp, "set title 'current'\nset ylabel 'current [A]'\n"
                         "plot '" NAME ".dat' index %zu using 1:4 with lines lt 8 title 'logged', "
                         "'' index %zu using 1:5 with lines lt 1 title 'modelled'\n", b, b);
        pp_gp_printf(fp, "set title 'charge left'\nset ylabel 'charge left [%%]'\n"
                         "plot '" NAME ".dat' index %zu using 1:6 with lines lt 8 title "
                         "'logged (remaining)', '' index %zu using 1:7 with lines lt 1 title "
                         "'modelled (state of charge)'\n", b, b);
    }
    pp_gp_printf(fp, "unset multiplot\n");
    return pp_plot_script_close(pl, fp, NAME);
}

int pp_plot_flight(const char *dir, const pp_ulog_flight *f, const pp_battery_params *pack,
                   pp_plot_result *r)
{
    pp_plot_options o;
    pp_plotter pl;
    FILE *fp;
    int rc;

    pp_plot_options_init(&o);
    if ((rc = pp_plotter_in_dir(dir, &o, &pl, r)) < 0)
        return rc;
    if (!(fp = pp_plot_data_open(&pl, NAME)))
        return -EIO;
    for (size_t b = 0; b < f->n_batteries && rc == 0; b++)
        rc = write_block(fp, &f->bat[b], &pack[b]);
    if (pp_plot_data_close(&pl, fp, NAME) < 0 && rc == 0)
        rc = -EIO;
    if (rc < 0 || (rc = write_script(&pl, f)) < 0)
        return rc;
    return pp_plot_render(&o, r);
}
