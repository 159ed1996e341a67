/* A plan per phase over the mission (plot_internal.h: plan-phases): the
 * phases shaded and named, the state of charge of the plan's confirming
 * battery run, the reserve, the base load and the computer's power per
 * phase; a phase whose floor binds marked. */
#include "plot_phases.h"

#include "src/base/log.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

static double num(json_t *obj, const char *key)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    return v && json_is_number(v) ? json_number_value(v) : NAN;
}

static int phase_fields(const char *path, json_t *ph, const char *maximize, pp_plot_phase *out)
{
    const char *name = json_string_value(json_object_get(ph, "name"));
    json_t *c = json_object_get(ph, "choice");

    if (!name || pp_strlcpy(out->name, name, sizeof out->name) < 0) {
        pp_log_error("%s: a phase without a \"name\" (or one too long)", path);
        return -1;
    }
    out->start_s = num(ph, "start_s");
    out->duration_s = num(ph, "duration_s");
    out->base_mean_w = num(ph, "base_mean_w");
    out->met = json_is_true(json_object_get(ph, "met"));
    out->floor_binds = json_is_true(json_object_get(ph, "floor_binds"));
    out->computer_w = num(c, "planned_w");
    out->value = num(c, maximize);
    if (!(out->start_s >= 0) || !(out->duration_s > 0)) {
        pp_log_error("%s: phase '%s': start_s %g, duration_s %g out of range", path, name,
                     out->start_s, out->duration_s);
        return -1;
    }
    return 0;
}

static int timeline(const char *path, json_t *tl, pp_plot_plan *p)
{
    json_t *cols[4] = {json_object_get(tl, "t_s"), json_object_get(tl, "soc"),
                       json_object_get(tl, "base_w"), json_object_get(tl, "computer_w")};
    double *dst[4] = {p->tl_t_s, p->tl_soc, p->tl_base_w, p->tl_computer_w};
    size_t n = json_array_size(cols[0]);

    for (int k = 0; k < 4; k++)
        if (!json_is_array(cols[k]) || json_array_size(cols[k]) != n) {
            pp_log_error("%s: \"timeline\" needs arrays t_s, soc, base_w, computer_w of one length",
                         path);
            return -1;
        }
    if (n == 0 || n > PP_PLOT_TIMELINE_MAX) {
        pp_log_error("%s: a timeline of %zu points (1 to %d)", path, n, PP_PLOT_TIMELINE_MAX);
        return -1;
    }
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < n; i++) {
            json_t *v = json_array_get(cols[k], i);
            dst[k][i] = json_is_number(v) ? json_number_value(v) : NAN;
        }
    p->n_points = n;
    return 0;
}

int pp_plot_phases_fields(const char *path, json_t *root, pp_plot_plan *p)
{
    json_t *phases = json_object_get(root, "phases"), *ph;
    const char *name = json_string_value(json_object_get(root, "maximize"));
    size_t i;

    if (!name || pp_name_check(name, path) < 0 || pp_strlcpy(p->maximize, name, sizeof p->maximize) < 0)
        return -1;
    p->feasible = json_is_true(json_object_get(root, "feasible"));
    p->min_soc_frac = num(root, "min_soc");
    p->mission_s = num(root, "mission_s");
    if (!json_is_array(phases) || json_array_size(phases) == 0 ||
        json_array_size(phases) > PP_PLOT_PHASES_MAX || !(p->mission_s > 0) ||
        !(p->min_soc_frac >= 0 && p->min_soc_frac < 1)) {
        pp_log_error("%s: \"phases\" (1 to %d), \"mission_s\" or \"min_soc\" missing or out of "
                     "range: is it the output of `powprof plan --mission --json`?", path,
                     PP_PLOT_PHASES_MAX);
        return -1;
    }
    json_array_foreach(phases, i, ph)
        if (phase_fields(path, ph, p->maximize, &p->phase[i]) < 0)
            return -1;
    p->n_phases = json_array_size(phases);
    return timeline(path, json_object_get(root, "timeline"), p);
}

static int write_data(pp_plotter *pl, const pp_plot_plan *plan, double unit_s)
{
    FILE *fp = pp_plot_data_open(pl, "plan-phases");

    if (!fp)
        return -EIO;
    fprintf(fp, "# time [%s], state of charge [%%], base load [W], computer power planned [W]\n",
            unit_s > 1 ? "min" : "s");
    for (size_t i = 0; i < plan->n_points; i++)
        fprintf(fp, "%.10g %.10g %.10g %.10g\n", plan->tl_t_s[i] / unit_s, 100 * plan->tl_soc[i],
                plan->tl_base_w[i], plan->tl_computer_w[i]);
    return pp_plot_data_close(pl, fp, "plan-phases");
}

/* Where phase k's labels go: centred over it, but held inside the axes
 * (a phase at an edge is labelled from its inner side), and every other
 * phase a row lower, so that the names of short phases side by side do
 * not run into each other. *x, *align (0 centre, 1 left, 2 right), *y
 * (graph fraction of the name). */
static void label_place(const pp_plot_plan *plan, size_t k, double unit_s, double *x,
                        int *align, double *y)
{
    const pp_plot_phase *ph = &plan->phase[k];
    double x0 = ph->start_s / unit_s, x1 = (ph->start_s + ph->duration_s) / unit_s;
    double span = plan->mission_s / unit_s, mid = 0.5 * (x0 + x1);

    *x = mid;
    *align = 0; /* centre, 1 left, 2 right */
    if (mid < 0.12 * span)
        *x = x0 + 0.01 * span, *align = 1;
    else if (mid > 0.88 * span)
        *x = x1 - 0.01 * span, *align = 2;
    *y = k % 2 ? 0.905 : 0.975; /* above 100 %: the y range leaves the top to them */
}

/* The phases: a shaded rectangle each, its name and setting on top; a
 * binding floor in red. */
static void phase_objects(FILE *fp, const pp_plot_plan *plan, double unit_s)
{
    char text[160];

    for (size_t k = 0; k < plan->n_phases; k++) {
        const pp_plot_phase *ph = &plan->phase[k];
        double x0 = ph->start_s / unit_s, x1 = (ph->start_s + ph->duration_s) / unit_s, lx, ly;
        int align;
        pp_gp_printf(fp, "set object %zu rect from first %.10g, graph 0 to first %.10g, graph 1 "
                         "behind fc rgb %s fs transparent solid 0.12 ", k + 1, x0, x1,
                     k % 2 ? "#4060C0" : "#40A040");
        pp_gp_printf(fp, ph->floor_binds ? "border lc rgb '#C00000' lw 2\n" : "noborder\n");
        label_place(plan, k, unit_s, &lx, &align, &ly);
        pp_text(text, sizeof text, "%s%s", ph->name, ph->floor_binds ? " (floor binds)" : "");
        pp_gp_printf(fp, "set label %zu %s at first %.10g, graph %.2f", k + 10, text, lx, ly);
        pp_gp_printf(fp, align == 1 ? " left" : align == 2 ? " right" : " center");
        pp_gp_printf(fp, " front tc rgb %s\n", ph->floor_binds ? "#C00000" : "#202020");
        if (isfinite(ph->value)) {
            pp_text(text, sizeof text, "%s = %g", plan->maximize, ph->value);
            pp_gp_printf(fp, "set label %zu %s at first %.10g, graph %.2f", k + 60, text, lx,
                         ly - 0.045);
            pp_gp_printf(fp, align == 1 ? " left" : align == 2 ? " right" : " center");
            pp_gp_printf(fp, " front font ',9'\n");
        }
    }
}

/* The upper panel: the phases, the state of charge and the reserve (the
 * x axis is the lower panel's). */
static void charge_panel(FILE *fp, const pp_plot_plan *plan, double unit_s)
{
    pp_gp_printf(fp, "set multiplot\nset lmargin at screen 0.09\nset rmargin at screen 0.90\n"
                     "set tmargin at screen 0.91\nset bmargin at screen 0.43\n"
                     "set xrange [0:%.10g]\nset format x ''\nunset xlabel\n"
                     "set ylabel 'state of charge [%%]'\nset yrange [0:118]\nset ytics 0,20,100\n"
                     "unset key\n"
                     "set arrow 1 from graph 0, first %.10g to graph 1, first %.10g nohead dt 3 lw 2 "
                     "lc rgb '#A00000' front\n",
                 plan->mission_s / unit_s, 100 * plan->min_soc_frac, 100 * plan->min_soc_frac);
    phase_objects(fp, plan, unit_s);
    pp_gp_printf(fp, "plot 'plan-phases.dat' using 1:2 with lines lw 3 lt 1 notitle\n");
}

/* The lower panel: the base load (left axis) and the computer's planned
 * power on an axis of its own (right): a few watts beside a propulsion
 * of a hundred would lie flat on one axis. The key below, for both. */
static void power_panel(FILE *fp, const pp_plot_plan *plan, double unit_s)
{
    double base = 0, comp = 0, blo, bhi, clo, chi;

    for (size_t i = 0; i < plan->n_points; i++) {
        base = isfinite(plan->tl_base_w[i]) ? fmax(base, plan->tl_base_w[i]) : base;
        comp = isfinite(plan->tl_computer_w[i]) ? fmax(comp, plan->tl_computer_w[i]) : comp;
    }
    pp_plot_range(0, base > 0 ? base : 1, 0.1, &blo, &bhi);
    pp_plot_range(0, comp > 0 ? comp : 1, 0.1, &clo, &chi);
    pp_gp_printf(fp, "unset label\nunset arrow 1\nset tmargin at screen 0.41\n"
                     "set bmargin at screen 0.17\nset format x '%%g'\nset xlabel %s\n"
                     "set ylabel 'base load [W]'\nset yrange [0:%.10g]\nset ytics 0,%.10g\n"
                     "set ytics nomirror\nset y2label 'computer [W]' tc rgb '#009E73'\n"
                     "set y2range [0:%.10g]\nset y2tics 0,%.10g tc rgb '#009E73'\n"
                     "set key at screen 0.5,0.045 center bottom horizontal\n",
                 unit_s > 1 ? "mission time [min]" : "mission time [s]", bhi,
                 pp_plot_tick_step(0, bhi, 3), 1.25 * chi, pp_plot_tick_step(0, 1.25 * chi, 3));
    pp_gp_printf(fp, "plot 'plan-phases.dat' using 1:3 with lines lw 1 lc rgb '#4A6A8A' "
                     "title 'base load', '' using 1:4 axes x1y2 with steps lt 3 lw 2 "
                     "title 'computer, planned (right axis)', keyentry with lines lw 3 lt 1 "
                     "title 'state of charge', keyentry with lines dt 3 lw 2 lc rgb '#A00000' "
                     "title 'reserve'\nunset multiplot\n");
}

int pp_plot_plan_phases(pp_plotter *pl, const pp_plot_plan *plan)
{
    double unit_s = plan->mission_s >= 300 ? 60 : 1;
    char title[256];
    FILE *fp;
    int rc;

    if ((rc = write_data(pl, plan, unit_s)) < 0)
        return rc;
    pp_text(title, sizeof title, "the plan per phase: state of charge over the mission (%.0f %s)%s",
            plan->mission_s / unit_s, unit_s > 1 ? "min" : "s",
            plan->feasible ? "" : "\nno schedule keeps the reserve: the cheapest shown");
    if (!(fp = pp_plot_script_open(pl, "plan-phases", NULL)))
        return -EIO;
    pp_gp_printf(fp, "set label 100 %s at screen 0.5,0.965 center front noenhanced\n", title);
    pp_plot_script_output(pl, fp, "plan-phases");
    charge_panel(fp, plan, unit_s);
    pp_gp_printf(fp, "unset label 100\n");
    power_panel(fp, plan, unit_s);
    return pp_plot_script_close(pl, fp, "plan-phases");
}
