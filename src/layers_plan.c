/* The highest frame rate a battery carries through a mission, for a network
 * costed by a layer model (src/layers_model.h): the planner's most power
 * the battery carries (src/plan.h), turned into a frame rate. */
#include "layers_model.h"

#include "log.h"
#include "plan.h"

#include "../battery/battery.h"

#include <errno.h>
#include <math.h>

void pp_layers_cost_upper(pp_layers_cost *c)
{
    if (isfinite(c->time_band_s) && c->time_band_s > 0) {
        c->time_s += c->time_band_s;
        c->max_fps = 1.0 / c->time_s;
    }
    if (isfinite(c->energy_band_j) && c->energy_band_j > 0)
        c->energy_j += c->energy_band_j;
}

int pp_layers_plan_fps(const pp_layers_cost *c, const pp_battery_params *p, double mission_s,
                       double min_soc_frac, double *fps, double *soc_end_frac)
{
    double max_w, power_w, drain, busy_j = c->energy_j - c->idle_w * c->time_s;
    int rc;

    *fps = 0.0;
    *soc_end_frac = NAN;
    if (!isfinite(c->idle_w)) {
        pp_log_error("layers: the model has no idle power: a frame rate needs it "
                     "(profile with --idle-s)");
        return -EINVAL;
    }
    if ((rc = pp_plan_max_power(p, mission_s, min_soc_frac, &max_w)) < 0)
        return rc;
    if (max_w < c->idle_w)
        return 1; /* not even the idle device lasts */
    /* the power is linear in the rate: idle_w + fps busy_j */
    *fps = busy_j > 0 ? fmin(c->max_fps, (max_w - c->idle_w) / busy_j) : c->max_fps;
    if ((rc = pp_layers_power_at_fps(c, *fps, &power_w)) < 0 ||
        (rc = pp_plan_constant_load(p, power_w, mission_s, &drain, NULL)) < 0)
        return rc;
    *soc_end_frac = p->soc_start_frac - drain;
    return 0;
}
