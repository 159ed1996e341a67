/* The facade's calls for tables and bindings (issue 34), as a program using
 * the library sees them: only the public headers here. */
#include "harness.h"

#include <powprof.h> /* the staged public headers: -I$(O)/include */

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seven configurations of fps 1..7: power 2 + fps / 2 (with a ripple),
 * 10 s each. */
static const char *rows_folder(void)
{
    char text[2048];
    size_t used = (size_t)snprintf(text, sizeof text,
                                   "id,fps,status,duration_s,total_mean_w,total_energy_j\n");

    for (int i = 0; i < 7; i++) {
        double w = 2 + 0.5 * (i + 1) + 0.01 * (i % 3);
        used += (size_t)snprintf(text + used, sizeof text - used, "%d,%d,ok,10,%.6f,%.6f\n", i,
                                 i + 1, w, 10 * w);
    }
    return results_folder_with("rows", text, NULL);
}

/* pp_model_estimate_rows: each row and metric as pp_model_estimate_at, in
 * one call; a bad row named by its index; pp_model_json. */
void test_api_estimate_rows(void);
void test_api_estimate_rows(void)
{
    const char *names[] = {"fps"}, *values[] = {"1.5", "4", "6.25"}, *bad[] = {"2", "x", "3"};
    const char *metrics[] = {"total_energy_j", "total_mean_w"};
    pp_model_estimate out[6], one;
    pp_model *m;
    char *json = NULL;

    CHECK_INT(pp_model_open(rows_folder(), &m), 0);
    CHECK_INT(pp_model_estimate_rows(m, 2, metrics, 1, names, 3, values, 0, out), 0);
    for (size_t r = 0; r < 3; r++)
        for (size_t j = 0; j < 2; j++) {
            CHECK_INT(pp_model_estimate_at(m, metrics[j], 1, names, &values[r], 0, &one), 0);
            CHECK(out[r * 2 + j].value == one.value && out[r * 2 + j].lo == one.lo &&
                  out[r * 2 + j].hi == one.hi);
            CHECK(one.lo <= one.value && one.value <= one.hi);
        }
    CHECK_NEAR(out[2 * 1 + 1].value, 4, 0.1); /* fps 4: 2 + 4 / 2 W */
    /* every metric (NULL): the model's order */
    CHECK_INT(pp_model_metric_count(m), 3);
    {
        pp_model_estimate all[3];
        CHECK_INT(pp_model_estimate_rows(m, 0, NULL, 1, names, 1, values + 1, 0, all), 0);
        CHECK_STR(pp_model_metric_name(m, 1), "total_mean_w");
        CHECK(all[1].value == out[3].value);
    }
    test_log_clear();
    CHECK_INT(pp_model_estimate_rows(m, 2, metrics, 1, names, 3, bad, 0, out), -EINVAL);
    CHECK_CONTAINS(test_log(), "'x'");
    CHECK_CONTAINS(test_log(), "row 1 (from 0)");
    test_log_clear();
    metrics[0] = "nope_w";
    CHECK_INT(pp_model_estimate_rows(m, 2, metrics, 1, names, 3, values, 0, out), -ENOENT);
    CHECK_CONTAINS(test_log(), "no metric 'nope_w'");
    CHECK_INT(pp_model_json(m, &json), 0);
    CHECK_CONTAINS(json, "\"name\": \"total_mean_w\"");
    CHECK_CONTAINS(json, "\"between\"");
    pp_free(json);
    pp_model_close(m);
}

/* pp_trace_new drains as the same samples read from a file; bad samples
 * are refused with their index and value. */
void test_api_trace_new(void);
void test_api_trace_new(void)
{
    const char *rails[] = {"VDD_IN", "CPU"}, *bad_name[] = {"a/b", "CPU"};
    double t_s[] = {0, 1, 2}, p_w[] = {5, 2, 6, 3, 6, 3}, back[] = {0, 2, 1};
    pp_battery_summary mem, file;
    pp_battery_params *b;
    pp_trace *t, *f;
    char path[600];

    snprintf(path, sizeof path, "%s/t.csv", test_tmpdir());
    write_file(path, "t_s,VDD_IN_w,CPU_w\n0,5,2\n1,6,3\n2,6,3\n");
    CHECK_INT(pp_trace_new(2, rails, 3, t_s, p_w, &t), 0);
    CHECK_INT(pp_trace_open(path, &f), 0);
    CHECK_INT(pp_battery_new(NULL, &b), 0);
    CHECK_INT(pp_battery_drain_trace(b, t, &mem), 0);
    CHECK_INT(pp_battery_drain_trace(b, f, &file), 0);
    CHECK(mem.energy_j == file.energy_j && mem.soc_end_frac == file.soc_end_frac);
    CHECK_NEAR(pp_trace_energy_j(t, 0), 11.5, 1e-12); /* the board input, not added to CPU */
    pp_trace_close(t);
    test_log_clear();
    CHECK_INT(pp_trace_new(2, rails, 3, back, p_w, &t), -EINVAL);
    CHECK(t == NULL);
    CHECK_CONTAINS(test_log(), "sample 2: time 1 s");
    p_w[3] = -1;
    CHECK_INT(pp_trace_new(2, rails, 3, t_s, p_w, &t), -EINVAL);
    CHECK_CONTAINS(test_log(), "sample 1, rail CPU: -1 W");
    p_w[3] = NAN;
    CHECK_INT(pp_trace_new(2, rails, 3, t_s, p_w, &t), -EINVAL);
    CHECK_INT(pp_trace_new(2, bad_name, 3, t_s, p_w, &t), -EINVAL);
    CHECK_CONTAINS(test_log(), "rail 'a/b'");
    CHECK_INT(pp_trace_new(0, rails, 3, t_s, p_w, &t), -EINVAL);
    pp_trace_close(f);
    pp_battery_close(b);
}

/* pp_mission_plan_json is pp_mission_plan_best's plan, as plan --json
 * writes it; a reserve replaces the pack's cutoff; a mission in phases
 * from a file (pp_mission_plan_file_json). */
void test_api_plan_json(void);
void test_api_plan_json(void)
{
    pp_mission mission = {600.0, "fps", 0.3, 0};
    pp_battery_params *b;
    pp_mission_plan best;
    pp_model *m;
    char *json = NULL, want[256];

    CHECK_INT(pp_model_open(rows_folder(), &m), 0);
    CHECK_INT(pp_battery_new(NULL, &b), 0);
    CHECK_INT(pp_battery_set_base_power(b, 150), 0);
    CHECK_INT(pp_mission_plan_best(m, b, &mission, &best), 0);
    CHECK_INT(pp_mission_plan_json(m, b, &mission, &json), 0);
    CHECK(best.feasible);
    CHECK_CONTAINS(json, "\"feasible\":true");
    CHECK_CONTAINS(json, "\"soc_cutoff\":0.29999999999999999");
    snprintf(want, sizeof want, "\"max_power_w\":%.17g", best.max_power_w);
    CHECK_CONTAINS(json, want);
    pp_free(json);
    { /* a mission in phases, from a file */
        char path[600];
        snprintf(path, sizeof path, "%s/m.cfg", test_tmpdir());
        write_file(path, "mission = { phases = (\n"
                         " { name = \"slow\"; duration = \"5min\"; max = { fps = 2.0; }; },\n"
                         " { name = \"fast\"; duration = \"5min\"; }\n); };\n");
        CHECK_INT(pp_mission_plan_file_json(m, b, path, NULL, &json), 0);
        CHECK_CONTAINS(json, "\"name\":\"slow\"");
        CHECK_CONTAINS(json, "\"timeline\":");
        CHECK_CONTAINS(json, "\"fps\":2.0");
        pp_free(json);
        write_file(path, "mission = { phases = (\n { name = \"a\"; duration = \"1min\";\n"
                         " max = { speed = 2.0; }; }\n); };\n");
        test_log_clear();
        CHECK(pp_mission_plan_file_json(m, b, path, NULL, &json) < 0 && json == NULL);
        CHECK_CONTAINS(test_log(), "speed");
    }
    mission.maximize = "speed";
    test_log_clear();
    CHECK(pp_mission_plan_json(m, b, &mission, &json) < 0 && json == NULL);
    CHECK_CONTAINS(test_log(), "speed");
    pp_battery_close(b);
    pp_model_close(m);
}

/* pp_meter_start/pp_meter_stop around code of one's own, and
 * pp_meter_command: the fake Jetson's 5.263 W total, the trace written;
 * the estimate's warnings, as `powprof meter` prints them. */
void test_api_meter(void);
void test_api_meter(void)
{
    char *const cmd[] = {"true", NULL}, *const nothing[] = {"/nonexistent/prog", NULL};
    pp_meter_report r;
    pp_meter *m;
    pp_trace *t;
    char path[600];
    struct timespec pause = {0, 200000000};

    snprintf(path, sizeof path, "%s/block.csv", test_tmpdir());
    CHECK_INT(pp_meter_start("jetson", fixture("jetson-tx2-iio"), 100, path, &m), 0);
    nanosleep(&pause, NULL);
    CHECK_INT(pp_meter_stop(m, &r), 0);
    CHECK_STR(r.source, "jetson");
    CHECK(!r.estimated && !r.short_run && r.n_samples > 10 && r.duration_s >= 0.2);
    CHECK_NEAR(r.mean_w, 5.263, 1e-9);
    CHECK_INT(pp_trace_open(path, &t), 0);
    CHECK_INT(pp_trace_sample_count(t), r.n_samples);
    CHECK_STR(pp_trace_rail_name(t, 0), r.rail[0]);
    CHECK(r.rail_energy_j[0] > 0);
    CHECK_NEAR(pp_trace_energy_j(t, 0), r.rail_energy_j[0], 1e-4 * r.rail_energy_j[0]);
    pp_trace_close(t);
    test_log_clear();
    CHECK_INT(pp_meter_command("procstat", NULL, 10, NULL, cmd, &r), 0);
    CHECK(r.estimated && r.short_run && r.exit_status == 0);
    CHECK_CONTAINS(test_log(), "ESTIMATED");
    CHECK_CONTAINS(test_log(), "too short to measure");
    CHECK(pp_meter_command("procstat", NULL, 10, NULL, nothing, &r) < 0);
    CHECK_INT(r.exit_status, 127);
    CHECK_INT(pp_meter_start("quantum", NULL, 10, NULL, &m), -ENOENT);
    CHECK(m == NULL);
    CHECK_INT(pp_meter_stop(NULL, &r), -EINVAL);
}

/* pp_meter_command_json and pp_meter_stop_json: the document of `powprof
 * meter --json` (issue 40), nothing when the command never ran, a rate
 * refused in meter -r's words. */
void test_api_meter_json(void);
void test_api_meter_json(void)
{
    char *const cmd[] = {"true", NULL}, *const nothing[] = {"/nonexistent/prog", NULL};
    const char *root = fixture("jetson-tx2-iio");
    struct timespec pause = {0, 100000000};
    char *json = NULL;
    json_t *doc;
    pp_meter *m;

    CHECK_INT(pp_meter_command_json("jetson", root, 50, NULL, cmd, &json), 0);
    doc = json ? json_loads(json, 0, NULL) : NULL;
    CHECK(doc != NULL);
    CHECK_STR(json_string_value(json_object_get(doc, "device")), "jetson");
    CHECK_STR(json_string_value(json_array_get(json_object_get(doc, "command"), 0)), "true");
    CHECK_INT(json_integer_value(json_object_get(doc, "exit_status")), 0);
    CHECK_NEAR(json_number_value(json_object_get(doc, "total_mean_w")), 5.263, 1e-9);
    CHECK(json_array_size(json_object_get(doc, "rails")) > 1);
    CHECK(json_is_null(json_object_get(doc, "trace")) && json_is_null(json_object_get(doc, "error")));
    json_decref(doc);
    pp_free(json);
    CHECK(pp_meter_command_json("jetson", root, 50, NULL, nothing, &json) < 0 && json == NULL);
    test_log_clear();
    CHECK_INT(pp_meter_command_json("jetson", root, 1e9, NULL, cmd, &json), -EINVAL);
    CHECK_CONTAINS(test_log(), "rate 1e+09 Hz: the rate must be between 0.01 and 10000 Hz");
    CHECK_INT(pp_meter_start("jetson", root, 100, NULL, &m), 0);
    nanosleep(&pause, NULL); /* a few samples */
    CHECK_INT(pp_meter_stop_json(m, &json), 0);
    doc = json ? json_loads(json, 0, NULL) : NULL;
    CHECK(doc && json_array_size(json_object_get(doc, "command")) == 0);
    CHECK_NEAR(json_number_value(json_object_get(doc, "total_mean_w")), 5.263, 1e-9);
    json_decref(doc);
    pp_free(json);
}
