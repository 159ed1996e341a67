/* The plan's steps of the pipeline (see pipeline.h): the model a plan
 * reads, the plan as JSON, RESULTS/plan.json. */
#include "pipeline_plan.h"
#include "pipeline.h"

#include "src/layer2/variability.h"
#include "src/plan/plan_measured.h"
#include "src/plan/plan_work.h"
#include "src/results/json_file.h"
#include "src/results/run_json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int pp_pipeline_plan_model(const char *dir, const char *maximize, const char *node, int worst,
                           pp_model *m)
{
    /* the power, the energy per unit of work (plan --work), and the two the
     * power may be derived from (E = P x T, model.h): without them the power
     * would be modelled alone, and plan would answer otherwise than after
     * `powprof model` (issue 34) */
    const char *only[6] = {PP_PLAN_POWER_METRIC, PP_PLAN_UNIT_METRIC, "total_energy_j",
                           "duration_s", NULL, NULL};
    char achieved[PP_SUMMARY_NAME_MAX + 16];
    pp_model_options mo;
    int rc;

    pp_model_options_init(&mo);
    if (maximize && pp_plan_rate_metric(maximize, achieved, sizeof achieved))
        only[4] = achieved;
    mo.only = maximize ? only : NULL;
    if ((rc = pp_model_read(dir, &mo, 1, m)) < 0)
        return rc == -ENOMEM ? rc : -EINVAL;
    m->opts.only = NULL; /* only[] is this function's */
    rc = node ? pp_model_target_node(m, node) : worst ? pp_model_target_worst(m) : 0;
    if (rc < 0)
        pp_model_free(m);
    return rc;
}

json_t *pp_plan_setting_json(const pp_model *m, const pp_plan_choice *c)
{
    const pp_summary *s = &m->sum;
    json_t *o = json_object();
    char text[PP_SUMMARY_LABEL_MAX];

    for (size_t k = 0; k < s->n_params; k++) {
        pp_summary_value_text(s, k, c->point.raw[k], text, sizeof text);
        json_object_set_new(o, s->params[k], s->param[k].kind == PP_PARAM_CATEGORICAL
                                                 ? json_string(text) : pp_json_num(c->point.raw[k]));
    }
    return o;
}

json_t *pp_plan_choice_json(const pp_model *m, const pp_plan_choice *c)
{
    json_t *o = pp_plan_setting_json(m, c);

    json_object_set_new(o, "power_w", pp_json_num(c->power.value));
    json_object_set_new(o, "power_lo_w", pp_json_num(c->power.lo));
    json_object_set_new(o, "power_hi_w", pp_json_num(c->power.hi));
    json_object_set_new(o, "planned_w", pp_json_num(c->planned_w));
    json_object_set_new(o, "achieved", pp_json_num(c->achieved.value));
    json_object_set_new(o, "achieved_lo", pp_json_num(c->achieved.lo));
    json_object_set_new(o, "achieved_hi", pp_json_num(c->achieved.hi));
    json_object_set_new(o, "measured", json_boolean(pp_plan_is_measured(m, &c->point)));
    json_object_set_new(o, "quality", pp_json_num(c->qos));
    json_object_set_new(o, "energy_per_unit_j", pp_json_num(c->energy_per_unit_j));
    json_object_set_new(o, "units_per_s", pp_json_num(c->rate_per_s));
    return o;
}

json_t *pp_plan_left_out_json(const pp_plan_options *o, const pp_plan_result *r)
{
    return json_pack("{s:f,s:I,s:I,s:I}", "tolerance", o->tolerance_frac, "short_of_rate",
                     (json_int_t)r->n_short_of_rate, "never_measured_gave_way",
                     (json_int_t)r->n_gave_way, "below_min_rate", (json_int_t)r->n_below_min_rate);
}

/* The best plan, its runners-up and its schedule into root. */
static void best_json(const pp_model *m, const pp_plan_options *o, const pp_plan_result *r,
                      json_t *root)
{
    json_t *runners = json_array(), *steps = json_array();

    if (r->feasible) {
        json_object_set_new(root, "best", pp_plan_choice_json(m, &r->best));
        json_object_set_new(root, "best_soc_end", pp_json_num(r->best_soc_end_frac));
        json_object_set_new(root, "best_time_to_cutoff_s", pp_json_num(r->best_time_to_cutoff_s));
        json_object_set_new(root, "band_cost", json_pack("{s:o,s:o}", "quality_upper",
                                                         pp_json_num(r->qos_upper), "quality_mean",
                                                         pp_json_num(r->qos_mean)));
        for (size_t i = 0; i < r->n_runners; i++)
            json_array_append_new(runners, pp_plan_choice_json(m, &r->runners[i]));
        json_object_set_new(root, "runners_up", runners);
        json_object_set_new(root, "preferred_to_unmeasured",
                            r->measured_preferred ? pp_plan_choice_json(m, &r->interpolated)
                                                  : json_null());
        json_object_set_new(root, "best_and_runner_up_within_noise",
                            json_boolean(r->indistinct));
    } else {
        json_decref(runners);
    }
    for (size_t j = 0; j < r->n_steps; j++) {
        json_t *c = pp_plan_choice_json(m, &r->steps[j].c);
        json_object_set_new(c, "t_s", json_real(r->steps[j].t_s));
        json_object_set_new(c, "soc", json_real(r->steps[j].soc_frac));
        json_array_append_new(steps, c);
    }
    if (o->schedule && r->feasible) {
        json_object_set_new(root, "schedule", steps);
        json_object_set_new(root, "schedule_soc_end", pp_json_num(r->schedule_soc_end_frac));
    } else {
        json_decref(steps);
    }
}

json_t *pp_plan_json(const pp_model *m, const pp_plan_options *o, const pp_plan_result *r)
{
    json_t *root = json_pack("{s:b,s:f,s:s,s:s,s:f,s:{s:f,s:f},s:o,s:I}", "feasible", r->feasible,
                             "mission_s", o->mission_s, "maximize", m->sum.params[r->maximize],
                             "risk", o->risk == PP_RISK_UPPER ? "upper" : "mean", "min_soc",
                             r->min_soc_frac, "loads", "base_power_w", o->battery.base_power_w,
                             "efficiency", o->battery.efficiency, "max_power_w",
                             r->max_power_w >= 0 ? pp_json_num(r->max_power_w) : json_null(),
                             "candidates", (json_int_t)r->n_candidates);
    json_t *f = pp_plan_choice_json(m, &r->frugal);

    json_object_set_new(root, "node", m->node_factor ? json_string(m->target_node) : json_null());
    json_object_set_new(root, "node_power_factor",
                        m->node_factor ? pp_json_num(m->node_factor[pp_summary_metric(&m->sum,
                                                               PP_PLAN_POWER_METRIC)])
                                       : json_null());
    json_object_set_new(root, "quality", json_string(r->achieved_metric >= 0
                                                         ? m->sum.metrics[r->achieved_metric]
                                                         : m->sum.params[r->maximize]));
    json_object_set_new(root, "short_of_rate", json_integer((json_int_t)r->n_short_of_rate));
    json_object_set_new(root, "left_out", pp_plan_left_out_json(o, r));
    if (r->n_short_of_rate)
        json_object_set_new(root, "short_of_rate_example", pp_plan_choice_json(m, &r->short_example));
    json_object_set_new(root, "battery", pp_run_json_battery(&o->battery));
    json_object_set_new(f, "time_to_cutoff_s", pp_json_num(r->frugal_time_to_cutoff_s));
    json_object_set_new(f, "soc_end", pp_json_num(r->frugal_soc_end_frac));
    /* the state of charge at the end whether or not the plan keeps the
     * reserve, and the flag (null, never a sentinel, where nothing is known) */
    json_object_set_new(root, "soc_end", pp_json_num(r->feasible ? r->best_soc_end_frac
                                                                 : r->frugal_soc_end_frac));
    json_object_set_new(root, "reserve_kept", json_boolean(r->feasible));
    json_object_set_new(root, "most_frugal", f);
    best_json(m, o, r, root);
    return root;
}

int pp_pipeline_plan_save(const char *dir, const json_t *plan)
{
    char path[PP_PATH_MAX];
    int rc;

    if ((rc = pp_path_fmt(path, sizeof path, dir, "plan.json")) < 0)
        return rc;
    return pp_json_save(path, plan, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
}
