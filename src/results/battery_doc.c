/* `powprof battery`'s reports (battery_doc.h): a trace drained, a pack
 * against a recorded flight. */
#include "battery_doc.h"
#include "json_file.h"

#include "src/base/util.h"

#include <math.h>

/* Where each gap comes from: the voltage model, the charge the model
 * draws because of it, the log's own sampling. */
static void print_gaps(FILE *fp, const pp_flight_check *c)
{
    double bias = c->v_bias / c->v_logged_mean;
    double draw = c->mah_current > 0 ? c->mah_model / c->mah_current - 1 : NAN;
    double sampled = c->mah_logged > 0 ? c->mah_current / c->mah_logged - 1 : NAN;

    if (fabs(bias) > 0.02)
        fprintf(fp, "  the modelled voltage is %.1f %% %s than the logged one on average: this pack's "
               "open-circuit curve or resistance is not the one flown (powprof battery fit "
               "FLIGHT fits them)\n", 100 * fabs(bias), bias < 0 ? "lower" : "higher");
    if (isfinite(draw) && fabs(draw) > 0.02)
        fprintf(fp, "  the model draws %.1f %% %s charge than the logged current: %s\n", 100 * fabs(draw),
               draw > 0 ? "more" : "less",
               draw * bias < 0 && fabs(bias) > 0.005
                   ? "it draws the logged power at its own voltage, so a voltage too low draws "
                     "more current (and too high less): the voltage model, not the charge "
                     "counting, explains it"
                   : "not from its voltage: the model's run ended early, or its capacity or "
                     "start differ");
    if (isfinite(sampled) && fabs(sampled) > 0.02)
        fprintf(fp, "  the logged current integrated and the log's discharged_mah differ by %+.0f %%: "
               "the autopilot integrates its current at a higher rate than the topic is logged "
               "(here every %.2f s), so this gap is the log's sampling, not the model\n",
               100 * sampled, c->n > 1 ? c->duration_s / (double)(c->n - 1) : NAN);
    if (c->events && c->event_kind == PP_BATTERY_EVENT_BROWNOUT)
        fprintf(fp, "  the model browns out at %.1f s (the pack cannot give the logged power): its "
               "pack is not this one\n", c->event_t_s);
    else if (c->events)
        fprintf(fp, "  the model's pack runs empty at %.1f s and the comparison stops there: its "
               "capacity or its start is not this pack's\n", c->event_t_s);
}

void pp_flight_check_print(FILE *fp, const pp_flight_check *c, const char *pack_from)
{
    char start[128];

    if (c->soc_from_voltage && isfinite(c->soc_log_frac))
        pp_text(start, sizeof start, " (from the first voltage; the log's remaining: %.1f %%)",
                100 * c->soc_log_frac);
    else
        pp_text(start, sizeof start, "%s", c->soc_from_voltage ? " (from the first voltage)"
                                           : c->soc_from_log ? " (the log's remaining)" : "");
    fprintf(fp, "battery %d: %zu samples over %.1f s; pack %d cells%s, %.3g Ah%s, start %.1f %%%s, "
           "%s model%s\n", c->instance, c->n, c->duration_s, c->pack.cells,
           c->cells_from_log ? " (the log's)" : c->cells_from_voltage ? " (the voltage's)" : "", c->pack.capacity_ah,
           c->capacity_from_log ? " (the log's)" : "", 100 * c->pack.soc_start_frac, start,
           pp_battery_model_name(c->pack.model), pack_from);
    if (c->cells_note[0])
        fprintf(fp, "  cells: %s: %d cells (%s) instead\n", c->cells_note, c->pack.cells,
               c->cells_source);
    fprintf(fp, "  terminal voltage, modelled - logged: RMS %.3f V, mean %+.3f V, largest %+.3f V at "
           "%.1f s; at the end %.3f V modelled, %.3f V logged\n", c->v_rms, c->v_bias,
           c->v_max_dev, c->v_max_dev_t_s, c->v_end_model, c->v_end_logged);
    fprintf(fp, "  charge drawn: %.3f mAh modelled, %.3f mAh from the logged current, %.3f mAh by "
           "the log's discharged_mah\n", c->mah_model, c->mah_current, c->mah_logged);
    print_gaps(fp, c);
}

/* keys[i] set to v[i] in o (null where not finite). */
static void set_nums(json_t *o, const char *const *keys, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_object_set_new(o, keys[i], pp_json_num(v[i]));
}

json_t *pp_flight_check_json(const pp_flight_check *c)
{
    json_t *o = json_pack("{s:i,s:I,s:f,s:i,s:f,s:f}", "instance", c->instance, "samples",
                          (json_int_t)c->n, "duration_s", c->duration_s, "cells", c->pack.cells,
                          "capacity_ah", c->pack.capacity_ah, "soc_start",
                          c->pack.soc_start_frac);

    static const char *const dev[] = {"voltage_rms_v", "voltage_max_dev_v", "voltage_mean_dev_v"};
    static const char *const end[] = {"voltage_max_dev_t_s", "voltage_end_model_v",
                                      "voltage_end_logged_v", "charge_model_mah",
                                      "charge_current_mah", "charge_logged_mah"};

    set_nums(o, dev, (const double[]){c->v_rms, c->v_max_dev, c->v_bias}, 3);
    json_object_set_new(o, "model", json_string(pp_battery_model_name(c->pack.model)));
    set_nums(o, end, (const double[]){c->v_max_dev_t_s, c->v_end_model, c->v_end_logged,
                                      c->mah_model, c->mah_current, c->mah_logged}, 6);
    json_object_set_new(o, "events", json_integer(c->events));
    return o;
}

json_t *pp_battery_drain_json(const char *trace_path, const pp_battery_params *p,
                              const pp_battery_result *r)
{
    static const char *const keys[] = {"capacity_ah", "duration_s", "energy_j", "load_energy_j",
                                       "soc_start", "soc_end", "soc_drain", "min_voltage_v",
                                       "time_to_cutoff_s", "skip_error_bound"};
    json_t *root = json_object(), *events = json_array();

    json_object_set_new(root, "trace", json_string(trace_path));
    json_object_set_new(root, "model", json_string(pp_battery_model_name(p->model)));
    set_nums(root, keys, (const double[]){p->capacity_ah, r->duration_s, r->energy_j,
                                          r->load_energy_j, r->soc_start_frac, r->soc_end_frac,
                                          r->soc_drained_frac, r->min_voltage_v,
                                          r->time_to_cutoff_s, r->skip_error_frac}, 10);
    json_object_set_new(root, "cutoff", r->cutoff_kind >= 0
                                            ? json_string(pp_battery_event_name(r->cutoff_kind))
                                            : json_null());
    for (size_t i = 0; i < r->n_events; i++) {
        const pp_battery_event *e = &r->events[i];
        json_array_append_new(events, json_pack("{s:s,s:o,s:o,s:o,s:o}", "kind",
                                                pp_battery_event_name(e->kind), "t_s",
                                                pp_json_num(e->t_s), "soc", pp_json_num(e->soc_frac),
                                                "voltage_v", pp_json_num(e->voltage_v), "power_w",
                                                pp_json_num(e->power_w)));
    }
    json_object_set_new(root, "events", events);
    json_object_set_new(root, "solver_steps", json_integer(r->n_steps));
    return root;
}

void pp_battery_drain_print(FILE *fp, const char *trace_path, const pp_battery_params *p,
                            const pp_battery_result *r)
{
    fprintf(fp, "battery   %s model, %d cells, %.3g Ah, start %.1f %%, cutoff %.1f %% / %.2f V\n",
           pp_battery_model_name(p->model), p->cells, p->capacity_ah, 100 * p->soc_start_frac,
           100 * p->soc_cutoff_frac, p->cutoff_v);
    fprintf(fp, "trace     %s\n", trace_path);
    fprintf(fp, "duration  %.3f s\n", r->duration_s);
    fprintf(fp, "energy    %.3f J drawn from the battery, %.3f J delivered to the load\n", r->energy_j,
           r->load_energy_j);
    fprintf(fp, "charge    %.4f %% at the end, %.4f %% drained\n", 100 * r->soc_end_frac,
           100 * r->soc_drained_frac);
    fprintf(fp, "voltage   %.3f V at the lowest\n", r->min_voltage_v);
    for (size_t i = 0; i < r->n_events; i++)
        fprintf(fp, "event     %s at %.3f s (charge %.3f %%, %.3f V, load %.3f W)\n",
               pp_battery_event_name(r->events[i].kind), r->events[i].t_s,
               100 * r->events[i].soc_frac, r->events[i].voltage_v, r->events[i].power_w);
    if (isnan(r->time_to_cutoff_s))
        fprintf(fp, "cutoff    none within the horizon: the load is too small to reach it\n");
    else
        fprintf(fp, "cutoff    %s after %.1f s (%.1f min), the trace repeated\n",
               pp_battery_event_name((pp_battery_event_kind)r->cutoff_kind), r->time_to_cutoff_s,
               r->time_to_cutoff_s / 60.0);
    if (r->skip_error_frac > 0)
        fprintf(fp, "          (whole periods skipped: state of charge within %.2g %%)\n",
               100 * r->skip_error_frac);
}
