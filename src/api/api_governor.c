/* api_governor.c - the public facade of the in-flight governor
 * (include/powprof/governor.h) over src/governor/governor.h: the plan per
 * phase made before take-off (src/plan/phases.h), then kept up. Both
 * headers of the pair are included so that the compiler checks them. */
#include "include/powprof/governor.h"

#include "answer.h"
#include "governor_doc.h"
#include "sim_doc.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/layer2/model.h"
#include "src/governor/governor.h"
#include "handle.h"
#include "pipeline.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pp_governor {
    const pp_model *m;
    pp_mission_resolved res; /* the mission flown */
    pp_plan_options o;
    pp_phases_plan plan;
    pp_gov_options go;       /* as made: a simulation flies the same governor */
    pp_gov *g;
};

void pp_governor_options_init(pp_governor_options *o)
{
    memset(o, 0, sizeof *o);
    o->min_soc_frac = -1;
    o->margin_frac = -1;
}

/* The mission of o into g, resolved as plan's and govern's (the battery
 * given flown as it is: a file's battery group is not read). */
static int mission_of(pp_governor *g, const pp_governor_options *o)
{
    pp_mission_ask a;
    int rc;

    pp_mission_ask_init(&a);
    a.file = o->mission_file;
    a.given.mission_s = o->mission_file ? -1 : o->duration_s;
    a.given.min_soc_frac = o->min_soc_frac;
    a.given.risk_mean = o->plan_on_mean;
    a.phases = 1;
    a.battery_given = "the battery given";
    if ((rc = pp_mission_resolve(&a, &g->res, &g->o)) == -ENOENT)
        pp_log_error("governor: a mission file, or a duration of 1 s or more (not %g s)",
                     o->duration_s);
    return rc == -ENOENT ? -EINVAL : rc;
}

/* o's numbers, -1 (not given) or in range: 0 or -EINVAL (logged). */
static int options_check(const pp_governor_options *o)
{
    char why[160];

    if (o->min_soc_frac != -1 && pp_plan_check_min_soc(o->min_soc_frac) < 0)
        return -EINVAL;
    if (o->every_s != 0 && pp_gov_every_check(o->every_s, why, sizeof why) < 0) {
        pp_log_error("governor: %s", why);
        return -EINVAL;
    }
    if (o->margin_frac != -1 && !(o->margin_frac >= 0 && o->margin_frac < 10)) {
        pp_log_error("governor: the margin %g: a fraction in [0, 10), or -1 for %g",
                     o->margin_frac, PP_GOV_MARGIN_DEFAULT);
        return -EINVAL;
    }
    return 0;
}

/* "NAME=STEP NAME=measured ..." into o's resolutions: 0 or -EINVAL (logged). */
static int resolutions(const char *text, pp_plan_options *o)
{
    char buf[1024], *save = NULL, why[128];

    if (!text)
        return 0;
    if (pp_strlcpy(buf, text, sizeof buf) < 0) {
        pp_log_error("governor: resolutions '%.40s...': longer than %zu characters", text,
                     sizeof buf - 1);
        return -EINVAL;
    }
    for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save))
        if (pp_plan_resolution_parse(w, o, why, sizeof why) < 0) {
            pp_log_error("governor: the resolution %s: %s", w, why);
            return -EINVAL;
        }
    return 0;
}

int pp_governor_new(const pp_model *m, const pp_battery_params *b, const pp_governor_options *o,
                    pp_governor **out)
{
    pp_governor *g;
    pp_gov_options go;
    int rc;

    *out = NULL;
    PP_HANDLE_OR(m, PP_HANDLE_MODEL, -EBADF);
    PP_HANDLE_OR(b, PP_HANDLE_BATTERY, -EBADF);
    if ((rc = options_check(o)) < 0)
        return rc;
    if (!(g = calloc(1, sizeof *g)))
        return -ENOMEM;
    g->m = m;
    pp_plan_options_init(&g->o);
    g->o.battery = *b;
    g->o.maximize = o->maximize; /* the rest of the mission's: mission_of */
    pp_gov_options_init(&go);
    if (o->margin_frac != -1)
        go.margin_frac = o->margin_frac;
    go.trust_soc = !o->ignore_soc;
    go.every_s = o->every_s;
    if ((rc = resolutions(o->resolution, &g->o)) < 0) {
        free(g);
        return rc;
    }
    if ((rc = mission_of(g, o)) < 0 || (rc = pp_plan_phases(m, &g->o, g->res.spec, &g->plan)) < 0) {
        pp_mission_resolved_free(&g->res);
        free(g);
        return rc;
    }
    g->go = go;
    if ((rc = pp_gov_new(&g->plan.problem, &go, &g->g)) < 0 ||
        (rc = pp_handle_add(g, PP_HANDLE_GOVERNOR)) < 0) {
        pp_gov_free(g->g);
        pp_phases_plan_free(&g->plan);
        pp_mission_resolved_free(&g->res);
        free(g);
        return rc;
    }
    *out = g;
    return 0;
}

int pp_governor_update_json(pp_governor *g, const pp_governor_reading *r, char **json_out)
{
    pp_gov_reading rd = {r->t_s, r->soc_frac, r->voltage_v, r->current_a, r->phase};
    pp_gov_decision gd;
    json_t *o;
    int rc;

    *json_out = NULL;
    PP_HANDLE_OR(g, PP_HANDLE_GOVERNOR, -EBADF);
    PP_HANDLE_OR(g->m, PP_HANDLE_MODEL, -EBADF); /* closed before its governor */
    if ((rc = pp_gov_update(g->g, &rd, &gd)) < 0)
        return rc;
    if (!(o = pp_gov_decision_doc(g->m, &g->plan, g->res.spec, &gd)))
        return -ENOMEM;
    *json_out = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(o);
    return *json_out ? 0 : -ENOMEM;
}

int pp_governor_update(pp_governor *g, const pp_governor_reading *r, pp_governor_decision *d)
{
    pp_gov_reading rd = {r->t_s, r->soc_frac, r->voltage_v, r->current_a, r->phase};
    pp_gov_decision gd;
    const pp_plan_choice *c;
    int rc;

    memset(d, 0, sizeof *d);
    PP_HANDLE_OR(g, PP_HANDLE_GOVERNOR, -EBADF);
    PP_HANDLE_OR(g->m, PP_HANDLE_MODEL, -EBADF); /* closed before its governor */
    if ((rc = pp_gov_update(g->g, &rd, &gd)) < 0)
        return rc;
    c = &g->plan.cand[gd.choice];
    d->t_s = gd.t_s;
    d->phase = gd.phase;
    pp_text(d->phase_name, sizeof d->phase_name, "%s", g->res.spec->phase[gd.phase].name);
    d->phase_left_s = gd.phase_left_s;
    d->soc_frac = gd.soc_frac;
    d->soc_source = gd.soc_source;
    pp_plan_choice_text(g->m, c, d->settings, sizeof d->settings);
    d->value = c->point.raw[g->plan.head.maximize];
    d->quality = c->qos;
    d->changed = gd.changed;
    d->why = pp_gov_why_name(gd.why);
    d->feasible = gd.feasible;
    d->soc_end_frac = gd.soc_end_frac;
    d->reserve_t_s = gd.reserve_t_s;
    return 0;
}

void pp_governor_close(pp_governor *g)
{
    if (pp_handle_remove(g, PP_HANDLE_GOVERNOR, __func__) != 0)
        return;
    pp_gov_free(g->g);
    pp_phases_plan_free(&g->plan);
    pp_mission_resolved_free(&g->res);
    free(g);
}

void pp_governor_free(pp_governor *g)
{
    pp_governor_close(g);
}

int pp_governor_simulate_json(const pp_governor *g, const char *actual, double scale_t_s,
                              double scale_f, char **json_out)
{
    pp_battery_params pack;
    pp_sim_options so;
    pp_sim_result s;
    json_t *o;
    int rc, held = 0;

    *json_out = NULL;
    PP_HANDLE_OR(g, PP_HANDLE_GOVERNOR, -EBADF);
    PP_HANDLE_OR(g->m, PP_HANDLE_MODEL, -EBADF);
    if (!actual || !g->plan.res.feasible) {
        pp_log_error("governor: %s", actual ? "the plan made before take-off does not keep the "
                     "reserve (powprof plan --mission says more): nothing to hold"
                     : "what to fly against: planned, a trace or a flight log");
        return -EINVAL;
    }
    pp_sim_options_init(&so);
    so.gov = g->go;
    so.gov.every_s = so.every_s = g->go.every_s > 0 ? g->go.every_s : so.every_s;
    so.step_s = fmin(so.step_s, so.every_s);
    if ((rc = pp_sim_pack(actual, &pack, &held)) < 0)
        return rc;
    if (rc == 1)
        so.pack = &pack;
    if ((rc = pp_sim_simulate(&g->plan, actual, scale_t_s, scale_f, &so, &s)) < 0)
        return rc;
    o = pp_sim_json(&g->plan, &s, actual, scale_t_s, scale_f, &so);
    pp_sim_result_free(&s);
    *json_out = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
                  : NULL;
    json_decref(o);
    return *json_out ? 0 : -ENOMEM;
}
