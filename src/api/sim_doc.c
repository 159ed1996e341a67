/* sim_doc.c - the answer of `powprof govern --simulate` (governor_doc.h):
 * the static plan, the governed run and the oracle flown in virtual time,
 * as one JSON document and in words, the pack a flight log flies, the plot. */
#include "sim_doc.h"
#include "governor_doc.h"

#include "plots/plot_governor.h"
#include "src/flight/flight_fit.h"
#include "src/flight/flight_log.h"
#include "src/results/json_file.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const run_names[PP_SIM_RUNS] = {"static", "governed", "oracle"};

static json_t *run_json(const pp_sim_run *r)
{
    json_t *t = json_array(), *soc = json_array(), *q = json_array();
    json_t *o = json_pack("{s:b,s:o,s:o,s:b,s:b,s:o,s:I,s:I,s:b,s:o,s:o,s:o}", "flown", r->flown,
                          "soc_end", pp_json_num(r->flown ? r->soc_end_frac : NAN), "soc_min",
                          pp_json_num(r->flown ? r->soc_min_frac : NAN), "reserve_held",
                          r->reserve_held, "floors_held", r->floors_held, "quality",
                          pp_json_num(r->flown ? r->quality : NAN), "changes",
                          (json_int_t)r->n_changes, "cannot", (json_int_t)r->n_cannot,
                          "brownout", r->brownout, "reserve_reached_t_s",
                          pp_json_num(r->reserve_reached_t_s), "cannot_t_s",
                          pp_json_num(r->cannot_t_s), "reserve_predicted_t_s",
                          pp_json_num(r->reserve_pred_t_s));

    for (size_t i = 0; i < r->n; i++) {
        json_array_append_new(t, json_real(r->t_s[i]));
        json_array_append_new(soc, pp_json_num(r->soc_frac[i]));
        json_array_append_new(q, pp_json_num(r->qos[i]));
    }
    json_object_set_new(o, "timeline", json_pack("{s:o,s:o,s:o}", "t_s", t, "soc", soc,
                                                 "quality", q));
    return o;
}

json_t *pp_sim_json(const pp_phases_plan *r, const pp_sim_result *s, const char *actual,
                    double scale_t_s, double scale_f, const pp_sim_options *o)
{
    json_t *root = json_object();

    json_object_set_new(root, "actual", json_string(actual));
    json_object_set_new(root, "scale_after_s", json_real(scale_t_s));
    json_object_set_new(root, "scale", json_real(scale_f));
    json_object_set_new(root, "pack_scale", json_real(o->pack_scale));
    json_object_set_new(root, "pack_fitted", json_boolean(o->pack != NULL));
    json_object_set_new(root, "stretch_phase", json_integer(o->stretch_phase + 1));
    json_object_set_new(root, "stretch", json_real(o->stretch_f));
    json_object_set_new(root, "mission_s", json_real(s->mission_s));
    json_object_set_new(root, "min_soc", json_real(r->min_soc_frac));
    json_object_set_new(root, "every_s", json_real(o->every_s));
    json_object_set_new(root, "measure", json_string(o->measure_soc ? "soc" : "vi"));
    json_object_set_new(root, "planned_propulsion_mean_w", json_real(s->planned_mean_w));
    json_object_set_new(root, "actual_propulsion_mean_w", json_real(s->actual_mean_w));
    json_object_set_new(root, "worst_estimate_error", pp_json_num(s->worst_est_err_frac));
    for (size_t k = 0; k < PP_SIM_RUNS; k++)
        json_object_set_new(root, run_names[k], run_json(&s->run[k]));
    json_object_set_new(root, "quality_vs_oracle",
                        pp_json_num(s->run[PP_SIM_ORACLE].flown
                                ? s->run[PP_SIM_GOVERNED].quality / s->run[PP_SIM_ORACLE].quality
                                : NAN));
    return root;
}

/* The governed run's decisions that found no schedule keeping the reserve:
 * the time to the reserve it first said against the pack flown's. */
static void print_cannot(FILE *fp, const pp_sim_run *g)
{
    fprintf(fp, "the governor found no schedule keeping the reserve at %zu of its decisions", g->n_cannot);
    if (isfinite(g->reserve_pred_t_s))
        fprintf(fp, "; the first, at %.0f s, said the reserve at %.0f s", g->cannot_t_s,
               g->reserve_pred_t_s);
    if (isfinite(g->reserve_reached_t_s))
        fprintf(fp, "; the pack flown reached it at %.0f s", g->reserve_reached_t_s);
    fprintf(fp, "\n");
}

void pp_sim_text(FILE *fp, const pp_model *m, const pp_phases_plan *r, const pp_sim_result *s,
                 const pp_sim_options *o)
{
    const char *q = m->sum.params[r->head.maximize];

    fprintf(fp, "mission %.1f min, reserve %.0f %%; propulsion planned %.2f W, actual %.2f W on "
           "average; the governor reads %s every %g s\n", s->mission_s / 60,
           100 * r->min_soc_frac, s->planned_mean_w, s->actual_mean_w,
           o->measure_soc ? "the state of charge" : "voltage and current", o->every_s);
    fprintf(fp, "%-9s %9s %9s %8s %7s %12s %8s\n", "run", "end %", "lowest %", "reserve", "floors",
           "quality", "changes");
    for (size_t k = 0; k < PP_SIM_RUNS; k++) {
        const pp_sim_run *run = &s->run[k];
        if (!run->flown) {
            fprintf(fp, "%-9s no plan keeps the reserve knowing the actual load\n", run_names[k]);
            continue;
        }
        fprintf(fp, "%-9s %9.2f %9.2f %8s %7s %12.4g %8zu\n", run_names[k], 100 * run->soc_end_frac,
               100 * run->soc_min_frac, run->reserve_held ? "held" : "BELOW",
               run->floors_held ? "held" : "BROKEN", run->quality, run->n_changes);
    }
    fprintf(fp, "quality: the time-weighted %s; ", q);
    if (s->run[PP_SIM_ORACLE].flown)
        fprintf(fp, "governed / oracle = %.3f\n",
               s->run[PP_SIM_GOVERNED].quality / s->run[PP_SIM_ORACLE].quality);
    else
        fprintf(fp, "no oracle\n");
    if (s->run[PP_SIM_GOVERNED].n_cannot)
        print_cannot(fp, &s->run[PP_SIM_GOVERNED]);
    if (!o->measure_soc)
        fprintf(fp, "its state-of-charge estimate from voltage and current erred by %.2f points at "
               "most after the first minute\n", 100 * s->worst_est_err_frac);
}

/* The actual propulsion over the world flown w: "planned" or a trace, scaled. */
static int actual_load(const pp_phases_problem *w, const char *actual, double t, double f,
                       pp_phase_load *l)
{
    if (strcmp(actual, "planned") == 0)
        return pp_sim_actual_planned(w, t, f, l);
    return pp_sim_actual_trace(w, actual, t, f, l);
}

int pp_sim_pack(const char *actual, pp_battery_params *pack, int *capacity_held)
{
    pp_flight_fit_options fo;
    pp_flight_fit fit;
    int rc;

    if (strcmp(actual, "planned") == 0 || !pp_flight_log_is(actual))
        return 0;
    pp_flight_fit_options_init(&fo);
    rc = pp_flight_fit_run(&actual, 1, &fo, &fit);
    if (rc == 0) {
        *pack = fit.fit.pack;
        *capacity_held = fit.capacity_held;
    }
    pp_flight_fit_free(&fit);
    return rc < 0 ? -EINVAL : 1;
}

int pp_sim_simulate(const pp_phases_plan *r, const char *actual, double scale_t_s, double scale_f,
               const pp_sim_options *o, pp_sim_result *s)
{
    size_t fixed[PP_MISSION_MAX_PHASES];
    pp_phase_load l = {0};
    pp_phases_problem w;
    int rc;

    for (size_t k = 0; k < r->problem.n_phases; k++)
        fixed[k] = r->res.phase[k].choice;
    if (pp_sim_world(&r->problem, o, &w) < 0)
        return -EINVAL;
    if ((rc = actual_load(&w, actual, scale_t_s, scale_f, &l)) < 0)
        return rc == -ENOMEM ? rc : -EINVAL;
    rc = pp_sim_fly(&r->problem, fixed, &l, o, s);
    pp_phase_load_free(&l);
    return rc;
}

int pp_sim_plot(const char *dir, const pp_model *m, const pp_phases_plan *r, const pp_sim_result *s,
                pp_plot_result *pr)
{
    return pp_plot_governor(dir, s, r->min_soc_frac, m->sum.params[r->head.maximize], pr);
}
