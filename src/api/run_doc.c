/* run_doc.c - what `powprof run` answers (pipeline.h): the report of each
 * configuration under the plan's loads, the exit status, the document of
 * --json and what --dry-run says follows the sweep. */
#include "run_doc.h"
#include "pipeline.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static void report_header(FILE *fp, const pp_run_report *rp, const pp_battery_params *b, int mission)
{
    const pp_summary *s = &rp->sum;

    fprintf(fp, "\nloads: mean and energy are the computer's (its rails counted in the total); drain "
           "and cutoff are the battery's with the computer at that mean power through its "
           "converter (efficiency %.2f) plus a base load of %.1f W (%s), the loads the plan "
           "counts.\n", b->efficiency, b->base_power_w,
           mission ? "the mission's" : "the battery group's");
    fprintf(fp, "%-5s", "id");
    for (size_t k = 0; k < s->n_params; k++)
        fprintf(fp, " %16s", s->params[k]);
    fprintf(fp, " %10s %12s %12s %6s", "mean [W]", "energy [J]", "J/iteration", "late");
    for (size_t a = 0; a < rp->n_rates; a++)
        fprintf(fp, " %*s", (int)strlen(s->metrics[rp->rate[a]]), s->metrics[rp->rate[a]]);
    fprintf(fp, " %10s %12s\n", "drain [%]", "cutoff [min]");
}

static void report_row(FILE *fp, const pp_run_report *rp, size_t i)
{
    const pp_summary *s = &rp->sum;
    char text[PP_SUMMARY_LABEL_MAX];

    fprintf(fp, "%-5ld", s->ids[i]);
    for (size_t k = 0; k < s->n_params; k++) {
        pp_summary_value_text(s, k, s->x[i * s->n_params + k], text, sizeof text);
        fprintf(fp, " %16s", text);
    }
    fprintf(fp, " %10.4f %12.3f", pp_run_report_value(rp, i, rp->mean_w),
           pp_run_report_value(rp, i, rp->energy_j));
    if (isnan(pp_run_report_value(rp, i, rp->per_iteration_j)))
        fprintf(fp, " %12s", "-");
    else
        fprintf(fp, " %12.5f", pp_run_report_value(rp, i, rp->per_iteration_j));
    if (s->late_frames[i] >= 0)
        fprintf(fp, " %6ld", s->late_frames[i]);
    else
        fprintf(fp, " %6s", "");
    for (size_t a = 0; a < rp->n_rates; a++)
        fprintf(fp, " %*.4g", (int)strlen(s->metrics[rp->rate[a]]),
               pp_run_report_value(rp, i, rp->rate[a]));
    fprintf(fp, " %10.5f %12.1f\n", 100 * rp->drain_frac[i], rp->cutoff_s[i] / 60);
}

/* One line per configuration: what was measured, and the battery under
 * the plan's loads. */
void pp_run_report_print(FILE *fp, const char *dir, const pp_battery_params *b, int mission,
                         double group_base_w)
{
    pp_run_report rp;
    const pp_summary *s = &rp.sum;

    if (pp_run_report_make(dir, b, &rp) < 0)
        return;
    report_header(fp, &rp, b, mission);
    for (size_t i = 0; i < s->n_rows; i++)
        report_row(fp, &rp, i);
    fprintf(fp, "drain: the battery drained over the configuration's duration by the computer + "
           "%.1f W (%s); cutoff: if it ran on until the battery's cutoff. summary.csv's soc_drain "
           "and its plots count the battery group's base load instead (%.1f W)\n",
           b->base_power_w, mission ? "the mission's base load" : "the battery group's base load",
           group_base_w);
    if (rp.mean_w >= 0 && s->n_rows)
        fprintf(fp, "lowest mean power: id %ld (%.4f W)\n", s->ids[rp.cheapest_w],
               pp_run_report_value(&rp, rp.cheapest_w, rp.mean_w));
    if (rp.per_iteration_j >= 0 && s->n_rows &&
        !isnan(pp_run_report_value(&rp, rp.cheapest_per_iteration, rp.per_iteration_j)))
        fprintf(fp, "lowest energy per iteration: id %ld (%.5f J)\n", s->ids[rp.cheapest_per_iteration],
               pp_run_report_value(&rp, rp.cheapest_per_iteration, rp.per_iteration_j));
    if (s->n_rows && isnan(pp_run_report_value(&rp, 0, rp.per_iteration_j)))
        fprintf(fp, "J/iteration -: none where the components differ (their iterations are not one "
               "unit of work)\n");
    if (s->n_left_out)
        fprintf(fp, "%zu configurations did not run to the end (status not ok): see %s/summary.csv\n",
               s->n_left_out, dir);
    pp_run_report_free(&rp);
}

/* The exit status of the pipeline's outcome rc (r->step: where it stopped). */
int pp_pipeline_exit_status(const pp_pipeline_run *r, int rc)
{
    if (rc >= 0)
        return rc;
    switch (r->step) {
    case PP_PIPELINE_CHECK:
        return 2;
    case PP_PIPELINE_PLAN:
        return rc == -ENOMEM ? 125 : 2;
    case PP_PIPELINE_PLOTS:
        return rc == -EINVAL ? 2 : 125;
    default:
        return 125;
    }
}

json_t *pp_pipeline_dry_doc(const pp_pipeline_run *r)
{
    const pp_plan_options *o = r->mission;

    return json_pack("{s:s, s:o}", "results", r->dir, "mission",
                     o ? json_pack("{s:f, s:o, s:f, s:f}", "mission_s", o->mission_s, "maximize",
                                   o->maximize ? json_string(o->maximize) : json_null(),
                                   "base_power_w", o->battery.base_power_w, "min_soc",
                                   o->min_soc_frac)
                       : json_null());
}

void pp_pipeline_dry_text(const pp_pipeline_run *r, FILE *fp)
{
    const pp_plan_options *o = r->mission;

    fprintf(fp, "then: the model (%s/model.json), ", r->dir);
    if (o)
        fprintf(fp, "the plan of a %g s mission maximizing %s (%s/plan.json), ", o->mission_s,
                o->maximize ? o->maximize : "the planner's choice", r->dir);
    fprintf(fp, "the plots (%s/plots/) and the report; the mission, the battery and the "
            "results folder are checked\n", r->dir);
}

json_t *pp_pipeline_run_doc(const pp_pipeline_run *r, int status, json_t *profile, json_t *plots)
{
    return json_pack("{s:s, s:i, s:o, s:o, s:o, s:O, s:o}", "results", r->dir, "exit_status",
                     status, "profile", profile ? profile : json_null(), "model",
                     pp_model_summary_json(r->dir), "plots", plots ? plots : json_null(),
                     "plan", r->plan_json ? r->plan_json : json_null(), "files",
                     pp_pipeline_files_json(r->dir, r->plan_json != NULL));
}
