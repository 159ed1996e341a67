/* battery.h - battery models driven by a power trace, solved with CVODE.
 *
 * Units: time s, power W, voltage V, current A, resistance ohm, capacitance
 * F, capacity Ah in the parameters (coulombs = Ah x 3600 inside), state of
 * charge as a fraction (1 = full).
 *
 * Models (states: SoC, and V1 for thevenin):
 *   rint      the paper's (Hasan et al.): constant open-circuit voltage
 *             U = voltage_v, internal resistance R0 = r_int_ohm.
 *   thevenin  open-circuit voltage OCV(SoC) = cells x ocv_v(SoC) (table,
 *             interpolated linearly), series R0 = r_int_ohm, one RC pair
 *             (r1_ohm, c1_f): dV1/dt = I/C1 - V1/(R1 C1).
 * For a load power P the current is the smaller root of R0 I^2 - u I + P = 0
 * with u = OCV - V1, computed as I = 2P / (u + sqrt(u^2 - 4 R0 P)) (the
 * paper's equation 2, in a form without cancellation); dSoC/dt = -I / Q.
 * Terminal voltage u - R0 I. When u^2 < 4 R0 P the battery cannot deliver P
 * (brown-out): an event, and the current is held at the maximum-power
 * point u / 2R0 so nothing becomes NaN.
 * Load power: P(t) = trace(t) / efficiency + base_power_w, the trace
 * interpolated linearly between samples (the efficiency is that of the
 * converter feeding the computer; the base load, e.g. motors, is drawn from
 * the pack directly).
 *
 * This module knows no parser: reading the parameters from a configuration
 * file is src/config/battery_config.h.
 */
#ifndef PP_BATTERY_H
#define PP_BATTERY_H

#include <stddef.h>

#define PP_BATTERY_OCV_MAX 32
#define PP_BATTERY_EVENTS_MAX 8

typedef enum pp_battery_model { PP_BATTERY_RINT = 0, PP_BATTERY_THEVENIN = 1 } pp_battery_model;

typedef struct pp_battery_params {
    pp_battery_model model;
    int cells;               /* in series */
    double capacity_ah;
    double voltage_v;        /* rint: pack open-circuit voltage */
    double r_int_ohm;        /* pack series resistance R0 */
    double r1_ohm, c1_f;     /* thevenin: pack RC pair */
    size_t ocv_n;            /* thevenin: OCV table of one cell */
    double ocv_soc[PP_BATTERY_OCV_MAX];
    double ocv_v[PP_BATTERY_OCV_MAX];
    double soc_start_frac;
    double soc_cutoff_frac;  /* land / stop at this state of charge */
    double cutoff_v;         /* pack terminal-voltage cutoff; 0 = none */
    double base_power_w;     /* constant load beside the trace */
    double efficiency;       /* of the converter feeding the traced load, (0, 1] */
} pp_battery_params;

/* Named parameter sets. The first is the default. */
extern const char *const pp_battery_presets[];

/* Fill p with preset name ("drone-4s-3200", ...). 0 or -ENOENT. */
int pp_battery_preset(const char *name, pp_battery_params *p);
/* The default: preset "drone-4s-3200", model rint. */
void pp_battery_params_default(pp_battery_params *p);

/* Open-circuit curves of one cell by chemistry ("lipo": the presets';
 * "liion": NMC 18650-type), typical figures: set p's table to curve name.
 * 0 or -ENOENT. */
extern const char *const pp_battery_ocv_curves[];
int pp_battery_ocv_curve(const char *name, pp_battery_params *p);

/* Physical ranges of the parameters (pp_battery_params_check). */
#define PP_BATTERY_CAPACITY_AH_MIN 1e-6
#define PP_BATTERY_CAPACITY_AH_MAX 1e6
#define PP_BATTERY_VOLTAGE_V_MAX 1e4     /* pack voltages and cutoff_v; ocv_v per cell: 100 */
#define PP_BATTERY_RESISTANCE_OHM_MAX 1e3 /* r_int_ohm may be 0; r1_ohm from 1e-6 */
#define PP_BATTERY_TAU_S_MIN 0.1          /* r1_ohm x c1_f, the RC time constant */
#define PP_BATTERY_TAU_S_MAX 1e6
#define PP_BATTERY_POWER_W_MAX 1e7        /* base_power_w */
#define PP_BATTERY_EFFICIENCY_MIN 0.01

/* Check p against the ranges above and for consistency. On error returns
 * -EINVAL and writes the offending key and why into key/why (e.g.
 * "capacity_ah", "must be in [1e-06, 1e+06] Ah (got 0)"). */
int pp_battery_params_check(const pp_battery_params *p, const char **key, char *why, size_t cap);

const char *pp_battery_model_name(pp_battery_model m);
int pp_battery_model_parse(const char *name, pp_battery_model *out);

/* Open-circuit voltage of the pack at soc (clamped to the table's ends). */
double pp_battery_ocv_v(const pp_battery_params *p, double soc_frac);

/* Current for load power_w at open-circuit-minus-RC voltage u_v. *brownout
 * is set when the power cannot be delivered (current held at u / 2R0). */
double pp_battery_current_a(double u_v, double r0_ohm, double power_w, int *brownout);

/* The battery at state of charge soc_frac and RC voltage v1_v (0 for rint)
 * under load power_w: open-circuit voltage, current, terminal voltage, and
 * u^2 - 4 R0 P with u = OCV - V1 (< 0: brown-out, the current held at
 * u / 2R0). */
typedef struct pp_battery_point {
    double ocv_v, current_a, voltage_v, disc_v2;
} pp_battery_point;

pp_battery_point pp_battery_operate(const pp_battery_params *p, double soc_frac, double v1_v,
                                    double power_w);

/* The rint model in closed form: the charge in coulombs drawn from a source
 * of open-circuit voltage u_v behind r_ohm (>= 0) over h_s seconds while the
 * load goes linearly from p0_w to p1_w, both within u^2 / 4R (beyond, the
 * current is taken as held at u / 2R). Exact but for rounding. */
double pp_battery_rint_charge_c(double u_v, double r_ohm, double p0_w, double p1_w, double h_s);

typedef enum pp_battery_event_kind {
    PP_BATTERY_EVENT_SOC_CUTOFF = 0,
    PP_BATTERY_EVENT_VOLTAGE_CUTOFF = 1,
    PP_BATTERY_EVENT_BROWNOUT = 2,
} pp_battery_event_kind;

const char *pp_battery_event_name(pp_battery_event_kind k);

typedef struct pp_battery_event {
    pp_battery_event_kind kind;
    double t_s;
    double soc_frac;
    double voltage_v;
    double power_w;
} pp_battery_event;

/* The load: n samples, powers finite and >= 0, times finite and increasing
 * by at least PP_BATTERY_STEP_S_MIN, spanning at most PP_BATTERY_SPAN_S_MAX.
 * Times are taken relative to the first sample; the load is linear between
 * samples and repeated with period T = (t_last - t_first) n / (n - 1) when
 * the simulation runs past its end (time to cutoff); one sample is a
 * constant load. With interval_means, sample i is instead the mean power
 * over (t_{i-1}, t_i] (sample 0 over (0, t_0], so t_0 >= 0), as energy
 * counters report it: a step load from 0 s, of period t_last. */
typedef struct pp_battery_load {
    const double *t_s;
    const double *p_w;
    size_t n;
    int interval_means;
} pp_battery_load;

#define PP_BATTERY_STEP_S_MIN 1e-6
#define PP_BATTERY_SPAN_S_MAX 1e8 /* also the longest horizon (3 years) */

/* Check a load as above. On error returns -EINVAL, the index of the
 * offending sample (from 0) in *bad and why in why (e.g. "time 1 s is not
 * after the previous sample's (1 s)"): a file's line is then bad + 2. */
int pp_battery_load_check(const pp_battery_load *l, size_t *bad, char *why, size_t cap);

typedef struct pp_battery_options {
    int time_to_cutoff;   /* go on after the trace, repeating it, until a cutoff event */
    int until_cutoff;     /* report (and output) the run until cutoff, not one pass */
    double max_time_s;    /* horizon of the time-to-cutoff search (default 48 h) */
    double rtol;          /* CVODE relative tolerance (default 1e-10) */
    int every_period;     /* integrate every repetition instead of skipping whole
                           * periods (slow: to check the skipping) */
    /* Output at every trace sample (and at events) when not NULL; stretches
     * solved as one (whole periods skipped, a constant load) output at their
     * end only. */
    void (*output)(void *ctx, double t_s, double soc_frac, double voltage_v, double current_a);
    void *output_ctx;
} pp_battery_options;

#define PP_BATTERY_HORIZON_S (48.0 * 3600.0)

void pp_battery_options_init(pp_battery_options *o);

/* Check o: max_time_s in [1 s, PP_BATTERY_SPAN_S_MAX] and rtol in
 * [1e-14, 1e-2] (0: the default). -EINVAL with key and why as
 * pp_battery_params_check. */
int pp_battery_options_check(const pp_battery_options *o, const char **key, char *why, size_t cap);

typedef struct pp_battery_result {
    double duration_s;       /* simulated: one pass of the trace, or until the event that ended it */
    double energy_j;         /* drawn from the battery: integral of OCV x I (includes its losses) */
    double load_energy_j;    /* delivered to the load: integral of P */
    double soc_start_frac, soc_end_frac, soc_drained_frac;
    double min_voltage_v;    /* lowest terminal voltage at the trace samples and solver steps */
    double time_to_cutoff_s; /* first cutoff event with the trace repeated; NAN if none in the horizon */
    int cutoff_kind;         /* its pp_battery_event_kind, -1 if none */
    size_t n_events;         /* events within the reported run */
    pp_battery_event events[PP_BATTERY_EVENTS_MAX];
    /* Bound on the error in state of charge from whole periods skipped (0 for
     * rint, where skipping is exact): at most 1e-3 of the charge skipped. */
    double skip_error_frac;
    long n_steps, n_rhs;     /* solver statistics */
} pp_battery_result;

/* Drain the battery with load. Returns 0 or -errno (logged: -EINVAL for
 * bad parameters, options or load, -EIO for a solver failure, -ENOMEM). */
int pp_battery_run(const pp_battery_params *p, const pp_battery_load *load,
                   const pp_battery_options *o, pp_battery_result *r);

#endif
