/* answer_phases.c - the answer of `powprof plan --mission` in words: a
 * configuration per phase, what binds, the gain over one held throughout
 * (answer.h); its JSON is pp_phases_plan_json (pipeline_phases.c). */
#include "answer_phases.h"
#include "answer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

static void print_unmet(FILE *fp, const pp_model *m, const pp_mission_spec *mi, const pp_phases_plan *r)
{
    char text[1024];

    for (size_t k = 0; k < mi->n_phases; k++) {
        const pp_mission_phase *ph = &mi->phase[k];
        if (r->res.phase[k].met)
            continue;
        pp_mission_bounds_text(ph, text, sizeof text);
        fprintf(fp, "phase '%s': no configuration meets its bounds (%s)", ph->name, text);
        for (size_t j = 0; j < ph->n_bounds; j++) {
            int q = pp_summary_param(&m->sum, ph->bound[j].param);
            double lo, hi;
            if (q < 0 || ph->bound[j].label[0])
                continue;
            candidate_range(r, (size_t)q, &lo, &hi);
            fprintf(fp, "; the plan's settings of %s span %g .. %g", ph->bound[j].param, lo, hi);
        }
        fprintf(fp, "%s\n", r->head.n_short_of_rate ? " (settings whose achieved rate falls short are "
                                                 "left out)" : "");
    }
}

static void print_header(FILE *fp, const pp_plan_options *o, const pp_mission_spec *mi, const pp_phases_plan *r)
{
    fprintf(fp, "mission %s: %zu phase%s, %.1f min, keep %.0f %%. Loads on the battery: the computer "
           "(through its converter, efficiency %.2f) + each phase's base load.\n",
           mi->path[0] ? mi->path : "(command line)", mi->n_phases, mi->n_phases == 1 ? "" : "s",
           pp_mission_duration_s(mi) / 60, 100 * r->min_soc_frac, o->battery.efficiency);
    fprintf(fp, "power planned with: %s; quality: the time-weighted %s (phase weights applied)\n",
           o->risk == PP_RISK_UPPER ? "the upper end of the 90 % band of the predicted power"
                                    : "the predicted power itself",
           r->head.achieved_metric >= 0 ? "achieved rate" : "value of the parameter maximized");
}

static void print_phases(FILE *fp, const pp_model *m, const pp_mission_spec *mi, const pp_phases_plan *r)
{
    char text[1024], b[1024];
    int w = 12; /* the longest name, whole */

    for (size_t k = 0; k < mi->n_phases; k++)
        w = (int)strlen(mi->phase[k].name) > w ? (int)strlen(mi->phase[k].name) : w;
    fprintf(fp, "%-*s %8s %8s %9s %10s  %-16s  %s\n", w, "phase", "start", "length", "base W",
           "computer W", "charge", "configuration");
    for (size_t k = 0; k < mi->n_phases; k++) {
        const pp_phases_phase *ph = &r->res.phase[k];
        const pp_plan_choice *c = &r->cand[ph->choice];
        settings(m, r, c, text, sizeof text);
        fprintf(fp, "%-*s %6.1f m %6.1f m %9.1f %10.3f  %5.1f -> %5.1f %%  %s\n", w, mi->phase[k].name,
               ph->start_s / 60, r->problem.duration_s[k] / 60, ph->base_mean_w, c->planned_w,
               100 * ph->soc_start_frac, 100 * ph->soc_end_frac, text);
        if (mi->phase[k].overrun_frac > 0) /* the length budgeted: the longest it may run */
            fprintf(fp, "%*s its overrun budgeted: planned %.1f m, up to %.0f %% longer\n", w, "",
                   mi->phase[k].duration_s / 60, 100 * mi->phase[k].overrun_frac);
        if (r->base[k].repeats > 1)
            fprintf(fp, "%*s its base trace (%.1f s) repeated %.*f times to fill it%s\n", w, "",
                   r->base[k].period_s, r->base[k].repeats > 10 ? 0 : 1, r->base[k].repeats,
                   r->base[k].repeats > PP_PHASE_REPEAT_WARN
                       ? ": more than a few times, its pattern sets the load; a longer "
                         "recording would be truer"
                       : "");
        if (ph->floor_binds) {
            pp_mission_bounds_text(&mi->phase[k], b, sizeof b);
            fprintf(fp, "%*s its bounds bind (%s): at least %.3f W where %.3f W would do, %.2f %% of "
                   "the charge\n", w, "", b, ph->min_w, ph->free_min_w, 100 * ph->floor_drain_frac);
        }
    }
}

static void print_gain(FILE *fp, const pp_model *m, const pp_mission_spec *mi, const pp_phases_plan *r)
{
    const pp_phases_result *res = &r->res;
    char text[1024];

    if (!res->single_exists) {
        fprintf(fp, "no single configuration meets every phase's bounds: only a plan per phase flies "
               "this mission\n");
        return;
    }
    if (!res->single_feasible) {
        fprintf(fp, "no single configuration held throughout keeps the reserve: the plan per phase "
               "is the only one that completes the mission");
        if (isfinite(res->single_reserve_t_s))
            fprintf(fp, " (the cheapest meeting every phase's bounds reaches the reserve after "
                   "%.1f min of %.1f)", res->single_reserve_t_s / 60,
                   pp_mission_duration_s(mi) / 60);
        fprintf(fp, "\n");
        return;
    }
    settings(m, r, &r->cand[res->single], text, sizeof text);
    fprintf(fp, "best single configuration held throughout: %s: quality %.4g, %.1f %% left\n", text,
           res->single_quality, 100 * res->single_soc_end_frac);
    double gain = res->quality - res->single_quality;
    if (fabs(gain) <= 1e-9 * fmax(1, fabs(res->quality)))
        gain = 0; /* rounding of the sums */
    fprintf(fp, "the plan per phase gains %+.4g (%+.1f %%) in quality\n", gain,
           res->single_quality > 0 ? 100 * gain / res->single_quality : NAN);
}

void pp_phases_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                        const pp_mission_spec *mi, const pp_phases_plan *r)
{
    const pp_phases_result *res = &r->res;

    print_header(fp, o, mi, r);
    pp_plan_left_out_text(fp, m, o, &r->head);
    for (size_t k = 0; k < mi->n_phases; k++)
        if (!res->phase[k].met) {
            print_unmet(fp, m, mi, r);
            return;
        }
    if (!res->feasible) {
        fprintf(fp, "no schedule keeps the reserve: the cheapest meeting every phase's bounds ends "
               "with %.1f %%, %.1f %% of the charge short of the %.0f %% reserve\n",
               100 * res->soc_end_frac, 100 * res->need_frac, 100 * r->min_soc_frac);
        print_phases(fp, m, mi, r);
        return;
    }
    print_phases(fp, m, mi, r);
    fprintf(fp, "end: %.2f %% left (one battery run over the whole mission, %zu battery runs in "
           "all); quality %.4g\n", 100 * res->soc_end_frac, res->n_battery_runs, res->quality);
    print_gain(fp, m, mi, r);
}

