/* The highest frame rate a battery carries through a mission, for a network
 * costed by a layer model (src/layers_model.h). */
#include "layers_model.h"

#include "log.h"

#include "../battery/battery.h"

#include <errno.h>
#include <math.h>

#define BISECTIONS 40

/* 1 when the battery lasts mission_s under the network at fps with at
 * least min_soc left and no event, 0 when not, -errno. */
static int lasts(const pp_layers_cost *c, const pp_battery_params *p, double mission_s,
                 double min_soc, double fps, double *soc_end)
{
    double power_w, t[2] = {0.0, mission_s}, w[2];
    pp_battery_load load = {t, w, 2};
    pp_battery_options o;
    pp_battery_result r;
    int rc = pp_layers_power_at_fps(c, fps, &power_w);

    if (rc < 0)
        return rc;
    w[0] = w[1] = power_w;
    pp_battery_options_init(&o);
    if ((rc = pp_battery_run(p, &load, &o, &r)) < 0)
        return rc;
    *soc_end = r.soc_end_frac;
    return r.n_events == 0 && r.soc_end_frac >= min_soc;
}

int pp_layers_plan_fps(const pp_layers_cost *c, const pp_battery_params *p, double mission_s,
                       double min_soc_frac, double *fps, double *soc_end_frac)
{
    double lo = 0.0, hi = c->max_fps, soc = NAN;
    int rc = lasts(c, p, mission_s, min_soc_frac, 0.0, &soc);

    *fps = 0.0;
    *soc_end_frac = soc;
    if (rc <= 0)
        return rc < 0 ? rc : 1; /* not even idle lasts */
    if ((rc = lasts(c, p, mission_s, min_soc_frac, hi, &soc)) < 0)
        return rc;
    if (rc == 1) {
        *fps = hi;
        *soc_end_frac = soc;
        return 0;
    }
    for (int i = 0; i < BISECTIONS; i++) {
        double mid = 0.5 * (lo + hi), s;
        if ((rc = lasts(c, p, mission_s, min_soc_frac, mid, &s)) < 0)
            return rc;
        if (rc == 1) {
            lo = mid;
            *soc_end_frac = s;
        } else {
            hi = mid;
        }
    }
    *fps = lo;
    return 0;
}
