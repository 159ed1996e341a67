/* powprof battery FLIGHT.ulg: the battery model against a recorded flight
 * (src/flight/flight.h), printed. */
#include "cli.h"

#include "src/flight/flight.h"
#include "src/results/battery_doc.h"
#include "src/results/json_file.h"
#include "src/base/util.h"
#include "src/flight/flight_log.h"
#include "plots/plot_flight.h"

#include <jansson.h>
#include <stdlib.h>

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
            json_array_append_new(arr, pp_flight_check_json(&c));
        else
            pp_flight_check_print(stdout, &c, from);
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
