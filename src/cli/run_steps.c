/* powprof run, step by step: the library's pipeline (pp_pipeline_run_all)
 * with the sweep's progress (sweep_ui.c), each step's outcome, a report
 * of each configuration under the plan's loads and the plan in words, or
 * one JSON object. */
#include "cli.h"
#include "sweep_ui.h"

#include "src/api/pipeline.h"

#include <jansson.h>

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

int pp_cli_run_steps(pp_cli_run *a, const pp_profile *p)
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
