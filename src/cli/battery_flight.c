/* powprof battery FLIGHT.ulg: the battery model against a recorded flight
 * (src/results/flight.h), printed. */
#include "cli.h"

#include "src/results/flight.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

static void print_one(const pp_flight_check *c)
{
    double diff = c->mah_logged > 0 ? c->mah_model / c->mah_logged - 1 : NAN;

    printf("battery %d: %zu samples over %.1f s; pack %d cells%s, %.3g Ah%s, start %.1f %%%s, "
           "%s model\n", c->instance, c->n, c->duration_s, c->pack.cells,
           c->cells_from_log ? " (the log's)" : "", c->pack.capacity_ah,
           c->capacity_from_log ? " (the log's)" : "", 100 * c->pack.soc_start_frac,
           c->soc_from_log ? " (the log's remaining)" : "", pp_battery_model_name(c->pack.model));
    printf("  terminal voltage, modelled - logged: RMS %.3f V, largest %+.3f V at %.1f s; at the "
           "end %.3f V modelled, %.3f V logged\n", c->v_rms, c->v_max_dev, c->v_max_dev_t_s,
           c->v_end_model, c->v_end_logged);
    printf("  charge drawn: %.3f mAh modelled, %.3f mAh from the logged current, %.3f mAh by "
           "the log's discharged_mah\n", c->mah_model, c->mah_current, c->mah_logged);
    if (isfinite(diff) && fabs(diff) > 0.02)
        printf("  the model and the log differ by %+.0f %% in charge: the model draws the logged "
               "power, sampled as the topic is logged (every %.2f s), while the autopilot "
               "integrates its current at a higher rate%s\n", 100 * diff,
               c->n > 1 ? c->duration_s / (double)(c->n - 1) : NAN,
               fabs(c->mah_current / c->mah_logged - 1) > 0.02
                   ? "; the logged current integrated differs alike, so the sampling, not the "
                     "pack, explains it" : "");
    if (c->events)
        printf("  the model meets a cutoff or brown-out during the flight: its pack is not "
               "this one\n");
}

static json_t *one_json(const pp_flight_check *c)
{
    json_t *o = json_pack("{s:i,s:I,s:f,s:i,s:f,s:f}", "instance", c->instance, "samples",
                          (json_int_t)c->n, "duration_s", c->duration_s, "cells", c->pack.cells,
                          "capacity_ah", c->pack.capacity_ah, "soc_start",
                          c->pack.soc_start_frac);

    json_object_set_new(o, "voltage_rms_v", pp_json_num(c->v_rms));
    json_object_set_new(o, "voltage_max_dev_v", pp_json_num(c->v_max_dev));
    json_object_set_new(o, "voltage_max_dev_t_s", pp_json_num(c->v_max_dev_t_s));
    json_object_set_new(o, "voltage_end_model_v", pp_json_num(c->v_end_model));
    json_object_set_new(o, "voltage_end_logged_v", pp_json_num(c->v_end_logged));
    json_object_set_new(o, "charge_model_mah", pp_json_num(c->mah_model));
    json_object_set_new(o, "charge_current_mah", pp_json_num(c->mah_current));
    json_object_set_new(o, "charge_logged_mah", pp_json_num(c->mah_logged));
    json_object_set_new(o, "events", json_integer(c->events));
    return o;
}

int pp_cli_battery_flight(const char *path, const pp_battery_params *p, int json)
{
    pp_ulog_flight f;
    pp_flight_check c;
    json_t *arr = json_array();
    int status = 0;

    if (pp_ulog_read_battery(path, &f) < 0) {
        pp_ulog_flight_free(&f);
        json_decref(arr);
        return PP_EXIT_USAGE;
    }
    if (f.n_batteries == 0) {
        fprintf(stderr, "powprof battery: %s: %s\n", path,
                f.battery_defined ? "the log defines battery_status but holds no sample of it: "
                                    "no flight to compare with"
                                  : "the log has no battery_status topic: no flight to compare "
                                    "with");
        status = PP_EXIT_USAGE;
    }
    if (!json && status == 0)
        printf("flight %s: the model driven by the logged power (voltage_v x current_a)\n", path);
    for (size_t b = 0; b < f.n_batteries && status == 0; b++) {
        if (pp_flight_check_run(&f.bat[b], p, &c) < 0)
            status = PP_EXIT_USAGE;
        else if (json)
            json_array_append_new(arr, one_json(&c));
        else
            print_one(&c);
    }
    if (json && status == 0) {
        json_t *root = json_pack("{s:s,s:o}", "flight", path, "batteries", arr);
        json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(12));
        printf("\n");
        json_decref(root);
    } else {
        json_decref(arr);
    }
    pp_ulog_flight_free(&f);
    return status;
}
