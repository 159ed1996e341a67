/* api_model.c - the public facade of layer 2 and the planner
 * (include/powprof/model.h, plan.h) over src/layer2/model.h and src/plan/plan.h. Both
 * headers of each pair are included, so the compiler checks that the
 * declarations they share agree. */
#include "include/powprof/model.h"
#include "include/powprof/plan.h"

#include "src/base/log.h"
#include "src/layer2/model.h"
#include "src/plan/derived.h"
#include "src/plan/plan.h"
#include "plan_text.h"
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
    if ((rc = pp_model_read_battery(m, results_dir)) < 0) { /* the metrics it derives */
        pp_model_close(m);
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
    if ((rc = pp_model_predict_derived(m, (size_t)k, &pt, &p)) < 0)
        return rc;
    *out = (pp_model_estimate){p.value, p.lo, p.hi, p.honest_mape, w.any_outside};
    return 0;
}

/* The planner's options of a mission, as `powprof plan` makes them
 * (pp_plan_options_mission): a reserve to keep replaces the pack's cutoff. */
static void plan_options(const pp_battery_params *b, const pp_mission *mission,
                         pp_plan_options *o)
{
    pp_plan_options_init(o);
    o->mission_s = mission->duration_s;
    o->maximize = mission->maximize;
    o->min_soc_frac = mission->min_soc_frac;
    o->battery = *b;
    o->risk = mission->plan_on_mean ? PP_RISK_MEAN : PP_RISK_UPPER;
    if (mission->min_soc_frac >= 0)
        o->battery.soc_cutoff_frac = mission->min_soc_frac;
}

int pp_mission_duration_parse(const char *text, double *seconds)
{
    char why[256];

    if (!text || !seconds) {
        pp_log_error("mission: duration_s: no text");
        return -EINVAL;
    }
    if (pp_parse_duration_range(text, seconds, why, sizeof why) < 0) {
        pp_log_error("mission: duration_s %s", why);
        return -EINVAL;
    }
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
    plan_options(b, mission, &o);
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

/* Metric indices of names (NULL: every metric) into idx; 0 or -ENOENT (logged). */
static int metric_indices(const pp_model *m, size_t n, const char *const *names, size_t *idx)
{
    for (size_t j = 0; j < n; j++) {
        int k = names ? pp_summary_metric(&m->sum, names[j]) : (int)j;
        if (k < 0) {
            pp_log_error("no metric '%s' in the model", names[j]);
            return -ENOENT;
        }
        idx[j] = (size_t)k;
    }
    return 0;
}

/* Row r of pp_model_estimate_rows: n metrics idx[] into out[0 .. n - 1]. */
static int estimate_row(const pp_model *m, size_t r, size_t n, const size_t *idx, size_t n_names,
                        const char *const *names, const char *const *values,
                        pp_model_estimate *out)
{
    pp_model_point pt;
    pp_model_where w;
    int rc;

    memset(&pt, 0, sizeof pt);
    if ((rc = point_of(&m->sum, n_names, names, values, &pt)) < 0) {
        pp_log_error("row %zu (from 0): not a configuration of the model", r);
        return rc;
    }
    if ((rc = pp_model_locate(m, &pt, &w)) < 0) {
        pp_log_error("row %zu (from 0): these labels were never measured together", r);
        return rc;
    }
    for (size_t j = 0; j < n; j++) {
        pp_prediction p;
        if (pp_model_predict_derived(m, idx[j], &pt, &p) < 0) /* no model of it in this group */
            p = (pp_prediction){.value = NAN, .lo = NAN, .hi = NAN, .honest_mape = NAN};
        out[j] = (pp_model_estimate){p.value, p.lo, p.hi, p.honest_mape, w.any_outside};
    }
    return 0;
}

int pp_model_estimate_rows(const pp_model *m, size_t n_metrics, const char *const *metrics,
                           size_t n_names, const char *const *names, size_t n_rows,
                           const char *const *values, pp_model_estimate *out)
{
    size_t n = metrics ? n_metrics : m->sum.n_metrics, *idx = malloc((n ? n : 1) * sizeof *idx);
    int rc;

    if (!idx)
        return -ENOMEM;
    if ((rc = metric_indices(m, n, metrics, idx)) == 0)
        for (size_t r = 0; r < n_rows && rc == 0; r++)
            rc = estimate_row(m, r, n, idx, n_names, names, values + r * n_names, out + r * n);
    free(idx);
    return rc;
}

int pp_model_json(const pp_model *m, char **json_out)
{
    size_t len = 0;
    FILE *fp;
    int rc;

    *json_out = NULL;
    if (!(fp = open_memstream(json_out, &len)))
        return -ENOMEM;
    rc = pp_model_dump(m, fp);
    if (fclose(fp) != 0 && rc == 0)
        rc = -ENOMEM;
    if (rc < 0) {
        free(*json_out);
        *json_out = NULL;
    }
    return rc;
}

void pp_free(void *p) { free(p); }

int pp_mission_plan_json(const pp_model *m, const pp_battery_params *b, const pp_mission *mission,
                         char **json_out)
{
    pp_plan_options o;

    plan_options(b, mission, &o);
    return pp_plan_json_text(m, &o, json_out);
}

int pp_mission_plan_file_json(const pp_model *m, const pp_battery_params *b,
                              const char *mission_file, const pp_mission *mission,
                              char **json_out)
{
    pp_mission none = {0, NULL, -1.0, 0};
    pp_plan_options o;

    plan_options(b, mission ? mission : &none, &o);
    return pp_plan_phases_json_text(m, &o, mission_file, json_out);
}
