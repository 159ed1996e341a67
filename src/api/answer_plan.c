/* answer_plan.c - the answer of `powprof plan` in words, and of networks
 * never run planned in a measured one's place (answer.h); the plan's JSON
 * is pp_plan_json (pipeline_plan.c). */
#include "answer_plan.h"
#include "answer.h"

#include "pipeline.h"

#include "src/plan/plan_measured.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

void pp_plan_choice_words(FILE *fp, const pp_model *m, const pp_plan_result *r, const pp_plan_choice *c)
{
    const pp_summary *s = &m->sum;
    char text[PP_SUMMARY_LABEL_MAX];

    fprintf(fp, "%s = %g", s->params[r->maximize], c->point.raw[r->maximize]);
    if (!isnan(c->achieved.value) && !isnan(c->achieved.lo) && c->achieved.hi > c->achieved.lo)
        fprintf(fp, " (achieves %.3g, 90 %% band %.3g .. %.3g%s)", c->achieved.value, c->achieved.lo,
               c->achieved.hi, pp_plan_is_measured(m, &c->point) ? "" : ", not measured");
    else if (!isnan(c->achieved.value))
        fprintf(fp, " (achieves %.3g)", c->achieved.value);
    for (size_t k = 0, first = 1; k < s->n_params; k++)
        if (k != r->maximize) {
            pp_summary_value_text(s, k, c->point.raw[k], text, sizeof text);
            fprintf(fp, "%s %s=%s", first ? " with" : "", s->params[k], text);
            first = 0;
        }
    fprintf(fp, ": %.3f W predicted", c->power.value);
    if (!isnan(c->power.hi))
        fprintf(fp, " (90 %% band %.3f .. %.3f W)", c->power.lo, c->power.hi);
    if (!isnan(c->rate_per_s))
        fprintf(fp, "; %.4g J per unit of work, %.4g units/s", c->energy_per_unit_j, c->rate_per_s);
}

void pp_plan_left_out_text(FILE *fp, const pp_model *m, const pp_plan_options *o, const pp_plan_result *r)
{
    size_t n_configs = 0, n_grid = r->n_short_of_rate + r->n_gave_way + r->n_candidates;

    for (size_t g = 0; g < m->n_groups; g++)
        n_configs += m->groups[g].n_rows;
    if (r->n_short_of_rate) {
        fprintf(fp, "left out: %zu of the %zu settings of the model's grid (from %zu measured "
               "configurations) whose achieved rate falls short of the requested one by more "
               "than %.0f %% (e.g. ", r->n_short_of_rate, n_grid, n_configs,
               100 * o->tolerance_frac);
        pp_plan_choice_words(fp, m, r, &r->short_example);
        fprintf(fp, ")\n");
    }
    if (r->n_gave_way) {
        fprintf(fp, "left out: %zu of the %zu settings, never measured, whose gain over a measured "
               "one that costs no more lies within their own band", r->n_gave_way, n_grid);
        if (!r->measured_preferred) { /* else the best's line names it */
            fprintf(fp, " (e.g. ");
            pp_plan_choice_words(fp, m, r, &r->gave_way_example);
            fprintf(fp, ")");
        }
        fprintf(fp, "\n");
    }
    if (r->n_below_min_rate)
        fprintf(fp, "left out: %zu settings that keep up fewer than %.4g units of work per second "
               "(--min-rate, or --work over the mission)\n", r->n_below_min_rate,
               o->min_rate_per_s);
}


static void print_loads(FILE *fp, const pp_plan_options *o, const pp_plan_result *r)
{
    const pp_battery_params *b = &o->battery;

    fprintf(fp, "mission %.0f s, keep %.0f %%. Loads on the battery: the computer (through its "
           "converter, efficiency %.2f) + base load %.1f W.\n", o->mission_s,
           100 * r->min_soc_frac, b->efficiency, b->base_power_w);
    fprintf(fp, "power planned with: %s (--risk %s)\n",
           o->risk == PP_RISK_UPPER ? "the upper end of the 90 % band of the predicted power"
                                    : "the predicted power itself, not its band",
           o->risk == PP_RISK_UPPER ? "upper" : "mean");
}

void pp_plan_node_text(FILE *fp, const pp_model *m, int worst)
{
    int w = pp_summary_metric(&m->sum, PP_PLAN_POWER_METRIC);

    if (!m->node_factor)
        return;
    fprintf(fp, "planned for node %s%s: its power %.4f x the fleet's mean board (node factor over "
           "the configurations measured on several nodes)\n", m->target_node,
           worst ? ", the most power-hungry board measured" : "",
           w >= 0 ? m->node_factor[w] : NAN);
}

void pp_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o, const pp_plan_result *r)
{
    const pp_battery_params *b = &o->battery;
    char when[48];

    print_loads(fp, o, r);
    for (size_t i = 0; i < o->n_fixed; i++)
        fprintf(fp, "%s%s = %s%s", i ? ", " : "held: ", o->fixed[i].name, o->fixed[i].value,
               i + 1 == o->n_fixed ? "\n" : "");
    pp_plan_left_out_text(fp, m, o, r);
    if (!r->feasible) {
        fprintf(fp, "no configuration completes a %.0f s mission with %.0f %% left (base load %.1f W).\n"
               "The most frugal one, ", o->mission_s, 100 * r->min_soc_frac, b->base_power_w);
        pp_plan_choice_words(fp, m, r, &r->frugal);
        pp_format_duration(r->frugal_time_to_cutoff_s, when, sizeof when);
        fprintf(fp, ", lasts %s to cutoff (computer + %.1f W).\n", when, b->base_power_w);
        return;
    }
    pp_format_duration(r->best_time_to_cutoff_s, when, sizeof when);
    fprintf(fp, "the battery gives the computer at most %.3f W for the whole mission\n", r->max_power_w);
    fprintf(fp, "best: ");
    pp_plan_choice_words(fp, m, r, &r->best);
    fprintf(fp, "\n  planned with %.3f W: %.1f %% left at the end; cutoff after %s if it flew on "
           "(computer + %.1f W)\n", r->best.planned_w, 100 * r->best_soc_end_frac, when,
           b->base_power_w);
    fprintf(fp, "  the band's cost: quality %g planned on the power band's upper end, %g on the "
           "prediction%s\n", r->qos_upper, r->qos_mean,
           isnan(r->qos_upper) || isnan(r->qos_mean) ? " (nan: no setting lasts the mission so)" : "");
    if (r->measured_preferred) {
        fprintf(fp, "  a measured setting, preferred to ");
        pp_plan_choice_words(fp, m, r, &r->interpolated);
        fprintf(fp, ": its gain is within its own band\n");
    }
    if (r->indistinct)
        fprintf(fp, "  within noise: the best and the first runner-up's achieved rates have "
               "overlapping 90 %% bands (%.3g .. %.3g and %.3g .. %.3g): they cannot be told "
               "apart; measure again with profile --repeat 3 (or more) to narrow the bands\n",
               r->best.achieved.lo, r->best.achieved.hi, r->runners[0].achieved.lo,
               r->runners[0].achieved.hi);
    if (r->n_runners)
        fprintf(fp, "runners-up:\n");
    for (size_t i = 0; i < r->n_runners; i++) {
        fprintf(fp, "  ");
        pp_plan_choice_words(fp, m, r, &r->runners[i]);
        fprintf(fp, "\n");
    }
    if (!o->schedule)
        return;
    fprintf(fp, "schedule (the highest quality the charge allows, stepping down to the best plan):\n");
    for (size_t j = 0; j < r->n_steps; j++) {
        fprintf(fp, "  at %8.1f s (%.1f %% left): ", r->steps[j].t_s, 100 * r->steps[j].soc_frac);
        pp_plan_choice_words(fp, m, r, &r->steps[j].c);
        fprintf(fp, ", planned %.3f W\n", r->steps[j].c.planned_w);
    }
    fprintf(fp, "  end at %.1f s with %.1f %% left (one battery run over the schedule; the best plan "
           "alone ends with %.1f %%)\n", o->mission_s, 100 * r->schedule_soc_end_frac,
           100 * r->best_soc_end_frac);
}

static void print_rows(FILE *fp, const pp_model *m, const pp_swap_plans *sp)
{
    size_t maximize = sp->row[0].plan->maximize;
    char measured[64];

    pp_text(measured, sizeof measured, "%.40s (measured)", sp->row[0].name);
    fprintf(fp, "\n== networks side by side (%s; k: a frame's CPU time over the measured one's)\n",
           m->sum.params[maximize]);
    fprintf(fp, "%-28s %7s %10s %9s %10s %8s\n", "network", "k", "best fps", "achieves", "planned W",
           "left %");
    for (size_t i = 0; i < sp->n; i++) {
        const pp_swap_row *row = &sp->row[i];
        fprintf(fp, "%-28.28s %7.3f ", i == 0 ? measured : row->name, row->swap.time_ratio);
        if (!row->planned)
            fprintf(fp, "no rate whose k x fps lies within the measured rates\n");
        else if (!row->plan->feasible)
            fprintf(fp, "nothing completes the mission\n");
        else
            fprintf(fp, "%10.4g %9.4g %10.3f %8.1f\n", row->plan->best.point.raw[maximize],
                   row->plan->best.qos, row->plan->best.planned_w,
                   100 * row->plan->best_soc_end_frac);
    }
}

void pp_networks_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                           const char *measured, const pp_swap_plans *sp)
{
    fprintf(fp, "== %s, as measured\n", measured);
    pp_plan_text(fp, m, o, sp->row[0].plan);
    for (size_t i = 1; i < sp->n; i++) {
        const pp_swap_row *row = &sp->row[i];
        if (!row->planned)
            continue;
        fprintf(fp, "\n== %s in place of %s: a frame takes %.3fx the CPU time (%.4f s, %.4f J per "
               "frame; predicted by the layer model)\n", row->name, measured,
               row->swap.time_ratio, row->swap.network.time_s, row->swap.network.energy_j);
        pp_plan_text(fp, m, o, row->plan);
    }
    print_rows(fp, m, sp);
}

json_t *pp_networks_plan_json(const pp_model *m, const pp_plan_options *o, const char *layer_model,
                              const char *measured, const pp_swap_plans *sp)
{
    json_t *arr = json_array();

    for (size_t i = 1; i < sp->n; i++) {
        const pp_swap_row *row = &sp->row[i];
        json_array_append_new(arr, json_pack("{s:s,s:f,s:f,s:f,s:o}", "network", row->name,
                                             "time_ratio", row->swap.time_ratio, "time_s",
                                             row->swap.network.time_s, "energy_j",
                                             row->swap.network.energy_j, "plan",
                                             row->planned ? pp_plan_json(m, o, row->plan)
                                                          : json_null()));
    }
    return json_pack("{s:s,s:s,s:o,s:o}", "layer_model", layer_model, "measured", measured,
                     "measured_plan", pp_plan_json(m, o, sp->row[0].plan), "networks", arr);
}

int pp_plan_names_check(const pp_model *m, const pp_plan_options *o, char *why, size_t cap)
{
    if (o->maximize && pp_summary_param(&m->sum, o->maximize) < 0)
        return pp_text(why, cap, "--maximize %s: no such parameter", o->maximize), -EINVAL;
    for (size_t i = 0; i < o->n_fixed; i++)
        if (pp_summary_param(&m->sum, o->fixed[i].name) < 0)
            return pp_text(why, cap, "--fix %s=%s: no such parameter", o->fixed[i].name,
                           o->fixed[i].value), -EINVAL;
    for (size_t i = 0; i < o->n_resolutions; i++)
        if (pp_summary_param(&m->sum, o->resolution[i].name) < 0)
            return pp_text(why, cap, "--resolution %s=%g: no such parameter",
                           o->resolution[i].name, o->resolution[i].step), -EINVAL;
    return 0;
}
