/* The highest frame rate a battery carries through a mission, for a network
 * costed by a layer model (src/dnn/layers_model.h): the planner's most power
 * the battery carries (src/plan/plan.h), turned into a frame rate. */
#include "layers_plan.h"
#include "layers_predict.h"

#include "src/base/log.h"
#include "src/plan/plan_battery.h"

#include "battery/battery.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>

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

static int same_file(const char *a, const char *b)
{
    struct stat x, y;

    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int pp_layers_swap_init(const pp_layer_model *lm, const char *measured_cfg,
                        const char *network_cfg, pp_layers_swap *s)
{
    int rc;

    if ((rc = pp_layers_cost_of(lm, measured_cfg, 0, 0, &s->measured)) < 0 ||
        (rc = pp_layers_cost_of(lm, network_cfg, 0, 0, &s->network)) < 0)
        return rc;
    if (!isfinite(s->measured.idle_w) || !isfinite(s->network.idle_w)) {
        pp_log_error("layers: the model has no idle power: a swapped network's power needs "
                     "it (profile with --idle-s)");
        return -EINVAL;
    }
    if (!(s->measured.time_s > 0) || !(s->network.time_s > 0)) {
        pp_log_error("layers: %s or %s costs no time per frame", measured_cfg, network_cfg);
        return -EINVAL;
    }
    s->time_ratio = s->network.time_s / s->measured.time_s;
    s->same = same_file(measured_cfg, network_cfg);
    return 0;
}

/* A frame's energy above idle, and its band (0 when unknown). */
static double busy_j(const pp_layers_cost *c, double *band)
{
    *band = isfinite(c->energy_band_j) ? c->energy_band_j : 0.0;
    return c->energy_j - c->idle_w * c->time_s;
}

/* The lowest and highest values parameter k was measured at. */
static void measured_range(const pp_model *m, size_t k, double *lo, double *hi)
{
    const pp_summary *s = &m->sum;

    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < s->n_rows; i++) {
        *lo = fmin(*lo, s->x[i * s->n_params + k]);
        *hi = fmax(*hi, s->x[i * s->n_params + k]);
    }
}

int pp_layers_swap_predict(void *ctx, const pp_model *m, size_t power_metric,
                           int achieved_metric, size_t maximize, pp_plan_choice *c)
{
    const pp_layers_swap *s = ctx;
    double k = s->time_ratio, a_m, a_n, e_m, e_n, band_m, band_n, shift, widen;
    pp_model_point at = c->point;
    double lo, hi;

    if (s->same)
        return pp_plan_predict_at(m, power_metric, achieved_metric, &c->point, &c->power,
                                  &c->achieved);
    at.raw[maximize] = k * c->point.raw[maximize];
    measured_range(m, maximize, &lo, &hi);
    if (at.raw[maximize] < lo * (1 - 1e-9) || at.raw[maximize] > hi * (1 + 1e-9) ||
        pp_plan_predict_at(m, power_metric, achieved_metric, &at, &c->power, &c->achieved) != 0)
        return 1;
    a_m = isnan(c->achieved.value) ? at.raw[maximize] : c->achieved.value;
    a_n = a_m / k;
    e_m = busy_j(&s->measured, &band_m);
    e_n = busy_j(&s->network, &band_n);
    shift = a_n * e_n - a_m * e_m;
    widen = a_n * band_n + a_m * band_m;
    c->power.value += shift;
    c->power.lo = (isnan(c->power.lo) ? c->power.value - shift : c->power.lo) + shift - widen;
    c->power.hi = (isnan(c->power.hi) ? c->power.value - shift : c->power.hi) + shift + widen;
    c->achieved.value /= k; /* NaN stays NaN: the requested rate is the quality */
    c->achieved.lo /= k;
    c->achieved.hi /= k;
    return 0;
}

int pp_layers_swap_in_range(const pp_model *m, size_t maximize, const pp_layers_swap *s)
{
    double lo, hi;

    measured_range(m, maximize, &lo, &hi);
    return s->same || (s->time_ratio * lo <= hi * (1 + 1e-9) && s->time_ratio * hi >= lo * (1 - 1e-9));
}
