/* A plan per phase on a layer-2 model (phases_model.h): the candidates of
 * pp_plan, each phase's bounds, its base load, the mission's fixed
 * settings, then pp_phases_solve. */
#include "phases_model.h"
#include "plan_work.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "file:line: " of a bound (or a phase) for messages. */
static void where(const pp_mission_spec *mi, int line, char *buf, size_t cap)
{
    if (mi->path[0] && line > 0)
        pp_text(buf, cap, "%s:%d: ", mi->path, line);
    else if (mi->path[0])
        pp_text(buf, cap, "%s: ", mi->path);
    else
        buf[0] = '\0';
}

/* The parameters of the results, for a message. */
static void param_list(const pp_summary *s, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < s->n_params && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", s->params[k]);
}

/* Bound b of phase ph as a parameter index and a numeric range. */
static int resolve_bound(const pp_model *m, const pp_mission_spec *mi, const pp_mission_phase *ph,
                         const pp_mission_bound *b, size_t *k, double *lo, double *hi)
{
    const pp_summary *s = &m->sum;
    int q = pp_summary_param(s, b->param), label;
    char at[PP_PATH_MAX], known[1024];

    where(mi, b->line, at, sizeof at);
    if (q < 0) {
        param_list(s, known, sizeof known);
        pp_log_error("%sphase '%s': %s: the results have no such parameter (they have: %s)", at,
                     ph->name, b->param, known);
        return -EINVAL;
    }
    *k = (size_t)q;
    *lo = b->min;
    *hi = b->max;
    if (!b->label[0] && s->param[q].kind == PP_PARAM_CATEGORICAL) {
        pp_log_error("%sphase '%s': %s takes labels: fix it to one (fixed = { ... = \"label\"; })",
                     at, ph->name, b->param);
        return -EINVAL;
    }
    if (!b->label[0])
        return 0;
    label = s->param[q].kind == PP_PARAM_CATEGORICAL ? pp_summary_label(s, *k, b->label) : -1;
    if (label < 0) {
        pp_log_error("%sphase '%s': %s: '%s' is not one of its labels%s", at, ph->name, b->param,
                     b->label, s->param[q].kind == PP_PARAM_CATEGORICAL ? "" : " (it is a number)");
        return -EINVAL;
    }
    *lo = *hi = label;
    return 0;
}

/* work = N: only the candidates that finish N units in the phase (their
 * rate, power over energy per unit, times its duration). */
static int admit_work(const pp_mission_spec *mi, const pp_mission_phase *ph, const pp_plan_choice *c,
                      size_t n, unsigned char *row)
{
    char at[4200];
    int any_rate = 0;

    if (!(ph->work_units > 0))
        return 0;
    for (size_t i = 0; i < n; i++) {
        any_rate |= !isnan(c[i].rate_per_s);
        row[i] &= c[i].rate_per_s * ph->duration_s >= ph->work_units;
    }
    if (!any_rate) {
        where(mi, ph->line, at, sizeof at);
        pp_log_error("%sphase '%s': work = %g needs the results' %s (components that count "
                     "iterations: files, frames)", at, ph->name, ph->work_units,
                     PP_PLAN_UNIT_METRIC);
        return -EINVAL;
    }
    return 0;
}

/* Which candidates phase ph admits: row of n. */
static int admit(const pp_model *m, const pp_mission_spec *mi, const pp_mission_phase *ph,
                 const pp_plan_choice *c, size_t n, unsigned char *row)
{
    memset(row, 1, n);
    for (size_t j = 0; j < ph->n_bounds; j++) {
        size_t k;
        double lo, hi;
        int rc = resolve_bound(m, mi, ph, &ph->bound[j], &k, &lo, &hi);
        if (rc < 0)
            return rc;
        for (size_t i = 0; i < n; i++) {
            double v = c[i].point.raw[k], tol = 1e-9 * fmax(1, fabs(v));
            row[i] &= v >= lo - tol && v <= hi + tol;
        }
    }
    return admit_work(mi, ph, c, n, row);
}

/* Phase ph's base load over duration_s (its own, or the longest it may run). */
static int base_load(const pp_plan_options *o, const pp_mission_phase *ph, double duration_s,
                     pp_phase_load *l)
{
    if (ph->base_trace[0]) {
        int rc = pp_phase_load_trace(ph->base_trace, ph->base_trace_from_s, duration_s, l);
        if (rc < 0)
            pp_log_error("phase '%s': its base_trace %s cannot be its base load (above)", ph->name,
                         ph->base_trace);
        return rc;
    }
    return pp_phase_load_constant(ph->base_power_w >= 0 ? ph->base_power_w
                                                        : o->battery.base_power_w,
                                  duration_s, l);
}

int pp_plan_phases(const pp_model *m, const pp_plan_options *o, const pp_mission_spec *mi,
                   pp_phases_plan *r)
{
    pp_phases_problem *p = &r->problem;
    size_t n;
    int rc;

    memset(r, 0, sizeof *r);
    if (mi->n_phases == 0 || mi->n_phases > PP_MISSION_MAX_PHASES) {
        pp_log_error("plan: a mission of %zu phases", mi->n_phases);
        return -EINVAL;
    }
    r->min_soc_frac = o->min_soc_frac >= 0    ? o->min_soc_frac
                      : mi->min_soc_frac >= 0 ? mi->min_soc_frac
                                              : o->battery.soc_cutoff_frac;
    {
        pp_plan_options held = *o; /* the mission's own fixed list held too */
        if ((rc = pp_plan_fix_mission(&held, mi, &m->sum)) < 0 ||
            (rc = pp_plan_candidates(m, &held, &r->head, &r->cand)) < 0)
            return rc;
    }
    n = r->head.n_candidates;
    if (!(r->allowed = malloc(mi->n_phases * n))) {
        pp_phases_plan_free(r);
        return -ENOMEM;
    }
    for (size_t k = 0; k < mi->n_phases && rc == 0; k++) {
        /* an overrun declared: budgeted, the phase as long as it may run */
        p->duration_s[k] = mi->phase[k].duration_s * (1 + mi->phase[k].overrun_frac);
        p->planned_s[k] = mi->phase[k].overrun_frac > 0 ? mi->phase[k].duration_s : 0;
        p->weight[k] = mi->phase[k].weight;
        if ((rc = admit(m, mi, &mi->phase[k], r->cand, n, r->allowed + k * n)) == 0)
            rc = base_load(o, &mi->phase[k], p->duration_s[k], &r->base[k]);
    }
    p->n_phases = mi->n_phases;
    p->base = r->base;
    p->n_cand = n;
    p->cand = r->cand;
    p->allowed = r->allowed;
    p->battery = o->battery;
    p->min_soc_frac = r->min_soc_frac;
    if (rc == 0)
        rc = pp_phases_solve(p, &r->res);
    if (rc < 0)
        pp_phases_plan_free(r);
    return rc;
}

void pp_phases_plan_free(pp_phases_plan *r)
{
    for (size_t k = 0; k < PP_MISSION_MAX_PHASES; k++)
        pp_phase_load_free(&r->base[k]);
    pp_phases_result_free(&r->res);
    free(r->cand);
    free(r->allowed);
    r->cand = NULL;
    r->allowed = NULL;
}

/* A mission file's top-level fixed (src/config/mission_fixed.c) held in a
 * plan on a results folder: each name a parameter of the results, each
 * value a number or one of its labels, said with the file and line. */

/* value is one of parameter k's: a label of a categorical one, else a
 * number. */
static int value_ok(const pp_summary *s, size_t k, const char *value)
{
    const pp_summary_param_info *pi = &s->param[k];
    double v;

    if (pi->kind != PP_PARAM_CATEGORICAL)
        return pp_parse_double(value, &v) == 0;
    for (size_t i = 0; i < pi->n_labels; i++)
        if (strcmp(pi->labels[i], value) == 0)
            return 1;
    return 0;
}

int pp_plan_fix_mission(pp_plan_options *o, const pp_mission_spec *mi, const pp_summary *s)
{
    for (size_t i = 0; i < mi->n_fixed; i++) {
        const pp_mission_fixed *f = &mi->fixed[i];
        int k = pp_summary_param(s, f->name), held = 0;
        if (k < 0) {
            char known[1024];
            size_t len = 0;
            known[0] = '\0';
            for (size_t j = 0; j < s->n_params && len < sizeof known; j++)
                len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", j ? ", " : "",
                                        s->params[j]);
            pp_log_error("%s:%d: mission.fixed: '%s' is no parameter of the results (known: "
                         "%s)", mi->path, f->line, f->name, known);
            return -EINVAL;
        }
        if (!value_ok(s, (size_t)k, f->value)) {
            pp_log_error("%s:%d: mission.fixed: '%s' is not a value of %s (a number, or one of "
                         "its labels)", mi->path, f->line, f->value, f->name);
            return -EINVAL;
        }
        for (size_t j = 0; j < o->n_fixed; j++)
            held |= strcmp(o->fixed[j].name, f->name) == 0; /* --fix says it already */
        if (held)
            continue;
        if (o->n_fixed == PP_SUMMARY_MAX_PARAMS) {
            pp_log_error("%s:%d: mission.fixed: more than %d parameters held", mi->path, f->line,
                         PP_SUMMARY_MAX_PARAMS);
            return -EINVAL;
        }
        if (pp_strlcpy(o->fixed[o->n_fixed].name, f->name, sizeof o->fixed[0].name) < 0 ||
            pp_strlcpy(o->fixed[o->n_fixed++].value, f->value, sizeof o->fixed[0].value) < 0) {
            pp_log_error("%s:%d: mission.fixed: %.40s = %.40s: too long to hold", mi->path,
                         f->line, f->name, f->value);
            return -EINVAL;
        }
    }
    return 0;
}
