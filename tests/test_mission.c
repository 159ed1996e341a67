/* Missions in phases (issue 25): the mission group and the plan per phase
 * (the ULog reader and the battery against a flight: test_ulog.c). */
#include "harness.h"
#include "exec_profile.h"
#include "limited.h"

#include "src/base/duration.h"
#include "src/config/mission.h"
#include "src/layer2/model.h"
#include "src/plan/phases_model.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static double after(const char *text, const char *key)
{
    const char *at = text ? strstr(text, key) : NULL;
    return at ? atof(at + strlen(key)) : NAN;
}

/* path of a mission file with text. */
static const char *mission_file(const char *name, const char *text)
{
    static char path[4096];

    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
    write_file(path, text);
    return path;
}

static int load_mission(const char *text, pp_mission_spec *m)
{
    pp_battery_params b;

    pp_battery_params_default(&b);
    test_log_clear();
    return pp_mission_load(mission_file("m.cfg", text), m, &b);
}

void test_mission_parse(void);
void test_mission_parse(void)
{
    pp_mission_spec *m = malloc(sizeof *m);
    char why[256];
    double s;

    CHECK_INT(load_mission("mission = {\n min_soc = 0.25;\n phases = (\n"
                           " { name = \"takeoff\"; duration = \"90s\"; base_power_w = 400.0; },\n"
                           " { name = \"transit\"; duration = \"1min30s\"; max = { det = { fps = 5.0; }; }; },\n"
                           " { name = \"landing\"; duration = \"2min\"; weight = 2.0;\n"
                           "   min = { det = { fps = 15.0; }; size = 3; }; fixed = { det = { cfg = \"tiny\"; }; }; }\n"
                           " );\n};\n", m), 0);
    CHECK_INT(m->n_phases, 3);
    CHECK_NEAR(m->min_soc_frac, 0.25, 0);
    CHECK_NEAR(m->phase[0].duration_s, 90, 0);
    CHECK_NEAR(m->phase[1].duration_s, 90, 0);
    CHECK_NEAR(m->phase[2].duration_s, 120, 0);
    CHECK_NEAR(m->phase[0].base_power_w, 400, 0);
    CHECK(m->phase[1].base_power_w < 0); /* the battery's */
    CHECK_STR(m->phase[1].bound[0].param, "det.fps");
    CHECK_NEAR(m->phase[1].bound[0].max, 5, 0);
    CHECK_INT(m->phase[2].n_bounds, 3);
    CHECK_STR(m->phase[2].bound[0].label, "tiny");
    CHECK_STR(m->phase[2].bound[2].param, "size");
    CHECK_NEAR(m->phase[2].weight, 2, 0);
    CHECK_NEAR(pp_mission_duration_s(m), 300, 1e-12);
    /* errors name the file, the line and the key */
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"1min\"; durration = 3; }\n); };\n", m),
              -EINVAL);
    CHECK_CONTAINS(test_log(), "m.cfg:2:");
    CHECK_CONTAINS(test_log(), "durration: unknown key");
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\";\n duration = \"min\"; }\n); };\n", m), -EINVAL);
    CHECK_CONTAINS(test_log(), "m.cfg:3: duration: phase 'a': \"min\" is not a duration");
    /* one parser with --mission-s (issue 33): a number alone is seconds */
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"90\"; }\n); };\n", m), 0);
    CHECK_NEAR(m->phase[0].duration_s, 90, 0);
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = 90; }\n); };\n", m), -EINVAL);
    CHECK_CONTAINS(test_log(), "a text with its unit expected");
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"1min\";\n"
                           " min = { det = { fps = 15.0; }; };\n max = { det = { fps = 5.0; }; }; }\n); };\n", m),
              -EINVAL);
    CHECK_CONTAINS(test_log(), "m.cfg:4: max.det.fps: the minimum 15 is above the maximum 5");
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"1min\";\n"
                           " fixed = { fps = 10.0; };\n min = { fps = 5.0; }; }\n); };\n", m), -EINVAL);
    CHECK_CONTAINS(test_log(), "m.cfg:4: min.fps: fps is both fixed and bounded");
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"1min\"; },\n"
                           " { name = \"a\"; duration = \"1min\"; }\n); };\n", m), -EINVAL);
    CHECK_CONTAINS(test_log(), "m.cfg:3: name: two phases are called 'a'");
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"1min\"; base_power_w = 5.0;\n"
                           " base_trace = \"f.csv\"; }\n); };\n", m), -EINVAL);
    CHECK_CONTAINS(test_log(), "give base_trace or base_power_w, not both");
    CHECK_INT(load_mission("battery = { capacity_ah = 2.0; };\n", m), -ENOENT);
    CHECK_CONTAINS(test_log(), "no mission = { phases");
    CHECK_INT(pp_mission_parse_duration("2h", &s, why, sizeof why), 0);
    CHECK_NEAR(s, 7200, 0);
    CHECK_INT(pp_mission_parse_duration("12 parsecs", &s, why, sizeof why), -EINVAL);
    CHECK_CONTAINS(why, "\"12 parsecs\" is not a duration");
    free(m);
}

/* 10 W per frame per second, fps 1 .. 5: the default pack (rint) carries
 * about 37.7 W for an hour (test_cli_plan). */
static const char *linear_results(void)
{
    return results_folder_with("phases", "id,fps,status,duration_s,iterations,late_frames,total_mean_w,reason\n"
                               "0,1,ok,1,1,0,10,\n1,2,ok,1,1,0,20,\n2,3,ok,1,1,0,30,\n"
                               "3,4,ok,1,1,0,40,\n4,5,ok,1,1,0,50,\n", NULL);
}

/* Two half-hour phases: 3 fps held throughout is the best single
 * configuration (40 W does not last the hour); 4 fps in one phase and 3 in
 * the other (35 W on average) is the optimum of a plan per phase. Its end
 * is one battery run over the schedule. */
void test_mission_phase_plan_optimum(void);
void test_mission_phase_plan_optimum(void)
{
    const char *dir = linear_results();
    pp_mission_spec *mi = malloc(sizeof *mi);
    pp_phases_plan *r = malloc(sizeof *r);
    pp_plan_options o;
    pp_model m;
    double w[2], end;
    int event;

    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    pp_plan_options_init(&o);
    o.risk = PP_RISK_MEAN;
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"30min\"; base_power_w = 0.0; },\n"
                           " { name = \"b\"; duration = \"30min\"; base_power_w = 0.0; }\n); };\n", mi), 0);
    CHECK_INT(pp_plan_phases(&m, &o, mi, r), 0);
    CHECK(r->res.feasible);
    CHECK_NEAR(r->res.quality, 3.5, 1e-9);
    CHECK_NEAR(r->cand[r->res.phase[0].choice].qos + r->cand[r->res.phase[1].choice].qos, 7, 1e-9);
    CHECK(r->res.single_feasible);
    CHECK_NEAR(r->cand[r->res.single].qos, 3, 1e-9);
    CHECK_NEAR(r->res.single_quality, 3, 1e-9);
    CHECK(r->res.soc_end_frac >= 0.2);
    w[0] = r->cand[r->res.phase[0].choice].planned_w;
    w[1] = r->cand[r->res.phase[1].choice].planned_w;
    CHECK_INT(pp_phases_run(&r->problem, w, &end, &event), 0);
    CHECK_NEAR(r->res.soc_end_frac, end, 1e-9);
    CHECK(!event);
    /* the timeline ends where the run ends */
    CHECK_NEAR(r->res.soc_frac[r->res.n_points - 1], end, 1e-9);
    pp_phases_plan_free(r);
    /* a floor in the first phase: 4 fps there, 3 in the second; held
     * throughout it does not last */
    CHECK_INT(load_mission("mission = { phases = (\n { name = \"a\"; duration = \"30min\"; base_power_w = 0.0;\n"
                           " min = { fps = 4.0; }; },\n"
                           " { name = \"b\"; duration = \"30min\"; base_power_w = 0.0; }\n); };\n", mi), 0);
    CHECK_INT(pp_plan_phases(&m, &o, mi, r), 0);
    CHECK(r->res.feasible);
    CHECK_NEAR(r->cand[r->res.phase[0].choice].qos, 4, 1e-9);
    CHECK_NEAR(r->cand[r->res.phase[1].choice].qos, 3, 1e-9);
    CHECK(r->res.phase[0].floor_binds && !r->res.phase[1].floor_binds);
    CHECK(r->res.phase[0].floor_drain_frac > 0.1);
    CHECK(r->res.single_exists && !r->res.single_feasible);
    pp_phases_plan_free(r);
    free(r);
    free(mi);
    pp_model_free(&m);
}

/* The one-phase shorthand plans as pp_plan does, to the same end. */
void test_mission_one_phase_is_todays_plan(void);
void test_mission_one_phase_is_todays_plan(void)
{
    const char *dir = linear_results();
    static const double missions_s[] = {600, 3600, 5000};
    pp_mission_spec *mi = malloc(sizeof *mi);
    pp_phases_plan *r = malloc(sizeof *r);
    pp_plan_result *today = malloc(sizeof *today);
    pp_plan_options o;
    pp_model m;

    CHECK_INT(pp_model_read(dir, NULL, 0, &m), 0);
    for (size_t i = 0; i < sizeof missions_s / sizeof *missions_s; i++) {
        pp_plan_options_init(&o);
        o.mission_s = missions_s[i];
        o.battery.base_power_w = 5;
        o.battery.soc_cutoff_frac = 0.2;
        CHECK_INT(pp_plan(&m, &o, today), 0);
        pp_mission_init(mi);
        CHECK_INT(pp_mission_one_phase(mi, missions_s[i], -1), 0);
        CHECK_INT(pp_plan_phases(&m, &o, mi, r), 0);
        CHECK_INT(r->res.feasible, today->feasible);
        if (today->feasible) {
            CHECK_NEAR(r->cand[r->res.phase[0].choice].point.raw[0], today->best.point.raw[0], 0);
            CHECK_NEAR(r->res.soc_end_frac, today->best_soc_end_frac, 1e-6);
        }
        pp_phases_plan_free(r);
    }
    pp_model_free(&m);
    free(today);
    free(r);
    free(mi);
}

/* A floor no configuration meets, a floor the battery cannot carry, and a
 * bound naming no parameter: said, with what there is. */
void test_mission_floor_unmet(void);
void test_mission_floor_unmet(void)
{
    const char *dir = linear_results(), *file;
    char *out = NULL, *err = NULL;

    file = mission_file("m9.cfg", "mission = { phases = (\n { name = \"transit\"; duration = \"20min\"; base_power_w = 0.0; },\n"
                                  " { name = \"landing\"; duration = \"2min\"; base_power_w = 0.0; min = { fps = 9.0; }; }\n); };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", file, NULL), 3);
    CHECK_CONTAINS(out, "phase 'landing': no configuration meets its bounds (fps >= 9)");
    CHECK_CONTAINS(out, "the plan's settings of fps span 1 .. 5");
    free(out);
    file = mission_file("m5.cfg", "mission = { phases = (\n { name = \"transit\"; duration = \"100min\"; base_power_w = 0.0; min = { fps = 4.0; }; }\n); };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", file, NULL), 3);
    CHECK_CONTAINS(out, "no schedule keeps the reserve: the cheapest meeting every phase's bounds");
    free(out);
    file = mission_file("mz.cfg", "mission = { phases = (\n { name = \"transit\"; duration = \"10min\";\n min = { zoom = 4.0; }; }\n); };\n");
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission", file, NULL), 2);
    CHECK_CONTAINS(err, "mz.cfg:3: phase 'transit': zoom: the results have no such parameter (they have: fps)");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission", file, "--mission-s", "60", NULL), 2);
    CHECK_CONTAINS(err, "no --mission-s or --base-trace");
    free(err);
    /* text: the phases, the end, the gain */
    file = mission_file("ok.cfg", "mission = { phases = (\n { name = \"a\"; duration = \"30min\"; base_power_w = 0.0; },\n"
                                  " { name = \"b\"; duration = \"30min\"; base_power_w = 0.0; }\n); };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", file, "--risk", "mean", NULL), 0);
    CHECK_CONTAINS(out, "the plan per phase gains +0.5 (+16.7 %) in quality");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", file, "--risk", "mean", "--json", NULL), 0);
    CHECK_NEAR(after(strstr(out, "]"), ",\"quality\":"), 3.5, 1e-9); /* after the phases */
    CHECK_CONTAINS(out, "\"timeline\":{\"t_s\":[0");
    free(out);
}

/* A base load from a trace: cut or repeated with the trace's period; a
 * one-phase --base-trace plan; the plot of a plan per phase. */
void test_mission_base_trace_and_plot(void);
void test_mission_base_trace_and_plot(void)
{
    const char *dir = linear_results(), *file;
    char trace[4200], plan[4200], gp[4200], *out = NULL, *text;
    pp_phase_load l;
    FILE *fp;

    snprintf(trace, sizeof trace, "%s/flight.csv", test_tmpdir());
    write_file(trace, "t_s,motors_w\n0,100\n1,200\n2,100\n3,200\n");
    /* period 4 s (4 samples 1 s apart): from 1 s over 6 s */
    CHECK_INT(pp_phase_load_trace(trace, 1, 6, &l), 0);
    CHECK_NEAR(pp_phase_load_at(&l, 0), 200, 1e-9);
    CHECK_NEAR(pp_phase_load_at(&l, 2), 200, 1e-9);
    CHECK_NEAR(pp_phase_load_at(&l, 2.5), 150, 1e-9); /* 3 s -> 4 s: back to the first sample */
    CHECK_NEAR(pp_phase_load_at(&l, 3), 100, 1e-9);
    CHECK_NEAR(pp_phase_load_at(&l, 6), 200, 1e-9);   /* at 7 s: 3 s into the period */
    CHECK_NEAR(l.mean_w, 150, 1e-9);
    pp_phase_load_free(&l);
    CHECK_INT(pp_phase_load_trace(trace, 9, 6, &l), -EINVAL);
    CHECK_CONTAINS(test_log(), "base_trace_from_s 9 s is past the trace's end");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--base-trace", trace,
                          "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"base_mean_w\":150");
    CHECK_CONTAINS(out, "\"base_trace\":");
    free(out);
    file = mission_file("plot.cfg", "mission = { phases = (\n { name = \"cruise\"; duration = \"30min\"; base_power_w = 0.0; },\n"
                                    " { name = \"landing\"; duration = \"30min\"; base_power_w = 0.0; min = { fps = 4.0; }; }\n); };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", file, "--json", NULL), 0);
    snprintf(plan, sizeof plan, "%s/phases-plan.json", test_tmpdir());
    fp = fopen(plan, "w");
    if (fp) {
        fputs(out ? out : "", fp);
        fclose(fp);
    }
    free(out);
    CHECK_INT(run_powprof(NULL, NULL, "plot", dir, "--plan", plan, NULL), 0);
    snprintf(gp, sizeof gp, "%s/plots/plan-phases.gp", dir);
    text = slurp(gp);
    CHECK_CONTAINS(text, "'landing (floor binds)'");
    CHECK_CONTAINS(text, "'cruise'");
    CHECK_CONTAINS(text, "title 'base load', '' using 1:4 axes x1y2"); /* issue 45: a panel */
    free(text);
}

/* `run` on a profile whose mission has phases plans per phase through the
 * library: the plan in words, plan.json with its phases, the plan-phases
 * plot's data beside its script. */
void test_mission_run_plans_phases(void);
void test_mission_run_plans_phases(void)
{
    char res[600], path[700], *out = NULL, *json;
    const char *cfg;

    snprintf(res, sizeof res, "%s/res", test_tmpdir());
    cfg = mission_file("ph.cfg",
                 "profile = { name = \"ph\"; device = \"procstat\"; rate_hz = 20.0; };\n"
                 "components = ( { name = \"w\"; type = \"exec\"; command = [\"sleep\", \"{t}\"];\n"
                 "  params = { t = [0.1, 0.2]; }; iterations = 1; } );\n"
                 "mission = { min_soc = 0.2; maximize = \"w.t\";\n"
                 "  phases = ( { name = \"takeoff\"; duration = \"1min\"; base_power_w = 400.0; },\n"
                 "    { name = \"transit\"; duration = \"5min\"; base_power_w = 150.0;\n"
                 "      max = { w = { t = 0.15; }; }; } ); };\n");
    CHECK_INT(run_powprof(&out, NULL, "run", cfg, "-o", res, NULL), 0);
    CHECK_CONTAINS(out, "== mission plan");
    CHECK_CONTAINS(out, "takeoff");
    CHECK_CONTAINS(out, "best single configuration held throughout");
    CHECK_CONTAINS(out, "/plots/plan-phases.*");
    snprintf(path, sizeof path, "%s/plan.json", res);
    json = slurp(path);
    CHECK(json && strstr(json, "\"phases\""));
    snprintf(path, sizeof path, "%s/plots/plan-phases.dat", res);
    CHECK(access(path, F_OK) == 0);
    free(json);
    free(out);
    out = NULL; /* a stand-alone plan of the folder plans its own phases */
    CHECK_INT(run_powprof(&out, NULL, "plan", res, NULL), 0);
    CHECK_CONTAINS(out, "2 phases");
    CHECK_CONTAINS(out, "best single configuration held throughout");
    free(out);
}

/* Friction of issue 22: the mission group's fixed holds inputs in the plan
 * of `run`; a name that is no parameter is refused with the file's line
 * before anything runs. */
void test_mission_fixed(void);
void test_mission_fixed(void)
{
    char path[700], *err = NULL, *text;
    const char *best;

    for (int size = 1; size <= 2; size++) {
        char extra[200];
        snprintf(extra, sizeof extra, "mission = { duration_s = 600.0; maximize = \"x.level\";\n"
                 "  fixed = [\"x.size=%d\"]; };", size);
        write_exec_profile_with("level = [0, 1]; size = [1, 2];", extra);
        snprintf(g_out + strlen(g_out), sizeof g_out - strlen(g_out), "%d", size);
        CHECK_INT(run_powprof(NULL, NULL, "run", g_cfg, "-o", g_out, NULL), 0);
        snprintf(path, sizeof path, "%s/plan.json", g_out);
        text = slurp(path);
        best = text ? strstr(text, "\"best\": {") : NULL;
        CHECK(best != NULL);
        CHECK_NEAR(number_after(best, "\"x.size\": "), size, 1e-9);
        free(text);
    }
    write_exec_profile_with("level = [0, 1]; size = [1, 2];",
                            "mission = { duration_s = 600.0;\n  fixed = [\"x.nope=1\"]; };");
    CHECK_INT(run_powprof(NULL, &err, "run", g_cfg, "-o", g_out, NULL), 2);
    CHECK_CONTAINS(err, "w.cfg:3: mission.fixed: 'x.nope' is no parameter of the profile");
    free(err);
    CHECK(access(g_out, F_OK) != 0);
}

/* tiny.cfg profiled and modelled once, into the test folder of the first
 * test that asks (later tests read it): its path. */
static const char *tiny_results(void)
{
    static char res[700];
    struct stat st;

    if (res[0] && stat(res, &st) == 0)
        return res;
    snprintf(res, sizeof res, "%s/res", test_tmpdir());
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/tiny.cfg"), "-o", res, "--yes", NULL), 0);
    CHECK_INT(pp(NULL, NULL, "model", res, NULL), 0);
    return res;
}

/* Item 5: plan --mission FILE holds FILE's top-level fixed (it planned
 * w.a = 4 with fixed = ["w.a=2"]); unknown names, values and malformed
 * entries refused with the file's line. */
void test_mission_fixed_from_file(void);
void test_mission_fixed_from_file(void)
{
    static const struct { const char *fixed, *said; int rc; } cases[] = {
        {"\"w.a=2\"", NULL, 0},
        {"\"zz=1\"", "m.cfg:2: mission.fixed: 'zz' is no parameter of the results", 2},
        {"\"w.a\"", "m.cfg:2: mission.fixed: \"NAME=VALUE\" expected (got \"w.a\")", 2},
        {"5", "m.cfg:2: mission.fixed: \"NAME=VALUE\" strings expected", 2},
        {"\"w.a=two\"", "m.cfg:2: mission.fixed: 'two' is not a value of w.a", 2},
    };
    const char *res = tiny_results(), *m = tmp_path("m.cfg");
    char text[400], *out = NULL, *err = NULL;

    for (size_t i = 0; i < PP_ARRAY_SIZE(cases); i++) {
        snprintf(text, sizeof text, "mission = { maximize = \"w.a\";\n fixed = [%s];\n"
                 " phases = ( { name = \"a\"; duration = \"2min\"; base_power_w = 100.0; } ); };\n",
                 cases[i].fixed);
        CHECK_INT(write_file(m, text), 0);
        CHECK_INT(pp(&out, &err, "plan", res, "--mission", m, NULL), cases[i].rc);
        if (cases[i].said)
            CHECK_CONTAINS(err, cases[i].said);
        else
            CHECK_CONTAINS(out, "w.a = 2, w.fps=");
        free(out);
        free(err);
        out = err = NULL;
    }
}

/* Item 11: one duration parser and one range for the command line and
 * mission files; a phase too short refused naming the file, line and
 * phase (it failed later inside the battery, naming neither). */
void test_mission_durations(void);
void test_mission_durations(void)
{
    static const struct { const char *text; double s; } ok[] = {
        {"1m30s", 90}, {"250ms", 0.25}, {"1 h 30 min", 5400}, {"2hr", 7200}, {"90sec", 90}};
    static const char *const bad[] = {"1h1h", "1s1h", "0x10s", "inf s", "-1min", "1e400s", "5 m s"};
    const char *res = tiny_results(), *m = tmp_path("d.cfg");
    char *err = NULL, why[300];
    double v;

    for (size_t i = 0; i < PP_ARRAY_SIZE(ok); i++) {
        CHECK_INT(pp_parse_duration_s(ok[i].text, &v), 0);
        CHECK_NEAR(v, ok[i].s, 1e-12);
    }
    for (size_t i = 0; i < PP_ARRAY_SIZE(bad); i++)
        CHECK(pp_parse_duration_s(bad[i], &v) < 0);
    CHECK_INT(pp_parse_duration_range("250ms", &v, why, sizeof why), -EINVAL);
    CHECK_CONTAINS(why, "\"250ms\" is 0.25 s, not in [1, 1e+07] s");
    CHECK_INT(write_file(m, "mission = { phases = ( { name = \"a\"; duration = \"1min\"; "
                            "base_power_w = 10.0; },\n { name = \"b\"; duration = \"1e-9s\"; "
                            "base_power_w = 10.0; } ); };\n"), 0);
    CHECK_INT(pp(NULL, &err, "plan", res, "--mission", m, NULL), 2);
    CHECK_CONTAINS(err, "d.cfg:2: duration: phase 'b': \"1e-9s\" is 1e-09 s, not in [1, 1e+07] s");
    free(err);
    err = NULL;
    CHECK_INT(write_file(m, "mission = { phases = ( { name = \"a\"; duration_s = 1e-300; "
                            "base_power_w = 10.0; } ); };\n"), 0);
    CHECK_INT(pp(NULL, &err, "plan", res, "--mission", m, NULL), 2);
    CHECK_CONTAINS(err, "phase 'a': 1e-300 s is not in [1, 1e+07] s");
    free(err);
    err = NULL;
    CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", "250ms", NULL), 2);
    CHECK_CONTAINS(err, "--mission-s: \"250ms\" is 0.25 s, not in [1, 1e+07] s");
    free(err);
    err = NULL;
    CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", "1h1h", NULL), 2);
    CHECK_CONTAINS(err, "\"1h1h\" is not a duration");
    free(err);
}

/* Also: a base trace of negative power names the trace, the sample and
 * the phase (it was "battery: sample 4: power -17.3 W"). */
void test_mission_base_trace_negative(void);
void test_mission_base_trace_negative(void)
{
    const char *res = tiny_results(), *m = tmp_path("neg.cfg");
    char *err = NULL;

    CHECK_INT(write_file(tmp_path("neg.csv"), "t_s,x_w\n0,10\n1,20\n2,-17.3\n"), 0);
    CHECK_INT(write_file(m, "mission = { phases = ( { name = \"hover\"; duration = \"10min\"; "
                            "base_trace = \"neg.csv\"; } ); };\n"), 0);
    CHECK_INT(pp(NULL, &err, "plan", res, "--mission", m, NULL), 2);
    CHECK_CONTAINS(err, "neg.csv: sample 3 (at 2 s): a total power of -17.3 W is no base load");
    CHECK_CONTAINS(err, "phase 'hover': its base_trace");
    free(err);
}

/* Item 10: a relative base_trace is taken from the profile's folder; the
 * results keep the resolved path and a hash (base_traces.json), so that
 * `plan OUT` plans the same mission (it read OUT/flight.csv, or failed). */
void test_mission_relative_trace_after_run(void);
void test_mission_relative_trace_after_run(void)
{
    const char *src = tmp_path("src"), *out = tmp_path("out-rel");
    char cfg[700], trace[700], *text, *err = NULL, *out_text = NULL;

    CHECK_INT(mkdir(src, 0755), 0);
    snprintf(trace, sizeof trace, "%s/flight.csv", src);
    CHECK_INT(write_file(trace, "t_s,motors_w\n0,100\n1,120\n2,110\n"), 0);
    text = slurp(fixture("issue33/tiny.cfg"));
    CHECK(text != NULL);
    snprintf(cfg, sizeof cfg, "%s/run.cfg", src);
    {
        FILE *fp = fopen(cfg, "w");
        CHECK(fp != NULL);
        if (fp) {
            fprintf(fp, "%smission = { maximize = \"w.a\"; phases = ( { name = \"a\"; duration = "
                    "\"2min\"; base_power_w = 100.0; },\n { name = \"b\"; duration = \"5min\"; "
                    "base_trace = \"flight.csv\"; } ); };\n", text ? text : "");
            fclose(fp);
        }
    }
    free(text);
    CHECK_INT(pp(NULL, NULL, "profile", cfg, "-o", out, "--yes", NULL), 0);
    CHECK_INT(pp(NULL, NULL, "model", out, NULL), 0);
    CHECK_INT(pp(&out_text, &err, "plan", out, NULL), 0);
    CHECK_CONTAINS(out_text, "the plan per phase");
    free(out_text);
    free(err);
    out_text = err = NULL;
    CHECK_INT(write_file(trace, "t_s,motors_w\n0,100\n1,130\n2,110\n"), 0);
    CHECK_INT(pp(&out_text, &err, "plan", out, NULL), 0);
    CHECK_CONTAINS(err, "flight.csv changed since the results were written");
    free(out_text);
    free(err);
    err = NULL;
    CHECK_INT(unlink(trace), 0);
    CHECK_INT(pp(NULL, &err, "plan", out, NULL), 2);
    CHECK_CONTAINS(err, "base_traces.json: phase 'b': its base trace");
    free(err);
}
