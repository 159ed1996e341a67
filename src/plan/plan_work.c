/* plan_work.c - work measured per unit (plan.h): a candidate's energy per
 * unit of work (an iteration: a frame, a file, a run of a program) and the
 * rate of units it keeps up (plan_work.h). */
#include "plan_work.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>

int pp_plan_unit_metric(const pp_model *m, int need_rate)
{
    int k = pp_summary_metric(&m->sum, PP_PLAN_UNIT_METRIC);

    if (k < 0 && need_rate) {
        pp_log_error("plan: a rate of work (--min-rate, --work) needs the results' %s (the "
                     "components that count iterations: frames, files, runs of a program)",
                     PP_PLAN_UNIT_METRIC);
        return -EINVAL;
    }
    return k;
}

void pp_plan_unit_rate(const pp_model *m, int unit_metric, const pp_model_point *pt,
                       double power_w, double *energy_per_unit_j, double *rate_per_s)
{
    pp_prediction e;

    *energy_per_unit_j = *rate_per_s = NAN;
    if (unit_metric < 0 || pp_model_predict(m, (size_t)unit_metric, pt, &e) < 0 ||
        !(e.value > 0))
        return;
    *energy_per_unit_j = e.value;
    *rate_per_s = power_w / e.value; /* W / (J per unit): units per second */
}
