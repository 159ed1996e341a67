/* pipeline_phases.c - the plan of a mission in phases as JSON, as `powprof
 * plan --mission --json` prints it and RESULTS/plan.json keeps it
 * (pipeline.h). */
#include "pipeline_phases.h"
#include "pipeline.h"

#include "src/plan/phases_model.h"
#include "src/results/json_file.h"

#include <jansson.h>
#include <math.h>

#define TIMELINE_MAX 2000

static json_t *timeline_json(const pp_phases_result *res)
{
    size_t step = res->n_points > TIMELINE_MAX ? (res->n_points + TIMELINE_MAX - 1) / TIMELINE_MAX
                                               : 1;
    json_t *t = json_array(), *soc = json_array(), *b = json_array(), *c = json_array();

    for (size_t i = 0; i < res->n_points; i += step) {
        json_array_append_new(t, json_real(res->t_s[i]));
        json_array_append_new(soc, pp_json_num(res->soc_frac[i]));
        json_array_append_new(b, pp_json_num(res->base_w[i]));
        json_array_append_new(c, pp_json_num(res->computer_w[i]));
    }
    return json_pack("{s:o,s:o,s:o,s:o}", "t_s", t, "soc", soc, "base_w", b, "computer_w", c);
}

static json_t *phase_json(const pp_model *m, const pp_mission_spec *mi, const pp_phases_plan *r,
                          size_t k)
{
    const pp_phases_phase *ph = &r->res.phase[k];
    char text[1024];
    json_t *o;

    pp_mission_bounds_text(&mi->phase[k], text, sizeof text);
    o = json_pack("{s:s,s:f,s:f,s:f,s:f,s:b,s:s}", "name", mi->phase[k].name, "start_s",
                  ph->start_s, "duration_s", mi->phase[k].duration_s, "weight",
                  mi->phase[k].weight, "base_mean_w", ph->base_mean_w, "met", ph->met, "bounds",
                  text);
    json_object_set_new(o, "base_trace", mi->phase[k].base_trace[0]
                                             ? json_string(mi->phase[k].base_trace) : json_null());
    json_object_set_new(o, "base_trace_repeats", mi->phase[k].base_trace[0]
                                                     ? pp_json_num(r->base[k].repeats) : json_null());
    json_object_set_new(o, "choice", ph->met && r->res.n_points ? pp_plan_choice_json(m, &r->cand[ph->choice])
                                                                : json_null());
    json_object_set_new(o, "soc_start", pp_json_num(ph->soc_start_frac));
    json_object_set_new(o, "soc_end", pp_json_num(ph->soc_end_frac));
    json_object_set_new(o, "floor_binds", json_boolean(ph->floor_binds));
    json_object_set_new(o, "min_w", pp_json_num(ph->min_w));
    json_object_set_new(o, "floor_drain", pp_json_num(ph->floor_drain_frac));
    return o;
}

json_t *pp_phases_plan_json(const pp_model *m, const pp_plan_options *o, const pp_mission_spec *mi,
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
    json_object_set_new(root, "left_out", pp_plan_left_out_json(o, &r->head));
    json_object_set_new(root, "phases", phases);
    json_object_set_new(root, "quality", res->feasible ? pp_json_num(res->quality) : json_null());
    json_object_set_new(root, "soc_end", pp_json_num(res->soc_end_frac));
    json_object_set_new(root, "reserve_kept", json_boolean(res->feasible));
    json_object_set_new(root, "need", res->feasible ? json_null() : pp_json_num(res->need_frac));
    json_object_set_new(root, "battery_runs", json_integer((json_int_t)res->n_battery_runs));
    json_object_set_new(root, "single", res->feasible && res->single_feasible
                                            ? json_pack("{s:o,s:f,s:f,s:f}", "choice",
                                                        pp_plan_choice_json(m, &r->cand[res->single]),
                                                        "quality", res->single_quality, "soc_end",
                                                        res->single_soc_end_frac, "gain",
                                                        res->quality - res->single_quality)
                                            : json_null());
    json_object_set_new(root, "single_exists", json_boolean(res->single_exists));
    json_object_set_new(root, "single_reserve_t_s", pp_json_num(res->single_reserve_t_s));
    json_object_set_new(root, "timeline", timeline_json(res));
    return root;
}
