/* pipeline_run.c - the main job, `powprof run`, as one library call
 * (pipeline.h): the checks, the profile (the caller's hook: its progress
 * is the caller's to show), the model, the mission's plan (kept in
 * RESULTS/plan.json), the plots with the plan's state of charge handed
 * over in memory. */
#include "pipeline_run.h"
#include "pipeline.h"

#include "plots/plot_plan.h"
#include "src/plan/phases_model.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pp_pipeline_prepare(const pp_profile *p, const char *dir, pp_pipeline_run *r)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->dir = dir;
    r->step = PP_PIPELINE_CHECK;
    r->loads = p->battery;
    if (p->has_mission && p->mission_base_power_w >= 0)
        r->loads.base_power_w = p->mission_base_power_w;
    if (!p->has_mission)
        return 0;
    if (!(r->mission = malloc(sizeof *r->mission)))
        return -ENOMEM;
    if (pp_pipeline_mission(p, r->mission) < 0) /* the rest is said by the checks */
        memset(r->mission, 0, sizeof *r->mission);
    return 0;
}

static void hook(const pp_pipeline_hooks *h, pp_pipeline_run *r, pp_pipeline_step step, int done)
{
    r->step = step;
    if (h->step)
        h->step(h->ctx, r, done);
}

/* Layer 2: the model built and saved, shown to the hook, freed. */
static int run_model(pp_pipeline_run *r, const pp_pipeline_hooks *h)
{
    int rc;

    hook(h, r, PP_PIPELINE_MODEL, 0);
    if ((rc = pp_pipeline_model(r->dir, NULL, &r->model)) < 0)
        return rc;
    r->have_model = 1;
    hook(h, r, PP_PIPELINE_MODEL, 1);
    pp_model_free(&r->model);
    r->have_model = 0;
    return 0;
}

/* A mission in phases: a plan per phase. */
static int run_phases(pp_pipeline_run *r)
{
    int rc;

    if (!(r->phases = malloc(sizeof *r->phases)))
        return -ENOMEM;
    if ((rc = pp_plan_phases(&r->plan_model, r->mission, &r->p->mission, r->phases)) < 0) {
        free(r->phases);
        r->phases = NULL;
        return rc;
    }
    r->plan_json = pp_phases_plan_json(&r->plan_model, r->mission, &r->p->mission, r->phases);
    return 0;
}

/* The mission's plan with its schedule, kept in dir/plan.json (a plan,
 * feasible or not: 0). */
static int run_plan(pp_pipeline_run *r, const pp_pipeline_hooks *h)
{
    int rc;

    hook(h, r, PP_PIPELINE_PLAN, 0);
    rc = pp_pipeline_plan_model(r->dir, r->mission->maximize, NULL, 0, &r->plan_model);
    if (rc == 0 && (rc = pp_pipeline_mission_fixed(r->p, r->mission)) < 0)
        pp_model_free(&r->plan_model);
    if (rc < 0)
        return rc;
    if (!r->p->mission.shorthand)
        rc = run_phases(r);
    else if (!(r->plan = malloc(sizeof *r->plan)))
        rc = -ENOMEM;
    else if ((rc = pp_plan(&r->plan_model, r->mission, r->plan)) < 0) {
        free(r->plan);
        r->plan = NULL;
    } else
        r->plan_json = pp_plan_json(&r->plan_model, r->mission, r->plan);
    if (rc < 0) {
        pp_model_free(&r->plan_model);
        return rc;
    }
    if ((rc = pp_pipeline_plan_save(r->dir, r->plan_json)) < 0)
        return rc; /* said with the file and why; the run ends there, not as a success */
    hook(h, r, PP_PIPELINE_PLAN, 1);
    return 0;
}

/* The plots, with the plan's state of charge when there is a plan. */
static int run_plots(pp_pipeline_run *r, const pp_pipeline_hooks *h)
{
    char path[PP_PATH_MAX];
    int rc;

    hook(h, r, PP_PIPELINE_PLOTS, 0);
    pp_plot_options_init(&r->plot_opts);
    r->plot_opts.battery = r->p->battery;
    if (pp_fmt(path, sizeof path, "%s/plan.json", r->dir) == 0 && r->plan_json &&
        (r->plot_plan = malloc(sizeof *r->plot_plan)) &&
        pp_plot_plan_from_json(path, r->plan_json, r->plot_plan) == 0)
        r->plot_opts.plan = r->plot_plan;
    rc = pp_pipeline_plots(r->dir, &r->plot_opts, &r->plots);
    if (rc == 0) {
        r->have_plots = 1;
        hook(h, r, PP_PIPELINE_PLOTS, 1);
        rc = r->plots.n_failed && !r->plots.gnuplot_missing ? -EIO : 0;
    }
    pp_plot_result_free(&r->plots);
    r->have_plots = 0;
    return rc;
}

int pp_pipeline_run_all(pp_pipeline_run *r, const pp_pipeline_hooks *h)
{
    int rc;

    r->step = PP_PIPELINE_CHECK;
    if ((rc = pp_pipeline_check(r->p, r->dir)) < 0)
        return rc;
    r->step = PP_PIPELINE_PROFILE;
    rc = h->profile(h->ctx, r);
    if (rc != 0 && rc != 1) /* 1: some configurations failed; the rest is worth modelling */
        return rc;
    if ((rc = run_model(r, h)) < 0 || (r->mission && (rc = run_plan(r, h)) < 0) ||
        (rc = run_plots(r, h)) < 0)
        return rc;
    r->step = PP_PIPELINE_DONE;
    return 0;
}

void pp_pipeline_run_free(pp_pipeline_run *r)
{
    if (r->plan || r->phases) {
        pp_model_free(&r->plan_model);
        free(r->plan);
        if (r->phases)
            pp_phases_plan_free(r->phases);
        free(r->phases);
    }
    json_decref(r->plan_json);
    free(r->plot_plan);
    free(r->mission);
    memset(r, 0, sizeof *r);
}

json_t *pp_pipeline_files_json(const char *dir, int plan)
{
    static const char *const keys[] = {"summary", "run_json", "traces", "model", "grids", "plots", "plan"};
    static const char *const names[] = {"summary.csv", "run.json", "traces", "model.json", "model",
                                        "plots", "plan.json"};
    json_t *o = json_object();
    char path[PP_PATH_MAX];

    for (size_t i = 0; i < PP_ARRAY_SIZE(keys); i++) {
        int there = pp_path_fmt(path, sizeof path, dir, "%s", names[i]) == 0 &&
                    access(path, F_OK) == 0;
        json_object_set_new(o, keys[i], (i + 1 < PP_ARRAY_SIZE(keys) || plan) && there
                                            ? json_string(path) : json_null());
    }
    return o;
}
