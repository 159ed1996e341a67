/* The planner through the command line (`powprof plan`, its schedule, plan
 * --mission): one rule in every planner, the JSON a script reads, the
 * battery and the objective a results folder carries, the runners-up, the
 * headline no stronger than the data. */
#include "harness.h"
#include "limited.h"
#include "exec_profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measured: 1 fps achieves 1.00, 2 fps only 1.07: the settings between
 * are never measured, and their gain over 1 fps is within their band. */
static const char *overshoot(void)
{
    return results_folder_with(
        "overshoot45",
        "id,det.fps,status,duration_s,iterations,late_frames,det.achieved_fps,total_mean_w,"
        "reason\n0,0.5,ok,60,30,0,0.5,2.0,\n1,1,ok,60,60,0,1.0,2.5,\n2,2,ok,60,64,56,1.07,3.0,\n",
        "{\"params\": {\"det.fps\": {\"scale\": \"list\", \"kind\": \"list\", "
        "\"values\": [0.5, 1, 2]}}}");
}

/* The requested rate of the first "det.fps": after key in json. */
static double fps_after(const char *json, const char *key)
{
    const char *at = json ? strstr(json, key) : NULL;

    at = at ? strstr(at, "\"det.fps\":") : NULL;
    return at ? strtod(at + 10, NULL) : -1;
}

/* Issue 45, defect 1: plan said "best: 1 fps" (a measured setting preferred) while
 * its own schedule and plan --mission ran 1.07 fps, never measured, for
 * the whole mission. One rule now, in every planner, said once. */
void test_plan_one_rule_every_planner(void);
void test_plan_one_rule_every_planner(void)
{
    const char *dir = overshoot();
    char mission[700], *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3000", "--base-power-w", "0",
                          "--resolution", "det.fps=0.01", "--schedule", "--json", NULL), 0);
    CHECK_NEAR(fps_after(out, "\"best\":"), 1, 1e-9);
    CHECK_NEAR(fps_after(out, "\"schedule\":"), 1, 1e-9);
    CHECK_CONTAINS(out, "\"never_measured_gave_way\":39");
    CHECK_CONTAINS(out, "\"tolerance\":0.05");
    free(out);
    snprintf(mission, sizeof mission, "%s/m45.cfg", test_tmpdir());
    write_file(mission, "mission = { maximize = \"det.fps\"; phases = (\n"
                        " { name = \"a\"; duration = \"20min\"; base_power_w = 0.0; },\n"
                        " { name = \"b\"; duration = \"30min\"; base_power_w = 0.0; }\n); };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", mission, "--resolution",
                          "det.fps=0.01", "--json", NULL), 0);
    CHECK_NEAR(fps_after(out, "\"phases\":"), 1, 1e-9);
    CHECK_CONTAINS(out, "\"never_measured_gave_way\":39");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", mission, "--resolution",
                          "det.fps=0.01", NULL), 0);
    CHECK_CONTAINS(out, "left out: 39 of the 151 settings, never measured, whose gain over a "
                        "measured one that costs no more lies within their own band (e.g. ");
    CHECK_CONTAINS(out, "by more than 5 % (e.g. det.fps = 2");
    free(out);
}

/* Issue 45, defect 3: where nothing lasts, max_power_w was -1.0 (a sentinel a script
 * reads as a power) and the end's charge was missing: null, and the value
 * with a flag. */
void test_plan_json_null_and_flag(void);
void test_plan_json_null_and_flag(void)
{
    const char *dir = overshoot();
    char *out = NULL;
    const char *at;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3000", "--base-power-w", "400",
                          "--json", NULL), 3);
    CHECK_CONTAINS(out, "\"max_power_w\":null");
    CHECK(!strstr(out ? out : "", "-1.0"));
    CHECK_CONTAINS(out, "\"reserve_kept\":false");
    at = out ? strstr(out, "\"soc_end\":") : NULL;
    CHECK(at && strtod(at + 10, NULL) >= 0.2 - 1e-6 && strtod(at + 10, NULL) <= 1);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3000", "--base-power-w", "0",
                          "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"reserve_kept\":true");
    at = out ? strstr(out, "\"max_power_w\":") : NULL;
    CHECK(at && strtod(at + 14, NULL) > 40);
    free(out);
}

/* Issue 32, item 9: --schedule with --base-trace (a plan per phase) is
 * refused, not silently ignored; powprof --help names the ulog format. */
void test_plan_schedule_base_trace_refused(void);
void test_plan_schedule_base_trace_refused(void)
{
    const char *dir = results_folder_with(
        "sched2", "id,fps,status,duration_s,total_mean_w,reason\n0,1,ok,1,2,\n1,2,ok,1,3,\n"
                  "2,4,ok,1,5,\n", NULL);
    char trace[600], *err = NULL, *out = NULL;

    snprintf(trace, sizeof trace, "%s/flight.csv", test_tmpdir());
    write_file(trace, "t_s,motor_w\n0,100\n1,110\n2,100\n");
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "60", "--base-trace", trace,
                          "--schedule", NULL), 2);
    CHECK_CONTAINS(err, "--schedule steps one configuration down over a constant base load; "
                        "--base-trace plans a configuration per phase");
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "--help", NULL), 0);
    CHECK_CONTAINS(out, "(powprofiler, tegrastats, csv, ulog)");
    free(out);
}

/* Issue 32, item 9: a list parameter is planned on its grid (the list
 * 2.5, 5, 7.5, 10 steps by 2.5: no 9.98125 or 7.075), and the runners-up
 * come sorted by quality (an alternative of another label was listed
 * before a higher rate). */
void test_plan_list_grid_runners_sorted(void);
void test_plan_list_grid_runners_sorted(void)
{
    const char *dir = results_folder_with(
        "listgrid", "id,det.model,det.fps,status,duration_s,total_mean_w,reason\n"
                    "0,a,2.5,ok,10,2.0,\n1,a,5,ok,10,2.6,\n2,a,7.5,ok,10,3.1,\n3,a,10,ok,10,3.7,\n"
                    "4,b,2.5,ok,10,1.5,\n5,b,5,ok,10,2.0,\n6,b,7.5,ok,10,2.4,\n7,b,10,ok,10,2.9,\n",
        "{\"params\": {\"det.model\": {\"scale\": \"categorical\", \"kind\": \"categorical\", "
        "\"values\": [\"a\", \"b\"]}, \"det.fps\": {\"scale\": \"list\", \"kind\": \"list\", "
        "\"values\": [2.5, 5, 7.5, 10]}}}");
    char *out = NULL;
    const char *runners, *hi, *lo;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "43000", "--base-power-w", "0",
                          NULL), 0);
    CHECK_CONTAINS(out, "best: det.fps = 10 with det.model=b");
    runners = out ? strstr(out, "runners-up:") : NULL;
    CHECK(runners != NULL);
    if (!runners)
        return;
    hi = strstr(runners, "det.fps = 7.5 with det.model=b");
    lo = strstr(runners, "det.fps = 5 with det.model=a");
    CHECK(hi && lo && hi < lo);
    CHECK(!strstr(out, "9.98") && !strstr(out, "7.075"));
    free(out);
}

/* summary.csv's header of a detector at requested rates, its achieved
 * rate and power: the plan tests below. */
#define FPS_HEADER \
    "id,det.fps,status,duration_s,iterations,late_frames,det.achieved_fps,total_mean_w,reason\n"

/* Issue 32, item 4: the quickstart's plan promised 1.16 fps at 1.17 fps
 * where the measured levels achieve 1.00 at 1 fps and 1.07 at 2: an
 * achieved rate is held within the measured levels around it, shown with
 * its band, and a measured setting whose quality reaches an unmeasured
 * one's band is preferred; best and runner-up within noise are said, with
 * --repeat. */
void test_plan_headline_supported_by_data(void);
void test_plan_headline_supported_by_data(void)
{
    const char *dir = results_folder_with(
        "overshoot",
        FPS_HEADER
        "0,0.5,ok,60,30,0,0.5,2.0,\n1,1,ok,60,60,0,1.0,2.5,\n2,2,ok,60,64,56,1.07,3.0,\n",
        "{\"params\": {\"det.fps\": {\"scale\": \"list\", \"kind\": \"list\", "
        "\"values\": [0.5, 1, 2]}}}");
    char *out = NULL;
    const char *at;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3000", "--base-power-w", "0",
                          "--resolution", "det.fps=0.01", NULL), 0);
    CHECK_CONTAINS(out, "best: det.fps = 1 (achieves 1, 90 % band ");
    CHECK_CONTAINS(out, "a measured setting, preferred to det.fps = 1.07 (achieves 1.07, 90 % band");
    CHECK_CONTAINS(out, "not measured)");
    CHECK_CONTAINS(out, "within noise: the best and the first runner-up");
    CHECK_CONTAINS(out, "--repeat");
    CHECK(!strstr(out ? out : "", "achieves 1.1")); /* nothing above the 1.07 measured at 2 */
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3000", "--base-power-w", "0",
                          "--resolution", "det.fps=0.01", "--json", NULL), 0);
    at = out ? strstr(out, "\"best\":") : NULL;
    CHECK(at && strstr(at, "\"measured\":true"));
    CHECK_CONTAINS(out, "\"best_and_runner_up_within_noise\":true");
    at = out ? strstr(out, "\"preferred_to_unmeasured\":") : NULL;
    CHECK(at && strstr(at, "\"achieved\":") &&
          strtod(strstr(at, "\"achieved\":") + 11, NULL) <= 1.07 + 1e-9);
    free(out);
}

/* A results folder name of xz levels 1, 3, 6, 9 with the work done per
 * unit (energy_per_iteration_j): what --work and a phase's work read. */
static const char *xz_work_folder(const char *name)
{
    return results_folder_with(
        name,
        "id,xz.level,status,duration_s,iterations,late_frames,total_mean_w,total_energy_j,"
        "energy_per_iteration_j,reason\n"
        "0,1,ok,0.3,1,0,3.0,0.9,0.9,\n1,3,ok,0.5,1,0,2.9,1.45,1.45,\n"
        "2,6,ok,0.8,1,0,2.8,2.24,2.24,\n3,9,ok,1.05,1,0,2.7,2.835,2.835,\n",
        "{\"params\": {\"xz.level\": {\"scale\": \"list\", \"kind\": \"list\", "
        "\"values\": [1, 3, 6, 9]}}}");
}

/* Issue 32, item 10: a batch job (xz over files) planned by mean power
 * picks level 9, 3.5x slower per file; each choice now prints its energy
 * per unit of work and rate, and --work N within the mission (or
 * --min-rate) leaves out what cannot keep up. */
void test_plan_batch_work(void);
void test_plan_batch_work(void)
{
    const char *dir = xz_work_folder("xzbatch");
    char *out = NULL;
    double rate;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "1800", "--base-power-w", "0",
                          NULL), 0);
    CHECK_CONTAINS(out, "best: xz.level = 9:");
    /* level 9's rate as the model predicts it where 1 unit took 1.05 s:
     * within 1 % (auto's boxcox, its residual smoother, 0.9457/s) */
    rate = out && strstr(out, "J per unit of work, ")
               ? strtod(strstr(out, "J per unit of work, ") + 20, NULL)
               : NAN;
    CHECK(fabs(rate * 1.05 - 1.0) < 0.01);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "1800", "--base-power-w", "0",
                          "--work", "3000", "--json", NULL), 0);
    rate = out && strstr(out, "\"units_per_s\":") ? strtod(strstr(out, "\"units_per_s\":") + 14, NULL)
                                                 : NAN;
    CHECK(rate >= 3000.0 / 1800.0); /* the best keeps up the work */
    CHECK(out && strstr(out, "\"xz.level\":") &&
          strtod(strstr(out, "\"xz.level\":") + 11, NULL) < 6);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "1800", "--min-rate", "1.9",
                          NULL), 0);
    CHECK_CONTAINS(out, "left out: ");
    CHECK_CONTAINS(out, "settings that keep up fewer than 1.9 units of work per second");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", "--help", NULL), 0);
    CHECK_CONTAINS(out, "Which objective for which component");
    free(out);
}

/* Issue 32, item 10: a mission phase's work = N units admits only the
 * configurations that finish N units in it. */
void test_plan_phase_work(void);
void test_plan_phase_work(void)
{
    const char *dir = xz_work_folder("xzphase");
    char path[600], *out = NULL;

    snprintf(path, sizeof path, "%s/xzm.cfg", test_tmpdir());
    write_file(path, "mission = { maximize = \"xz.level\"; phases = (\n"
                     " { name = \"batch\"; duration = \"30min\"; base_power_w = 0.0; work = 3000.0; },\n"
                     " { name = \"idle\"; duration = \"10min\"; base_power_w = 0.0; }\n); };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", path, NULL), 0);
    CHECK_CONTAINS(out, "work = 3000 units in 30.0 min");
    CHECK(out && strstr(out, "\nbatch ") && strstr(strstr(out, "\nbatch "), "xz.level = 4\n"));
    CHECK(out && strstr(out, "\nidle ") && strstr(strstr(out, "\nidle "), "xz.level = 9\n"));
    free(out);
}

/* Issue 32 (the quickstart on a loaded machine): when every setting falls
 * short of its requested rate, the plan says so, not "no configuration has
 * a prediction of total_mean_w". */
void test_plan_all_short_of_rate_said(void);
void test_plan_all_short_of_rate_said(void)
{
    const char *dir = results_folder_with(
        "allshort",
        FPS_HEADER
        "0,0.5,ok,60,14,16,0.23,2.7,\n1,1,ok,60,17,43,0.29,2.7,\n2,2,ok,60,10,110,0.17,2.7,\n",
        NULL);
    char *err = NULL;

    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "600", NULL), 2);
    CHECK_CONTAINS(err, "plan: every setting falls short of its requested rate by more than the "
                        "tolerance (e.g. det.fps = ");
    CHECK(err && !strstr(err, "no configuration has a prediction"));
    free(err);
}

/* A results folder of gz.fps x gz.level: the header and the rows at level 1
 * the planner tests share, and the parameters' lists. */
#define GZ_ROWS_01 \
    "id,gz.fps,gz.level,status,duration_s,iterations,late_frames,gz.achieved_fps,samples," \
    "short_run,total_mean_w,reason\n" \
    "0,8,1,ok,10,80,0,8,100,0,1.2,\n" \
    "1,16,1,ok,10,160,0,16,100,0,1.67,\n"
#define GZ_PARAMS(fps) \
    "{\"params\":{\"gz.fps\":{\"scale\":\"list\",\"values\":[" fps "]}," \
    "\"gz.level\":{\"scale\":\"list\",\"values\":[1,9]}}}"

/* plan --json of a gz folder (GZ_ROWS_01 and rows9 at level 9): the setting
 * after key (*at) is 16 fps at level; the output (to free). */
static char *plan_gz(const char *name, const char *rows9, const char *key, double level,
                     const char **at)
{
    char rows[1024];
    const char *dir;
    char *out = NULL;

    snprintf(rows, sizeof rows, "%s%s", GZ_ROWS_01, rows9);
    dir = results_folder_with(name, rows, GZ_PARAMS("8,16"));
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--json", NULL), 0);
    *at = out ? strstr(out, key) : NULL;
    CHECK(*at != NULL);
    if (*at) {
        CHECK_NEAR(number_after(*at, "\"gz.fps\":"), 16, 1e-9);
        CHECK_NEAR(number_after(*at, "\"gz.level\":"), level, 1e-9);
    }
    return out;
}

/* Issue 22, item 3: level 9 overshoots its 16 fps request (16.4 measured,
 * more interpolated in between); level 1 achieves 16 for less power. The
 * achieved rate is capped at the request, so the qualities tie and the
 * cheaper setting wins. */
void test_plan_cheaper_among_equal_quality(void);
void test_plan_cheaper_among_equal_quality(void)
{
    const char *best;
    char *out = plan_gz("gz", "2,8,9,ok,10,80,0,8.2,100,0,1.8,\n"
                              "3,16,9,ok,10,164,0,16.4,100,0,2.2,\n", "\"best\":{", 1, &best);

    CHECK(best && number_after(best, "\"achieved\":") <= 16);
    free(out);
}

/* Issue 22, item 9: the plan's left-out example names every parameter,
 * and its count says grid settings against measured configurations. */
void test_plan_left_out_text(void);
void test_plan_left_out_text(void)
{
    const char *dir = results_folder_with("late", GZ_ROWS_01
                                          "2,8,9,ok,10,80,0,8,100,0,1.8,\n"
                                          "3,16,9,ok,10,100,60,10,100,0,2.2,\n"
                                          "4,24,1,ok,10,100,60,10,100,0,2.2,\n"
                                          "5,24,9,ok,10,100,60,10,100,0,2.2,\n",
                                          GZ_PARAMS("8,16,24"));
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", NULL), 0);
    CHECK_CONTAINS(out, " of the 153 settings of the model's grid (from 6 measured configurations)");
    CHECK_CONTAINS(out, "(e.g. gz.fps = 24 (achieves 10, 90 % band "); /* band: issue 32 */
    CHECK_CONTAINS(out, ") with gz.level=");
    free(out);
}

/* Friction of issue 22: plan --fix holds an input that is not a knob; a
 * value outside the measured range or an unknown name is refused. */
void test_plan_fix(void);
void test_plan_fix(void)
{
    const char *dir = results_folder_with("fix", GZ_ROWS_01
                                          "2,8,9,ok,10,80,0,8,100,0,1.8,\n"
                                          "3,16,9,ok,10,160,0,16,100,0,2.2,\n",
                                          GZ_PARAMS("8,16"));
    char *out = NULL, *err = NULL;
    const char *best;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--fix", "gz.level=9",
                          "--json", NULL), 0);
    best = out ? strstr(out, "\"best\":{") : NULL;
    CHECK(best != NULL);
    CHECK_NEAR(number_after(best, "\"gz.level\":"), 9, 1e-9);
    CHECK_NEAR(number_after(best, "\"gz.fps\":"), 16, 1e-9);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--fix", "gz.level=9",
                          NULL), 0);
    CHECK_CONTAINS(out, "held: gz.level = 9\n");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "600", "--fix", "gz.level=12",
                          NULL), 2);
    CHECK_CONTAINS(err, "gz.level = 12: a number within the measured 1 .. 9 expected");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "600", "--fix", "nope=1", NULL), 2);
    CHECK_CONTAINS(err, "--fix nope=1: no such parameter");
    free(err);
}

/* Friction of issue 22: the first runner-up is an alternative (level 9,
 * measured) with its cost, not 15 fps at the same level as the best. */
void test_plan_distinct_runners_up(void);
void test_plan_distinct_runners_up(void)
{
    const char *runners;

    free(plan_gz("alt", "2,8,9,ok,10,80,0,8,100,0,1.8,\n3,16,9,ok,10,160,0,16,100,0,2.2,\n",
                 "\"runners_up\":[", 9, &runners));
}

/* Friction of issue 22: plan --help without the network-swap mathematics
 * (it is in the man page). */
void test_plan_help_short(void);
void test_plan_help_short(void)
{
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "plan", "--help", NULL), 0);
    CHECK(out && !strstr(out, "t_N / t_M"));
    CHECK_CONTAINS(out, "(how: man powprof, plan)");
    CHECK_CONTAINS(out, "--fix NAME=VALUE");
    free(out);
}

/* Issue 22, item 2: a stand-alone plan flies the results folder's battery
 * and mission (base load, duration), says which, and records the battery
 * in its JSON so that plot --plan needs no -c. */
void test_plan_uses_results_battery(void);
void test_plan_uses_results_battery(void)
{
    char plan_path[600], *out = NULL, *err = NULL;

    write_exec_profile_with("level = [0, 1, 2];",
                            "battery = { preset = \"drone-3s-2200\"; };\n"
                            "mission = { duration_s = 600.0; base_power_w = 60.0; };");
    CHECK_INT(run_powprof(NULL, NULL, "profile", g_cfg, "-o", g_out, NULL), 0);
    CHECK_INT(run_powprof(&out, &err, "plan", g_out, NULL), 0);
    CHECK_CONTAINS(out, "/res/profile.cfg's battery group (rint, 3 cells, 2.2 Ah); base load 60 W");
    CHECK_CONTAINS(out, "mission 600 s");
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "plan", g_out, "--base-power-w", "5", NULL), 0);
    CHECK_CONTAINS(out, "base load 5 W (--base-power-w)");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", g_out, "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"battery\":{\"model\":\"rint\",\"cells\":3,\"capacity_ah\":2.2");
    snprintf(plan_path, sizeof plan_path, "%s/plan.json", test_tmpdir());
    write_file(plan_path, out ? out : "");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "plot", g_out, "--plan", plan_path, NULL), 0);
    CHECK(err && !strstr(err, "give the battery"));
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "predict", g_out, "x.level=1", NULL), 0);
    CHECK_CONTAINS(out, "the results' battery (");
    CHECK_CONTAINS(out, "rint, 3 cells, 2.2 Ah) under the computer + its base load of 0 W");
    free(out);
}

/* Issue 22, item 2: a stand-alone plan maximizes what the folder's mission
 * names (x.size here, where the default is the first parameter). */
void test_plan_uses_results_maximize(void);
void test_plan_uses_results_maximize(void)
{
    char *out = NULL;

    write_exec_profile_with("level = [0, 1]; size = [1, 2];",
                            "mission = { duration_s = 600.0; maximize = \"x.size\"; };");
    CHECK_INT(run_powprof(NULL, NULL, "profile", g_cfg, "-o", g_out, NULL), 0);
    CHECK_INT(run_powprof(&out, NULL, "plan", g_out, NULL), 0);
    CHECK_CONTAINS(out, "best: x.size = 2");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", g_out, "--maximize", "x.level", NULL), 0);
    CHECK_CONTAINS(out, "best: x.level = 1");
    free(out);
}

/* Items 2, 10 and 14: plan's --resolution refused past 50000 values or
 * below what the values resolve, at once; a mission the battery model
 * cannot fly refused by the option; numbers are decimal. */
void test_plan_steps_and_missions(void);
void test_plan_steps_and_missions(void)
{
    static const char *const tiny[] = {"w.a=1e-8", "w.a=1e-12", "w.a=1e-16", "w.a=1e-300"};
    static const char *const missions[] = {"1e-9", "1e300", "0x10", "inf", "nan", "0"};
    const char *res = tmp_path("res");
    char *err = NULL, *out = NULL;

    tiny_profile_and_model(res);
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++) {
        double t0 = test_now_s();
        CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", "600", "--resolution", tiny[i], NULL),
                  2);
        CHECK(test_now_s() - t0 < 10);
        CHECK_CONTAINS(err, "plan: parameter w.a: a step of");
        CHECK_CONTAINS(err, "at most 50000: give a step of at least 6e-05");
        free(err);
    }
    CHECK_INT(pp(&out, NULL, "plan", res, "--mission-s", "600", "--resolution", "w.a=0.0001",
                 "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"feasible\"");
    free(out);
    for (size_t i = 0; i < sizeof missions / sizeof missions[0]; i++) {
        CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", missions[i], NULL), 2);
        CHECK_CONTAINS(err, "--mission-s");
        free(err);
    }
}
