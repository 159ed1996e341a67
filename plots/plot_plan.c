/* The state of charge over a mission (plot.h: plan-soc): a plan of
 * `powprof plan --json` flown on the battery model, whose output callback
 * gives the charge at every sample of the load; and reading the plan
 * (pp_plot_plan_load). Called by plot.c and the plot command; calls
 * gnuplot.c (scripts, ranges), nothing of plot.c. */
#include "plot_plan.h"
#include "plot_phases.h"

#include "src/base/log.h"
#include "src/plan/plan.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRID 241
#define HORIZON 1.2      /* of the mission: a little past its end */
#define SOC_TOLERANCE 2e-3 /* between the plan's figures and this battery's */

/* ---- reading the plan ---------------------------------------------------- */

/* A number (null: NaN) of obj (at where: "", "best.", "schedule[2].")
 * into *out, within [lo, hi]; -1 (logged with the file and the key) when
 * out of range, or required and missing or not a number. */
static int number(const char *path, const char *where, json_t *obj, const char *key, int required,
                  double lo, double hi, double *out)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;

    *out = NAN;
    if (v && json_is_number(v)) {
        *out = json_number_value(v);
        if (*out >= lo && *out <= hi)
            return 0;
        pp_log_error("%s: %s%s %g: out of range (%g to %g)", path, where, key, *out, lo, hi);
        return -1;
    }
    if (!required || (v && json_is_null(v)))
        return 0;
    pp_log_error("%s: %s%s missing or not a number: is it the output of `powprof plan --json`?",
                 path, where, key);
    return -1;
}

/* A power of the plan: watts from 0 to what a battery model takes. */
static int power(const char *path, const char *where, json_t *obj, const char *key, int required,
                 double *out)
{
    return number(path, where, obj, key, required, 0, PP_BATTERY_POWER_W_MAX, out);
}

/* The chosen configuration c (best or most frugal). */
static int choice(const char *path, json_t *c, pp_plot_plan *p)
{
    const char *where = p->feasible ? "best." : "most_frugal.";

    if (!json_is_object(c)) {
        pp_log_error("%s: no \"%s\" object", path, p->feasible ? "best" : "most_frugal");
        return -1;
    }
    return number(path, where, c, p->maximize, 1, -HUGE_VAL, HUGE_VAL, &p->value) |
           power(path, where, c, "power_w", 1, &p->power_w) |
           power(path, where, c, "power_lo_w", 0, &p->power_lo_w) |
           power(path, where, c, "power_hi_w", 0, &p->power_hi_w) |
           power(path, where, c, "planned_w", 1, &p->planned_w);
}

static int schedule(const char *path, json_t *steps, pp_plot_plan *p)
{
    char where[64];
    size_t i;
    json_t *st;
    int bad = 0;

    if (!steps)
        return 0;
    if (!json_is_array(steps) || json_array_size(steps) > PP_PLOT_PLAN_STEPS) {
        pp_log_error("%s: \"schedule\" is not an array of at most %d steps", path, PP_PLOT_PLAN_STEPS);
        return -1;
    }
    json_array_foreach(steps, i, st) {
        pp_plot_plan_step *s = &p->steps[i];
        pp_text(where, sizeof where, "schedule[%zu].", i);
        bad |= number(path, where, st, "t_s", 1, 0, p->mission_s, &s->t_s) |
               power(path, where, st, "planned_w", 1, &s->planned_w) |
               number(path, where, st, p->maximize, 1, -HUGE_VAL, HUGE_VAL, &s->value);
        if (!bad && ((i && !(s->t_s > p->steps[i - 1].t_s)) || !(s->t_s < p->mission_s))) {
            pp_log_error("%s: %st_s %g: not within the mission (%g s) after the step before",
                         path, where, s->t_s, p->mission_s);
            bad = -1;
        }
    }
    p->n_steps = bad ? 0 : json_array_size(steps);
    return bad;
}

static int plan_fields(const char *path, json_t *root, pp_plot_plan *p)
{
    json_t *loads = json_object_get(root, "loads"), *risk = json_object_get(root, "risk");
    const char *name = json_string_value(json_object_get(root, "maximize"));
    int bad;

    if (!json_is_boolean(json_object_get(root, "feasible")) || !name) {
        pp_log_error("%s: no \"feasible\" or \"maximize\": is it the output of `powprof plan --json`?",
                     path);
        return -1;
    }
    if (pp_name_check(name, path) < 0 || pp_strlcpy(p->maximize, name, sizeof p->maximize) < 0)
        return -1;
    p->feasible = json_is_true(json_object_get(root, "feasible"));
    p->risk_upper = !json_is_string(risk) || strcmp(json_string_value(risk), "mean") != 0;
    bad = number(path, "", root, "mission_s", 1, PP_PLAN_MISSION_S_MIN, PP_PLAN_MISSION_S_MAX,
                 &p->mission_s) |
          number(path, "", root, "min_soc", 1, 0, 0.999999, &p->min_soc_frac) |
          power(path, "loads.", loads, "base_power_w", 1, &p->base_power_w) |
          number(path, "loads.", loads, "efficiency", 1, PP_BATTERY_EFFICIENCY_MIN, 1,
                 &p->efficiency) |
          number(path, "", root, "best_soc_end", 0, 0, 1, &p->soc_end_frac) |
          number(path, "", root, "schedule_soc_end", 0, 0, 1, &p->schedule_soc_end_frac);
    if (bad || choice(path, json_object_get(root, p->feasible ? "best" : "most_frugal"), p) < 0)
        return -1;
    return schedule(path, p->feasible ? json_object_get(root, "schedule") : NULL, p);
}

int pp_plot_plan_from_json(const char *path, json_t *root, pp_plot_plan *p)
{
    int rc;

    memset(p, 0, sizeof *p);
    rc = !json_is_object(root)               ? -1
         : json_object_get(root, "phases") ? pp_plot_phases_fields(path, root, p)
                                           : plan_fields(path, root, p);
    if (!json_is_object(root))
        pp_log_error("%s: not a JSON object: is it the output of `powprof plan --json`?", path);
    return rc < 0 ? -EINVAL : 0;
}

int pp_plot_plan_load(const char *path, pp_plot_plan *p)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    int rc;

    memset(p, 0, sizeof *p);
    if (!root) {
        pp_log_error("%s:%d: %s", path, err.line, err.text);
        return -EINVAL;
    }
    rc = pp_plot_plan_from_json(path, root, p);
    json_decref(root);
    return rc;
}

/* ---- flying it on the battery ---------------------------------------------- */

typedef struct series {
    double *t, *soc;
    size_t n, cap;
    int oom;
} series;

static void on_output(void *ctx, double t_s, double soc_frac, double voltage_v, double current_a)
{
    series *s = ctx;

    (void)voltage_v;
    (void)current_a;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 512;
        double *t = realloc(s->t, cap * sizeof *t), *soc = t ? realloc(s->soc, cap * sizeof *soc) : NULL;
        if (t)
            s->t = t;
        if (!soc) {
            s->oom = 1;
            return;
        }
        s->soc = soc;
        s->cap = cap;
    }
    s->t[s->n] = t_s;
    s->soc[s->n++] = soc_frac;
}

/* The charge at time t, linear between the outputs; NaN after the run
 * ended (a cutoff). */
static double soc_at(const series *s, double t)
{
    size_t i = 1;

    if (t > s->t[s->n - 1] * (1 + 1e-9) + 1e-9)
        return NAN;
    while (i < s->n && s->t[i] < t)
        i++;
    if (i >= s->n)
        return s->soc[s->n - 1];
    if (s->t[i] == s->t[i - 1])
        return s->soc[i];
    return s->soc[i - 1] + (s->soc[i] - s->soc[i - 1]) * (t - s->t[i - 1]) / (s->t[i] - s->t[i - 1]);
}

/* The computer's power at t under the steps (start times t0[], powers w[]). */
static double power_at(const double *t0, const double *w, size_t n, double t)
{
    size_t j = 0;
    while (j + 1 < n && t0[j + 1] <= t)
        j++;
    return w[j];
}

typedef struct load_point {
    double t_s, w;
    int grid; /* a grid time (dropped for a switch that close) */
} load_point;

static int by_time(const void *a, const void *b)
{
    const load_point *x = a, *y = b;
    return (x->t_s > y->t_s) - (x->t_s < y->t_s);
}

/* The load: the steps (start times t0[], powers w[]) sampled at the grid
 * times and on either side of each switch, in time order, at least
 * PP_BATTERY_STEP_S_MIN apart. Returns the count. */
static size_t load_points(const double *t0, const double *w, size_t n_steps, double horizon_s,
                          load_point *lp)
{
    double eps = 1e-6 * horizon_s;
    size_t n = 0, kept = 0;

    for (size_t i = 0; i < GRID; i++) {
        double t = horizon_s * (double)i / (GRID - 1.0);
        lp[n++] = (load_point){t, power_at(t0, w, n_steps, t), 1};
    }
    for (size_t j = 1; j < n_steps; j++) {
        lp[n++] = (load_point){t0[j] - eps, w[j - 1], 0};
        lp[n++] = (load_point){t0[j], w[j], 0};
    }
    qsort(lp, n, sizeof *lp, by_time);
    for (size_t i = 0; i < n; i++) {
        if (kept && lp[i].t_s < lp[kept - 1].t_s + 2 * PP_BATTERY_STEP_S_MIN) {
            if (lp[kept - 1].grid) /* a switch wins over a grid time */
                lp[kept - 1] = lp[i];
            continue;
        }
        lp[kept++] = lp[i];
    }
    return kept;
}

/* The charge at each grid time (0 .. horizon_s) under the steps, NaN
 * after a cutoff. 0 or -errno. */
static int fly(const pp_battery_params *b, const double *t0, const double *w, size_t n_steps,
               double horizon_s, double *soc)
{
    size_t cap = GRID + 2 * n_steps, n;
    load_point *lp = malloc(cap * sizeof *lp);
    double *t = malloc(cap * sizeof *t), *p = malloc(cap * sizeof *p);
    series out = {0};
    pp_battery_options o;
    pp_battery_result r;
    int rc = -ENOMEM;

    if (lp && t && p) {
        n = load_points(t0, w, n_steps, horizon_s, lp);
        for (size_t i = 0; i < n; i++) {
            t[i] = lp[i].t_s;
            p[i] = lp[i].w;
        }
        pp_battery_options_init(&o);
        o.output = on_output;
        o.output_ctx = &out;
        rc = pp_battery_run(b, &(pp_battery_load){t, p, n, 0}, &o, &r);
        if (rc == 0 && (out.oom || out.n == 0))
            rc = -ENOMEM;
        for (size_t i = 0; rc == 0 && i < GRID; i++)
            soc[i] = soc_at(&out, horizon_s * (double)i / (GRID - 1.0));
    }
    free(lp);
    free(t);
    free(p);
    free(out.t);
    free(out.soc);
    return rc;
}

/* The battery the plan counted: b with the plan's base load, converter and
 * reserve. */
static pp_battery_params plan_battery(const pp_battery_params *b, const pp_plot_plan *plan)
{
    pp_battery_params p = *b;

    p.base_power_w = plan->base_power_w;
    p.efficiency = plan->efficiency;
    p.soc_cutoff_frac = plan->min_soc_frac < p.soc_start_frac ? plan->min_soc_frac : 0;
    return p;
}

/* The curves: [0] the band's low power, [1] the prediction, [2] the planned
 * power, [3] the band's high power, [4] the schedule; each GRID values. */
static int curves(const pp_battery_params *b, const pp_plot_plan *plan, double horizon_s,
                  double soc[5][GRID])
{
    const double power[4] = {isnan(plan->power_lo_w) ? plan->power_w : plan->power_lo_w,
                             plan->power_w, plan->planned_w,
                             isnan(plan->power_hi_w) ? plan->power_w : plan->power_hi_w};
    double t0[PP_PLOT_PLAN_STEPS], w[PP_PLOT_PLAN_STEPS], zero = 0;
    int rc = 0;

    for (size_t c = 0; c < 4 && rc == 0; c++)
        rc = fly(b, &zero, &power[c], 1, horizon_s, soc[c]);
    for (size_t j = 0; j < plan->n_steps; j++) {
        t0[j] = plan->steps[j].t_s;
        w[j] = plan->steps[j].planned_w;
    }
    if (rc == 0 && plan->n_steps)
        rc = fly(b, t0, w, plan->n_steps, horizon_s, soc[4]);
    else if (rc == 0)
        memcpy(soc[4], soc[2], sizeof soc[4]);
    return rc;
}

/* The plan's own figures against this battery's: the same loads must give
 * the same end. */
static int agrees(const pp_plot_plan *plan, double soc[5][GRID])
{
    size_t end = (size_t)llround((GRID - 1.0) / HORIZON);
    double planned = soc[2][end], sched = soc[4][end];

    if (plan->feasible && !isnan(plan->soc_end_frac) &&
        fabs(planned - plan->soc_end_frac) > SOC_TOLERANCE) {
        pp_log_error("plot: the plan ends its mission with %.1f %% left, this battery with %.1f %% "
                     "for the same loads: give the battery the plan was made with (-c CONFIG)",
                     100 * plan->soc_end_frac, 100 * planned);
        return -EINVAL;
    }
    if (plan->n_steps > 1 && !isnan(plan->schedule_soc_end_frac) &&
        fabs(sched - plan->schedule_soc_end_frac) > SOC_TOLERANCE) {
        pp_log_error("plot: the plan's schedule ends with %.1f %% left, this battery with %.1f %%: "
                     "give the battery the plan was made with (-c CONFIG)",
                     100 * plan->schedule_soc_end_frac, 100 * sched);
        return -EINVAL;
    }
    return 0;
}

/* ---- the plot ------------------------------------------------------------------ */

/* A value of the data file: "NaN" where there is none, as gnuplot reads it. */
static void put(FILE *fp, double v, const char *sep)
{
    if (isnan(v))
        fprintf(fp, "NaN%s", sep);
    else
        fprintf(fp, "%.10g%s", v, sep);
}

/* Labels of the schedule's switches: those at least this share of the
 * time axis before the next one labelled (closer ones would overlap). */
#define LABEL_GAP 0.06

static int write_data(pp_plotter *pl, const pp_plot_plan *plan, double soc[5][GRID],
                      double horizon_s, double unit_s)
{
    FILE *fp = pp_plot_data_open(pl, "plan-soc");
    double t0[PP_PLOT_PLAN_STEPS], w[PP_PLOT_PLAN_STEPS], last = INFINITY;
    int labelled[PP_PLOT_PLAN_STEPS];

    if (!fp)
        return -EIO;
    for (size_t j = 0; j < plan->n_steps; j++) {
        t0[j] = plan->steps[j].t_s;
        w[j] = plan->steps[j].planned_w;
    }
    fprintf(fp, "# time [%s], state of charge [%%] with the computer at: the band's low power, "
                "the prediction, the planned power, the band's high power; under the schedule "
                "(NaN after a cutoff); the schedule's computer power [W]; the band's lower edge [%%]\n", unit_s > 1 ? "min" : "s");
    for (size_t i = 0; i < GRID; i++) {
        double t = horizon_s * (double)i / (GRID - 1.0);
        put(fp, t / unit_s, " ");
        for (size_t c = 0; c < 5; c++)
            put(fp, 100 * soc[c][i], " ");
        put(fp, plan->n_steps ? power_at(t0, w, plan->n_steps, t) : plan->planned_w, " ");
        /* the band's lower edge: the high power's charge, the reserve once
         * that has cut off while the low power's goes on */
        put(fp, isnan(soc[0][i]) ? NAN : isnan(soc[3][i]) ? 100 * plan->min_soc_frac : 100 * soc[3][i],
            "\n");
    }
    fprintf(fp, "\n\n# the schedule's switches far enough apart to be labelled (the last one "
                "always): time, computer power [W], %s\n", plan->maximize);
    for (size_t j = plan->n_steps; j-- > 0;) /* from the end: the level it keeps is labelled */
        if ((labelled[j] = j + 1 == plan->n_steps || last - plan->steps[j].t_s >= LABEL_GAP * horizon_s))
            last = plan->steps[j].t_s;
    for (size_t j = 0; j < plan->n_steps; j++)
        if (labelled[j])
            fprintf(fp, "%.10g %.10g %.10g\n", plan->steps[j].t_s / unit_s, plan->steps[j].planned_w,
                    plan->steps[j].value);
    if (!plan->n_steps)
        fprintf(fp, "NaN NaN NaN\n");
    return pp_plot_data_close(pl, fp, "plan-soc");
}

static void plan_title(const pp_plot_plan *plan, double soc[5][GRID], char *buf, size_t cap)
{
    size_t end = (size_t)llround((GRID - 1.0) / HORIZON);

    if (plan->feasible)
        pp_text(buf, cap, "the plan: state of charge over the mission (%.0f min, %.4g W base load)\n"
                "best: %s = %g, the computer planned at %.3g W%s: %.1f %% left at the end",
                plan->mission_s / 60, plan->base_power_w, plan->maximize, plan->value, plan->planned_w,
                plan->risk_upper ? " (upper end of its 90 % band)" : "", 100 * soc[2][end]);
    else
        pp_text(buf, cap, "the plan: no configuration completes the mission (%.0f min, %.4g W base "
                "load)\nthe most frugal, %s = %g at %.3g W, keeps %.1f %% at the end",
                plan->mission_s / 60, plan->base_power_w, plan->maximize, plan->value,
                plan->planned_w, 100 * soc[2][end]);
}

static void write_script(pp_plotter *pl, const pp_plot_plan *plan, double soc[5][GRID],
                         double unit_s)
{
    char title[1024];
    double end = plan->mission_s / unit_s, wlo = INFINITY, whi = -INFINITY, lo, hi;
    int switches = plan->n_steps > 1;
    FILE *fp;

    plan_title(plan, soc, title, sizeof title);
    if (!(fp = pp_plot_script_open(pl, "plan-soc", title)))
        return;
    for (size_t j = 0; j < plan->n_steps; j++) {
        wlo = fmin(wlo, plan->steps[j].planned_w);
        whi = fmax(whi, plan->steps[j].planned_w);
    }
    pp_gp_printf(fp, "set xlabel %s\n", unit_s > 1 ? "mission time [min]" : "mission time [s]");
    pp_gp_printf(fp, "set key below horizontal Left reverse height 1.5\n"
                     "set ylabel 'state of charge [%%]'\nset xrange [0:%.10g]\nset yrange [0:100]\n"
                     "set arrow 1 from graph 0, first %.10g to graph 1, first %.10g nohead dt 3 lw 2 lc rgb '#A00000'\n"
                     "set label 1 'reserve %.0f %%' at graph 0.01, first %.10g offset 0,0.7 tc rgb '#A00000'\n"
                     "set arrow 2 from first %.10g, graph 0 to first %.10g, graph 1 nohead dt 3 lw 2\n"
                     "set label 2 'end of the mission' at first %.10g, graph 0.97 right offset -0.5,0\n",
                 HORIZON * end, 100 * plan->min_soc_frac,
                 100 * plan->min_soc_frac, 100 * plan->min_soc_frac, 100 * plan->min_soc_frac,
                 end, end, end);
    if (switches) {
        pp_plot_range(wlo, whi, 0.1, &lo, &hi);
        pp_gp_printf(fp, "set y2label 'computer power planned [W]'\nset y2tics\nset ytics nomirror\n"
                         "set y2range [%.10g:%.10g]\n", lo, hi);
    }
    pp_plot_script_output(pl, fp, "plan-soc");
    pp_gp_printf(fp, "plot 'plan-soc.dat' index 0 using 1:2:8 with filledcurves fs transparent solid 0.2 "
                     "noborder lt 1 title 'with the 90 %% band of the predicted power', '' index 0 "
                     "using 1:3 with lines dt 2 lt 1 title 'with the predicted power', '' index 0 "
                     "using 1:4 with lines lt 1 lw 3 title %s",
                 plan->feasible ? "best plan (planned power)" : "most frugal (planned power)");
    if (switches)
        pp_gp_printf(fp, ", '' index 0 using 1:6 with lines lt 2 lw 3 title 'schedule', '' index 0 "
                         "using 1:7 axes x1y2 with steps lt 2 dt 2 title 'schedule: computer power "
                         "(right axis)', '' index 1 using 1:2:(%s.' = '.sprintf('%%g', $3)) axes x1y2 with "
                         "labels left offset 0.5,-0.8 tc lt 2 notitle", plan->maximize);
    pp_gp_printf(fp, "\n");
    pp_plot_script_close(pl, fp, "plan-soc");
}

int pp_plot_plan_soc(pp_plotter *pl, const pp_plot_plan *plan, const pp_battery_params *b)
{
    pp_battery_params p = plan_battery(b, plan);
    double horizon_s = HORIZON * plan->mission_s, unit_s = plan->mission_s >= 300 ? 60 : 1;
    double (*soc)[GRID] = malloc(5 * sizeof *soc);
    const char *key;
    char why[160];
    int rc;

    if (plan->n_phases) { /* a plan per phase: its own plot */
        free(soc);
        return pp_plot_plan_phases(pl, plan);
    }
    if (!soc)
        return -ENOMEM;
    if ((rc = pp_battery_params_check(&p, &key, why, sizeof why)) < 0)
        pp_log_error("plot: the plan's battery: %s %s", key, why);
    if (rc == 0 && (rc = curves(&p, plan, horizon_s, soc)) == 0 && (rc = agrees(plan, soc)) == 0 &&
        (rc = write_data(pl, plan, soc, horizon_s, unit_s)) == 0)
        write_script(pl, plan, soc, unit_s);
    free(soc);
    return rc;
}
