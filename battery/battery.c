/* Battery parameters, presets and the model's algebra (no solver here).
 *
 * Where the preset values come from (typical figures, not measurements of
 * one pack: calibrate for yours):
 *  - nominal 3.7 V per lithium-polymer cell; voltage_v = cells x 3.7 V.
 *  - OCV table per cell: the usual resting-voltage curve of a LiPo cell,
 *    3.30 V empty to 4.20 V full (hobby charger and pack makers' charts).
 *  - r_int_ohm: 8 mOhm per cell for 25-45C packs of 2-4 Ah, 3 mOhm per
 *    cell for 10 Ah packs, in series (DC resistance figures printed by
 *    battery analysers / chargers for such packs).
 *  - RC pair: half of R0, time constant 30 s (the slow polarisation seen
 *    in pulse-discharge tests of LiPo cells).
 *  - soc_cutoff 20 %: the usual landing reserve of drone packs;
 *    cutoff_v 3.3 V per cell under load (below it LiPo cells are damaged).
 */
#include "battery.h"

#include "../src/log.h"
#include "../src/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const pp_battery_presets[] = {"drone-4s-3200", "drone-3s-2200", "drone-6s-10000", NULL};

static const double lipo_soc[] = {0.00, 0.05, 0.10, 0.20, 0.30, 0.40, 0.50,
                                  0.60, 0.70, 0.80, 0.90, 1.00};
static const double lipo_v[] = {3.30, 3.50, 3.60, 3.70, 3.75, 3.79, 3.83,
                                3.87, 3.92, 4.00, 4.08, 4.20};

static void lipo_pack(pp_battery_params *p, int cells, double capacity_ah, double r_cell_ohm)
{
    memset(p, 0, sizeof *p);
    p->model = PP_BATTERY_RINT;
    p->cells = cells;
    p->capacity_ah = capacity_ah;
    p->voltage_v = 3.7 * cells;
    p->r_int_ohm = r_cell_ohm * cells;
    p->r1_ohm = p->r_int_ohm / 2.0;
    p->c1_f = 30.0 / p->r1_ohm;
    p->ocv_n = PP_ARRAY_SIZE(lipo_soc);
    memcpy(p->ocv_soc, lipo_soc, sizeof lipo_soc);
    memcpy(p->ocv_v, lipo_v, sizeof lipo_v);
    p->soc_start_frac = 1.0;
    p->soc_cutoff_frac = 0.2;
    p->cutoff_v = 3.3 * cells;
    p->base_power_w = 0.0;
    p->efficiency = 1.0;
}

int pp_battery_preset(const char *name, pp_battery_params *p)
{
    if (strcmp(name, "drone-4s-3200") == 0)
        lipo_pack(p, 4, 3.2, 0.008);
    else if (strcmp(name, "drone-3s-2200") == 0)
        lipo_pack(p, 3, 2.2, 0.008);
    else if (strcmp(name, "drone-6s-10000") == 0)
        lipo_pack(p, 6, 10.0, 0.003);
    else
        return -ENOENT;
    return 0;
}

void pp_battery_params_default(pp_battery_params *p) { pp_battery_preset(pp_battery_presets[0], p); }

const char *pp_battery_model_name(pp_battery_model m)
{
    return m == PP_BATTERY_THEVENIN ? "thevenin" : "rint";
}

int pp_battery_model_parse(const char *name, pp_battery_model *out)
{
    if (strcmp(name, "rint") == 0)
        *out = PP_BATTERY_RINT;
    else if (strcmp(name, "thevenin") == 0)
        *out = PP_BATTERY_THEVENIN;
    else
        return -EINVAL;
    return 0;
}

const char *pp_battery_event_name(pp_battery_event_kind k)
{
    switch (k) {
    case PP_BATTERY_EVENT_SOC_CUTOFF:
        return "soc_cutoff";
    case PP_BATTERY_EVENT_VOLTAGE_CUTOFF:
        return "voltage_cutoff";
    case PP_BATTERY_EVENT_BROWNOUT:
        return "brownout";
    }
    return "?";
}

#define FAIL(k, ...)                                                                               \
    do {                                                                                           \
        *key = (k);                                                                                \
        pp_fmt(why, cap, __VA_ARGS__);                                                             \
        return -EINVAL;                                                                            \
    } while (0)

int pp_battery_params_check(const pp_battery_params *p, const char **key, char *why, size_t cap)
{
    if (p->cells < 1 || p->cells > 1000)
        FAIL("cells", "must be between 1 and 1000 (got %d)", p->cells);
    if (!(p->capacity_ah > 0) || !isfinite(p->capacity_ah))
        FAIL("capacity_ah", "must be > 0 (got %g)", p->capacity_ah);
    if (!(p->voltage_v > 0) || !isfinite(p->voltage_v))
        FAIL("voltage_v", "must be > 0 (got %g)", p->voltage_v);
    if (!(p->r_int_ohm >= 0) || !isfinite(p->r_int_ohm))
        FAIL("r_int_ohm", "must be >= 0 (got %g)", p->r_int_ohm);
    if (!(p->soc_start_frac > 0 && p->soc_start_frac <= 1))
        FAIL("soc_start", "must be in (0, 1] (got %g)", p->soc_start_frac);
    if (!(p->soc_cutoff_frac >= 0 && p->soc_cutoff_frac < 1))
        FAIL("soc_cutoff", "must be in [0, 1) (got %g)", p->soc_cutoff_frac);
    if (!(p->soc_start_frac > p->soc_cutoff_frac))
        FAIL("soc_start", "%g is not above soc_cutoff %g", p->soc_start_frac, p->soc_cutoff_frac);
    if (!(p->cutoff_v >= 0) || !isfinite(p->cutoff_v))
        FAIL("cutoff_v", "must be >= 0 (got %g)", p->cutoff_v);
    if (!(p->base_power_w >= 0) || !isfinite(p->base_power_w))
        FAIL("base_power_w", "must be >= 0 (got %g)", p->base_power_w);
    if (!(p->efficiency > 0 && p->efficiency <= 1))
        FAIL("efficiency", "must be in (0, 1] (got %g)", p->efficiency);
    if (p->model == PP_BATTERY_RINT && p->cutoff_v >= p->voltage_v)
        FAIL("cutoff_v", "%g V is not below voltage_v %g V", p->cutoff_v, p->voltage_v);
    if (p->model == PP_BATTERY_THEVENIN) {
        if (!(p->r1_ohm > 0) || !isfinite(p->r1_ohm))
            FAIL("r1_ohm", "must be > 0 (got %g)", p->r1_ohm);
        if (!(p->c1_f > 0) || !isfinite(p->c1_f))
            FAIL("c1_f", "must be > 0 (got %g)", p->c1_f);
        if (p->ocv_n < 2)
            FAIL("ocv_soc", "needs at least 2 points (got %zu)", p->ocv_n);
        for (size_t i = 0; i < p->ocv_n; i++) {
            if (!(p->ocv_soc[i] >= 0 && p->ocv_soc[i] <= 1))
                FAIL("ocv_soc", "value %zu (%g) is not in [0, 1]", i + 1, p->ocv_soc[i]);
            if (!(p->ocv_v[i] > 0) || !isfinite(p->ocv_v[i]))
                FAIL("ocv_v", "value %zu (%g) must be > 0", i + 1, p->ocv_v[i]);
            if (i > 0 && !(p->ocv_soc[i] > p->ocv_soc[i - 1]))
                FAIL("ocv_soc", "is not increasing at value %zu (%g after %g)", i + 1,
                     p->ocv_soc[i], p->ocv_soc[i - 1]);
            if (i > 0 && p->ocv_v[i] < p->ocv_v[i - 1])
                FAIL("ocv_v", "is not monotonic at value %zu (%g after %g)", i + 1, p->ocv_v[i],
                     p->ocv_v[i - 1]);
        }
        if (p->cutoff_v >= pp_battery_ocv_v(p, p->soc_start_frac))
            FAIL("cutoff_v", "%g V is not below the open-circuit voltage at soc_start (%g V)",
                 p->cutoff_v, pp_battery_ocv_v(p, p->soc_start_frac));
    }
    return 0;
}

static const char *const battery_keys[] = {
    "preset", "model",     "cells",      "capacity_ah", "voltage_v",    "r_int_ohm",
    "r1_ohm", "c1_f",      "ocv_soc",    "ocv_v",       "soc_start",    "soc_cutoff",
    "cutoff_v", "base_power_w", "efficiency", NULL,
};

int pp_battery_params_from_config(const pp_config *cfg, pp_battery_params *p)
{
    const pp_config_node *g = NULL;
    char text[64], why[256];
    const char *bad_key = NULL;
    size_t n_soc = 0, n_v = 0;
    int rc = pp_config_get_group(cfg, pp_config_root(cfg), "battery", &g);

    if (rc != 0)
        return rc < 0 ? rc : 0;
    if (pp_config_check_keys(cfg, g, battery_keys) < 0)
        return -EINVAL;
    rc = pp_config_get_string(cfg, g, "preset", text, sizeof text);
    if (rc < 0)
        return rc;
    if (rc == 0 && pp_battery_preset(text, p) < 0)
        return pp_config_error(cfg, g, "preset", "unknown preset '%s' (known: drone-4s-3200, "
                                                 "drone-3s-2200, drone-6s-10000)", text);
    rc = pp_config_get_string(cfg, g, "model", text, sizeof text);
    if (rc < 0)
        return rc;
    if (rc == 0 && pp_battery_model_parse(text, &p->model) < 0)
        return pp_config_error(cfg, g, "model", "unknown model '%s' (rint or thevenin)", text);
    if (pp_config_get_int(cfg, g, "cells", &p->cells) < 0 ||
        pp_config_get_double(cfg, g, "capacity_ah", &p->capacity_ah) < 0 ||
        pp_config_get_double(cfg, g, "voltage_v", &p->voltage_v) < 0 ||
        pp_config_get_double(cfg, g, "r_int_ohm", &p->r_int_ohm) < 0 ||
        pp_config_get_double(cfg, g, "r1_ohm", &p->r1_ohm) < 0 ||
        pp_config_get_double(cfg, g, "c1_f", &p->c1_f) < 0 ||
        pp_config_get_double(cfg, g, "soc_start", &p->soc_start_frac) < 0 ||
        pp_config_get_double(cfg, g, "soc_cutoff", &p->soc_cutoff_frac) < 0 ||
        pp_config_get_double(cfg, g, "cutoff_v", &p->cutoff_v) < 0 ||
        pp_config_get_double(cfg, g, "base_power_w", &p->base_power_w) < 0 ||
        pp_config_get_double(cfg, g, "efficiency", &p->efficiency) < 0)
        return -EINVAL;
    rc = pp_config_get_doubles(cfg, g, "ocv_soc", p->ocv_soc, PP_BATTERY_OCV_MAX, &n_soc);
    if (rc < 0)
        return rc;
    rc = pp_config_get_doubles(cfg, g, "ocv_v", p->ocv_v, PP_BATTERY_OCV_MAX, &n_v);
    if (rc < 0)
        return rc;
    if (n_soc || n_v) {
        if (n_soc != n_v)
            return pp_config_error(cfg, g, n_soc ? "ocv_soc" : "ocv_v",
                                   "ocv_soc has %zu values and ocv_v %zu: they must pair up",
                                   n_soc, n_v);
        p->ocv_n = n_soc;
    }
    if (pp_battery_params_check(p, &bad_key, why, sizeof why) < 0)
        return pp_config_error(cfg, g, bad_key, "%s", why);
    return 0;
}

int pp_battery_params_load(const char *path, pp_battery_params *p)
{
    pp_config *cfg;
    int rc = pp_config_load(path, &cfg);

    if (rc < 0)
        return rc;
    rc = pp_battery_params_from_config(cfg, p);
    pp_config_free(cfg);
    return rc;
}

double pp_battery_ocv_v(const pp_battery_params *p, double soc)
{
    size_t lo = 0, hi;

    if (p->model == PP_BATTERY_RINT)
        return p->voltage_v;
    if (soc <= p->ocv_soc[0])
        return p->cells * p->ocv_v[0];
    if (soc >= p->ocv_soc[p->ocv_n - 1])
        return p->cells * p->ocv_v[p->ocv_n - 1];
    hi = p->ocv_n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->ocv_soc[mid] <= soc)
            lo = mid;
        else
            hi = mid;
    }
    return p->cells * (p->ocv_v[lo] + (p->ocv_v[hi] - p->ocv_v[lo]) * (soc - p->ocv_soc[lo]) /
                                          (p->ocv_soc[hi] - p->ocv_soc[lo]));
}

double pp_battery_current_a(double u_v, double r0_ohm, double power_w, int *brownout)
{
    double disc = u_v * u_v - 4.0 * r0_ohm * power_w;

    if (disc < 0.0) {
        *brownout = 1;
        return u_v / (2.0 * r0_ohm);
    }
    *brownout = 0;
    return 2.0 * power_w / (u_v + sqrt(disc));
}
