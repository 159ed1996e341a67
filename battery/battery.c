/* Battery parameters, presets and the model's algebra, and the drain of a
 * load through it (pp_battery_run, at the end: solver.c integrates).
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
#include "repeat.h"
#include "solver.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const pp_battery_presets[] = {"drone-4s-3200", "drone-3s-2200", "drone-6s-10000", NULL};

static const double lipo_soc[] = {0.00, 0.05, 0.10, 0.20, 0.30, 0.40, 0.50,
                                  0.60, 0.70, 0.80, 0.90, 1.00};
static const double lipo_v[] = {3.30, 3.50, 3.60, 3.70, 3.75, 3.79, 3.83,
                                3.87, 3.92, 4.00, 4.08, 4.20};

/* A lithium-ion (NMC, 18650-type) cell's resting voltage on the same
 * grid: typical figures of cell makers' OCV curves, 3.0 V empty to 4.2 V
 * full, steeper than LiPo's below half charge (not a measurement of one
 * cell). */
static const double liion_v[] = {3.00, 3.30, 3.45, 3.55, 3.62, 3.68, 3.75,
                                 3.83, 3.92, 4.02, 4.10, 4.20};

const char *const pp_battery_ocv_curves[] = {"lipo", "liion", NULL};

int pp_battery_ocv_curve(const char *name, pp_battery_params *p)
{
    const double *v = strcmp(name, "lipo") == 0 ? lipo_v : strcmp(name, "liion") == 0 ? liion_v
                                                                                     : NULL;

    if (!v)
        return -ENOENT;
    p->ocv_n = PP_ARRAY_SIZE(lipo_soc);
    memcpy(p->ocv_soc, lipo_soc, sizeof lipo_soc);
    memcpy(p->ocv_v, v, sizeof lipo_v);
    return 0;
}

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
        pp_text(why, cap, __VA_ARGS__);                                                            \
        return -EINVAL;                                                                            \
    } while (0)

/* x in [lo, hi] (NaN is not) */
static int within(double x, double lo, double hi) { return x >= lo && x <= hi; }

#define RANGE(k, x, lo, hi, unit)                                                                  \
    do {                                                                                           \
        if (!within((x), (lo), (hi)))                                                              \
            FAIL(k, "must be in [%g, %g]%s (got %g)", (double)(lo), (double)(hi), unit, (x));      \
    } while (0)

static int check_ocv_table(const pp_battery_params *p, const char **key, char *why, size_t cap)
{
    if (p->ocv_n < 2 || p->ocv_n > PP_BATTERY_OCV_MAX)
        FAIL("ocv_soc", "needs 2 to %d points (got %zu)", PP_BATTERY_OCV_MAX, p->ocv_n);
    for (size_t i = 0; i < p->ocv_n; i++) {
        if (!within(p->ocv_soc[i], 0, 1))
            FAIL("ocv_soc", "value %zu (%g) is not in [0, 1]", i + 1, p->ocv_soc[i]);
        if (!(p->ocv_v[i] > 0 && p->ocv_v[i] <= 100))
            FAIL("ocv_v", "value %zu (%g) must be in (0, 100] V", i + 1, p->ocv_v[i]);
        if (i > 0 && !(p->ocv_soc[i] > p->ocv_soc[i - 1]))
            FAIL("ocv_soc", "is not increasing at value %zu (%g after %g)", i + 1, p->ocv_soc[i],
                 p->ocv_soc[i - 1]);
        if (i > 0 && p->ocv_v[i] < p->ocv_v[i - 1])
            FAIL("ocv_v", "is not monotonic at value %zu (%g after %g)", i + 1, p->ocv_v[i],
                 p->ocv_v[i - 1]);
    }
    return 0;
}

int pp_battery_params_check(const pp_battery_params *p, const char **key, char *why, size_t cap)
{
    double ocv_start;

    if (p->cells < 1 || p->cells > 1000)
        FAIL("cells", "must be in [1, 1000] (got %d)", p->cells);
    RANGE("capacity_ah", p->capacity_ah, PP_BATTERY_CAPACITY_AH_MIN, PP_BATTERY_CAPACITY_AH_MAX,
          " Ah");
    RANGE("r_int_ohm", p->r_int_ohm, 0, PP_BATTERY_RESISTANCE_OHM_MAX, " ohm");
    if (!(p->soc_start_frac > 0 && p->soc_start_frac <= 1))
        FAIL("soc_start", "must be in (0, 1] (got %g)", p->soc_start_frac);
    RANGE("soc_cutoff", p->soc_cutoff_frac, 0, 1, "");
    if (!(p->soc_start_frac > p->soc_cutoff_frac))
        FAIL("soc_start", "%g is not above soc_cutoff %g", p->soc_start_frac, p->soc_cutoff_frac);
    RANGE("cutoff_v", p->cutoff_v, 0, PP_BATTERY_VOLTAGE_V_MAX, " V");
    RANGE("base_power_w", p->base_power_w, 0, PP_BATTERY_POWER_W_MAX, " W");
    RANGE("efficiency", p->efficiency, PP_BATTERY_EFFICIENCY_MIN, 1, "");
    if (p->model == PP_BATTERY_RINT) {
        if (!(p->voltage_v > 0 && p->voltage_v <= PP_BATTERY_VOLTAGE_V_MAX))
            FAIL("voltage_v", "must be in (0, %g] V (got %g)", PP_BATTERY_VOLTAGE_V_MAX,
                 p->voltage_v);
    } else {
        RANGE("r1_ohm", p->r1_ohm, 1e-6, PP_BATTERY_RESISTANCE_OHM_MAX, " ohm");
        if (!within(p->r1_ohm * p->c1_f, PP_BATTERY_TAU_S_MIN, PP_BATTERY_TAU_S_MAX))
            FAIL("c1_f", "%g F makes the time constant r1_ohm x c1_f %g s: must be in [%g, %g] s",
                 p->c1_f, p->r1_ohm * p->c1_f, PP_BATTERY_TAU_S_MIN, PP_BATTERY_TAU_S_MAX);
        if (check_ocv_table(p, key, why, cap) < 0)
            return -EINVAL;
    }
    ocv_start = pp_battery_ocv_v(p, p->soc_start_frac);
    if (p->cutoff_v >= ocv_start)
        FAIL("cutoff_v", "%g V is not below the open-circuit voltage at soc_start (%g V)",
             p->cutoff_v, ocv_start);
    return 0;
}

int pp_battery_load_check(const pp_battery_load *l, size_t *bad, char *why, size_t cap)
{
    const double *t = l->t_s, *w = l->p_w;
    double t_start;

    *bad = 0;
    if (l->n == 0) {
        pp_text(why, cap, "the load has no samples");
        return -EINVAL;
    }
    t_start = l->interval_means ? 0.0 : t[0];
    for (size_t i = 0; i < l->n; i++) {
        *bad = i;
        if (!isfinite(t[i]) || !(w[i] >= 0 && w[i] <= DBL_MAX)) {
            pp_text(why, cap, "power %g W at %g s: a finite time and a finite power >= 0 expected",
                    w[i], t[i]);
            return -EINVAL;
        }
        if (i == 0 && t[0] < t_start) {
            pp_text(why, cap, "time %g s: interval means start at 0 s", t[0]);
            return -EINVAL;
        }
        if (i > 0 && !(t[i] - t[i - 1] >= PP_BATTERY_STEP_S_MIN)) {
            pp_text(why, cap, "time %.9g s is not after the previous sample's (%.9g s) by %g s or more",
                    t[i], t[i - 1], PP_BATTERY_STEP_S_MIN);
            return -EINVAL;
        }
        if (!(t[i] - t_start <= PP_BATTERY_SPAN_S_MAX)) {
            pp_text(why, cap, "time %g s: the load spans more than %g s", t[i], PP_BATTERY_SPAN_S_MAX);
            return -EINVAL;
        }
    }
    return 0;
}

void pp_battery_options_init(pp_battery_options *o)
{
    memset(o, 0, sizeof *o);
    o->time_to_cutoff = 1;
    o->max_time_s = PP_BATTERY_HORIZON_S;
    o->rtol = 1e-10;
}

int pp_battery_options_check(const pp_battery_options *o, const char **key, char *why, size_t cap)
{
    if (o->max_time_s != 0)
        RANGE("max_time_s", o->max_time_s, 1, PP_BATTERY_SPAN_S_MAX, " s");
    if (o->rtol != 0)
        RANGE("rtol", o->rtol, 1e-14, 1e-2, "");
    return 0;
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

pp_battery_point pp_battery_operate(const pp_battery_params *p, double soc_frac, double v1_v,
                                    double power_w)
{
    pp_battery_point op;
    double u;
    int brownout;

    op.ocv_v = pp_battery_ocv_v(p, soc_frac);
    u = op.ocv_v - v1_v;
    op.current_a = pp_battery_current_a(u, p->r_int_ohm, power_w, &brownout);
    op.voltage_v = u - p->r_int_ohm * op.current_a;
    op.disc_v2 = u * u - 4.0 * p->r_int_ohm * power_w;
    return op;
}

/* With i0, i1 the currents at the two ends and s = sqrt(u^2 - 4 R P) = u - 2 R I,
 * the integral of I = (u - s) / 2R over a linear P is
 *     h [3 u (i0 + i1) - 4 R (i0^2 + i0 i1 + i1^2)] / 3 (s0 + s1),
 * the textbook (u h - 2/3 h (s0^2 + s0 s1 + s1^2) / (s0 + s1)) / 2R rewritten so
 * that nothing cancels as R goes to 0 (it becomes the trapezoid rule). */
double pp_battery_rint_charge_c(double u_v, double r_ohm, double p0_w, double p1_w, double h_s)
{
    int bo0, bo1;
    double i0 = pp_battery_current_a(u_v, r_ohm, p0_w, &bo0);
    double i1 = pp_battery_current_a(u_v, r_ohm, p1_w, &bo1);
    double s_sum = 2.0 * u_v - 2.0 * r_ohm * (i0 + i1);

    if (!(s_sum > 0)) /* both ends held at u / 2R */
        return h_s * 0.5 * (i0 + i1);
    return h_s * (3.0 * u_v * (i0 + i1) - 4.0 * r_ohm * (i0 * i0 + i0 * i1 + i1 * i1)) /
           (3.0 * s_sum);
}

/* ---- pp_battery_run: one pass of the trace, or the run until cutoff, and
 * the time to cutoff with the trace repeated, whole periods skipped
 * (repeat.h). The integration itself is solver.c's. ---- */

/* One whole period from its start (or to t_end): 0 with its statistics in
 * *ps, 1 at an event, -errno. */
static int measure_period(pp_solver *s, double t_end, pp_period *ps)
{
    double y0[PP_N_STATES];
    int rc;

    memcpy(y0, s->y, sizeof y0);
    ps->k = s->walk.cur.k;
    s->vmin = s->dmin = INFINITY;
    rc = pp_solver_span(s, fmin(t_end, (s->walk.cur.k + 1) * s->walk.period_s));
    for (int i = 0; i < PP_N_STATES; i++)
        ps->dy[i] = s->y[i] - y0[i];
    ps->vmin_v = s->vmin;
    ps->dmin_v2 = s->dmin;
    return rc;
}

/* Skip n whole periods after period b (repeat.h); the next is integrated
 * quietly and becomes b. A skip that runs into an event is undone: 3, to
 * try fewer. Else 0 or -errno. */
static int skip(pp_solver *s, double n, pp_period *b, double t_end)
{
    pp_battery_result saved = *s->r;
    pp_cursor at = s->walk.cur;
    double y0[PP_N_STATES];
    pp_period c;
    int rc;

    memcpy(y0, s->y, sizeof y0);
    pp_skip_predict(s->p, n, b, s->walk.period_s, s->y);
    s->walk.cur.k += n;
    s->quiet = 1;
    rc = measure_period(s, t_end, &c);
    s->quiet = 0;
    if (rc > 0) {
        *s->r = saved;
        s->walk.cur = at;
        memcpy(s->y, y0, sizeof y0);
        return 3;
    }
    if (rc == 0)
        s->r->skip_error_frac += pp_skip_correct(s->p, n, b, &c, s->walk.period_s, s->y);
    *b = c;
    return rc;
}

/* The trace repeated from the cursor to t_end, whole periods skipped after
 * two measured (h[0], h[1]): 0 there, 1 at an event, -errno. */
static int run_repeated(pp_solver *s, double t_end)
{
    pp_period h[2];
    int have = 0, rc = 0;
    double most = INFINITY, n = 0; /* most: periods a skip may take, halved at each undo */

    if (s->walk.uniform) { /* one window to the end: exact */
        s->walk.cur = (pp_cursor){0, 0, pp_walk_now_s(&s->walk)};
        s->walk.constant = 1;
        return pp_solver_span(s, t_end);
    }
    memset(h, 0, sizeof h);
    while (rc == 0 && !pp_walk_reached(&s->walk, t_end)) {
        int whole = s->walk.cur.j == 0 && s->walk.cur.x == 0;
        double left = floor((t_end - pp_walk_now_s(&s->walk)) / s->walk.period_s);
        if (whole && have == 2 && !s->o->every_period)
            n = fmin(most, pp_skip_periods(s->p, s->y, &h[0], &h[1], s->walk.period_s, left));
        if (whole && have == 2 && n >= 1) {
            pp_period c = h[1];
            rc = skip(s, n, &c, t_end);
            if (rc == 3)
                most = floor(n / 2), rc = 0;
            else
                h[0] = h[1], h[1] = c;
        } else {
            h[0] = h[1];
            rc = measure_period(s, t_end, &h[1]);
            have = whole ? have + (have < 2) : 0;
        }
    }
    return rc;
}

static int check_run(const pp_battery_params *p, const pp_battery_load *l,
                     const pp_battery_options *o)
{
    const char *key = NULL;
    char why[256];
    size_t bad;

    if (pp_battery_params_check(p, &key, why, sizeof why) < 0 ||
        pp_battery_options_check(o, &key, why, sizeof why) < 0)
        pp_log_error("battery: %s: %s", key, why);
    else if (pp_battery_load_check(l, &bad, why, sizeof why) < 0)
        pp_log_error("battery: sample %zu: %s", bad + 1, why);
    else
        return 0;
    return -EINVAL;
}

int pp_battery_run(const pp_battery_params *p, const pp_battery_load *load,
                   const pp_battery_options *o, pp_battery_result *r)
{
    double horizon = o->max_time_s > 0 ? o->max_time_s : PP_BATTERY_HORIZON_S;
    pp_solver s = {0};
    int rc;

    memset(r, 0, sizeof *r);
    r->cutoff_kind = -1;
    r->time_to_cutoff_s = NAN;
    r->min_voltage_v = INFINITY;
    r->soc_start_frac = p->soc_start_frac;
    rc = check_run(p, load, o);
    if (rc == 0)
        rc = pp_solver_init(&s, p, load, o, r);
    if (rc < 0)
        goto out;
    pp_solver_output(&s, 0.0, load->p_w[0]);
    /* the reported run: one pass, or until cutoff; then on to the cutoff */
    rc = o->until_cutoff ? run_repeated(&s, horizon) : pp_solver_span(&s, fmin(s.walk.pass_s, horizon));
    r->duration_s = rc == 1 ? r->time_to_cutoff_s : pp_walk_now_s(&s.walk);
    r->soc_end_frac = fmin(1.0, fmax(0.0, s.y[0]));
    r->soc_drained_frac = r->soc_start_frac - r->soc_end_frac;
    r->energy_j = s.y[2];
    r->load_energy_j = s.y[3];
    if (rc == 0 && o->time_to_cutoff && !o->until_cutoff) {
        s.record = 0;
        rc = run_repeated(&s, horizon);
    }
    rc = rc < 0 ? rc : 0;
out:
    pp_solver_free(&s);
    return rc;
}
