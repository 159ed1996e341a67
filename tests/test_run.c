/* powprof run through the library's pipeline (src/api/pipeline.h): the
 * checks before anything runs, --dry-run, Ctrl-C and --resume through the
 * model, the plots and the plan; the library pieces the command line
 * calls (the battery's rule, the results folder's name). */
#include "harness.h"
#include "exec_profile.h"

#include "src/api/pipeline.h"
#include "src/config/battery_config.h"
#include "src/results/folder.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* run.cfg on the fake Jetson tree: exec `sleep {t}` over six values, with
 * this mission group (line 2). */
static const char *sleep_cfg(const char *mission)
{
    static char cfg[600];
    char text[2048];

    snprintf(cfg, sizeof cfg, "%s/run.cfg", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"r\"; device = \"jetson\"; rate_hz = 20.0; sysfs_root = \"%s\"; };\n"
             "%s\ncomponents = ( { name = \"w\"; type = \"exec\"; command = [ \"sleep\", \"{t}\" ]; "
             "params = { t = [ 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 ]; }; } );\n",
             fixture("jetson-tx2-iio"), mission);
    write_file(cfg, text);
    return cfg;
}

static int exists(const char *dir, const char *name)
{
    char path[900];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Issue 22 (4): a mission that names no parameter, a reserve above the
 * battery's start, a results folder that cannot be written: said with the
 * file and line (or the folder) before the first configuration runs, exit
 * 2 as the help says, nothing measured. */
void test_cli_run_checks_before_profile(void);
void test_cli_run_checks_before_profile(void)
{
    const char *cfg = sleep_cfg("mission = { duration_s = 600.0; maximize = \"fps\"; };");
    char out_dir[600], file[600], below[700], *out = NULL, *err = NULL;

    snprintf(out_dir, sizeof out_dir, "%s/out", test_tmpdir());
    CHECK_INT(run_powprof(&out, &err, "run", cfg, "-o", out_dir, NULL), 2);
    CHECK_CONTAINS(err, "run.cfg:2: mission.maximize: 'fps' is no parameter of the profile "
                        "(its parameters: w.t)");
    CHECK(!strstr(err ? err : "", "configurations on")); /* the sweep never started */
    CHECK(!exists(out_dir, "summary.csv"));
    free(out);
    free(err);
    cfg = sleep_cfg("mission = { duration_s = 600.0; min_soc = 0.5; };\n"
                    "battery = { soc_start = 0.4; soc_cutoff = 0.1; };");
    CHECK_INT(run_powprof(NULL, &err, "run", cfg, "-o", out_dir, NULL), 2);
    CHECK_CONTAINS(err, "run.cfg:2: mission.min_soc: 0.5 is not below the battery's start");
    CHECK(!exists(out_dir, "summary.csv"));
    free(err);
    cfg = sleep_cfg("mission = { duration_s = 600.0; };");
    snprintf(file, sizeof file, "%s/a-file", test_tmpdir());
    write_file(file, "");
    snprintf(below, sizeof below, "%s/out", file);
    CHECK_INT(run_powprof(NULL, &err, "run", cfg, "-o", below, NULL), 2);
    CHECK_CONTAINS(err, "/a-file/out: ");
    CHECK_CONTAINS(err, "/a-file is not a folder");
    free(err);
    /* with --json too: one object, the exit status in it, nothing run */
    cfg = sleep_cfg("mission = { duration_s = 600.0; maximize = \"w.x\"; };");
    CHECK_INT(run_powprof(&out, NULL, "run", cfg, "-o", out_dir, "--json", NULL), 2);
    CHECK_CONTAINS(out, "\"exit_status\":2");
    CHECK_CONTAINS(out, "\"profile\":null");
    CHECK(!exists(out_dir, "summary.csv"));
    free(out);
}

/* run --dry-run: the configurations, the checks, what follows; nothing
 * written. */
void test_cli_run_dry_run(void);
void test_cli_run_dry_run(void)
{
    const char *cfg = sleep_cfg("mission = { duration_s = 600.0; base_power_w = 50; maximize = \"w.t\"; };");
    char out_dir[600], *out = NULL;
    json_t *root;

    snprintf(out_dir, sizeof out_dir, "%s/out", test_tmpdir());
    CHECK_INT(run_powprof(&out, NULL, "run", cfg, "-o", out_dir, "--dry-run", NULL), 0);
    CHECK_CONTAINS(out, "6 configurations of profile 'r' on device jetson");
    CHECK_CONTAINS(out, "ready: device jetson opens");
    CHECK_CONTAINS(out, "the plan of a 600 s mission maximizing w.t");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "run", cfg, "-o", out_dir, "--dry-run", "--json", NULL), 0);
    root = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(root != NULL);
    CHECK_INT(json_array_size(json_object_get(root, "configurations")), 6);
    CHECK_STR(json_string_value(json_object_get(root, "results")), out_dir);
    CHECK_STR(json_string_value(json_object_get(json_object_get(root, "mission"), "maximize")),
              "w.t");
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(root, "mission"), "base_power_w")),
               50, 1e-9);
    json_decref(root);
    free(out);
    CHECK(access(out_dir, F_OK) != 0);
    cfg = sleep_cfg("mission = { duration_s = 600.0; maximize = \"fps\"; };");
    CHECK_INT(run_powprof(NULL, &out, "run", cfg, "--dry-run", NULL), 2);
    CHECK_CONTAINS(out, "mission.maximize: 'fps' is no parameter");
    free(out);
}

/* The rows of a summary.csv (its lines less the header). */
static int rows(const char *path)
{
    char *text = slurp(path);
    int n = -1;

    for (const char *c = text; c && *c; c++)
        n += *c == '\n';
    free(text);
    return n;
}

/* Issue 22 (5): Ctrl-C during run says to continue with `powprof run ...
 * --resume`, which measures what is missing and then models, plans and
 * plots. */
void test_cli_run_interrupt_and_resume(void);
void test_cli_run_interrupt_and_resume(void)
{
    const char *cfg = sleep_cfg("mission = { duration_s = 600.0; base_power_w = 20; maximize = \"w.t\"; };");
    const char *bin = getenv("POWPROF_BIN");
    char out_dir[600], summary[700], err_path[700], expect[1600], *err, *out = NULL;
    json_t *root;
    pid_t pid;
    int st;

    snprintf(out_dir, sizeof out_dir, "%s/out", test_tmpdir());
    snprintf(summary, sizeof summary, "%s/summary.csv", out_dir);
    snprintf(err_path, sizeof err_path, "%s/err.txt", test_tmpdir());
    pid = fork();
    if (pid == 0) {
        FILE *fp = fopen(err_path, "w");
        int fd = fp ? fileno(fp) : 2;
        dup2(fd, 2);
        freopen("/dev/null", "w", stdout);
        execl(bin, bin, "run", cfg, "-o", out_dir, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 3000 && rows(summary) < 1; i++) /* one configuration saved */
        usleep(10000);
    kill(pid, SIGINT);
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 130);
    err = slurp(err_path);
    snprintf(expect, sizeof expect, "continue with:\n  powprof run %s -o %s --resume\n", cfg,
             out_dir);
    CHECK_CONTAINS(err, expect);
    CHECK(!exists(out_dir, "model.json"));
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "run", cfg, "-o", out_dir, "--resume", "--json", NULL), 0);
    root = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(root != NULL);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(root, "profile"), "ok")) +
                  json_integer_value(json_object_get(json_object_get(root, "profile"), "skipped")),
              6);
    CHECK(json_integer_value(json_object_get(json_object_get(root, "profile"), "skipped")) >= 1);
    CHECK(json_is_true(json_object_get(json_object_get(root, "plan"), "feasible")));
    CHECK_INT(json_integer_value(json_object_get(json_object_get(root, "plots"), "failed")), 0);
    json_decref(root);
    free(out);
    CHECK(exists(out_dir, "model.json"));
    CHECK(exists(out_dir, "plan.json"));
    CHECK(exists(out_dir, "plots/plan-soc.gp"));
}

/* The one rule of the battery's parameters: the default pack, then the
 * preset, then the file, then the model and the base load; checked. */
void test_battery_choice_rule(void);
void test_battery_choice_rule(void)
{
    char cfg[600];
    pp_battery_choice c;
    pp_battery_params b, preset;

    snprintf(cfg, sizeof cfg, "%s/b.cfg", test_tmpdir());
    write_file(cfg, "battery = {\n  capacity_ah = 5.0;\n  base_power_w = 7;\n};\n");
    pp_battery_choice_init(&c);
    CHECK_INT(pp_battery_choose(&c, &b), 0);
    pp_battery_params_default(&preset);
    CHECK_NEAR(b.capacity_ah, preset.capacity_ah, 0);
    c.preset = "drone-6s-10000";
    c.file = cfg;
    CHECK_INT(pp_battery_choose(&c, &b), 0);
    pp_battery_preset("drone-6s-10000", &preset);
    CHECK_NEAR(b.capacity_ah, 5.0, 0);          /* the file over the preset */
    CHECK_INT(b.cells, preset.cells);           /* the preset where the file says nothing */
    CHECK_NEAR(b.base_power_w, 7, 0);
    c.base_given = 1;
    c.base_power_w = 30;
    c.model = "thevenin";
    CHECK_INT(pp_battery_choose(&c, &b), 0);
    CHECK_NEAR(b.base_power_w, 30, 0);          /* given on its own over the file */
    CHECK_INT(b.model, PP_BATTERY_THEVENIN);
    c.base_power_w = -1;
    CHECK_INT(pp_battery_choose(&c, &b), -EINVAL);
    CHECK_CONTAINS(test_log(), "base_power_w");
    c.base_power_w = 0;
    c.min_soc_frac = 1.0;
    CHECK_INT(pp_battery_choose(&c, &b), -EINVAL);
    CHECK_CONTAINS(test_log(), "a reserve of 1 is not below the battery's start");
    pp_battery_choice_init(&c);
    c.preset_or_file = "/nonexistent/pack";
    CHECK_INT(pp_battery_choose(&c, &b), -ENOENT);
    CHECK_CONTAINS(test_log(), "battery '/nonexistent/pack': neither a preset");
}

/* The results folder of a sweep: named after the profile or its shard,
 * {node} and {shard} replaced, an unknown placeholder refused. */
void test_results_dir_name(void);
void test_results_dir_name(void)
{
    pp_shard all, two;
    char dir[4096];

    pp_shard_all(&all);
    CHECK_INT(pp_shard_parse("1/3", NULL, &two), 0);
    CHECK_INT(pp_results_dir_name("demo", NULL, &all, "n1", dir, sizeof dir), 0);
    CHECK_STR(dir, "results/demo");
    CHECK_INT(pp_results_dir_name("demo", NULL, &two, "n1", dir, sizeof dir), 0);
    CHECK_STR(dir, "results/demo-shard-1-of-3");
    CHECK_INT(pp_results_dir_name("demo", "out/{node}-{shard}", &two, "n1", dir, sizeof dir), 0);
    CHECK_STR(dir, "out/n1-1");
    CHECK_INT(pp_results_dir_name("demo", "out/{host}", &two, "n1", dir, sizeof dir), -EINVAL);
    CHECK_CONTAINS(test_log(), "results folder out/{host}: unknown placeholder {host}");
    CHECK_INT(pp_results_dir_name("../x", NULL, &all, "n1", dir, sizeof dir), -EINVAL);
}

/* A profile at g_cfg (harness.h): the profile group's extra keys, one exec
 * component with its command and params text, and extra groups. */
static void write_profile(const char *profile_keys, const char *component, const char *params,
                          const char *extra)
{
    char text[8192];

    snprintf(g_cfg, sizeof g_cfg, "%s/w2.cfg", test_tmpdir());
    snprintf(g_out, sizeof g_out, "%s/res2", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"w2\"; device = \"jetson\"; rate_hz = 20; sysfs_root = \"%s\"; "
             "%s };\n%s\ncomponents = ({ name = \"x\"; type = \"exec\"; %s\n"
             "  params = { %s }; });\n",
             fixture("jetson-tx2-iio"), profile_keys, extra, component, params);
    write_file(g_cfg, text);
}

/* Issue 32, item 2: a warm-up as long as the run is refused at the dry
 * run (file:line), and a run that leaves no sample after the warm-up is
 * failed, never "ok 0.000 W". */
void test_run_warmup_longer_than_run(void);
void test_run_warmup_longer_than_run(void)
{
    char *err = NULL, *summary, path[600];

    write_profile("warmup_s = 10.0;", "command = [\"sleep\", \"0.01\"]; duration_s = 2.0;",
                  "n = [1, 2];", "");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "--dry-run", NULL), 2);
    CHECK_CONTAINS(err, "w2.cfg:1: profile.warmup_s: 10 s is not shorter than a configuration's "
                        "run (2 s");
    free(err);
    /* a run whose length is not known before: measured, then failed */
    write_profile("warmup_s = 1.0;", "command = [\"sleep\", \"0.05\"];", "n = [1];", "");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, NULL), 1);
    CHECK_CONTAINS(err, "id 0 failed");
    CHECK_CONTAINS(err, "no samples after the warm-up (warmup_s = 1 s");
    free(err);
    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    summary = slurp(path);
    CHECK_CONTAINS(summary, "\n0,1,failed,");
    free(summary);
}

/* Issue 32, item 9: a list with a value twice (the same configuration
 * twice) is refused at its line. */
void test_run_profile_duplicate_values(void);
void test_run_profile_duplicate_values(void)
{
    char *err = NULL;

    write_profile("", "command = [\"true\"];", "n = [1, 2, 2];", "");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "--dry-run", NULL), 2);
    CHECK_CONTAINS(err, "w2.cfg:4: x.params.n: value 3 (2) is value 2 again");
    free(err);
}

/* Issue 32, items 3 and 6: `run --dry-run` finds every mission error the
 * plan would meet only after the whole profile (a phase bound naming no
 * parameter, a label that is none, a range holding no value, a base trace
 * that cannot be read), each at its line; a short base trace repeated to
 * fill a long phase is said, with a warning past a few times. */
void test_run_dry_run_checks_phases(void);
void test_run_dry_run_checks_phases(void)
{
    char *err = NULL, *out = NULL, trace[600], mission[2048];

    snprintf(trace, sizeof trace, "%s/short.csv", test_tmpdir());
    write_file(trace, "t_s,motor_w\n0,100\n1,110\n2,100\n");
    write_profile("", "command = [\"true\"];", "n = [1, 2]; mode = [\"a\", \"b\"];",
                  "mission = { phases = (\n"
                  "  { name = \"up\"; duration = \"1min\"; base_power_w = 100.0;\n"
                  "    min = { x = { nn = 3.0; }; }; },\n"
                  "  { name = \"cruise\"; duration = \"2min\"; base_trace = \"nosuch.csv\";\n"
                  "    max = { x = { n = 0.5; }; }; fixed = { x = { mode = \"c\"; }; }; }\n"
                  "); };");
    CHECK_INT(run_powprof(&out, &err, "run", g_cfg, "--dry-run", "-o", g_out, NULL), 2);
    CHECK_CONTAINS(err, "w2.cfg:4: phase 'up': x.nn is no parameter of the profile (its "
                        "parameters: x.n, x.mode)");
    CHECK_CONTAINS(err, "w2.cfg:6: phase 'cruise': x.mode: 'c' is not one of its labels");
    CHECK_CONTAINS(err, "w2.cfg:6: phase 'cruise': no value of x.n (1, 2) is within [-inf, 0.5]");
    CHECK_CONTAINS(err, "w2.cfg:5: phase 'cruise': base_trace");
    CHECK(!out || !strstr(out, "ready"));
    free(err);
    free(out);
    snprintf(mission, sizeof mission,
             "mission = { phases = (\n"
             "  { name = \"up\"; duration = \"1min\"; base_power_w = 100.0;\n"
             "    min = { x = { n = 2.0; }; }; },\n"
             "  { name = \"cruise\"; duration = \"2min\"; base_trace = \"%s\";\n"
             "    fixed = { x = { mode = \"b\"; }; }; }\n"
             "); };", trace);
    write_profile("", "command = [\"true\"];", "n = [1, 2]; mode = [\"a\", \"b\"];", mission);
    CHECK_INT(run_powprof(NULL, &err, "run", g_cfg, "--dry-run", "-o", g_out, NULL), 0);
    CHECK_CONTAINS(err, "w2.cfg:5: phase 'cruise': base_trace");
    CHECK_CONTAINS(err, "(3.0 s) is repeated 40 times to fill the phase's 2.0 min");
    free(err);
}

/* Issue 22, item 1: a resume after the profile's grid changed is refused,
 * naming the parameter and both value lists; nothing is measured. */
void test_resume_refuses_changed_profile(void);
void test_resume_refuses_changed_profile(void)
{
    char path[600], *err = NULL, *before, *after;

    write_exec_profile("level = [0, 3];");
    CHECK_INT(run_powprof(NULL, NULL, "profile", g_cfg, "-o", g_out, NULL), 0);
    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    before = slurp(path);
    write_exec_profile("level = [0, 1, 2, 3];");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, "--resume", NULL), 2);
    CHECK_CONTAINS(err, "run.json: made by another version of this profile");
    CHECK_CONTAINS(err, "x.level values [0,3] -> [0,1,2,3]. Resuming would mix");
    CHECK(err && !strstr(err, "battery.")); /* only what changed */
    free(err);
    after = slurp(path);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    /* the same profile resumes (nothing left to do) */
    write_exec_profile("level = [0, 3];");
    CHECK_INT(run_powprof(NULL, NULL, "profile", g_cfg, "-o", g_out, "--resume", NULL), 0);
}

/* Issue 22, items 7 and 8: the run's report names the load of each
 * "battery drained" figure (the mission's 60 W, the battery group's 0 W of
 * summary.csv), and no energy per iteration adds two components' steps. */
void test_run_report_names_loads(void);
void test_run_report_names_loads(void)
{
    char path[600], *out = NULL, *text, *line;

    snprintf(g_cfg, sizeof g_cfg, "%s/two.cfg", test_tmpdir());
    snprintf(g_out, sizeof g_out, "%s/res", test_tmpdir());
    snprintf(path, sizeof path,
             "profile = { name = \"w\"; device = \"jetson\"; rate_hz = 100; sysfs_root = \"%s\"; };\n",
             fixture("jetson-tx2-iio"));
    text = malloc(4096);
    snprintf(text, 4096, "%smission = { duration_s = 600.0; base_power_w = 60.0; };\n"
             "components = ({ name = \"x\"; type = \"exec\"; command = [\"sleep\", \"0.03\"];\n"
             "  params = { level = [0, 1, 2]; }; }, { name = \"y\"; type = \"exec\";\n"
             "  command = [\"true\"]; });\n", path);
    write_file(g_cfg, text);
    free(text);
    CHECK_INT(run_powprof(&out, NULL, "run", g_cfg, "-o", g_out, NULL), 0);
    CHECK_CONTAINS(out, "by the computer + 60.0 W (the mission's base load)");
    CHECK_CONTAINS(out, "summary.csv's soc_drain and its plots count the battery group's base "
                        "load instead (0.0 W)");
    CHECK_CONTAINS(out, "J/iteration -: none where the components differ");
    CHECK(!strstr(out ? out : "", "lowest energy per iteration"));
    CHECK_CONTAINS(out, "*: the battery under the computer + the battery group's base load");
    free(out);
    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    text = slurp(path);
    line = text ? strstr(text, "\n0,0,ok,") : NULL;
    CHECK(line != NULL);
    if (text && line) { /* the field under energy_per_iteration_j is empty */
        size_t col = 0, at = 0;
        for (const char *c = text; c < strstr(text, "energy_per_iteration_j"); c++)
            col += *c == ',';
        for (line++; at < col && *line; line++)
            at += *line == ',';
        CHECK(*line == ',');
    }
    free(text);
}
