/* derived.c - the battery metrics predicted through the battery model from
 * the predicted power (derived.h). Calls only plan_battery.c's. */
#include "derived.h"
#include "plan.h"
#include "plan_battery.h"

#include "src/results/run_json.h"
#include "src/base/util.h"

#include <math.h>
#include <string.h>

int pp_model_read_battery(pp_model *m, const char *dir)
{
    char path[PP_PATH_MAX];
    pp_battery_params b;
    int rc;

    pp_battery_params_default(&b);
    if ((rc = pp_path_fmt(path, sizeof path, dir, "run.json")) < 0)
        return rc;
    if ((rc = pp_run_json_battery_load(path, &b)) == 1) {
        m->battery = b;
        m->has_battery = 1;
    }
    return rc;
}

/* Which derived metric name is: 0 time to cutoff, 1 drain, 2 end; -1 none. */
static int derived_kind(const char *name)
{
    static const char *const names[] = {"time_to_cutoff_s", "soc_drain", "soc_end"};

    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* The power's and the duration's predictions (the duration 1 s when the
 * results have none: time to cutoff does not depend on it). 0, or -1 when
 * the power is not known. */
static int inputs(const pp_model *m, const pp_model_point *pt, pp_prediction *w,
                  pp_prediction *d)
{
    int kw = pp_summary_metric(&m->sum, "total_mean_w");
    int kd = pp_summary_metric(&m->sum, "duration_s");

    if (kw < 0 || pp_model_predict(m, (size_t)kw, pt, w) < 0 || !(w->value >= 0))
        return -1;
    if (kd < 0 || pp_model_predict(m, (size_t)kd, pt, d) < 0 || !(d->value > 0))
        *d = (pp_prediction){.value = 1, .lo = 1, .hi = 1};
    if (isnan(w->lo) || isnan(w->hi))
        w->lo = w->hi = w->value;
    if (isnan(d->lo) || isnan(d->hi) || !(d->lo > 0))
        d->lo = d->hi = d->value;
    w->lo = fmax(w->lo, 0);
    return 0;
}

int pp_model_predict_derived(const pp_model *m, size_t k, const pp_model_point *pt,
                             pp_prediction *p)
{
    int kind = derived_kind(m->sum.metrics[k]);
    double drain[3], ttc[3], start = m->battery.soc_start_frac;
    pp_prediction w, d;

    if (kind < 0 || !m->has_battery || inputs(m, pt, &w, &d) < 0)
        return pp_model_predict(m, k, pt, p);
    /* the prediction, then the least power over the shortest run, then the most over the longest */
    if (pp_plan_constant_load(&m->battery, w.value, d.value, &drain[0], &ttc[0]) < 0 ||
        pp_plan_constant_load(&m->battery, w.lo, d.lo, &drain[1], &ttc[1]) < 0 ||
        pp_plan_constant_load(&m->battery, w.hi, d.hi, &drain[2], &ttc[2]) < 0)
        return pp_model_predict(m, k, pt, p);
    if (kind == 0) {
        *p = (pp_prediction){ttc[0], ttc[2], ttc[1], w.honest_mape, w.beyond};
    } else if (kind == 1) {
        *p = (pp_prediction){drain[0], drain[1], drain[2], w.honest_mape, w.beyond};
    } else {
        double end = start - drain[0];
        *p = (pp_prediction){end, start - drain[2], start - drain[1],
                             end > 0 ? w.honest_mape * drain[0] / end : NAN, w.beyond};
    }
    return 0;
}
