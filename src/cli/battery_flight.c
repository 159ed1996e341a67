/* powprof battery FLIGHT.ulg: the battery model against a recorded flight
 * (src/flight/flight.h), printed. */
#include "cli.h"

#include "src/flight/flight.h"
#include "src/results/json_file.h"
#include "src/base/util.h"
#include "src/flight/flight_log.h"
#include "plots/plot_flight.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

/* Where each gap comes from: the voltage model, the charge the model
 * draws because of it, the log's own sampling. */
static void print_gaps(const pp_flight_check *c)
{
    double bias = c->v_bias / c->v_logged_mean;
    double draw = c->mah_current > 0 ? c->mah_model / c->mah_current - 1 : NAN;
    double sampled = c->mah_logged > 0 ? c->mah_current / c->mah_logged - 1 : NAN;

    if (fabs(bias) > 0.02)
        printf("  the modelled voltage is %.1f %% %s than the logged one on average: this pack's "
               "open-circuit curve or resistance is not the one flown (powprof battery fit "
               "FLIGHT fits them)\n", 100 * fabs(bias), bias < 0 ? "lower" : "higher");
    if (isfinite(draw) && fabs(draw) > 0.02)
        printf("  the model draws %.1f %% %s charge than the logged current: %s\n", 100 * fabs(draw),
               draw > 0 ? "more" : "less",
               draw * bias < 0 && fabs(bias) > 0.005
                   ? "it draws the logged power at its own voltage, so a voltage too low draws "
                     "more current (and too high less): the voltage model, not the charge "
                     "counting, explains it"
                   : "not from its voltage: the model's run ended early, or its capacity or "
                     "start differ");
    if (isfinite(sampled) && fabs(sampled) > 0.02)
        printf("  the logged current integrated and the log's discharged_mah differ by %+.0f %%: "
               "the autopilot integrates its current at a higher rate than the topic is logged "
               "(here every %.2f s), so this gap is the log's sampling, not the model\n",
               100 * sampled, c->n > 1 ? c->duration_s / (double)(c->n - 1) : NAN);
    if (c->events && c->event_kind == PP_BATTERY_EVENT_BROWNOUT)
        printf("  the model browns out at %.1f s (the pack cannot give the logged power): its "
               "pack is not this one\n", c->event_t_s);
    else if (c->events)
        printf("  the model's pack runs empty at %.1f s and the comparison stops there: its "
               "capacity or its start is not this pack's\n", c->event_t_s);
}

static void print_one(const pp_flight_check *c, const char *pack_from)
{
    char start[128];

    if (c->soc_from_voltage && isfinite(c->soc_log_frac))
        pp_text(start, sizeof start, " (from the first voltage; the log's remaining: %.1f %%)",
                100 * c->soc_log_frac);
    else
        pp_text(start, sizeof start, "%s", c->soc_from_voltage ? " (from the first voltage)"
                                           : c->soc_from_log ? " (the log's remaining)" : "");
    printf("battery %d: %zu samples over %.1f s; pack %d cells%s, %.3g Ah%s, start %.1f %%%s, "
           "%s model%s\n", c->instance, c->n, c->duration_s, c->pack.cells,
           c->cells_from_log ? " (the log's)" : c->cells_from_voltage ? " (the voltage's)" : "", c->pack.capacity_ah,
           c->capacity_from_log ? " (the log's)" : "", 100 * c->pack.soc_start_frac, start,
           pp_battery_model_name(c->pack.model), pack_from);
    if (c->cells_note[0])
        printf("  cells: %s: %d cells (%s) instead\n", c->cells_note, c->pack.cells,
               c->cells_source);
    printf("  terminal voltage, modelled - logged: RMS %.3f V, mean %+.3f V, largest %+.3f V at "
           "%.1f s; at the end %.3f V modelled, %.3f V logged\n", c->v_rms, c->v_bias,
           c->v_max_dev, c->v_max_dev_t_s, c->v_end_model, c->v_end_logged);
    printf("  charge drawn: %.3f mAh modelled, %.3f mAh from the logged current, %.3f mAh by "
           "the log's discharged_mah\n", c->mah_model, c->mah_current, c->mah_logged);
    print_gaps(c);
}

static json_t *one_json(const pp_flight_check *c)
{
    json_t *o = json_pack("{s:i,s:I,s:f,s:i,s:f,s:f}", "instance", c->instance, "samples",
                          (json_int_t)c->n, "duration_s", c->duration_s, "cells", c->pack.cells,
                          "capacity_ah", c->pack.capacity_ah, "soc_start",
                          c->pack.soc_start_frac);

    json_object_set_new(o, "voltage_rms_v", pp_json_num(c->v_rms));
    json_object_set_new(o, "voltage_max_dev_v", pp_json_num(c->v_max_dev));
    json_object_set_new(o, "voltage_mean_dev_v", pp_json_num(c->v_bias));
    json_object_set_new(o, "model", json_string(pp_battery_model_name(c->pack.model)));
    json_object_set_new(o, "voltage_max_dev_t_s", pp_json_num(c->v_max_dev_t_s));
    json_object_set_new(o, "voltage_end_model_v", pp_json_num(c->v_end_model));
    json_object_set_new(o, "voltage_end_logged_v", pp_json_num(c->v_end_logged));
    json_object_set_new(o, "charge_model_mah", pp_json_num(c->mah_model));
    json_object_set_new(o, "charge_current_mah", pp_json_num(c->mah_current));
    json_object_set_new(o, "charge_logged_mah", pp_json_num(c->mah_logged));
    json_object_set_new(o, "events", json_integer(c->events));
    return o;
}

/* -o: one row per logged sample the model reached. */
typedef struct sample_writer {
    FILE *fp;
    int instance;
} sample_writer;

static void write_sample(void *ctx, double t_s, double soc, double v_model, double v_logged,
                         double current_a)
{
    sample_writer *w = ctx;

    fprintf(w->fp, "%d,%.6f,%.6f,%.6f,%.6f,%.6f\n", w->instance, t_s, soc, v_model, v_logged,
            current_a);
}

/* Battery b against pack pk into c, its samples into af when open. */
static int check_one(const pp_ulog_battery *b, const pp_battery_params *pk, int user_pack,
                     pp_atomic_file *af, pp_flight_check *c)
{
    pp_flight_check_options co;
    sample_writer w = {af->fp, b->instance};

    pp_flight_check_options_init(&co);
    co.keep_capacity = user_pack; /* -c's pack as given (the log's cells where it must) */
    if (af->fp) {
        co.sample = write_sample;
        co.sample_ctx = &w;
    }
    return pp_flight_check_with(b, pk, &co, c);
}

/* The pack for battery b: the one asked for, else the log's (flight.h). */
static const char *pack_for(const pp_ulog_flight *f, const pp_ulog_battery *b,
                            const pp_battery_params *asked, int user_pack, pp_battery_params *p)
{
    if (user_pack) {
        *p = *asked;
        return "";
    }
    return pp_flight_pack_for(f, b, p) ? " (with the autopilot's BAT_* parameters of the "
                                         "log)"
                                       : " (thevenin: a lithium pack's curve; -c, --preset or "
                                         "--model for another)";
}

int pp_cli_battery_flight(const char *path, const pp_battery_params *asked, int user_pack,
                          int json, const char *out_path, const char *plot_dir)
{
    pp_atomic_file af = {0};
    pp_battery_params pk, flown[PP_ULOG_MAX_BATTERIES];
    const char *from;
    char left[512];
    pp_ulog_flight f;
    pp_flight_check c;
    json_t *arr = json_array();
    int status = 0;

    if (pp_flight_log_read(path, &f) < 0) {
        pp_ulog_flight_free(&f);
        json_decref(arr);
        return PP_EXIT_USAGE;
    }
    if (f.n_batteries == 0) {
        fprintf(stderr, "powprof battery: %s: %s\n", path,
                f.battery_defined && (f.n_skipped || f.n_unmeasured) ? "the log defines battery_status but every sample of it was left out (see above): no flight to compare with"
                : f.battery_defined ? "the log defines battery_status but holds no sample of it: "
                                    "no flight to compare with"
                                  : "the log has no battery_status topic: no flight to compare "
                                    "with");
        status = PP_EXIT_USAGE;
    }
    if (status == 0 && out_path && pp_atomic_file_open(&af, out_path) < 0)
        status = PP_EXIT_FAILURE;
    if (af.fp)
        fputs("battery,t_s,soc_frac,voltage_model_v,voltage_logged_v,current_a\n", af.fp);
    if (!json && status == 0)
        printf("flight %s: the model driven by the logged power (voltage_v x current_a)\n", path);
    pp_flight_log_left_out(&f, left, sizeof left);
    if (!json && status == 0 && left[0])
        printf("%s\n", left);
    for (size_t b = 0; b < f.n_batteries && status == 0; b++) {
        from = pack_for(&f, &f.bat[b], asked, user_pack, &pk);
        if (check_one(&f.bat[b], &pk, user_pack, &af, &c) < 0) {
            status = PP_EXIT_USAGE;
            continue;
        }
        flown[b] = c.pack; /* as compared: the log's cells, capacity and start */
        if (json)
            json_array_append_new(arr, one_json(&c));
        else
            print_one(&c, from);
    }
    if (json && status == 0) {
        json_t *root = json_pack("{s:s,s:o}", "flight", path, "batteries", arr);
        json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(12));
        printf("\n");
        json_decref(root);
    } else {
        json_decref(arr);
    }
    if (plot_dir && status == 0) { /* the series beside each other, as Flight Review */
        pp_plot_result pr;
        if (pp_cli_plot_said("battery", plot_dir, "battery-flight",
                             pp_plot_flight(plot_dir, &f, flown, &pr), &pr) < 0)
            status = PP_EXIT_FAILURE;
    }
    if (status == 0 && af.fp) {
        if (pp_atomic_file_commit(&af) < 0)
            status = PP_EXIT_FAILURE;
        else if (!json)
            printf("wrote %s: per sample, the model beside the log\n", out_path);
    }
    pp_atomic_file_abort(&af);
    pp_ulog_flight_free(&f);
    return status;
}
