/* powprof run: the main job. The command line of it: the pipeline itself
 * is the library's (pp_pipeline_run_all, src/api/pipeline.h), its steps
 * shown below. */
#include "cli.h"
#include "sweep_ui.h"
#include "src/api/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>

static const char run_head[] =
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
    "DIR --resume` measures what is missing, then models, plans and plots.\n";

static const char run_tail[] =
    "exit status: 2 usage or profile error (the checks above included: nothing\n"
    "ran); the profile's when it stopped (4 stopped after identical failures,\n"
    "130 interrupted); else 0, or 125 when the model, the plots or the plan\n"
    "failed. --dry-run: 0 ready, 1 when a check of the device or a component\n"
    "fails.\n";

static int parse(int argc, char **argv, pp_cli_run *a)
{
    const pp_opt rows[] = {
        PP_OPT_STRING('o', "output", &a->rq.out_dir, "DIR", "results folder"),
        PP_OPT_BOOL(0, "dry-run", &a->dry, "list the configurations (as profile --dry-run), make\n"
                    "the checks of the device, the components and the\nsteps after the profile; "
                    "run nothing"),
        PP_OPT_BOOL(0, "resume", &a->rq.resume, "continue an interrupted run"),
        PP_OPT_CALLBACK(0, "retry-failed", &a->rq, NULL, "resume, and run the failed and "
                        "timed-out\nconfigurations again (as profile's)", pp_cli_opt_retry),
        PP_OPT_STRING(0, "max-failures", &a->max_failures, "N", "stop the profile after N "
                      "configurations in a row\nfail with the same reason (default 3)"),
        PP_OPT_CALLBACK(0, "keep-going", &a->rq, NULL, "never stop the profile for failures",
                        pp_cli_opt_keep_going),
        PP_OPT_BOOL(0, "yes", &a->yes, "no confirmation for more than 10000 configurations"),
        PP_OPT_BOOL(0, "json", &a->json, "one JSON object on stdout instead of the text: the\n"
                    "profile's outcome (as `profile --json`), the model's\nsummary (estimator and "
                    "typical error per metric),\nthe plots (as `plot --json`), the plan (as `plan\n"
                    "--json`, null without a mission) and the files\nwritten"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"run", run_head, run_tail, rows, NULL, 0};
    int rc;

    pp_sweep_ask_init(&a->rq, "run");
    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc;
    if (optind != argc - 1) {
        fputs("powprof run: one configuration file expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    a->rq.config = argv[optind];
    a->rq.json = a->json;
    return 0;
}

/* The profile of the file and its results folder: 0 or an exit status
 * (said why). */
static int load(pp_cli_run *a, pp_profile *p)
{
    if (pp_profile_load(a->rq.config, p) < 0)
        return PP_EXIT_USAGE;
    return pp_sweep_ask_resolve(p, &a->rq) < 0 ? PP_EXIT_USAGE : 0;
}

/* The pipeline with each step printed (below). An exit status. */
static int run_steps(pp_cli_run *a, const pp_profile *p);

int pp_cmd_run(int argc, char **argv)
{
    pp_cli_run a = {0};
    pp_profile *p = malloc(sizeof *p);
    int rc;

    if (!p)
        return PP_EXIT_FAILURE;
    if ((rc = parse(argc, argv, &a)) != 0) {
        free(p);
        return rc == 1 ? 0 : rc;
    }
    if ((rc = load(&a, p)) == 0)
        rc = run_steps(&a, p);
    free(p);
    return rc;
}

/* ---- run, step by step: the library's pipeline (pp_pipeline_run_all)
 * with the sweep's progress (sweep_ui.c), each step's outcome, a report
 * of each configuration under the plan's loads and the plan in words, or
 * one JSON object ---- */

/* What the hooks print into, and the JSON they keep. */
typedef struct run_ui {
    pp_cli_run *a;
    int profile_status;
    json_t *profile_json, *plots_json;
} run_ui;

/* ---- the steps ------------------------------------------------------------ */

/* The profile: confirmed when large, then swept. An exit status. */
static int on_profile(void *ctx, const pp_pipeline_run *r)
{
    run_ui *ui = ctx;
    pp_cli_run *a = ui->a;
    char why[256];

    if (a->max_failures &&
        pp_cli_refused("run", "--max-failures", a->max_failures,
                       pp_sweep_ask_max_failures(&a->rq, a->max_failures, why, sizeof why),
                       why) < 0)
        return PP_EXIT_USAGE;
    if (pp_cli_sweep_confirm(&a->rq, pp_profile_count(r->p), a->yes) < 0)
        return PP_EXIT_USAGE;
    return pp_cli_sweep_run(r->p, &a->rq, a->json ? &ui->profile_json : NULL);
}

/* Each step's outcome: the model's table, the plots. */
static void on_step(void *ctx, const pp_pipeline_run *r, int done)
{
    run_ui *ui = ctx;

    if (r->step == PP_PIPELINE_MODEL && !ui->a->json && !done)
        printf("\n== layer 2\n");
    else if (r->step == PP_PIPELINE_MODEL && !ui->a->json)
        pp_cli_model_print(&r->model, r->dir, 0);
    else if (r->step == PP_PIPELINE_PLOTS && !ui->a->json && !done)
        printf("\n== plots\n");
    else if (r->step == PP_PIPELINE_PLOTS && done)
        pp_cli_plot_show(r->dir, &r->plot_opts, &r->plots, ui->a->json ? &ui->plots_json : NULL);
}

/* The report and the plan in words. */
static void print_report(const pp_pipeline_run *r)
{
    printf("\n== report");
    pp_run_report_print(stdout, r->dir, &r->loads, r->mission && r->p->mission_base_power_w >= 0,
           r->p->battery.base_power_w);
    if (!r->plan && !r->phases)
        return;
    printf("\n== mission plan\n");
    if (r->phases)
        pp_cli_plan_phases_print(&r->plan_model, r->mission, &r->p->mission, r->phases);
    else
        pp_cli_plan_print(&r->plan_model, r->mission, r->plan);
    printf("the plan as JSON: %s/plan.json; its state of charge over the mission: "
           "%s/plots/%s.*\n", r->dir, r->dir, r->phases ? "plan-phases" : "plan-soc");
}

static void print_json(const pp_pipeline_run *r, run_ui *ui, int rc)
{
    json_t *root = pp_pipeline_run_doc(r, rc, ui->profile_json, ui->plots_json);

    ui->profile_json = ui->plots_json = NULL;
    if (!root)
        return;
    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(root);
}

/* --dry-run: the configurations and the checks, and what follows them. */
static int dry_run(const pp_cli_run *a, const pp_pipeline_run *r)
{
    int rc;

    if (pp_pipeline_check(r->p, a->rq.out_dir) < 0)
        return PP_EXIT_USAGE;
    rc = pp_cli_dry_run(r->p, a->json, &a->rq.shard, pp_pipeline_dry_doc(r));
    if (!a->json)
        pp_pipeline_dry_text(r, stdout);
    return rc;
}

static int run_steps(pp_cli_run *a, const pp_profile *p)
{
    run_ui ui = {a, 0, NULL, NULL};
    pp_pipeline_hooks h = {on_profile, on_step, &ui};
    pp_pipeline_run r;
    int rc;

    if (pp_pipeline_prepare(p, a->rq.out_dir, &r) < 0) {
        pp_pipeline_run_free(&r);
        return PP_EXIT_FAILURE;
    }
    if (a->dry)
        rc = dry_run(a, &r);
    else {
        rc = pp_pipeline_exit_status(&r, pp_pipeline_run_all(&r, &h));
        if (rc == 0 && !a->json)
            print_report(&r);
        if (a->json)
            print_json(&r, &ui, rc);
    }
    json_decref(ui.profile_json);
    json_decref(ui.plots_json);
    pp_pipeline_run_free(&r);
    return rc;
}
