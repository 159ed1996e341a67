/* powprof plan --mission: the plan per phase (src/plan/phases.h), printed
 * as text or JSON. */
#include "cli.h"

#include "src/api/pipeline.h"
#include "src/plan/phases.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIMELINE_MAX 2000

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* A configuration: its settings as "name=value" (the maximized first). */
static void settings(const pp_model *m, const pp_phases_plan *r, const pp_plan_choice *c,
                     char *buf, size_t cap)
{
    const pp_summary *s = &m->sum;
    char text[PP_SUMMARY_LABEL_MAX];
    size_t len = 0, q = r->head.maximize;

    len += (size_t)snprintf(buf, cap, "%s = %g", s->params[q], c->point.raw[q]);
    if (!isnan(c->achieved.value) && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, " (achieves %.3g)", c->achieved.value);
    for (size_t k = 0; k < s->n_params && len < cap; k++)
        if (k != q) {
            pp_summary_value_text(s, k, c->point.raw[k], text, sizeof text);
            len += (size_t)snprintf(buf + len, cap - len, ", %s=%s", s->params[k], text);
        }
}

/* The bounds of a phase as text ("det.fps >= 15, size = 512"). */
static void bounds_text(const pp_mission_phase *ph, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t j = 0; j < ph->n_bounds && len < cap; j++) {
        const pp_mission_bound *b = &ph->bound[j];
        const char *sep = j ? ", " : "";
        if (b->label[0])
            len += (size_t)snprintf(buf + len, cap - len, "%s%s = %s", sep, b->param, b->label);
        else if (b->min == b->max)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s = %g", sep, b->param, b->min);
        else if (isfinite(b->min) && isfinite(b->max))
            len += (size_t)snprintf(buf + len, cap - len, "%s%g <= %s <= %g", sep, b->min,
                                    b->param, b->max);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%s %s %g", sep, b->param,
                                    isfinite(b->min) ? ">=" : "<=",
                                    isfinite(b->min) ? b->min : b->max);
    }
    if (ph->work_units > 0 && len < cap)
        snprintf(buf + len, cap - len, "%swork = %g units in %.1f min", len ? ", " : "",
                 ph->work_units, ph->duration_s / 60);
}

/* The range of parameter k over the candidates, for an unmet bound. */
static void candidate_range(const pp_phases_plan *r, size_t k, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < r->problem.n_cand; i++) {
        *lo = fmin(*lo, r->cand[i].point.raw[k]);
        *hi = fmax(*hi, r->cand[i].point.raw[k]);
    }
}

static void print_unmet(const pp_model *m, const pp_mission *mi, const pp_phases_plan *r)
{
    char text[1024];

    for (size_t k = 0; k < mi->n_phases; k++) {
        const pp_mission_phase *ph = &mi->phase[k];
        if (r->res.phase[k].met)
            continue;
        bounds_text(ph, text, sizeof text);
        printf("phase '%s': no configuration meets its bounds (%s)", ph->name, text);
        for (size_t j = 0; j < ph->n_bounds; j++) {
            int q = pp_summary_param(&m->sum, ph->bound[j].param);
            double lo, hi;
            if (q < 0 || ph->bound[j].label[0])
                continue;
            candidate_range(r, (size_t)q, &lo, &hi);
            printf("; the plan's settings of %s span %g .. %g", ph->bound[j].param, lo, hi);
        }
        printf("%s\n", r->head.n_short_of_rate ? " (settings whose achieved rate falls short are "
                                                 "left out)" : "");
    }
}

static void print_header(const pp_plan_options *o, const pp_mission *mi, const pp_phases_plan *r)
{
    printf("mission %s: %zu phase%s, %.1f min, keep %.0f %%. Loads on the battery: the computer "
           "(through its converter, efficiency %.2f) + each phase's base load.\n",
           mi->path[0] ? mi->path : "(command line)", mi->n_phases, mi->n_phases == 1 ? "" : "s",
           pp_mission_duration_s(mi) / 60, 100 * r->min_soc_frac, o->battery.efficiency);
    printf("power planned with: %s; quality: the time-weighted %s (phase weights applied)\n",
           o->risk == PP_RISK_UPPER ? "the upper end of the 90 % band of the predicted power"
                                    : "the predicted power itself",
           r->head.achieved_metric >= 0 ? "achieved rate" : "value of the parameter maximized");
}

static void print_phases(const pp_model *m, const pp_mission *mi, const pp_phases_plan *r)
{
    char text[1024], b[1024];

    printf("%-12s %8s %8s %9s %10s  %-16s  %s\n", "phase", "start", "length", "base W",
           "computer W", "charge", "configuration");
    for (size_t k = 0; k < mi->n_phases; k++) {
        const pp_phases_phase *ph = &r->res.phase[k];
        const pp_plan_choice *c = &r->cand[ph->choice];
        settings(m, r, c, text, sizeof text);
        printf("%-12.12s %6.1f m %6.1f m %9.1f %10.3f  %5.1f -> %5.1f %%  %s\n", mi->phase[k].name,
               ph->start_s / 60, mi->phase[k].duration_s / 60, ph->base_mean_w, c->planned_w,
               100 * ph->soc_start_frac, 100 * ph->soc_end_frac, text);
        if (r->base[k].repeats > 1)
            printf("%12s its base trace (%.1f s) repeated %.*f times to fill it%s\n", "",
                   r->base[k].period_s, r->base[k].repeats > 10 ? 0 : 1, r->base[k].repeats,
                   r->base[k].repeats > PP_PHASE_REPEAT_WARN
                       ? ": more than a few times, its pattern sets the load; a longer "
                         "recording would be truer"
                       : "");
        if (ph->floor_binds) {
            bounds_text(&mi->phase[k], b, sizeof b);
            printf("%12s its bounds bind (%s): at least %.3f W where %.3f W would do, %.2f %% of "
                   "the charge\n", "", b, ph->min_w, ph->free_min_w, 100 * ph->floor_drain_frac);
        }
    }
}

static void print_gain(const pp_model *m, const pp_mission *mi, const pp_phases_plan *r)
{
    const pp_phases_result *res = &r->res;
    char text[1024];

    if (!res->single_exists) {
        printf("no single configuration meets every phase's bounds: only a plan per phase flies "
               "this mission\n");
        return;
    }
    if (!res->single_feasible) {
        printf("no single configuration held throughout keeps the reserve: the plan per phase "
               "is the only one that completes the mission");
        if (isfinite(res->single_reserve_t_s))
            printf(" (the cheapest meeting every phase's bounds reaches the reserve after "
                   "%.1f min of %.1f)", res->single_reserve_t_s / 60,
                   pp_mission_duration_s(mi) / 60);
        printf("\n");
        return;
    }
    settings(m, r, &r->cand[res->single], text, sizeof text);
    printf("best single configuration held throughout: %s: quality %.4g, %.1f %% left\n", text,
           res->single_quality, 100 * res->single_soc_end_frac);
    double gain = res->quality - res->single_quality;
    if (fabs(gain) <= 1e-9 * fmax(1, fabs(res->quality)))
        gain = 0; /* rounding of the sums */
    printf("the plan per phase gains %+.4g (%+.1f %%) in quality\n", gain,
           res->single_quality > 0 ? 100 * gain / res->single_quality : NAN);
}

static void print_text(const pp_model *m, const pp_plan_options *o, const pp_mission *mi,
                       const pp_phases_plan *r)
{
    const pp_phases_result *res = &r->res;

    print_header(o, mi, r);
    for (size_t k = 0; k < mi->n_phases; k++)
        if (!res->phase[k].met) {
            print_unmet(m, mi, r);
            return;
        }
    if (!res->feasible) {
        printf("no schedule keeps the reserve: the cheapest meeting every phase's bounds ends "
               "with %.1f %%, %.1f %% of the charge short of the %.0f %% reserve\n",
               100 * res->soc_end_frac, 100 * res->need_frac, 100 * r->min_soc_frac);
        print_phases(m, mi, r);
        return;
    }
    print_phases(m, mi, r);
    printf("end: %.2f %% left (one battery run over the whole mission, %zu battery runs in "
           "all); quality %.4g\n", 100 * res->soc_end_frac, res->n_battery_runs, res->quality);
    print_gain(m, mi, r);
}

static json_t *timeline_json(const pp_phases_result *res)
{
    size_t step = res->n_points > TIMELINE_MAX ? (res->n_points + TIMELINE_MAX - 1) / TIMELINE_MAX
                                               : 1;
    json_t *t = json_array(), *soc = json_array(), *b = json_array(), *c = json_array();

    for (size_t i = 0; i < res->n_points; i += step) {
        json_array_append_new(t, json_real(res->t_s[i]));
        json_array_append_new(soc, num(res->soc_frac[i]));
        json_array_append_new(b, num(res->base_w[i]));
        json_array_append_new(c, num(res->computer_w[i]));
    }
    return json_pack("{s:o,s:o,s:o,s:o}", "t_s", t, "soc", soc, "base_w", b, "computer_w", c);
}

static json_t *phase_json(const pp_model *m, const pp_mission *mi, const pp_phases_plan *r,
                          size_t k)
{
    const pp_phases_phase *ph = &r->res.phase[k];
    char text[1024];
    json_t *o;

    bounds_text(&mi->phase[k], text, sizeof text);
    o = json_pack("{s:s,s:f,s:f,s:f,s:f,s:b,s:s}", "name", mi->phase[k].name, "start_s",
                  ph->start_s, "duration_s", mi->phase[k].duration_s, "weight",
                  mi->phase[k].weight, "base_mean_w", ph->base_mean_w, "met", ph->met, "bounds",
                  text);
    json_object_set_new(o, "base_trace", mi->phase[k].base_trace[0]
                                             ? json_string(mi->phase[k].base_trace) : json_null());
    json_object_set_new(o, "base_trace_repeats", mi->phase[k].base_trace[0]
                                                     ? num(r->base[k].repeats) : json_null());
    json_object_set_new(o, "choice", ph->met && r->res.n_points ? pp_plan_choice_json(m, &r->cand[ph->choice])
                                                                : json_null());
    json_object_set_new(o, "soc_start", num(ph->soc_start_frac));
    json_object_set_new(o, "soc_end", num(ph->soc_end_frac));
    json_object_set_new(o, "floor_binds", json_boolean(ph->floor_binds));
    json_object_set_new(o, "min_w", num(ph->min_w));
    json_object_set_new(o, "floor_drain", num(ph->floor_drain_frac));
    return o;
}

static json_t *plan_json(const pp_model *m, const pp_plan_options *o, const pp_mission *mi,
                         const pp_phases_plan *r)
{
    const pp_phases_result *res = &r->res;
    json_t *root = json_object(), *phases = json_array();
    int q = r->head.achieved_metric;

    for (size_t k = 0; k < mi->n_phases; k++)
        json_array_append_new(phases, phase_json(m, mi, r, k));
    json_object_set_new(root, "mission", json_string(mi->path));
    json_object_set_new(root, "feasible", json_boolean(res->feasible));
    json_object_set_new(root, "maximize", json_string(m->sum.params[r->head.maximize]));
    json_object_set_new(root, "quality_of", json_string(q >= 0 ? m->sum.metrics[q]
                                                                : m->sum.params[r->head.maximize]));
    json_object_set_new(root, "risk", json_string(o->risk == PP_RISK_UPPER ? "upper" : "mean"));
    json_object_set_new(root, "mission_s", json_real(pp_mission_duration_s(mi)));
    json_object_set_new(root, "min_soc", json_real(r->min_soc_frac));
    json_object_set_new(root, "efficiency", json_real(o->battery.efficiency));
    json_object_set_new(root, "candidates", json_integer((json_int_t)r->head.n_candidates));
    json_object_set_new(root, "phases", phases);
    json_object_set_new(root, "quality", res->feasible ? num(res->quality) : json_null());
    json_object_set_new(root, "soc_end", num(res->soc_end_frac));
    json_object_set_new(root, "need", res->feasible ? json_null() : num(res->need_frac));
    json_object_set_new(root, "battery_runs", json_integer((json_int_t)res->n_battery_runs));
    json_object_set_new(root, "single", res->feasible && res->single_feasible
                                            ? json_pack("{s:o,s:f,s:f,s:f}", "choice",
                                                        pp_plan_choice_json(m, &r->cand[res->single]),
                                                        "quality", res->single_quality, "soc_end",
                                                        res->single_soc_end_frac, "gain",
                                                        res->quality - res->single_quality)
                                            : json_null());
    json_object_set_new(root, "single_exists", json_boolean(res->single_exists));
    json_object_set_new(root, "single_reserve_t_s", num(res->single_reserve_t_s));
    json_object_set_new(root, "timeline", timeline_json(res));
    return root;
}

int pp_cli_plan_phases(const pp_model *m, const pp_plan_options *o, const pp_mission *mi,
                       int json)
{
    pp_phases_plan *r = malloc(sizeof *r);
    int rc;

    if (!r)
        return PP_EXIT_FAILURE;
    if ((rc = pp_plan_phases(m, o, mi, r)) < 0) {
        free(r);
        return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    }
    if (json) {
        json_t *root = plan_json(m, o, mi, r);
        json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
        printf("\n");
        json_decref(root);
    } else {
        print_text(m, o, mi, r);
    }
    rc = r->res.feasible ? 0 : 3;
    pp_phases_plan_free(r);
    free(r);
    return rc;
}

int pp_cli_plan_phases_make(const pp_model *m, const pp_plan_options *o, const pp_mission *mi,
                            pp_phases_plan **out, json_t **json)
{
    pp_phases_plan *r = malloc(sizeof *r);
    int rc;

    *out = NULL;
    *json = NULL;
    if (!r)
        return -ENOMEM;
    if ((rc = pp_plan_phases(m, o, mi, r)) < 0) {
        free(r);
        return rc;
    }
    *json = plan_json(m, o, mi, r);
    *out = r;
    return 0;
}

void pp_cli_plan_phases_print(const pp_model *m, const pp_plan_options *o, const pp_mission *mi,
                              const pp_phases_plan *r)
{
    print_text(m, o, mi, r);
}

void pp_cli_plan_phases_free(pp_phases_plan *r)
{
    if (r)
        pp_phases_plan_free(r);
    free(r);
}
