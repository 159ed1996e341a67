/* powprof run: the main job. Profile, model, plan, plot and a short report,
 * through the library's pipeline (src/api/pipeline.h). */
#include "cli.h"

#include "src/api/pipeline.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char run_help[] =
    "usage: powprof run CONFIG [-o DIR] [--dry-run] [--resume [--retry-failed]]\n"
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
    "Before the first configuration runs, everything the later steps need is\n"
    "checked: the mission's keys (maximize names a numeric parameter of the\n"
    "profile, min_soc lies below the battery's start, the base load), the\n"
    "battery, and that DIR can be written (the plots need nothing more); a\n"
    "problem is reported with the file and line, and nothing runs. Interrupted\n"
    "(Ctrl-C), run prints the command that continues it: `powprof run CONFIG -o\n"
    "DIR --resume` measures what is missing, then models, plans and plots.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       results folder\n"
    "  --dry-run              list the configurations (as profile --dry-run), make\n"
    "                         the checks of the device, the components and the\n"
    "                         steps after the profile; run nothing\n"
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
    "exit status: 2 usage or profile error (the checks above included: nothing\n"
    "ran); the profile's when it stopped (4 stopped after identical failures,\n"
    "130 interrupted); else 0, or 125 when the model, the plots or the plan\n"
    "failed. --dry-run: 0 ready, 1 when a check of the device or a component\n"
    "fails.\n";

/* What the command line asked. */
typedef struct run_args {
    pp_cli_sweep rq;          /* the sweep; its folder once resolved */
    const char *max_failures; /* as given (checked with the sweep) */
    int yes, json, dry;
} run_args;

/* What the run made, step by step. */
typedef struct run_state {
    const pp_profile *p;
    pp_plan_options *mission;   /* the plan's options (NULL: no mission) */
    pp_battery_params loads;    /* the report's: the pack with the mission's base load */
    pp_model plan_model;        /* the model the plan read (when plan) */
    pp_plan_result *plan;       /* the plan (NULL: none) */
    struct pp_phases_plan *phases; /* the plan per phase, for a mission of phases */
    json_t *profile_json, *plan_json, *plots_json;
} run_state;

static void report_header(const pp_run_report *rp, const pp_battery_params *b, int mission)
{
    const pp_summary *s = &rp->sum;

    printf("\nloads: mean and energy are the computer's (its rails counted in the total); drain "
           "and cutoff are the battery's with the computer at that mean power through its "
           "converter (efficiency %.2f) plus a base load of %.1f W (%s), the loads the plan "
           "counts.\n", b->efficiency, b->base_power_w,
           mission ? "the mission's" : "the battery group's");
    printf("%-5s", "id");
    for (size_t k = 0; k < s->n_params; k++)
        printf(" %16s", s->params[k]);
    printf(" %10s %12s %12s %6s", "mean [W]", "energy [J]", "J/iteration", "late");
    for (size_t a = 0; a < rp->n_rates; a++)
        printf(" %*s", (int)strlen(s->metrics[rp->rate[a]]), s->metrics[rp->rate[a]]);
    printf(" %10s %12s\n", "drain [%]", "cutoff [min]");
}

static void report_row(const pp_run_report *rp, size_t i)
{
    const pp_summary *s = &rp->sum;
    char text[PP_SUMMARY_LABEL_MAX];

    printf("%-5ld", s->ids[i]);
    for (size_t k = 0; k < s->n_params; k++) {
        pp_summary_value_text(s, k, s->x[i * s->n_params + k], text, sizeof text);
        printf(" %16s", text);
    }
    printf(" %10.4f %12.3f", pp_run_report_value(rp, i, rp->mean_w),
           pp_run_report_value(rp, i, rp->energy_j));
    if (isnan(pp_run_report_value(rp, i, rp->per_iteration_j)))
        printf(" %12s", "-");
    else
        printf(" %12.5f", pp_run_report_value(rp, i, rp->per_iteration_j));
    if (s->late_frames[i] >= 0)
        printf(" %6ld", s->late_frames[i]);
    else
        printf(" %6s", "");
    for (size_t a = 0; a < rp->n_rates; a++)
        printf(" %*.4g", (int)strlen(s->metrics[rp->rate[a]]),
               pp_run_report_value(rp, i, rp->rate[a]));
    printf(" %10.5f %12.1f\n", 100 * rp->drain_frac[i], rp->cutoff_s[i] / 60);
}

/* One line per configuration: what was measured, and the battery under
 * the plan's loads. */
static void report(const char *dir, const pp_battery_params *b, int mission, double group_base_w)
{
    pp_run_report rp;
    const pp_summary *s = &rp.sum;

    if (pp_run_report_make(dir, b, &rp) < 0)
        return;
    report_header(&rp, b, mission);
    for (size_t i = 0; i < s->n_rows; i++)
        report_row(&rp, i);
    printf("drain: the battery drained over the configuration's duration by the computer + "
           "%.1f W (%s); cutoff: if it ran on until the battery's cutoff. summary.csv's soc_drain "
           "and its plots count the battery group's base load instead (%.1f W)\n",
           b->base_power_w, mission ? "the mission's base load" : "the battery group's base load",
           group_base_w);
    if (rp.mean_w >= 0 && s->n_rows)
        printf("lowest mean power: id %ld (%.4f W)\n", s->ids[rp.cheapest_w],
               pp_run_report_value(&rp, rp.cheapest_w, rp.mean_w));
    if (rp.per_iteration_j >= 0 && s->n_rows &&
        !isnan(pp_run_report_value(&rp, rp.cheapest_per_iteration, rp.per_iteration_j)))
        printf("lowest energy per iteration: id %ld (%.5f J)\n", s->ids[rp.cheapest_per_iteration],
               pp_run_report_value(&rp, rp.cheapest_per_iteration, rp.per_iteration_j));
    if (s->n_rows && isnan(pp_run_report_value(&rp, 0, rp.per_iteration_j)))
        printf("J/iteration -: none where the components differ (their iterations are not one "
               "unit of work)\n");
    if (s->n_left_out)
        printf("%zu configurations did not run to the end (status not ok): see %s/summary.csv\n",
               s->n_left_out, dir);
    pp_run_report_free(&rp);
}

/* ---- the steps ------------------------------------------------------------ */

/* The profile: confirmed when large, then swept. An exit status. */
static int step_profile(run_args *a, run_state *st)
{
    uint64_t n = pp_profile_count(st->p);

    if (a->max_failures && pp_cli_max_failures("run", a->max_failures, &a->rq) < 0)
        return PP_EXIT_USAGE;
    if (n > PP_PROFILE_CONFIRM_ABOVE && !a->yes &&
        pp_cli_sweep_confirm("run", a->rq.config, n) < 0)
        return PP_EXIT_USAGE;
    return pp_cli_sweep_run(st->p, &a->rq, a->json ? &st->profile_json : NULL);
}

/* Layer 2: the model built and saved; its table printed with text. */
static int step_model(const run_args *a)
{
    pp_model m;

    if (!a->json)
        printf("\n== layer 2\n");
    if (pp_pipeline_model(a->rq.out_dir, NULL, &m) < 0)
        return PP_EXIT_FAILURE;
    if (!a->json)
        pp_cli_model_print(&m, a->rq.out_dir, 0);
    pp_model_free(&m);
    return 0;
}

/* The mission's plan with its schedule, kept in DIR/plan.json. 0 (a plan,
 * feasible or not) or an exit status. */
static int step_plan(const run_args *a, run_state *st)
{
    int rc = pp_pipeline_plan_model(a->rq.out_dir, st->mission->maximize, NULL, 0,
                                    &st->plan_model);

    if (rc == 0 && (rc = pp_pipeline_mission_fixed(st->p, st->mission)) < 0)
        pp_model_free(&st->plan_model);
    if (rc < 0)
        return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    if (!st->p->mission.shorthand) { /* phases: a plan per phase */
        if ((rc = pp_cli_plan_phases_make(&st->plan_model, st->mission, &st->p->mission,
                                          &st->phases, &st->plan_json)) < 0) {
            pp_model_free(&st->plan_model);
            return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
        }
        return pp_pipeline_plan_save(a->rq.out_dir, st->plan_json) < 0 ? PP_EXIT_FAILURE : 0;
    }
    if (!(st->plan = malloc(sizeof *st->plan)) ||
        (rc = pp_plan(&st->plan_model, st->mission, st->plan)) < 0) {
        free(st->plan);
        st->plan = NULL;
        pp_model_free(&st->plan_model);
        return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    }
    st->plan_json = pp_plan_json(&st->plan_model, st->mission, st->plan);
    /* the plots read plan.json: a plan not saved (said why) stops them */
    return pp_pipeline_plan_save(a->rq.out_dir, st->plan_json) < 0 ? PP_EXIT_FAILURE : 0;
}

/* The plots, with the plan's state of charge when there is a plan. */
static int step_plots(const run_args *a, run_state *st)
{
    pp_plot_options o;
    pp_plot_plan plan;
    char path[4200];

    if (!a->json)
        printf("\n== plots\n");
    pp_plot_options_init(&o);
    o.battery = st->p->battery;
    pp_fmt(path, sizeof path, "%s/plan.json", a->rq.out_dir);
    if ((st->plan || st->phases) && pp_plot_plan_load(path, &plan) == 0)
        o.plan = &plan;
    return pp_cli_plot(a->rq.out_dir, &o, a->json ? &st->plots_json : NULL);
}

/* The report and the plan in words. */
static void step_report(const run_args *a, const run_state *st)
{
    printf("\n== report");
    report(a->rq.out_dir, &st->loads, st->mission && st->p->mission_base_power_w >= 0,
           st->p->battery.base_power_w);
    if (!st->plan && !st->phases)
        return;
    printf("\n== mission plan\n");
    if (st->phases)
        pp_cli_plan_phases_print(&st->plan_model, st->mission, &st->p->mission, st->phases);
    else
        pp_cli_plan_print(&st->plan_model, st->mission, st->plan);
    printf("the plan as JSON: %s/plan.json; its state of charge over the mission: "
           "%s/plots/%s.*\n", a->rq.out_dir, a->rq.out_dir, st->phases ? "plan-phases" : "plan-soc");
}

static json_t *files_json(const char *dir, int plan)
{
    static const char *const keys[] = {"summary", "run_json", "traces", "model", "grids", "plots", "plan"};
    static const char *const names[] = {"summary.csv", "run.json", "traces", "model.json", "model",
                                        "plots", "plan.json"};
    json_t *o = json_object();
    char path[4200];

    for (size_t i = 0; i < PP_ARRAY_SIZE(keys); i++) {
        int there = pp_path_fmt(path, sizeof path, dir, "%s", names[i]) == 0 &&
                    access(path, F_OK) == 0;
        json_object_set_new(o, keys[i], (i + 1 < PP_ARRAY_SIZE(keys) || plan) && there
                                            ? json_string(path) : json_null());
    }
    return o;
}

static void print_json(const run_args *a, run_state *st, int rc)
{
    json_t *root = json_pack("{s:s, s:i, s:o, s:o, s:o, s:O, s:o}", "results", a->rq.out_dir,
                             "exit_status", rc, "profile",
                             st->profile_json ? st->profile_json : json_null(), "model",
                             pp_model_summary_json(a->rq.out_dir), "plots",
                             st->plots_json ? st->plots_json : json_null(), "plan",
                             st->plan_json ? st->plan_json : json_null(), "files",
                             files_json(a->rq.out_dir, st->plan_json != NULL));

    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(root);
    st->profile_json = st->plots_json = NULL;
}

/* Profile, model, plan, plots; the report and the plan in words, or one
 * JSON object. An exit status. */
static int run_all(run_args *a, run_state *st)
{
    int rc = pp_pipeline_check(st->p, a->rq.out_dir) < 0 ? PP_EXIT_USAGE : 0;

    if (rc == 0)
        rc = step_profile(a, st);
    if (rc == 0 || rc == 1) { /* 1: some configurations failed; the rest is worth modelling */
        rc = step_model(a);
        if (rc == 0 && st->mission)
            rc = step_plan(a, st);
        if (rc == 0)
            rc = step_plots(a, st);
        if (rc == 0 && !a->json)
            step_report(a, st);
    }
    if (a->json)
        print_json(a, st, rc);
    return rc;
}

/* --dry-run: the configurations and the checks, and what follows them. */
static int dry_run(const run_args *a, const run_state *st)
{
    const pp_plan_options *o = st->mission;
    json_t *more;
    int rc;

    if (pp_pipeline_check(st->p, a->rq.out_dir) < 0)
        return PP_EXIT_USAGE;
    more = json_pack("{s:s, s:o}", "results", a->rq.out_dir, "mission",
                     o ? json_pack("{s:f, s:o, s:f, s:f}", "mission_s", o->mission_s, "maximize",
                                   o->maximize ? json_string(o->maximize) : json_null(),
                                   "base_power_w", o->battery.base_power_w, "min_soc",
                                   o->min_soc_frac)
                       : json_null());
    rc = pp_cli_dry_run(st->p, a->json, &a->rq.shard, more);
    if (!a->json) {
        printf("then: the model (%s/model.json), ", a->rq.out_dir);
        if (o)
            printf("the plan of a %g s mission maximizing %s (%s/plan.json), ", o->mission_s,
                   o->maximize ? o->maximize : "the planner's choice", a->rq.out_dir);
        printf("the plots (%s/plots/) and the report; the mission, the battery and the "
               "results folder are checked\n", a->rq.out_dir);
    }
    return rc;
}

/* One option into a: 0, 1 (--help, printed) or PP_EXIT_USAGE. */
static int run_option(int opt, const char *arg, run_args *a)
{
    switch (opt) {
    case 'h':
        fputs(run_help, stdout);
        return 1;
    case 'o':
        a->rq.out_dir = arg;
        return 0;
    case PP_OPT_MAX_FAILURES:
        a->max_failures = arg;
        return 0;
    case PP_OPT_RESUME:
        a->rq.resume = 1;
        return 0;
    case PP_OPT_RETRY:
        a->rq.retry_failed = a->rq.resume = 1;
        return 0;
    case PP_OPT_KEEP_GOING:
        a->rq.max_failures = 0;
        return 0;
    case PP_OPT_YES:
    case PP_OPT_DRY_RUN:
    case PP_OPT_JSON:
        *(opt == PP_OPT_YES ? &a->yes : opt == PP_OPT_DRY_RUN ? &a->dry : &a->json) = 1;
        return 0;
    default:
        fputs("Try 'powprof run --help'.\n", stderr);
        return PP_EXIT_USAGE;
    }
}

static int parse(int argc, char **argv, run_args *a)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        PP_CLI_SWEEP_LONG_OPTIONS,
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    int opt, rc;

    pp_cli_sweep_init(&a->rq, "run");
    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1)
        if ((rc = run_option(opt, optarg, a)) != 0)
            return rc;
    if (optind != argc - 1) {
        fputs("powprof run: one configuration file expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    a->rq.config = argv[optind];
    a->rq.json = a->json;
    return 0;
}

/* The profile of the file, its results folder and its mission: 0 or an
 * exit status (said why). */
static int load(run_args *a, pp_profile *p, run_state *st)
{
    int rc;

    if (pp_profile_load(a->rq.config, p) < 0)
        return PP_EXIT_USAGE;
    if ((rc = pp_cli_sweep_resolve(p, &a->rq)) != 0)
        return rc;
    st->p = p;
    st->loads = p->battery;
    if (p->has_mission && p->mission_base_power_w >= 0)
        st->loads.base_power_w = p->mission_base_power_w;
    if (!p->has_mission)
        return 0;
    if (!(st->mission = malloc(sizeof *st->mission)))
        return PP_EXIT_FAILURE;
    if (pp_pipeline_mission(p, st->mission) < 0) /* the rest is said by the checks */
        memset(st->mission, 0, sizeof *st->mission);
    return 0;
}

int pp_cmd_run(int argc, char **argv)
{
    run_args a = {0};
    run_state st = {0};
    pp_profile *p = malloc(sizeof *p);
    int rc;

    if (!p)
        return PP_EXIT_FAILURE;
    if ((rc = parse(argc, argv, &a)) != 0) {
        free(p);
        return rc == 1 ? 0 : rc;
    }
    if ((rc = load(&a, p, &st)) == 0)
        rc = a.dry ? dry_run(&a, &st) : run_all(&a, &st);
    if (st.plan || st.phases) {
        pp_model_free(&st.plan_model);
        free(st.plan);
        pp_cli_plan_phases_free(st.phases);
    }
    json_decref(st.plan_json);
    free(st.mission);
    free(p);
    return rc;
}
