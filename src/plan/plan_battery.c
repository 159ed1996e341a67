/* plan_battery.c - the battery under the plan's constant loads (plan.c,
 * phases.c): whether a load lasts, and the most power that does. Calls
 * nothing of plan.c. */
#include "plan.h"
#include "plan_battery.h"

#include "src/base/log.h"

#include <math.h>

/* The battery b under a constant computer load for duration_s from
 * soc_start: 0 when it lasts (ends at min_soc or above, no event), 1 when
 * not, -errno. soc_end and ttc (time to cutoff) may be NULL. */
int pp_plan_lasts(const pp_battery_params *b, double power_w, double soc_start, double duration_s,
                 double min_soc, double *soc_end, double *ttc)
{
    pp_battery_params p = *b;
    pp_battery_options o;
    pp_battery_result r;
    double t[2] = {0, duration_s}, w[2] = {power_w, power_w};
    pp_battery_load load = {t, w, 2, 0};
    int rc;

    p.soc_start_frac = soc_start;
    if (p.soc_cutoff_frac >= soc_start)
        p.soc_cutoff_frac = 0.0;
    pp_battery_options_init(&o);
    o.time_to_cutoff = ttc != NULL;
    if ((rc = pp_battery_run(&p, &load, &o, &r)) < 0)
        return rc;
    if (soc_end)
        *soc_end = r.soc_end_frac;
    if (ttc)
        *ttc = r.time_to_cutoff_s;
    return r.n_events == 0 && r.soc_end_frac >= min_soc ? 0 : 1;
}

int pp_plan_constant_load(const pp_battery_params *b, double computer_w, double duration_s,
                          double *drain_frac, double *ttc_s)
{
    double end = NAN;
    int rc = pp_plan_lasts(b, computer_w, b->soc_start_frac, duration_s, 0.0, &end, ttc_s);

    *drain_frac = b->soc_start_frac - end;
    return rc < 0 ? rc : 0;
}

/* Whether the computer at power_w from soc for duration_s, then (rest_s
 * > 0) at after_w for rest_s, ends at min_soc or above. */
static int fits(const pp_battery_params *b, double power_w, double soc, double duration_s,
                double after_w, double rest_s, double min_soc)
{
    double s_end = soc;

    if (pp_plan_lasts(b, power_w, soc, duration_s, rest_s > 0 ? 0.0 : min_soc, &s_end, NULL) != 0)
        return 0;
    return rest_s <= 0 || pp_plan_lasts(b, after_w, s_end, rest_s, min_soc, NULL, NULL) == 0;
}

/* The most computer power that fits (bisection); < 0 when not even 0 W
 * does. */
double pp_plan_max_power_from(const pp_battery_params *b, double soc, double duration_s,
                              double after_w, double rest_s, double min_soc)
{
    double lo = 0, hi = 1000;

    if (!fits(b, 0, soc, duration_s, after_w, rest_s, min_soc))
        return -1;
    while (hi < 1e6 && fits(b, hi, soc, duration_s, after_w, rest_s, min_soc)) {
        lo = hi;
        hi *= 2;
    }
    for (int it = 0; it < 50; it++) {
        double mid = 0.5 * (lo + hi);
        if (fits(b, mid, soc, duration_s, after_w, rest_s, min_soc))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int pp_plan_max_power(const pp_battery_params *b, double duration_s, double min_soc_frac,
                      double *max_w)
{
    const char *key;
    char why[160];
    int rc = pp_battery_params_check(b, &key, why, sizeof why);

    if (rc < 0) {
        pp_log_error("battery: %s %s", key, why);
        return rc;
    }
    *max_w = pp_plan_max_power_from(b, b->soc_start_frac, duration_s, 0.0, 0.0, min_soc_frac);
    return 0;
}

