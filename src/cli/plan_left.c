/* plan_left.c - a plan's choices in words, and what every planner left
 * out (plan, plan --mission): shared by plan.c and plan_phases.c. */
#include "cli.h"

#include "src/plan/plan.h"
#include "src/plan/plan_measured.h"

#include <math.h>
#include <stdio.h>

void pp_cli_plan_choice_print(const pp_model *m, const pp_plan_result *r, const pp_plan_choice *c)
{
    const pp_summary *s = &m->sum;
    char text[PP_SUMMARY_LABEL_MAX];

    printf("%s = %g", s->params[r->maximize], c->point.raw[r->maximize]);
    if (!isnan(c->achieved.value) && !isnan(c->achieved.lo) && c->achieved.hi > c->achieved.lo)
        printf(" (achieves %.3g, 90 %% band %.3g .. %.3g%s)", c->achieved.value, c->achieved.lo,
               c->achieved.hi, pp_plan_is_measured(m, &c->point) ? "" : ", not measured");
    else if (!isnan(c->achieved.value))
        printf(" (achieves %.3g)", c->achieved.value);
    for (size_t k = 0, first = 1; k < s->n_params; k++)
        if (k != r->maximize) {
            pp_summary_value_text(s, k, c->point.raw[k], text, sizeof text);
            printf("%s %s=%s", first ? " with" : "", s->params[k], text);
            first = 0;
        }
    printf(": %.3f W predicted", c->power.value);
    if (!isnan(c->power.hi))
        printf(" (90 %% band %.3f .. %.3f W)", c->power.lo, c->power.hi);
    if (!isnan(c->rate_per_s))
        printf("; %.4g J per unit of work, %.4g units/s", c->energy_per_unit_j, c->rate_per_s);
}

void pp_cli_plan_left_out(const pp_model *m, const pp_plan_options *o, const pp_plan_result *r)
{
    size_t n_configs = 0, n_grid = r->n_short_of_rate + r->n_gave_way + r->n_candidates;

    for (size_t g = 0; g < m->n_groups; g++)
        n_configs += m->groups[g].n_rows;
    if (r->n_short_of_rate) {
        printf("left out: %zu of the %zu settings of the model's grid (from %zu measured "
               "configurations) whose achieved rate falls short of the requested one by more "
               "than %.0f %% (e.g. ", r->n_short_of_rate, n_grid, n_configs,
               100 * o->tolerance_frac);
        pp_cli_plan_choice_print(m, r, &r->short_example);
        printf(")\n");
    }
    if (r->n_gave_way) {
        printf("left out: %zu of the %zu settings, never measured, whose gain over a measured "
               "one that costs no more lies within their own band", r->n_gave_way, n_grid);
        if (!r->measured_preferred) { /* else the best's line names it */
            printf(" (e.g. ");
            pp_cli_plan_choice_print(m, r, &r->gave_way_example);
            printf(")");
        }
        printf("\n");
    }
    if (r->n_below_min_rate)
        printf("left out: %zu settings that keep up fewer than %.4g units of work per second "
               "(--min-rate, or --work over the mission)\n", r->n_below_min_rate,
               o->min_rate_per_s);
}

