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
#include "src/results/summary_params.h"
#include "answer.h"
#include "handle.h"
#include "pipeline.h"
#include "point_check.h"
#include "plan_text.h"
#include "src/base/duration.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pp_model_open(const char *results_dir, pp_model **out)
{
    pp_model *m = calloc(1, sizeof *m);
    int rc;

    *out = NULL;
    if (!m)
        return -ENOMEM;
    if ((rc = pp_model_read(results_dir, NULL, 1, m)) < 0) {
        free(m);
        return rc;
    }
    if ((rc = pp_model_read_battery(m, results_dir)) < 0 || /* the metrics it derives */
        (rc = pp_handle_add(m, PP_HANDLE_MODEL)) < 0) {
        pp_model_free(m);
        free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void pp_model_close(pp_model *m)
{
    if (pp_handle_remove(m, PP_HANDLE_MODEL, __func__) != 0)
        return;
    pp_model_free(m);
    free(m);
}

int pp_model_load(const char *results_dir, pp_model **out)
{
    return pp_model_open(results_dir, out);
}

size_t pp_model_param_count(const pp_model *m)
{
    PP_HANDLE_OR(m, PP_HANDLE_MODEL, 0);
    return m->sum.n_params;
}

size_t pp_model_metric_count(const pp_model *m)
{
    PP_HANDLE_OR(m, PP_HANDLE_MODEL, 0);
    return m->sum.n_metrics;
}

const char *pp_model_param_name(const pp_model *m, size_t k)
{
    PP_HANDLE_OR(m, PP_HANDLE_MODEL, NULL);
    return k < m->sum.n_params ? m->sum.params[k] : NULL;
}

const char *pp_model_metric_name(const pp_model *m, size_t k)
{
    PP_HANDLE_OR(m, PP_HANDLE_MODEL, NULL);
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

/* names[i] = values[i] into pt, located at w, warned about when outside
 * the measured range (point_check.h). 0 or -errno (logged). */
static int located(const pp_model *m, size_t n, const char *const *names,
                   const char *const *values, pp_model_point *pt, pp_model_where *w)
{
    int rc;

    if ((rc = point_of(&m->sum, n, names, values, pt)) < 0)
        return rc;
    if ((rc = pp_model_locate(m, pt, w)) < 0) {
        pp_log_error("these labels were never measured together");
        return rc;
    }
    pp_point_outside(m, pt, w, NULL, 0);
    return 0;
}

int pp_model_estimate_at(const pp_model *m, const char *metric, size_t n,
                         const char *const *names, const char *const *values, unsigned flags,
                         pp_model_estimate *out)
{
    pp_model_point pt;
    pp_model_where w;
    pp_prediction p;
    int k, rc;

    PP_HANDLE_OR(m, PP_HANDLE_MODEL, -EBADF);
    if ((k = pp_summary_metric(&m->sum, metric)) < 0) {
        pp_log_error("no metric '%s' in the model", metric);
        return -ENOENT;
    }
    if ((rc = located(m, n, names, values, &pt, &w)) < 0)
        return rc;
    if ((rc = pp_model_predict_derived(m, (size_t)k, &pt, &p)) < 0 ||
        (rc = pp_point_beyond(m, &w, (size_t)k, &p, flags & PP_ESTIMATE_EXTRAPOLATE, SIZE_MAX)) < 0)
        return rc;
    *out = (pp_model_estimate){p.value, p.lo, p.hi, p.honest_mape, w.any_outside, p.beyond};
    return 0;
}

int pp_model_predict_json(const pp_model *m, size_t n, const char *const *names,
                          const char *const *values, unsigned flags, char **json_out)
{
    pp_model_point pt;
    pp_model_where w;
    int extrapolate = (flags & PP_ESTIMATE_EXTRAPOLATE) != 0, rc;
    json_t *doc;

    *json_out = NULL;
    PP_HANDLE_OR(m, PP_HANDLE_MODEL, -EBADF);
    if ((rc = located(m, n, names, values, &pt, &w)) < 0)
        return rc;
    if (pp_prediction_beyond(m, &pt, &w, !extrapolate) > 0 && !extrapolate)
        return -ERANGE; /* said, a metric each */
    if (!(doc = pp_prediction_json(m, &pt, &w)))
        return -ENOMEM;
    *json_out = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    return *json_out ? 0 : -ENOMEM;
}

/* The planner's options of a mission, as `powprof plan` makes them
 * (pp_plan_options_mission): a reserve to keep replaces the pack's cutoff. */
static int plan_options(const char *fn, const pp_model *m, const pp_battery_params *b,
                        const pp_mission *mission, pp_plan_options *o)
{
    if (pp_handle_check(m, PP_HANDLE_MODEL, fn) < 0 || pp_handle_check(b, PP_HANDLE_BATTERY, fn) < 0)
        return -EBADF;
    if (mission->min_soc_frac != -1 && pp_plan_check_min_soc(mission->min_soc_frac) < 0)
        return -EINVAL;
    pp_plan_options_init(o);
    o->maximize = mission->maximize;
    o->battery = *b; /* the battery given, flown as it is: the mission's rule on it */
    return pp_plan_options_mission(o, NULL, mission->duration_s, mission->min_soc_frac,
                                   mission->plan_on_mean);
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
    if ((rc = plan_options(__func__, m, b, mission, &o)) < 0) {
        free(r);
        return rc;
    }
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

/* What the rows of one pp_model_estimate_rows call say, one warning each
 * for the whole table (a grid may hold a million rows). */
typedef struct rows_said {
    unsigned flags;
    size_t n_rows;              /* 1: said as for one configuration, no row named */
    size_t n_outside, n_beyond; /* rows with a parameter outside, a metric beyond */
    size_t outside_row;
    char outside[512];          /* the first such row's warning */
} rows_said;

/* The table's warnings, once the rows are estimated. */
static void rows_warn(const rows_said *said, size_t n_rows)
{
    if (said->n_outside && n_rows == 1)
        pp_log_warn("%s", said->outside);
    else if (said->n_outside)
        pp_log_warn("row %zu (from 0): %s (%zu of the %zu rows lie outside the measured values)",
                    said->outside_row, said->outside, said->n_outside, n_rows);
    if (said->n_beyond > 1)
        pp_log_warn("%zu of the %zu rows hold a metric predicted beyond %g times what was "
                    "measured (flagged beyond_measured)", said->n_beyond, n_rows,
                    PP_MODEL_BEYOND_FACTOR);
}

/* Metric k's prediction p in row r: refused when beyond (-ERANGE, logged),
 * or with extrapolation, the first row beyond said and the others counted. */
static int row_beyond(const pp_model *m, size_t r, const pp_model_where *w, size_t k,
                      const pp_prediction *p, int *seen, rows_said *said)
{
    if (!p->beyond)
        return 0;
    if (said->n_rows == 1)
        r = SIZE_MAX;
    if (!(said->flags & PP_ESTIMATE_EXTRAPOLATE))
        return pp_point_beyond(m, w, k, p, 0, r);
    if (said->n_rows == 1 || (!(*seen)++ && said->n_beyond++ == 0)) /* the first row said */
        pp_point_beyond(m, w, k, p, 1, r);
    return 0;
}

/* Row r of pp_model_estimate_rows: n metrics idx[] into out[0 .. n - 1]. */
static int estimate_row(const pp_model *m, size_t r, size_t n, const size_t *idx, size_t n_names,
                        const char *const *names, const char *const *values,
                        pp_model_estimate *out, rows_said *said)
{
    char scratch[sizeof said->outside];
    pp_model_point pt;
    pp_model_where w;
    int rc, seen = 0, refused = 0;

    memset(&pt, 0, sizeof pt);
    if ((rc = point_of(&m->sum, n_names, names, values, &pt)) < 0) {
        pp_log_error("row %zu (from 0): not a configuration of the model", r);
        return rc;
    }
    if ((rc = pp_model_locate(m, &pt, &w)) < 0) {
        pp_log_error("row %zu (from 0): these labels were never measured together", r);
        return rc;
    }
    if (pp_point_outside(m, &pt, &w, said->n_outside ? scratch : said->outside,
                         sizeof scratch) && said->n_outside++ == 0)
        said->outside_row = r;
    for (size_t j = 0; j < n; j++) {
        pp_prediction p;
        if (pp_model_predict_derived(m, idx[j], &pt, &p) < 0) /* no model of it in this group */
            p = (pp_prediction){.value = NAN, .lo = NAN, .hi = NAN, .honest_mape = NAN};
        if ((rc = row_beyond(m, r, &w, idx[j], &p, &seen, said)) < 0)
            refused = rc; /* every metric refused said, as predict says them */
        out[j] = (pp_model_estimate){p.value, p.lo, p.hi, p.honest_mape, w.any_outside, p.beyond};
    }
    return refused;
}

int pp_model_estimate_rows(const pp_model *m, size_t n_metrics, const char *const *metrics,
                           size_t n_names, const char *const *names, size_t n_rows,
                           const char *const *values, unsigned flags, pp_model_estimate *out)
{
    rows_said said = {.flags = flags, .n_rows = n_rows};
    size_t n, *idx;
    int rc;

    PP_HANDLE_OR(m, PP_HANDLE_MODEL, -EBADF);
    n = metrics ? n_metrics : m->sum.n_metrics;
    if (!(idx = malloc((n ? n : 1) * sizeof *idx)))
        return -ENOMEM;
    if ((rc = metric_indices(m, n, metrics, idx)) == 0)
        for (size_t r = 0; r < n_rows && rc == 0; r++)
            rc = estimate_row(m, r, n, idx, n_names, names, values + r * n_names, out + r * n,
                              &said);
    free(idx);
    if (rc == 0 || rc == -ERANGE) /* refused: what predict warns about said too */
        rows_warn(&said, n_rows);
    return rc;
}

int pp_model_json(const pp_model *m, char **json_out)
{
    size_t len = 0;
    FILE *fp;
    int rc;

    *json_out = NULL;
    PP_HANDLE_OR(m, PP_HANDLE_MODEL, -EBADF);
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
    int rc;

    *json_out = NULL;
    if ((rc = plan_options(__func__, m, b, mission, &o)) < 0)
        return rc;
    return pp_plan_json_text(m, &o, json_out);
}

int pp_mission_plan_file_json(const pp_model *m, const pp_battery_params *b,
                              const char *mission_file, const pp_mission *mission,
                              char **json_out)
{
    pp_mission none = {0, NULL, -1.0, 0};
    pp_plan_options o;
    int rc;

    *json_out = NULL;
    if ((rc = plan_options(__func__, m, b, mission ? mission : &none, &o)) < 0)
        return rc;
    return pp_plan_phases_json_text(m, &o, mission_file, json_out);
}
