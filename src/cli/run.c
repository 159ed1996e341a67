/* powprof run: the main job. Profile, model, plot and a short report. */
#include "cli.h"

#include "src/config/battery_config.h"
#include "src/base/log.h"
#include "src/plan/plan.h"
#include "plots/plot.h"
#include "src/config/profile.h"
#include "src/results/summary.h"
#include "src/base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char run_help[] =
    "usage: powprof run CONFIG [-o DIR] [--resume [--retry-failed]]\n"
    "                   [--keep-going | --max-failures N] [--yes] [--json]\n"
    "\n"
    "The whole method on one configuration file: `powprof profile` (every\n"
    "configuration measured), `powprof model` (the layer-2 surfaces), when\n"
    "CONFIG has a mission group `powprof plan --schedule` (written to\n"
    "DIR/plan.json), `powprof plot` (under DIR/plots/, the plan's state of\n"
    "charge over the mission included) and a short report: each\n"
    "configuration's mean power and energy (the computer's), energy per\n"
    "iteration, late frames and achieved rates (paced components), and the\n"
    "battery drained and the time to cutoff under the loads the plan counts\n"
    "(the computer through its converter plus the mission's base load, or the\n"
    "battery group's without a mission), said above the table; the cheapest in\n"
    "power and in energy per iteration; then the plan. DIR defaults to\n"
    "results/<profile name>.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       results folder\n"
    "  --resume               continue an interrupted run\n"
    "  --retry-failed         resume, and run the failed and timed-out\n"
    "                         configurations again (as profile's)\n"
    "  --max-failures N       stop the profile after N configurations in a row\n"
    "                         fail with the same reason (default 3)\n"
    "  --keep-going           never stop the profile for failures\n"
    "  --yes                  no confirmation for more than 10000 configurations\n"
    "  --json                 one JSON object on stdout instead of the text: the\n"
    "                         profile's outcome (as `profile --json`), the model's\n"
    "                         summary (estimator and typical error per metric),\n"
    "                         the plots (as `plot --json`), the plan (as `plan\n"
    "                         --json`, null without a mission) and the files\n"
    "                         written\n"
    "  -h, --help             this help\n"
    "\n"
    "exit status: the profile's when it stopped (2 profile or usage error, 4\n"
    "stopped after identical failures, 130 interrupted); else 0, or 125 when\n"
    "the model, the plots or the plan failed.\n";

enum { OPT_RESUME = 7000, OPT_YES, OPT_RETRY, OPT_MAX_FAILURES, OPT_KEEP_GOING };

/* Achieved-rate columns (<component>.achieved_fps / _hz) of s. */
static size_t achieved_columns(const pp_summary *s, int *col, size_t cap)
{
    size_t n = 0;

    for (size_t k = 0; k < s->n_metrics && n < cap; k++)
        if (strstr(s->metrics[k], ".achieved_"))
            col[n++] = (int)k;
    return n;
}

static void report_header(const pp_summary *s, const pp_battery_params *b, int mission,
                          const int *ach, size_t n_ach)
{
    printf("\nloads: mean and energy are the computer's (its rails counted in the total); drain "
           "and cutoff are the battery's with the computer at that mean power through its "
           "converter (efficiency %.2f) plus a base load of %.1f W (%s), the loads the plan "
           "counts.\n", b->efficiency, b->base_power_w,
           mission ? "the mission's" : "the battery group's");
    printf("%-5s", "id");
    for (size_t k = 0; k < s->n_params; k++)
        printf(" %16s", s->params[k]);
    printf(" %10s %12s %12s %6s", "mean [W]", "energy [J]", "J/iteration", "late");
    for (size_t a = 0; a < n_ach; a++)
        printf(" %*s", (int)strlen(s->metrics[ach[a]]), s->metrics[ach[a]]);
    printf(" %10s %12s\n", "drain [%]", "cutoff [min]");
}

/* One line per configuration: what was measured, and the battery under
 * the plan's loads. */
static void report(const char *dir, const pp_battery_params *b, int mission)
{
    pp_summary s;
    int w, e, it, d, ach[8];
    size_t n_ach, cheapest_w = 0, cheapest_it = 0;

    if (pp_summary_read(dir, &s) < 0)
        return;
    w = pp_summary_metric(&s, "total_mean_w");
    e = pp_summary_metric(&s, "total_energy_j");
    it = pp_summary_metric(&s, "energy_per_iteration_j");
    d = pp_summary_metric(&s, "duration_s");
    n_ach = achieved_columns(&s, ach, 8);
    report_header(&s, b, mission, ach, n_ach);
    for (size_t i = 0; i < s.n_rows; i++) {
        double mean = w >= 0 ? s.y[i * s.n_metrics + (size_t)w] : NAN, drain = NAN, ttc = NAN;
        printf("%-5ld", s.ids[i]);
        for (size_t k = 0; k < s.n_params; k++) {
            char text[PP_SUMMARY_LABEL_MAX];
            pp_summary_value_text(&s, k, s.x[i * s.n_params + k], text, sizeof text);
            printf(" %16s", text);
        }
        printf(" %10.4f %12.3f %12.5f", mean, e >= 0 ? s.y[i * s.n_metrics + (size_t)e] : NAN,
               it >= 0 ? s.y[i * s.n_metrics + (size_t)it] : NAN);
        if (s.late_frames[i] >= 0)
            printf(" %6ld", s.late_frames[i]);
        else
            printf(" %6s", "");
        for (size_t a = 0; a < n_ach; a++)
            printf(" %*.4g", (int)strlen(s.metrics[ach[a]]), s.y[i * s.n_metrics + (size_t)ach[a]]);
        if (!isnan(mean) && d >= 0 && s.y[i * s.n_metrics + (size_t)d] > 0)
            pp_plan_constant_load(b, mean, s.y[i * s.n_metrics + (size_t)d], &drain, &ttc);
        printf(" %10.5f %12.1f\n", 100 * drain, ttc / 60);
        if (w >= 0 && mean < s.y[cheapest_w * s.n_metrics + (size_t)w])
            cheapest_w = i;
        if (it >= 0 && s.y[i * s.n_metrics + (size_t)it] < s.y[cheapest_it * s.n_metrics + (size_t)it])
            cheapest_it = i;
    }
    printf("drain: over the configuration's duration; cutoff: if it ran on until the battery's "
           "cutoff\n");
    if (w >= 0)
        printf("lowest mean power: id %ld (%.4f W)\n", s.ids[cheapest_w],
               s.y[cheapest_w * s.n_metrics + (size_t)w]);
    if (it >= 0 && !isnan(s.y[cheapest_it * s.n_metrics + (size_t)it]))
        printf("lowest energy per iteration: id %ld (%.5f J)\n", s.ids[cheapest_it],
               s.y[cheapest_it * s.n_metrics + (size_t)it]);
    if (s.n_left_out)
        printf("%zu configurations did not run to the end (status not ok): see %s/summary.csv\n",
               s.n_left_out, dir);
    pp_summary_free(&s);
}

/* What the run needs of the profile, read before it runs. */
typedef struct run_settings {
    char dir[4096], mission[64], base[64], min_soc[64], maximize[160];
    int has_mission, base_given, phases; /* phases: plan --mission CONFIG */
    pp_battery_params battery; /* the plan's loads: the mission's base load when given */
} run_settings;

static int load_settings(const char *config, const char *out, run_settings *rs)
{
    pp_profile *p = malloc(sizeof *p);

    if (!p)
        return PP_EXIT_FAILURE;
    if (pp_profile_load(config, p) < 0) {
        free(p);
        return PP_EXIT_USAGE;
    }
    if (out)
        pp_strlcpy(rs->dir, out, sizeof rs->dir);
    else if (pp_path_fmt(rs->dir, sizeof rs->dir, "results", "%s", p->name) < 0) {
        free(p);
        return PP_EXIT_USAGE;
    }
    rs->has_mission = p->has_mission;
    rs->phases = p->has_mission && !p->mission.shorthand;
    rs->battery = p->battery;
    rs->base_given = p->has_mission && p->mission_base_power_w >= 0;
    if (rs->base_given)
        rs->battery.base_power_w = p->mission_base_power_w;
    pp_fmt(rs->mission, sizeof rs->mission, "%.10g", p->mission_s);
    pp_fmt(rs->base, sizeof rs->base, "%.10g", p->mission_base_power_w);
    pp_fmt(rs->min_soc, sizeof rs->min_soc, "%.10g", p->mission_min_soc);
    pp_strlcpy(rs->maximize, p->mission_maximize, sizeof rs->maximize);
    free(p);
    return 0;
}

/* ---- the steps ------------------------------------------------------------ */

/* What the command line asked. */
typedef struct run_args {
    const char *config, *out, *max_failures;
    int resume, retry_failed, keep_going, yes, json;
} run_args;

/* Run cmd(argc, argv) with its standard output into a temporary file and
 * parse its last line as JSON into *out (NULL when it is not JSON: the
 * reason logged). Returns cmd's exit status. */
static int capture_json(int (*cmd)(int, char **), int argc, char **argv, json_t **out)
{
    FILE *tmp = tmpfile();
    int saved, rc;
    long size;
    char *text = NULL, *last;
    json_error_t err;

    *out = NULL;
    if (!tmp)
        return PP_EXIT_FAILURE;
    fflush(stdout);
    if ((saved = dup(STDOUT_FILENO)) < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
        if (saved >= 0)
            close(saved);
        fclose(tmp);
        return PP_EXIT_FAILURE;
    }
    rc = cmd(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    if ((size = ftell(tmp)) > 0 && (text = calloc((size_t)size + 1, 1)) && fseek(tmp, 0, SEEK_SET) == 0 &&
        fread(text, 1, (size_t)size, tmp) == (size_t)size) {
        while (size > 0 && text[size - 1] == '\n')
            text[--size] = '\0';
        last = strrchr(text, '\n');
        if (!(*out = json_loads(last ? last + 1 : text, 0, &err)))
            pp_log_error("powprof %s --json: its output is not JSON: %s", argv[0], err.text);
    }
    free(text);
    fclose(tmp);
    return rc;
}

static int run_profile(const run_args *a, const run_settings *rs, json_t **outcome)
{
    char *pargv[16];
    int n = 0;

    const struct { int on; char *flag; } flags[] = {
        {a->resume, "--resume"}, {a->retry_failed, "--retry-failed"}, {a->keep_going, "--keep-going"},
        {a->yes, "--yes"}, {a->json, "--json"},
    };

    pargv[n++] = "profile";
    pargv[n++] = (char *)a->config;
    pargv[n++] = "-o";
    pargv[n++] = (char *)rs->dir;
    for (size_t i = 0; i < PP_ARRAY_SIZE(flags); i++)
        if (flags[i].on)
            pargv[n++] = flags[i].flag;
    if (a->max_failures) {
        pargv[n++] = "--max-failures";
        pargv[n++] = (char *)a->max_failures;
    }
    pargv[n] = NULL;
    *outcome = NULL;
    return a->json ? capture_json(pp_cmd_profile, n, pargv, outcome) : pp_cmd_profile(n, pargv);
}

/* `powprof plan ... --schedule` with the mission of the file: its JSON
 * into *plan and DIR/plan.json; with text, printed as well. Returns plan's
 * exit status (3: nothing completes the mission, still a plan). */
static int run_plan(const char *config, const run_settings *rs, int text, json_t **plan)
{
    char *pargv[16], path[4200];
    int n = 0, rc;
    pp_atomic_file af;

    pargv[n++] = "plan";
    pargv[n++] = (char *)rs->dir;
    pargv[n++] = rs->phases ? "--mission" : "--mission-s";
    pargv[n++] = rs->phases ? (char *)config : (char *)rs->mission;
    pargv[n++] = "-c";
    pargv[n++] = (char *)config;
    if (rs->base_given && !rs->phases) {
        pargv[n++] = "--base-power-w";
        pargv[n++] = (char *)rs->base;
    }
    if (rs->min_soc[0] != '-') {
        pargv[n++] = "--min-soc";
        pargv[n++] = (char *)rs->min_soc;
    }
    if (rs->maximize[0]) {
        pargv[n++] = "--maximize";
        pargv[n++] = (char *)rs->maximize;
    }
    pargv[n++] = "--schedule";
    if (text) {
        pargv[n] = NULL;
        return pp_cmd_plan(n, pargv);
    }
    pargv[n++] = "--json";
    pargv[n] = NULL;
    rc = capture_json(pp_cmd_plan, n, pargv, plan);
    pp_fmt(path, sizeof path, "%s/plan.json", rs->dir);
    if (*plan && pp_atomic_file_open(&af, path) == 0) {
        if (json_dumpf(*plan, af.fp, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) == 0 &&
            fputc('\n', af.fp) != EOF)
            pp_atomic_file_commit(&af);
        else
            pp_atomic_file_abort(&af);
    }
    return rc;
}

/* The model's summary: per group (labels) and metric, the estimator, its
 * value space and the typical error of a prediction, from DIR/model.json. */
static json_t *model_summary(const char *dir)
{
    char path[4200];
    json_t *model, *groups, *g, *out;
    size_t i, j;

    pp_fmt(path, sizeof path, "%s/model.json", dir);
    if (!(model = json_load_file(path, 0, NULL)))
        return json_null();
    out = json_array();
    groups = json_object_get(model, "groups");
    json_array_foreach(groups, i, g) {
        json_t *metrics = json_array(), *mt;
        json_array_foreach(json_object_get(g, "metrics"), j, mt)
            json_array_append_new(metrics, json_pack("{s:O?, s:O?, s:O?, s:O?}", "name",
                json_object_get(mt, "name"), "method", json_object_get(mt, "method"), "values",
                json_object_get(mt, "values"), "typical_error_pct",
                json_object_get(json_object_get(mt, "honest"), "mape_pct")));
        json_array_append_new(out, json_pack("{s:O?, s:O?, s:o}", "labels", json_object_get(g, "labels"),
                                             "rows", json_object_get(g, "rows"), "metrics", metrics));
    }
    g = json_pack("{s:s, s:O?, s:O?, s:o}", "file", path, "rows", json_object_get(model, "rows"),
                  "params", json_object_get(model, "params"), "groups", out);
    json_decref(model);
    return g;
}

static json_t *files_json(const run_settings *rs, int plan)
{
    static const char *const keys[] = {"summary", "run_json", "traces", "model", "grids", "plots", "plan"};
    static const char *const names[] = {"summary.csv", "run.json", "traces", "model.json", "model",
                                        "plots", "plan.json"};
    json_t *o = json_object();
    char path[4200];

    for (size_t i = 0; i < PP_ARRAY_SIZE(keys); i++) {
        int there = pp_path_fmt(path, sizeof path, rs->dir, "%s", names[i]) == 0 &&
                    access(path, F_OK) == 0;
        json_object_set_new(o, keys[i], (i + 1 < PP_ARRAY_SIZE(keys) || plan) && there
                                            ? json_string(path) : json_null());
    }
    return o;
}

/* The plots, with the plan's state of charge when there is a plan. */
static int run_plots(const char *config, const run_settings *rs, int have_plan, json_t **json)
{
    pp_plot_options o;
    pp_plot_plan plan;
    char path[4200];

    pp_plot_options_init(&o);
    pp_fmt(path, sizeof path, "%s/plan.json", rs->dir);
    if (have_plan && pp_battery_params_load(config, &o.battery) == 0 &&
        pp_plot_plan_load(path, &plan) == 0)
        o.plan = &plan;
    return pp_plot_results(rs->dir, &o, json);
}

/* Profile, model, plan, plots; the report and the plan in words, or one
 * JSON object. */
static int run_all(const run_args *a, run_settings *rs)
{
    json_t *profile = NULL, *plan = NULL, *plots = NULL;
    int rc = run_profile(a, rs, &profile), plan_rc = 0;

    if (rc == 0 || rc == 1) { /* 1: some configurations failed; the rest is worth modelling */
        rc = 0;
        if (!a->json)
            printf("\n== layer 2\n");
        if (pp_model_build(rs->dir, 0, 0, a->json) != 0)
            rc = PP_EXIT_FAILURE;
        if (rc == 0 && rs->has_mission && (plan_rc = run_plan(a->config, rs, 0, &plan)) != 0 &&
            plan_rc != 3)
            rc = plan_rc;
        if (rc == 0 && !a->json)
            printf("\n== plots\n");
        if (rc == 0)
            rc = run_plots(a->config, rs, plan != NULL, a->json ? &plots : NULL);
        if (rc == 0 && !a->json) {
            printf("\n== report");
            report(rs->dir, &rs->battery, rs->base_given);
            if (rs->has_mission) {
                printf("\n== mission plan\n");
                run_plan(a->config, rs, 1, NULL);
                if (plan)
                    printf("the plan as JSON: %s/plan.json; its state of charge over the mission: "
                           "%s/plots/%s.*\n", rs->dir, rs->dir,
                           rs->phases ? "plan-phases" : "plan-soc");
            }
        }
    }
    if (a->json) {
        json_t *root = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o}", "results", rs->dir,
                                 "exit_status", rc, "profile", profile ? profile : json_null(),
                                 "model", model_summary(rs->dir), "plots", plots ? plots : json_null(),
                                 "plan", plan ? plan : json_null(), "files",
                                 files_json(rs, plan != NULL));
        json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
        printf("\n");
        json_decref(root);
    } else {
        json_decref(plan);
    }
    return rc;
}

static int parse(int argc, char **argv, run_args *a)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"retry-failed", no_argument, NULL, OPT_RETRY},
        {"max-failures", required_argument, NULL, OPT_MAX_FAILURES},
        {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
        {"yes", no_argument, NULL, OPT_YES},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    int opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(run_help, stdout);
            return 1;
        } else if (opt == 'o') {
            a->out = optarg;
        } else if (opt == OPT_MAX_FAILURES) {
            a->max_failures = optarg; /* checked by profile */
        } else if (opt == OPT_RESUME || opt == OPT_YES || opt == OPT_RETRY || opt == OPT_KEEP_GOING ||
                   opt == PP_OPT_JSON) {
            *(opt == OPT_RESUME ? &a->resume : opt == OPT_YES ? &a->yes : opt == OPT_RETRY
                  ? &a->retry_failed : opt == OPT_KEEP_GOING ? &a->keep_going : &a->json) = 1;
        } else {
            fputs("Try 'powprof run --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs("powprof run: one configuration file expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    a->config = argv[optind]; /* the commands called below move optind */
    return 0;
}

int pp_cmd_run(int argc, char **argv)
{
    run_args a = {0};
    run_settings rs;
    int rc;

    if ((rc = parse(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    if ((rc = load_settings(a.config, a.out, &rs)) != 0)
        return rc;
    return run_all(&a, &rs);
}
