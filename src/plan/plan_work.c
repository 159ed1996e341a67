/* plan_work.c - work measured per unit (plan.h): a candidate's energy per
 * unit of work (an iteration: a frame, a file, a run of a program) and the
 * rate of units it keeps up, for --min-rate and --work. Calls nothing of
 * plan.c. */
#include "plan.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>

int pp_plan_unit_metric(const pp_model *m, const pp_plan_options *o)
{
    int k = pp_summary_metric(&m->sum, PP_PLAN_UNIT_METRIC);

    if (k < 0 && o->min_rate_per_s > 0) {
        pp_log_error("plan: a rate of work (--min-rate, --work) needs the results' %s (the "
                     "components that count iterations: frames, files, runs of a program)",
                     PP_PLAN_UNIT_METRIC);
        return -EINVAL;
    }
    return k;
}

void pp_plan_unit_rate(const pp_model *m, int unit_metric, pp_plan_choice *c)
{
    pp_prediction e;

    c->energy_per_unit_j = c->rate_per_s = NAN;
    if (unit_metric < 0 || pp_model_predict(m, (size_t)unit_metric, &c->point, &e) < 0 ||
        !(e.value > 0))
        return;
    c->energy_per_unit_j = e.value;
    c->rate_per_s = c->power.value / e.value; /* W / (J per unit): units per second */
}
