/* A phase that runs long (issue 42): the mission's overrun declared
 * (refused out of range, with the file and line), the simulated world
 * flown as planned rather than as budgeted, a phase flown longer than its
 * load lasts going on as it went, and the decision's line for a person. */
#include "harness.h"

#include "src/api/governor_doc.h"
#include "src/config/mission.h"
#include "src/governor/governor_sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int load_overrun(const char *value, pp_mission_spec *m)
{
    char path[4096], text[512];
    pp_battery_params b;

    snprintf(path, sizeof path, "%s/overrun.cfg", test_tmpdir());
    snprintf(text, sizeof text, "mission = { phases = (\n { name = \"a\"; duration = \"10min\"; "
             "base_power_w = 50.0; },\n { name = \"b\"; duration = \"5min\"; base_power_w = "
             "60.0; overrun = %s; }\n); };\n", value);
    write_file(path, text);
    pp_battery_params_default(&b);
    test_log_clear();
    return pp_mission_load(path, m, &b);
}

void test_governor_overrun_declared(void);
void test_governor_overrun_declared(void)
{
    pp_mission_spec m;

    CHECK_INT(load_overrun("0.15", &m), 0);
    CHECK_NEAR(m.phase[0].overrun_frac, 0, 0);
    CHECK_NEAR(m.phase[1].overrun_frac, 0.15, 1e-12);
    CHECK_INT(load_overrun("11.0", &m), -EINVAL);
    CHECK_CONTAINS(test_log(), "overrun.cfg:3");
    CHECK_CONTAINS(test_log(), "overrun");
    CHECK_CONTAINS(test_log(), "got 11");
    CHECK_INT(load_overrun("-0.1", &m), -EINVAL);
    CHECK_CONTAINS(test_log(), "got -0.1");
}

/* Phase 0 budgeted 15 % longer than planned (its load over 690 s), phase 1
 * a 60 s ramp from 100 to 160 W flown 150 s: the world flies phase 0 for
 * its 600 s, then phase 1's ramp again from its start, cut at 150 s. */
void test_governor_overrun_world(void);
void test_governor_overrun_world(void)
{
    pp_phase_load base[2], actual;
    pp_phases_problem p, w;
    pp_sim_options o;
    double t[2] = {0, 60}, pw[2] = {100, 160};

    memset(&p, 0, sizeof p);
    pp_phase_load_constant(50, 690, &base[0]);
    base[1] = (pp_phase_load){t, pw, 2, 130, 0, 0, 0};
    p.n_phases = 2;
    p.duration_s[0] = 690;
    p.planned_s[0] = 600;
    p.duration_s[1] = 60;
    p.base = base;
    pp_battery_params_default(&p.battery);
    pp_sim_options_init(&o);
    CHECK_INT(pp_sim_world(&p, &o, &w), 0);
    CHECK_NEAR(w.duration_s[0], 600, 0);
    CHECK_NEAR(w.duration_s[1], 60, 0);
    o.stretch_phase = 1;
    o.stretch_f = 2.5;
    CHECK_INT(pp_sim_world(&p, &o, &w), 0);
    CHECK_NEAR(w.duration_s[1], 150, 1e-9);
    CHECK_INT(pp_sim_actual_planned(&w, 0, 1, &actual), 0);
    CHECK_NEAR(pp_phase_load_at(&actual, 300), 50, 1e-9);
    CHECK_NEAR(pp_phase_load_at(&actual, 600 + 30), 130, 0.01);
    CHECK_NEAR(pp_phase_load_at(&actual, 600 + 75), 115, 0.1);  /* the ramp again */
    CHECK_NEAR(pp_phase_load_at(&actual, 600 + 140), 120, 0.1); /* ... and again */
    CHECK_NEAR(actual.t_s[actual.n - 1], 750, 1e-6);
    pp_phase_load_free(&actual);
    pp_phase_load_free(&base[0]);
}

/* The line for a person says the overrun and the time assumed; nothing
 * when the phase is not run long. */
void test_governor_overrun_text(void);
void test_governor_overrun_text(void)
{
    char buf[512];
    json_t *doc = json_pack("{s:f,s:s,s:s,s:f,s:s,s:f,s:s,s:b,s:f,s:f,s:f}", "t_s", 1500.0,
                            "phase", "survey", "maximized", "fps", "value", 10.0, "why", "reserve",
                            "soc", 0.4, "soc_source", "measured", "feasible", 1, "soc_end", 0.205,
                            "phase_overrun_s", 120.0, "overrun_assumed_s", 120.0);

    pp_gov_decision_text(doc, 25, buf, sizeof buf);
    CHECK_CONTAINS(buf, "survey (2.0 min past its planned end, 2.0 min more assumed): fps 25 -> 10");
    json_object_set_new(doc, "overrun_assumed_s", json_null());
    json_object_set_new(doc, "phase_overrun_s", json_real(0));
    pp_gov_decision_text(doc, 25, buf, sizeof buf);
    CHECK(strstr(buf, "past its planned end") == NULL);
    CHECK_CONTAINS(buf, "survey: fps 25 -> 10");
    json_decref(doc);
}
