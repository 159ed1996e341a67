/* powprof run, step by step: the library's pipeline (pp_pipeline_run_all)
 * with the sweep's progress (sweep_ui.c), each step's outcome, a report
 * of each configuration under the plan's loads and the plan in words, or
 * one JSON object. */
#include "cli.h"
#include "sweep_ui.h"

#include "src/api/pipeline.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the hooks print into, and the JSON they keep. */
typedef struct run_ui {
    pp_cli_run *a;
    int profile_status;
    json_t *profile_json, *plots_json;
} run_ui;

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
static int on_profile(void *ctx, const pp_pipeline_run *r)
{
    run_ui *ui = ctx;
    pp_cli_run *a = ui->a;
    char why[256];

    if (a->max_failures && pp_sweep_ask_max_failures(&a->rq, a->max_failures, why,
                                                     sizeof why) < 0) {
        fprintf(stderr, "powprof run: --max-failures %s: %s\n", a->max_failures, why);
        return PP_EXIT_USAGE;
    }
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
    report(r->dir, &r->loads, r->mission && r->p->mission_base_power_w >= 0,
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
    json_t *root = json_pack("{s:s, s:i, s:o, s:o, s:o, s:O, s:o}", "results", r->dir,
                             "exit_status", rc, "profile",
                             ui->profile_json ? ui->profile_json : json_null(), "model",
                             pp_model_summary_json(r->dir), "plots",
                             ui->plots_json ? ui->plots_json : json_null(), "plan",
                             r->plan_json ? r->plan_json : json_null(), "files",
                             pp_pipeline_files_json(r->dir, r->plan_json != NULL));

    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(root);
    ui->profile_json = ui->plots_json = NULL;
}

/* The exit status of the pipeline's outcome rc (r->step: where it stopped). */
static int exit_status(const pp_pipeline_run *r, int rc)
{
    if (rc >= 0)
        return rc;
    switch (r->step) {
    case PP_PIPELINE_CHECK:
        return PP_EXIT_USAGE;
    case PP_PIPELINE_PLAN:
        return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    case PP_PIPELINE_PLOTS:
        return rc == -EINVAL ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    default:
        return PP_EXIT_FAILURE;
    }
}

/* --dry-run: the configurations and the checks, and what follows them. */
static int dry_run(const pp_cli_run *a, const pp_pipeline_run *r)
{
    const pp_plan_options *o = r->mission;
    json_t *more;
    int rc;

    if (pp_pipeline_check(r->p, a->rq.out_dir) < 0)
        return PP_EXIT_USAGE;
    more = json_pack("{s:s, s:o}", "results", a->rq.out_dir, "mission",
                     o ? json_pack("{s:f, s:o, s:f, s:f}", "mission_s", o->mission_s, "maximize",
                                   o->maximize ? json_string(o->maximize) : json_null(),
                                   "base_power_w", o->battery.base_power_w, "min_soc",
                                   o->min_soc_frac)
                       : json_null());
    rc = pp_cli_dry_run(r->p, a->json, &a->rq.shard, more);
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
        rc = exit_status(&r, pp_pipeline_run_all(&r, &h));
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
