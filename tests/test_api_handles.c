/* The public API's handles at the boundary (issue 46, item 2): a handle of
 * another kind (arguments swapped), a closed one or NULL is refused with
 * -EBADF and a message naming the function, never read through; a handle
 * closed twice is said, not freed twice. Only the public headers here. */
#include "harness.h"

#include <powprof.h> /* the staged public headers: -I$(O)/include */

#include <errno.h>
#include <math.h>
#include <stddef.h>

static const char *handles_folder(void)
{
    return results_folder_with("handles",
                               "id,fps,status,duration_s,total_mean_w\n"
                               "0,1,ok,10,2.5\n1,2,ok,10,3.0\n2,3,ok,10,3.5\n3,4,ok,10,4.0\n",
                               NULL);
}

/* Arguments swapped and NULL, on each kind of entry point. */
void test_api_handle_kinds(void);
void test_api_handle_kinds(void)
{
    pp_mission mission = {600.0, NULL, -1.0, 0};
    pp_governor_options o;
    pp_battery_params *b;
    pp_governor *g = (pp_governor *)1;
    pp_model *m;
    char *json = (char *)1;

    CHECK_INT(pp_model_open(handles_folder(), &m), 0);
    CHECK_INT(pp_battery_new(NULL, &b), 0);
    test_log_clear();
    CHECK_INT(pp_mission_plan_json((pp_model *)b, (pp_battery_params *)m, &mission, &json),
              -EBADF);
    CHECK(json == NULL);
    CHECK_CONTAINS(test_log(), "pp_mission_plan_json: a pp_model expected, not a "
                               "pp_battery_params");
    pp_governor_options_init(&o);
    o.duration_s = 600;
    CHECK_INT(pp_governor_new((pp_model *)b, (pp_battery_params *)m, &o, &g), -EBADF);
    CHECK(g == NULL);
    CHECK_INT(pp_battery_set_base_power((pp_battery_params *)m, 10), -EBADF);
    CHECK_INT(pp_model_param_count((pp_model *)b), 0);
    CHECK(pp_model_metric_name((pp_model *)b, 0) == NULL);
    test_log_clear();
    CHECK_INT(pp_model_json(NULL, &json), -EBADF);
    CHECK_CONTAINS(test_log(), "pp_model_json: a pp_model expected, not NULL");
    CHECK_INT(pp_model_param_count(m), 1); /* the right kind still works */
    pp_battery_close(b);
    pp_model_close(m);
}

/* Closed handles: used, closed again, a model closed under its governor. */
void test_api_handle_closed(void);
void test_api_handle_closed(void)
{
    pp_governor_reading r = {10, 0.9, NAN, NAN, -1};
    pp_governor_decision d;
    pp_governor_options o;
    pp_battery_params *b;
    pp_governor *g;
    pp_model *m;
    pp_meter_report rep;

    CHECK_INT(pp_model_open(handles_folder(), &m), 0);
    CHECK_INT(pp_battery_new(NULL, &b), 0);
    pp_governor_options_init(&o);
    o.duration_s = 600;
    CHECK_INT(pp_governor_new(m, b, &o, &g), 0);
    CHECK_INT(pp_governor_update(g, &r, &d), 0);
    pp_model_close(m);
    test_log_clear();
    r.t_s = 20;
    CHECK_INT(pp_governor_update(g, &r, &d), -EBADF);
    CHECK_CONTAINS(test_log(), "pp_governor_update: a pp_model expected: this handle is closed");
    test_log_clear();
    pp_model_close(m); /* twice: said, not freed twice (ASan would see it) */
    CHECK_CONTAINS(test_log(), "pp_model_close: a pp_model expected: this handle is closed");
    pp_governor_close(g);
    CHECK_INT(pp_governor_update(g, &r, &d), -EBADF);
    pp_governor_close(g);
    pp_battery_close(b);
    CHECK_INT(pp_battery_set_base_power(b, 1), -EBADF);
    pp_battery_close(b);
    CHECK_INT(pp_meter_stop((pp_meter *)b, &rep), -EBADF);
}

/* Each public struct's size as a binding reads it (pp_struct_size) is the
 * one the public headers give; an unknown name or NULL is 0. */
void test_api_struct_size(void);
void test_api_struct_size(void)
{
    CHECK_INT(pp_struct_size("pp_battery_summary"), sizeof(pp_battery_summary));
    CHECK_INT(pp_struct_size("pp_governor_options"), sizeof(pp_governor_options));
    CHECK_INT(pp_struct_size("pp_governor_reading"), sizeof(pp_governor_reading));
    CHECK_INT(pp_struct_size("pp_governor_decision"), sizeof(pp_governor_decision));
    CHECK_INT(pp_struct_size("pp_meter_report"), sizeof(pp_meter_report));
    CHECK_INT(pp_struct_size("pp_model_estimate"), sizeof(pp_model_estimate));
    CHECK_INT(pp_struct_size("pp_mission"), sizeof(pp_mission));
    CHECK_INT(pp_struct_size("pp_mission_plan"), sizeof(pp_mission_plan));
    CHECK_INT(pp_struct_size("pp_governor"), 0); /* opaque: no size to lay out */
    CHECK_INT(pp_struct_size(NULL), 0);
}

/* The lifecycle names of 0.1 still link and work (deprecated: one verb
 * per step now, powprof.h "Handles"); the compiler's warning is the point
 * of the mark, silenced here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void test_api_old_lifecycle_names(void);
void test_api_old_lifecycle_names(void)
{
    pp_governor_options o;
    pp_battery_params *b;
    pp_governor *g;
    pp_device *d;
    pp_model *m;

    CHECK_INT(pp_model_load(handles_folder(), &m), 0);
    CHECK_INT(pp_model_param_count(m), 1);
    CHECK_INT(pp_battery_new(NULL, &b), 0);
    pp_governor_options_init(&o);
    o.duration_s = 600;
    CHECK_INT(pp_governor_new(m, b, &o, &g), 0);
    pp_governor_free(g);
    pp_battery_free(b);
    test_log_clear();
    pp_battery_free(b); /* released once: the second call is said, not done */
    CHECK_CONTAINS(test_log(), "pp_battery_close");
    pp_model_close(m);
    CHECK_INT(pp_device_open_by_name("procstat", NULL, &d), 0);
    CHECK(pp_device_rail_count(d) > 0);
    pp_device_close(d);
}
#pragma GCC diagnostic pop
