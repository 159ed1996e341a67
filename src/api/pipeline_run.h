/* pipeline_run.h - the whole of `powprof run` as library calls: prepared,
 * run (the sweep and the printing left to the caller's hooks), freed. */
#ifndef PP_PIPELINE_RUN_H
#define PP_PIPELINE_RUN_H

#include "pipeline.h"

/* r for profile p into the folder dir (the profile's own, resolved by the
 * caller; both must outlive r): the report's loads, the mission's plan
 * options (a mission group whose keys do not hold is said by the checks).
 * 0 or -ENOMEM. Free r with pp_pipeline_run_free, also after an error. */
int pp_pipeline_prepare(const pp_profile *p, const char *dir, pp_pipeline_run *r);

/* Check, profile (h->profile), model, plan (a mission group), plots; stops
 * at the first step that fails, r->step saying which. Returns 0 (r->step
 * DONE), the profile hook's value when not 0 or 1, or a -errno of the
 * step (logged): -EINVAL at the checks, the model's, the plan's (-ENOMEM,
 * else a mission the model cannot plan), the plots' (-EINVAL: no summary,
 * a plan the battery does not give; -EIO: gnuplot failed on some). */
int pp_pipeline_run_all(pp_pipeline_run *r, const pp_pipeline_hooks *h);

void pp_pipeline_run_free(pp_pipeline_run *r);

/* The files of a results folder as `run --json` lists them: summary,
 * run_json, traces, model, grids, plots, plan (the plan only when plan is
 * set), each a path or null when absent. A new reference. */
json_t *pp_pipeline_files_json(const char *dir, int plan);

#endif
