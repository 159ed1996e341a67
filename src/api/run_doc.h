/* run_doc.h - run's report, exit status, --json document and
 * --dry-run's words. */
#ifndef PP_RUN_DOC_H
#define PP_RUN_DOC_H

#include "pipeline.h"

/* The report of the results in dir in words on fp: each configuration's
 * mean power and energy, energy per iteration, late frames and achieved
 * rates, and the battery b drained and the time to its cutoff under the
 * loads the plan counts (mission: the mission's base load, else the
 * battery group's; group_base_w the group's, which summary.csv counts);
 * the cheapest in power and in energy per iteration. Nothing when the
 * report cannot be made (logged). */
void pp_run_report_print(FILE *fp, const char *dir, const pp_battery_params *b, int mission,
                         double group_base_w);

/* The exit status of run r's outcome rc (pp_pipeline_run_all's; r->step
 * where it stopped): rc when >= 0; 2 for the checks, a plan the model
 * cannot plan and plots refused; else 125. */
int pp_pipeline_exit_status(const pp_pipeline_run *r, int rc);

/* --dry-run: what follows the sweep (the results folder, the mission:
 * {mission_s, maximize, base_power_w, min_soc} or null), as the members
 * added to the dry run's document, and in words on fp. */
json_t *pp_pipeline_dry_doc(const pp_pipeline_run *r);

void pp_pipeline_dry_text(const pp_pipeline_run *r, FILE *fp);

/* run --json: {results, exit_status, profile, model, plots, plan, files};
 * profile and plots (the sweep's and the plots' documents, NULL: null)
 * are stolen. A new reference. */
json_t *pp_pipeline_run_doc(const pp_pipeline_run *r, int status, json_t *profile, json_t *plots);

#endif
