#include "plan.h"
#include "plan_battery.h"
#include "plan_measured.h"
#include "plan_work.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTINUOUS_STEPS 400
#define SCHEDULE_STEPS 100

void pp_plan_options_init(pp_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->min_soc_frac = -1;
    o->risk = PP_RISK_UPPER;
    o->tolerance_frac = 0.05;
    pp_battery_params_default(&o->battery);
}

/* A step for the values lo .. hi of parameter name (a grid from from): not
 * below what the values can resolve, and not more than PP_PLAN_MAX_VALUES
 * values. 0 or -EINVAL (logged with the step that would do). */
static int check_step(const char *name, double step, double lo, double hi, double from)
{
    double span = hi - fmin(from, lo), count = span / step + 1;
    double finest = 1e-12 * fmax(fmax(fabs(lo), fabs(hi)), fabs(from));

    if (!(step > finest) || !(count <= PP_PLAN_MAX_VALUES)) {
        pp_log_error("plan: parameter %s: a step of %g over %g .. %g makes %.3g values, at most "
                     "%d: give a step of at least %.3g", name, step, fmin(from, lo), hi, count,
                     PP_PLAN_MAX_VALUES, fmax(span / (PP_PLAN_MAX_VALUES - 1), finest * 2));
        return -EINVAL;
    }
    return 0;
}

/* The value parameter k is held at (o->fixed): 1 with *value, 0 when it
 * moves, -EINVAL (logged) for a label or number the results do not have. */
static int fixed_value(const pp_model *m, const pp_plan_options *o, size_t k, double *value)
{
    const pp_summary_param_info *p = &m->sum.param[k];
    double lo = INFINITY, hi = -INFINITY;

    for (size_t f = 0; f < o->n_fixed; f++) {
        const char *text = o->fixed[f].value;
        if (strcmp(o->fixed[f].name, p->name) != 0)
            continue;
        for (size_t i = 0; p->kind == PP_PARAM_CATEGORICAL && i < p->n_labels; i++)
            if (strcmp(p->labels[i], text) == 0) {
                *value = (double)i;
                return 1;
            }
        for (size_t i = 0; i < m->sum.n_rows; i++) {
            lo = fmin(lo, m->sum.x[i * m->sum.n_params + k]);
            hi = fmax(hi, m->sum.x[i * m->sum.n_params + k]);
        }
        if (p->kind != PP_PARAM_CATEGORICAL && pp_parse_double(text, value) == 0 &&
            *value >= lo && *value <= hi)
            return 1;
        if (p->kind == PP_PARAM_CATEGORICAL)
            pp_log_error("plan: %s = %s: no such label among the measured ones", p->name, text);
        else
            pp_log_error("plan: %s = %s: a number within the measured %g .. %g expected", p->name,
                         text, lo, hi);
        return -EINVAL;
    }
    return 0;
}

/* A list's grid: its smallest gap when every gap is a whole multiple of
 * it ([2.5, 5, 10] steps by 2.5; lists of whole numbers step by 1), else 0 (no grid: the plan's values are
 * spread between the measured ones). */
static int cmp_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double list_step(const pp_summary_param_info *p)
{
    double g = INFINITY, *v = p->n_swept >= 2 ? malloc(p->n_swept * sizeof *v) : NULL;

    if (!v)
        return 0;
    memcpy(v, p->swept, p->n_swept * sizeof *v);
    qsort(v, p->n_swept, sizeof *v, cmp_value);
    for (size_t i = 1; i < p->n_swept; i++)
        if (v[i] > v[i - 1])
            g = fmin(g, v[i] - v[i - 1]);
    for (size_t i = 1; isfinite(g) && i < p->n_swept; i++) {
        double q = (v[i] - v[i - 1]) / g;
        if (fabs(q - round(q)) > 1e-6 * fmax(1, q))
            g = 0;
    }
    free(v);
    return isfinite(g) ? g : 0;
}

int pp_plan_resolution_parse(const char *arg, pp_plan_options *o, char *why, size_t cap)
{
    const char *eq = strchr(arg, '=');
    pp_plan_resolution *r = &o->resolution[o->n_resolutions];

    if (!eq || o->n_resolutions == PP_SUMMARY_MAX_PARAMS ||
        pp_fmt(r->name, sizeof r->name, "%.*s", (int)(eq - arg), arg) < 0) {
        pp_text(why, cap, "NAME=STEP (a step > 0) or NAME=measured expected");
        return -EINVAL;
    }
    r->measured = strcmp(eq + 1, "measured") == 0;
    r->step = 0;
    if (!r->measured && (pp_parse_double(eq + 1, &r->step) < 0 || !(r->step > 0))) {
        pp_text(why, cap, "NAME=STEP with a step > 0 (or NAME=measured) expected");
        return -EINVAL;
    }
    o->n_resolutions++;
    return 0;
}

/* The values parameter k takes in the plan, into *v (malloc'd). */
static int param_values(const pp_model *m, const pp_plan_options *o, size_t k, double **v,
                        size_t *n, double *step)
{
    const pp_summary *s = &m->sum;
    const pp_summary_param_info *p = &s->param[k];
    double lo = INFINITY, hi = -INFINITY, from, held;
    int rc = fixed_value(m, o, k, &held);

    *step = 0;
    if (rc != 0) {
        *n = 1;
        if (rc > 0 && !(*v = malloc(2 * sizeof **v)))
            return -ENOMEM;
        if (rc > 0)
            (*v)[0] = held;
        return rc < 0 ? rc : 0;
    }
    if (p->kind == PP_PARAM_CATEGORICAL) {
        *n = p->n_labels;
        if (!(*v = malloc((*n + 1) * sizeof **v)))
            return -ENOMEM;
        for (size_t i = 0; i < *n; i++)
            (*v)[i] = (double)i;
        return 0;
    }
    for (size_t i = 0; i < s->n_rows; i++) {
        lo = fmin(lo, s->x[i * s->n_params + k]);
        hi = fmax(hi, s->x[i * s->n_params + k]);
    }
    from = lo;
    for (size_t r = 0; r < o->n_resolutions; r++)
        if (strcmp(o->resolution[r].name, p->name) == 0 && o->resolution[r].measured)
            return pp_plan_measured_levels(s, k, v, n);
        else if (strcmp(o->resolution[r].name, p->name) == 0)
            *step = o->resolution[r].step;
    if (*step == 0 && pp_plan_is_clock(p->name)) /* the board's table: no value between */
        return pp_plan_measured_levels(s, k, v, n);
    if (*step == 0 && p->kind == PP_PARAM_LINEAR && p->n_swept >= 2) {
        *step = fabs(p->swept[1] - p->swept[0]);
        from = fmin(p->swept[0], p->swept[p->n_swept - 1]);
    } else if (*step == 0 && p->integer) {
        *step = 1;
    } else if (*step == 0 && p->kind == PP_PARAM_LIST && (*step = list_step(p)) > 0) {
        from = lo; /* a list of fractions: its own values and the grid they lie on */
    }
    if (*step > 0 && check_step(p->name, *step, lo, hi, from) < 0)
        return -EINVAL;
    if (*step > 0 && from < lo) /* the sweep's grid value at lo, or just below it */
        from += *step * floor((lo - from) / *step + 1e-9);
    *n = hi == lo ? 1 : *step > 0 ? (size_t)floor((hi - from) / *step + 1e-9) + 1 : CONTINUOUS_STEPS + 1;
    if (!(*v = malloc((*n + 1) * sizeof **v)))
        return -ENOMEM;
    for (size_t i = 0; i < *n; i++)
        (*v)[i] = *n == 1    ? lo
                  : *step > 0 ? from + *step * (double)i
                  : s->log_scale[k] ? lo * pow(hi / lo, (double)i / CONTINUOUS_STEPS)
                                    : lo + (hi - lo) * (double)i / CONTINUOUS_STEPS;
    return 0;
}

/* Keep every other value of the longest list until the product fits. */
static void thin(double **v, size_t *n, size_t d)
{
    for (;;) {
        double total = 1;
        size_t longest = 0;
        for (size_t k = 0; k < d; k++) {
            total *= (double)n[k];
            longest = n[k] > n[longest] ? k : longest;
        }
        if (total <= PP_PLAN_MAX_CANDIDATES || n[longest] < 3)
            return;
        for (size_t i = 0; 2 * i < n[longest]; i++)
            v[longest][i] = v[longest][2 * i];
        n[longest] = (n[longest] + 1) / 2;
    }
}

int pp_plan_predict_at(const pp_model *m, size_t power_metric, int achieved_metric,
                       const pp_model_point *pt, pp_prediction *power, pp_prediction *achieved)
{
    static const pp_prediction none = {NAN, NAN, NAN, NAN, 0};

    *achieved = none;
    if (pp_model_predict(m, power_metric, pt, power) < 0 || isnan(power->value))
        return 1;
    if (achieved_metric >= 0 &&
        (pp_model_predict(m, (size_t)achieved_metric, pt, achieved) < 0 || isnan(achieved->value)))
        *achieved = none;
    return 0;
}

/* A rate is never achieved above the one requested: an interpolated
 * overshoot (16.2 of 16 fps between two measured levels) is capped, so it
 * cannot outrank a measured setting that achieves the request. */
static void cap_achieved(pp_prediction *a, double requested)
{
    if (a->value > requested) /* NaN (no rate) stays NaN */
        a->value = requested;
    if (a->lo > requested)
        a->lo = requested;
    if (a->hi > requested)
        a->hi = requested;
}

/* Predict one candidate: 0 kept, 1 left out (labels never measured
 * together, no prediction, or short of its rate), -errno. */
static int predict(const pp_model *m, const pp_plan_options *o, size_t power_metric,
                   pp_plan_result *r, pp_plan_choice *c)
{
    double requested = c->point.raw[r->maximize];
    int rc = o->predict ? o->predict(o->predict_ctx, m, power_metric, r->achieved_metric,
                                     r->maximize, c)
                        : pp_plan_predict_at(m, power_metric, r->achieved_metric, &c->point,
                                             &c->power, &c->achieved);

    if (rc != 0)
        return rc;
    pp_plan_unit_rate(m, o->predict ? -1 : r->unit_metric, &c->point, c->power.value,
                      &c->energy_per_unit_j, &c->rate_per_s); /* a swapped network: none */
    if (o->min_rate_per_s > 0 && !(c->rate_per_s >= o->min_rate_per_s)) {
        r->n_below_min_rate++;
        return 1;
    }
    c->planned_w = o->risk == PP_RISK_UPPER && !isnan(c->power.hi) ? c->power.hi : c->power.value;
    if (!o->predict) /* the measured network's levels bound its own rate */
        pp_plan_bound_achieved(m, r->maximize, r->achieved_metric, &c->point, &c->achieved);
    cap_achieved(&c->achieved, requested);
    c->qos = isnan(c->achieved.value) ? requested : c->achieved.value;
    if (!isnan(c->achieved.value) && c->achieved.value < requested * (1 - o->tolerance_frac)) {
        if (r->n_short_of_rate++ == 0 || requested > r->short_example.point.raw[r->maximize])
            r->short_example = *c;
        return 1;
    }
    return 0;
}

/* Every combination of the parameters' values that the model predicts. */
static int candidates(const pp_model *m, const pp_plan_options *o, size_t power_metric,
                      pp_plan_result *r, pp_plan_choice **out)
{
    size_t d = m->sum.n_params, n[PP_SUMMARY_MAX_PARAMS], idx[PP_SUMMARY_MAX_PARAMS] = {0};
    double *v[PP_SUMMARY_MAX_PARAMS] = {NULL};
    pp_plan_choice *c = malloc(PP_PLAN_MAX_CANDIDATES * sizeof *c);
    int rc = c ? 0 : -ENOMEM;

    for (size_t k = 0; k < d && rc == 0; k++)
        rc = param_values(m, o, k, &v[k], &n[k], &r->step[k]);
    if (rc == 0)
        thin(v, n, d);
    while (rc == 0) {
        size_t k = 0;
        pp_plan_choice *cand = &c[r->n_candidates];
        memset(cand, 0, sizeof *cand);
        for (size_t j = 0; j < d; j++)
            cand->point.raw[j] = v[j][idx[j]];
        rc = predict(m, o, power_metric, r, cand);
        r->n_candidates += rc == 0;
        rc = rc == 1 ? 0 : rc;
        while (k < d && ++idx[k] == n[k])
            idx[k++] = 0;
        if (k == d || r->n_candidates == PP_PLAN_MAX_CANDIDATES)
            break;
    }
    for (size_t k = 0; k < d; k++)
        free(v[k]);
    if (rc < 0) {
        free(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* A quality to three significant digits, as printed: plans whose
 * qualities read the same are equal, and the cheaper wins. */
static double quality_key(double v)
{
    double unit;

    if (!isfinite(v) || v == 0)
        return v;
    unit = pow(10, floor(log10(fabs(v))) - 2);
    return round(v / unit) * unit;
}

static int cmp_choice(const void *a, const void *b)
{
    const pp_plan_choice *x = a, *y = b;
    double qx = quality_key(x->qos), qy = quality_key(y->qos);
    if (qx != qy)
        return qx < qy ? 1 : -1; /* highest quality first */
    return (x->planned_w > y->planned_w) - (x->planned_w < y->planned_w);
}

/* The parameter to maximize, and its achieved rate's metric. */
static int what_to_maximize(const pp_model *m, const pp_plan_options *o, pp_plan_result *r)
{
    const pp_summary *s = &m->sum;
    int q = o->maximize ? pp_summary_param(s, o->maximize) : -1;
    char name[PP_SUMMARY_NAME_MAX + 16];
    size_t len;

    if (o->maximize && q < 0) {
        pp_log_error("plan: no parameter '%s' to maximize", o->maximize);
        return -EINVAL;
    }
    for (size_t k = 0; k < s->n_params && q < 0; k++) {
        len = strlen(s->params[k]);
        if (len >= 3 && strcmp(s->params[k] + len - 3, "fps") == 0)
            q = (int)k;
    }
    for (size_t k = 0; k < s->n_params && q < 0; k++)
        if (s->param[k].kind != PP_PARAM_CATEGORICAL)
            q = (int)k;
    if (q < 0 || s->param[q].kind == PP_PARAM_CATEGORICAL) {
        pp_log_error("plan: nothing numeric to maximize%s%s", o->maximize ? ": " : "",
                     o->maximize ? o->maximize : "");
        return -EINVAL;
    }
    r->maximize = (size_t)q;
    r->achieved_metric = pp_plan_rate_metric(s->params[q], name, sizeof name)
                             ? pp_summary_metric(s, name) : -1;
    return 0;
}

int pp_plan_rate_metric(const char *param, char *buf, size_t cap)
{
    size_t len = strlen(param);

    return len > 4 && strcmp(param + len - 4, ".fps") == 0 &&
           pp_fmt(buf, cap, "%.*s.achieved_fps", (int)(len - 4), param) == 0;
}

/* 1 when a and b hold the same setting of every parameter but the one
 * maximized (all of them with only_maximized). */
static int same_setting(const pp_plan_result *r, size_t n_params, const pp_plan_choice *a,
                        const pp_plan_choice *b, int only_maximized)
{
    if (only_maximized)
        return a->point.raw[r->maximize] == b->point.raw[r->maximize];
    for (size_t k = 0; k < n_params; k++)
        if (k != r->maximize && a->point.raw[k] != b->point.raw[k])
            return 0;
    return 1;
}

/* A runner-up is an alternative, not one step down the same knob: with
 * other parameters, it holds another setting of them than the best and
 * every runner-up before it (a different label, another input); with the
 * maximized parameter alone, another value of it. */
static int distinct(const pp_plan_result *r, size_t n_params, const pp_plan_choice *c,
                    int by_maximized)
{
    int alone = n_params < 2 || by_maximized;

    if (same_setting(r, n_params, c, &r->best, alone))
        return 0;
    for (size_t j = 0; j < r->n_runners; j++)
        if (same_setting(r, n_params, c, &r->runners[j], alone))
            return 0;
    return 1;
}

/* 1 when every parameter of c but the one maximized has a value some
 * configuration was measured at (an alternative worth naming, not a point
 * between two measured levels). */
static int measured_setting(const pp_model *m, const pp_plan_result *r, const pp_plan_choice *c)
{
    const pp_summary *s = &m->sum;

    for (size_t k = 0; k < s->n_params; k++) {
        int found = k == r->maximize || s->param[k].kind == PP_PARAM_CATEGORICAL;
        for (size_t i = 0; i < s->n_rows && !found; i++)
            found = fabs(s->x[i * s->n_params + k] - c->point.raw[k]) <=
                    1e-9 * fmax(1, fabs(c->point.raw[k]));
        if (!found)
            return 0;
    }
    return 1;
}

/* One rule for every planner (plan, its schedule, plan --mission, govern):
 * a setting never measured gives way to a measured one that costs no more
 * and whose quality lies within the former's band (its gain is within its
 * own error). c sorted by quality; *n shrinks; r counts what gave way and
 * keeps the highest. 0 or -ENOMEM. */
static int give_way(const pp_model *m, pp_plan_result *r, pp_plan_choice *c, size_t *n)
{
    size_t *measured = malloc(*n * sizeof *measured), n_measured = 0, kept = 0;

    if (!measured)
        return -ENOMEM;
    for (size_t i = 0; i < *n; i++)
        if (pp_plan_is_measured(m, &c[i].point))
            measured[n_measured++] = i;
    for (size_t i = 0, next = 0; i < *n; i++) {
        int drop = 0, is_measured = next < n_measured && measured[next] == i;
        next += is_measured;
        for (size_t j = 0; j < n_measured && !is_measured && !isnan(c[i].achieved.lo) && !drop;
             j++)
            drop = c[measured[j]].qos >= c[i].achieved.lo &&
                   c[measured[j]].planned_w <= c[i].planned_w;
        if (drop && r->n_gave_way++ == 0)
            r->gave_way_example = c[i];
        else if (!drop)
            c[kept++] = c[i];
    }
    free(measured);
    *n = kept;
    return 0;
}

/* The best gained nothing by the rule above (give_way) when the highest
 * setting that gave way was carried too: said as preferred to it. */
static void prefer_measured(pp_plan_result *r)
{
    const pp_plan_choice *x = &r->gave_way_example;

    if (r->n_gave_way && x->qos > r->best.qos && x->planned_w <= r->max_power_w) {
        r->measured_preferred = 1;
        r->interpolated = *x;
    }
}

/* The best, the runners-up and the most frugal among the sorted c. */
static int choose(const pp_model *m, const pp_plan_options *o, pp_plan_result *r,
                  const pp_plan_choice *c, size_t n, size_t *best)
{
    const pp_battery_params *b = &o->battery;
    size_t frugal = 0, i;
    int rc;

    *best = n;
    r->qos_upper = r->qos_mean = NAN;
    for (i = 0; i < n; i++) {
        double hi = isnan(c[i].power.hi) ? c[i].power.value : c[i].power.hi;
        frugal = c[i].planned_w < c[frugal].planned_w ? i : frugal;
        if (*best == n && c[i].planned_w <= r->max_power_w)
            *best = i;
        if (isnan(r->qos_upper) && hi <= r->max_power_w)
            r->qos_upper = c[i].qos;
        if (isnan(r->qos_mean) && c[i].power.value <= r->max_power_w)
            r->qos_mean = c[i].qos;
    }
    r->frugal = c[frugal];
    if ((rc = pp_plan_lasts(b, c[frugal].planned_w, b->soc_start_frac, o->mission_s,
                            r->min_soc_frac, &r->frugal_soc_end_frac,
                            &r->frugal_time_to_cutoff_s)) < 0)
        return rc;
    if (*best == n)
        return 0;
    r->feasible = 1;
    r->best = c[*best];
    prefer_measured(r);
    if ((rc = pp_plan_lasts(b, r->best.planned_w, b->soc_start_frac, o->mission_s, r->min_soc_frac,
                    &r->best_soc_end_frac, &r->best_time_to_cutoff_s)) < 0)
        return rc;
    for (int pass = 0; pass < 2; pass++) /* alternatives first, then steps down */
        for (i = *best + 1; i < n && r->n_runners < PP_PLAN_RUNNERS; i++)
            if (c[i].planned_w <= r->max_power_w && distinct(r, m->sum.n_params, &c[i], pass) &&
                (pass || measured_setting(m, r, &c[i])))
                r->runners[r->n_runners++] = c[i];
    qsort(r->runners, r->n_runners, sizeof r->runners[0], cmp_choice); /* by quality */
    r->indistinct = r->n_runners > 0 && !isnan(r->best.achieved.lo) &&
                    !isnan(r->runners[0].achieved.hi) &&
                    r->runners[0].achieved.hi >= r->best.achieved.lo &&
                    r->runners[0].qos < r->best.qos;
    return 0;
}

/* The state of charge at the end of the whole schedule, in one run. */
static int schedule_end(const pp_plan_options *o, pp_plan_result *r)
{
    size_t n = 2 * r->n_steps;
    double *t = malloc(2 * n * sizeof *t), *w = t ? t + n : NULL;
    pp_battery_options bo;
    pp_battery_result br;
    pp_battery_params p = o->battery;
    int rc;

    if (!t)
        return -ENOMEM;
    for (size_t j = 0; j < r->n_steps; j++) {
        double end = j + 1 < r->n_steps ? r->steps[j + 1].t_s : o->mission_s;
        t[2 * j] = r->steps[j].t_s;
        t[2 * j + 1] = end - (j + 1 < r->n_steps ? 1e-6 * o->mission_s : 0);
        w[2 * j] = w[2 * j + 1] = r->steps[j].c.planned_w;
    }
    if (p.soc_cutoff_frac >= p.soc_start_frac)
        p.soc_cutoff_frac = 0;
    pp_battery_options_init(&bo);
    rc = pp_battery_run(&p, &(pp_battery_load){t, w, n, 0}, &bo, &br);
    r->schedule_soc_end_frac = rc == 0 ? br.soc_end_frac : NAN;
    free(t);
    return rc;
}

/* Step down from the highest quality, never below the best plan. */
static int schedule(const pp_plan_options *o, pp_plan_result *r, const pp_plan_choice *c,
                    size_t best)
{
    const pp_battery_params *b = &o->battery;
    double dt = o->mission_s / SCHEDULE_STEPS, t = 0, soc = b->soc_start_frac;
    size_t last = (size_t)-1;
    int rc;

    for (int k = 0; k < SCHEDULE_STEPS; k++, t += dt) {
        double rest = o->mission_s - t - dt, p_max, s_after;
        size_t i = 0;
        p_max = pp_plan_max_power_from(b, soc, dt, r->best.planned_w,
                                       rest > 1e-9 * o->mission_s ? rest : 0,
                          r->min_soc_frac);
        while (i < best && c[i].planned_w > p_max)
            i++;
        if (i != last && r->n_steps == PP_PLAN_MAX_STEPS)
            i = last; /* no more switches: keep the last level */
        if (i != last) {
            r->steps[r->n_steps++] = (pp_plan_step){t, soc, c[i]};
            last = i;
        }
        if ((rc = pp_plan_lasts(b, c[last].planned_w, soc, dt, 0.0, &s_after, NULL)) < 0)
            return rc;
        soc = s_after;
    }
    return schedule_end(o, r);
}

/* The checks of the options that do not concern the mission, the
 * parameter to maximize, and the candidates, sorted by quality. */
static int prepare(const pp_model *m, const pp_plan_options *o, pp_plan_result *r,
                   pp_plan_choice **out)
{
    int power = pp_summary_metric(&m->sum, PP_PLAN_POWER_METRIC), rc;

    if (power < 0) {
        pp_log_error("plan: the results have no %s column", PP_PLAN_POWER_METRIC);
        return -EINVAL;
    }
    for (size_t i = 0; i < o->n_resolutions; i++)
        if (pp_summary_param(&m->sum, o->resolution[i].name) < 0 ||
            !(o->resolution[i].step > 0 || o->resolution[i].measured)) {
            pp_log_error("plan: the resolution %s=%g: no such parameter, or not > 0",
                         o->resolution[i].name, o->resolution[i].step);
            return -EINVAL;
        }
    if ((r->unit_metric = pp_plan_unit_metric(m, o->min_rate_per_s > 0)) == -EINVAL)
        return -EINVAL;
    if ((rc = what_to_maximize(m, o, r)) < 0 || (rc = candidates(m, o, (size_t)power, r, out)) < 0)
        return rc;
    if (r->n_candidates == 0 && r->n_short_of_rate)
        pp_log_error("plan: every setting falls short of its requested rate by more than the "
                     "tolerance (e.g. %s = %g achieves %.3g): lower the rates, a larger "
                     "--tolerance, or a less loaded machine", m->sum.params[r->maximize],
                     r->short_example.point.raw[r->maximize], r->short_example.achieved.value);
    else if (r->n_candidates == 0 && r->n_below_min_rate)
        pp_log_error("plan: no setting keeps up %g units of work a second (--min-rate, --work)",
                     o->min_rate_per_s);
    if (r->n_candidates == 0) {
        if (!r->n_short_of_rate && !r->n_below_min_rate)
            pp_log_error("plan: no configuration has a prediction of %s", PP_PLAN_POWER_METRIC);
        free(*out);
        return -EINVAL;
    }
    qsort(*out, r->n_candidates, sizeof **out, cmp_choice);
    if ((rc = give_way(m, r, *out, &r->n_candidates)) < 0)
        free(*out);
    return rc;
}

int pp_plan_candidates(const pp_model *m, const pp_plan_options *o, pp_plan_result *r,
                       pp_plan_choice **out)
{
    memset(r, 0, sizeof *r);
    *out = NULL;
    if (!(o->tolerance_frac >= 0 && o->tolerance_frac < 1)) {
        pp_log_error("plan: tolerance %g: out of range [0, 1)", o->tolerance_frac);
        return -EINVAL;
    }
    return prepare(m, o, r, out);
}

int pp_plan(const pp_model *m, const pp_plan_options *o, pp_plan_result *r)
{
    const pp_battery_params *b = &o->battery;
    pp_plan_choice *c = NULL;
    size_t best;
    int rc;

    memset(r, 0, sizeof *r);
    if (!(o->mission_s >= PP_PLAN_MISSION_S_MIN && o->mission_s <= PP_PLAN_MISSION_S_MAX)) {
        pp_log_error("plan: a mission of %g s: out of range (%g to %g s)", o->mission_s,
                     PP_PLAN_MISSION_S_MIN, PP_PLAN_MISSION_S_MAX);
        return -EINVAL;
    }
    if (!(o->tolerance_frac >= 0 && o->tolerance_frac < 1)) {
        pp_log_error("plan: tolerance %g: out of range [0, 1)", o->tolerance_frac);
        return -EINVAL;
    }
    r->min_soc_frac = o->min_soc_frac >= 0 ? o->min_soc_frac : b->soc_cutoff_frac;
    r->max_power_w =
        pp_plan_max_power_from(b, b->soc_start_frac, o->mission_s, 0, 0, r->min_soc_frac);
    if ((rc = prepare(m, o, r, &c)) < 0)
        return rc;
    rc = choose(m, o, r, c, r->n_candidates, &best);
    if (rc == 0 && r->feasible && o->schedule)
        rc = schedule(o, r, c, best);
    free(c);
    return rc;
}

void pp_plan_choice_text(const pp_model *m, const pp_plan_choice *c, char *buf, size_t cap)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < m->sum.n_params && used < cap; k++) {
        char v[160];
        pp_summary_value_text(&m->sum, k, c->point.raw[k], v, sizeof v);
        used += (size_t)snprintf(buf + used, cap - used, "%s%s=%s", k ? " " : "",
                                 m->sum.params[k], v);
    }
}
