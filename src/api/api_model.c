/* api_model.c - the public facade of layer 2 and the planner
 * (include/powprof/model.h, plan.h) over src/layer2/model.h and src/plan/plan.h. Both
 * headers of each pair are included, so the compiler checks that the
 * declarations they share agree. */
#include "include/powprof/model.h"
#include "include/powprof/plan.h"

#include "src/base/log.h"
#include "src/layer2/model.h"
#include "src/plan/plan.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pp_model_load(const char *results_dir, pp_model **out)
{
    pp_model *m = calloc(1, sizeof *m);
    int rc;

    *out = NULL;
    if (!m)
        return -ENOMEM;
    if ((rc = pp_model_open(results_dir, NULL, 1, m)) < 0) {
        free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void pp_model_close(pp_model *m)
{
    if (!m)
        return;
    pp_model_free(m);
    free(m);
}

size_t pp_model_param_count(const pp_model *m) { return m->sum.n_params; }
size_t pp_model_metric_count(const pp_model *m) { return m->sum.n_metrics; }

const char *pp_model_param_name(const pp_model *m, size_t k)
{
    return k < m->sum.n_params ? m->sum.params[k] : NULL;
}

const char *pp_model_metric_name(const pp_model *m, size_t k)
{
    return k < m->sum.n_metrics ? m->sum.metrics[k] : NULL;
}

/* names[i] = values[i] into a point with every parameter given once. */
static int point_of(const pp_summary *s, size_t n, const char *const *names,
                    const char *const *values, pp_model_point *pt)
{
    int given[PP_SUMMARY_MAX_PARAMS] = {0}, k, rc;

    for (size_t i = 0; i < n; i++) {
        if ((rc = pp_model_point_set(s, names[i], values[i], pt, &k)) < 0)
            return rc;
        if (given[k]++) {
            pp_log_error("%s given twice", names[i]);
            return -EINVAL;
        }
    }
    pp_summary_imply_constants(s, pt->raw, given); /* measured at one value */
    for (size_t j = 0; j < s->n_params; j++)
        if (!given[j]) {
            pp_log_error("no value for parameter %s", s->params[j]);
            return -EINVAL;
        }
    return 0;
}

int pp_model_estimate_at(const pp_model *m, const char *metric, size_t n,
                         const char *const *names, const char *const *values,
                         pp_model_estimate *out)
{
    int k = pp_summary_metric(&m->sum, metric), rc;
    pp_model_point pt;
    pp_model_where w;
    pp_prediction p;

    if (k < 0) {
        pp_log_error("no metric '%s' in the model", metric);
        return -ENOENT;
    }
    if ((rc = point_of(&m->sum, n, names, values, &pt)) < 0)
        return rc;
    if ((rc = pp_model_locate(m, &pt, &w)) < 0) {
        pp_log_error("these labels were never measured together");
        return rc;
    }
    if ((rc = pp_model_predict(m, (size_t)k, &pt, &p)) < 0)
        return rc;
    *out = (pp_model_estimate){p.value, p.lo, p.hi, p.honest_mape, w.any_outside};
    return 0;
}

int pp_mission_plan_best(const pp_model *m, const pp_battery_params *b, const pp_mission *mission,
                         pp_mission_plan *out)
{
    pp_plan_result *r = malloc(sizeof *r);
    pp_plan_options o;
    int rc;

    if (!r)
        return -ENOMEM;
    pp_plan_options_init(&o);
    o.mission_s = mission->duration_s;
    o.maximize = mission->maximize;
    o.min_soc_frac = mission->min_soc_frac;
    o.battery = *b;
    o.risk = mission->plan_on_mean ? PP_RISK_MEAN : PP_RISK_UPPER;
    memset(out, 0, sizeof *out);
    if ((rc = pp_plan(m, &o, r)) == 0) {
        const pp_plan_choice *c = &r->best;
        out->feasible = r->feasible;
        out->max_power_w = r->max_power_w;
        if (r->feasible) {
            pp_plan_choice_text(m, c, out->settings, sizeof out->settings);
            out->quality = c->qos;
            out->power_w = c->power.value;
            out->power_lo_w = c->power.lo;
            out->power_hi_w = c->power.hi;
            out->planned_w = c->planned_w;
            out->soc_end_frac = r->best_soc_end_frac;
            out->time_to_cutoff_s = r->best_time_to_cutoff_s;
        }
    }
    free(r);
    return rc;
}
