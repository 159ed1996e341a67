/* The battery ODE solved with SUNDIALS CVODE: the only file that sees
 * N_Vector and CVODE memory (DESIGN.md). Adams-Moulton with fixed-point
 * iteration (the system is small and not stiff), root finding for the
 * cutoff events. States: SoC, V1 (RC voltage), energy drawn from the
 * battery, energy delivered to the load.
 */
#include "battery.h"

#include "../src/log.h"

#include <cvode/cvode.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#define N_STATES 4
#define N_ROOTS 3
#define DEFAULT_HORIZON_S (48.0 * 3600.0)

typedef struct sim {
    const pp_battery_params *p;
    const pp_battery_load *load;
    double q_c;       /* capacity in coulombs */
    double pass_s;    /* t_last - t_first */
    double period_s;  /* repetition period */
    double dt_s;      /* > 0 when the samples are evenly spaced */
    size_t hint;      /* segment of the last lookup */
    double min_dt_s;  /* shortest sample interval (> 0) */
    size_t *kinks;    /* samples where the slope of the load changes noticeably */
    size_t n_kinks;
    /* The trace as measured: the same as load, unless load is its reduction
     * (reduce_load): then minimum voltage and the voltage and brown-out
     * events are checked on raw's samples. */
    const pp_battery_load *raw;
    int reduced;
} sim;

void pp_battery_options_init(pp_battery_options *o)
{
    memset(o, 0, sizeof *o);
    o->time_to_cutoff = 1;
    o->max_time_s = DEFAULT_HORIZON_S;
    o->rtol = 1e-10;
}

/* Segment i with t_i <= x < t_{i+1} (x relative to t_first, in [0, pass)). */
/* Segment i with t_i < x <= t_{i+1} (x relative to t_first, in (0, pass]):
 * left-continuous, so that a step ending exactly on a jump of the load (a
 * reduced load's window end) sees the window it integrated, not the next. */
static size_t find_segment(sim *s, double x)
{
    const double *t = s->load->t_s;
    double t0 = t[0];
    size_t n = s->load->n, i;

    if (s->dt_s > 0) { /* even spacing: a continuous load, either side will do */
        i = (size_t)(x / s->dt_s);
        return i > n - 2 ? n - 2 : i;
    }
    if (x <= 0)
        return 0;
    i = s->hint;
    if (t[i] - t0 < x && x <= t[i + 1] - t0)
        return i;
    if (i + 2 < n && t[i + 1] - t0 < x && x <= t[i + 2] - t0)
        return s->hint = i + 1;
    {
        size_t lo = 0, hi = n - 1; /* t[lo] - t0 < x <= t[hi] - t0 */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (t[mid] - t0 < x)
                lo = mid;
            else
                hi = mid;
        }
        return s->hint = lo;
    }
}

/* Traced power at time t (since the start), the trace repeated. */
static double trace_w(sim *s, double t)
{
    const pp_battery_load *l = s->load;
    double x;
    size_t i;

    if (l->n == 1)
        return l->p_w[0];
    x = t < s->period_s ? (t < 0 ? 0 : t) : fmod(t, s->period_s);
    if (x >= s->pass_s) /* the wrap segment, from the last sample back to the first */
        return l->p_w[l->n - 1] +
               (l->p_w[0] - l->p_w[l->n - 1]) * (x - s->pass_s) / (s->period_s - s->pass_s);
    i = find_segment(s, x);
    {
        double ta = l->t_s[i] - l->t_s[0], tb = l->t_s[i + 1] - l->t_s[0];
        if (tb <= ta)
            return l->p_w[i + 1];
        return l->p_w[i] + (l->p_w[i + 1] - l->p_w[i]) * (x - ta) / (tb - ta);
    }
}

/* The first sample time (the trace repeated) after t: the next kink of the
 * load. */
/* The first kink of the load (the trace repeated) after t: a sample in
 * s->kinks, the last sample, or the end of the period. */
static double next_breakpoint(sim *s, double t)
{
    const pp_battery_load *l = s->load;
    double eps = 1e-9 * (1.0 + fabs(t)), q = t + eps, base, x;
    size_t i, lo, hi;

    if (l->n == 1)
        return INFINITY;
    base = floor(q / s->period_s) * s->period_s;
    x = q - base;
    if (x >= s->pass_s)
        return base + s->period_s;
    i = find_segment(s, x);
    /* first kink index > i */
    lo = 0;
    hi = s->n_kinks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->kinks[mid] <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->n_kinks)
        return base + (l->t_s[s->kinks[lo]] - l->t_s[0]);
    return base + s->pass_s;
}

/* Mark the samples where the slope of the load changes by more than a
 * millionth of the largest power per shortest interval. Between two such
 * kinks the load is linear to that level, so the solver may step across the
 * samples there; a kink itself ends a step, so that no step straddles a
 * change of the load it cannot see (a spike, a plateau). */
static int find_kinks(sim *s)
{
    const pp_battery_load *l = s->load;
    double p_max = 1e-3, threshold;

    s->kinks = NULL;
    s->n_kinks = 0;
    if (l->n < 3)
        return 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->p_w[i] > p_max)
            p_max = l->p_w[i];
    threshold = 1e-6 * p_max / s->min_dt_s;
    s->kinks = malloc((l->n - 2) * sizeof *s->kinks);
    if (!s->kinks)
        return -ENOMEM;
    if (s->dt_s > 0) { /* even spacing: compare second differences, no division */
        double limit = threshold * s->dt_s;
        for (size_t i = 1; i + 1 < l->n; i++)
            if (!(fabs(l->p_w[i + 1] - 2.0 * l->p_w[i] + l->p_w[i - 1]) <= limit))
                s->kinks[s->n_kinks++] = i;
        return 0;
    }
    for (size_t i = 1; i + 1 < l->n; i++) {
        double h0 = l->t_s[i] - l->t_s[i - 1], h1 = l->t_s[i + 1] - l->t_s[i];
        double s0 = h0 > 0 ? (l->p_w[i] - l->p_w[i - 1]) / h0 : INFINITY;
        double s1 = h1 > 0 ? (l->p_w[i + 1] - l->p_w[i]) / h1 : INFINITY;
        if (!(fabs(s1 - s0) <= threshold))
            s->kinks[s->n_kinks++] = i;
    }
    return 0;
}

/* The measured trace at t (the trace repeated), by bisection: for the rare
 * look-ups of a reduced run. */
static double trace_w_raw(const sim *s, double t)
{
    const pp_battery_load *l = s->raw;
    double x;
    size_t lo = 0, hi;

    if (l->n == 1)
        return l->p_w[0];
    x = t < s->period_s ? (t < 0 ? 0 : t) : fmod(t, s->period_s);
    if (x >= s->pass_s)
        return l->p_w[l->n - 1];
    hi = l->n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (l->t_s[mid] - l->t_s[0] <= x)
            lo = mid;
        else
            hi = mid;
    }
    {
        double ta = l->t_s[lo] - l->t_s[0], tb = l->t_s[hi] - l->t_s[0];
        return tb > ta ? l->p_w[lo] + (l->p_w[hi] - l->p_w[lo]) * (x - ta) / (tb - ta) : l->p_w[hi];
    }
}

/* Whether the load jumps at time t (a zero-length segment there: step loads,
 * reduced loads). */
static int jumps_at(sim *s, double t)
{
    const pp_battery_load *l = s->load;
    double eps = 1e-9 * (1.0 + fabs(t)), x;
    size_t i;

    if (l->n < 3 || s->dt_s > 0)
        return 0;
    x = t - floor((t + eps) / s->period_s) * s->period_s;
    if (x >= s->pass_s - eps)
        return 0; /* the wrap segment is a ramp */
    i = find_segment(s, x + eps);
    return i >= 1 && l->t_s[i] == l->t_s[i - 1] && fabs(l->t_s[i] - l->t_s[0] - x) < eps;
}

static double load_w(const sim *s, double trace_power_w)
{
    return trace_power_w / s->p->efficiency + s->p->base_power_w;
}

/* Terminal quantities for state (soc, v1) and load power. */
typedef struct operating_point {
    double ocv, u, current, voltage, disc;
    int brownout;
} operating_point;

static operating_point operate(const sim *s, double soc, double v1, double power_w)
{
    operating_point op;
    double r0 = s->p->r_int_ohm;

    op.ocv = pp_battery_ocv_v(s->p, soc);
    op.u = op.ocv - v1;
    op.current = pp_battery_current_a(op.u, r0, power_w, &op.brownout);
    op.voltage = op.u - r0 * op.current;
    op.disc = op.u * op.u - 4.0 * r0 * power_w;
    return op;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    sim *s = user;
    const sunrealtype *Y = N_VGetArrayPointer(y);
    sunrealtype *D = N_VGetArrayPointer(ydot);
    double power = load_w(s, trace_w(s, t));
    operating_point op = operate(s, Y[0], Y[1], power);

    D[0] = -op.current / s->q_c;
    D[1] = s->p->model == PP_BATTERY_THEVENIN
               ? op.current / s->p->c1_f - Y[1] / (s->p->r1_ohm * s->p->c1_f)
               : 0.0;
    D[2] = op.ocv * op.current;
    D[3] = power;
    return 0;
}

static int roots(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    sim *s = user;
    const sunrealtype *Y = N_VGetArrayPointer(y);
    double power = load_w(s, trace_w(s, t));
    operating_point op = operate(s, Y[0], Y[1], power);

    g[0] = Y[0] - s->p->soc_cutoff_frac;
    g[1] = s->p->cutoff_v > 0 ? op.voltage - s->p->cutoff_v : 1.0;
    g[2] = s->p->r_int_ohm > 0 ? op.disc : 1.0;
    return 0;
}

typedef struct solver {
    long steps_before, rhs_before; /* counts before the last CVodeReInit */
    SUNContext ctx;
    void *mem;
    N_Vector y, atol, tmp;
    SUNNonlinearSolver nls;
} solver;

static void solver_free(solver *sv)
{
    if (sv->mem)
        CVodeFree(&sv->mem);
    if (sv->nls)
        SUNNonlinSolFree(sv->nls);
    if (sv->y)
        N_VDestroy(sv->y);
    if (sv->atol)
        N_VDestroy(sv->atol);
    if (sv->tmp)
        N_VDestroy(sv->tmp);
    if (sv->ctx)
        SUNContext_Free(&sv->ctx);
}

#define CHECK_CV(call)                                                                             \
    do {                                                                                           \
        int flag_ = (call);                                                                        \
        if (flag_ < 0) {                                                                           \
            char *name_ = CVodeGetReturnFlagName(flag_); /* malloc'd by SUNDIALS */                \
            pp_log_error("battery: %s failed: %s", #call, name_ ? name_ : "?");                    \
            free(name_);                                                                           \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static int solver_init(solver *sv, sim *s, double rtol, const double *y0)
{
    sunrealtype *a;

    memset(sv, 0, sizeof *sv);
    if (SUNContext_Create(NULL, &sv->ctx) != 0) {
        pp_log_error("battery: cannot create a SUNDIALS context");
        return -ENOMEM;
    }
    sv->y = N_VNew_Serial(N_STATES, sv->ctx);
    sv->atol = N_VNew_Serial(N_STATES, sv->ctx);
    sv->tmp = N_VNew_Serial(N_STATES, sv->ctx);
    if (!sv->y || !sv->atol || !sv->tmp)
        goto fail_mem;
    memcpy(N_VGetArrayPointer(sv->y), y0, N_STATES * sizeof *y0);
    a = N_VGetArrayPointer(sv->atol);
    a[0] = rtol * 1e-2;  /* state of charge, a fraction */
    a[1] = 1e-9;         /* RC voltage, V */
    a[2] = a[3] = 1e-6;  /* energies, J */
    sv->mem = CVodeCreate(CV_ADAMS, sv->ctx);
    if (!sv->mem)
        goto fail_mem;
    CHECK_CV(CVodeInit(sv->mem, rhs, 0.0, sv->y));
    CHECK_CV(CVodeSVtolerances(sv->mem, rtol, sv->atol));
    CHECK_CV(CVodeSetUserData(sv->mem, s));
    sv->nls = SUNNonlinSol_FixedPoint(sv->y, 0, sv->ctx);
    if (!sv->nls)
        goto fail_mem;
    CHECK_CV(CVodeSetNonlinearSolver(sv->mem, sv->nls));
    CHECK_CV(CVodeSetMaxNumSteps(sv->mem, -1));
    /* Steps end at the kinks of the load (see find_kinks), the only limit
     * on their length besides the tolerances. */
    CHECK_CV(CVodeRootInit(sv->mem, N_ROOTS, roots));
    {
        int dir[N_ROOTS] = {-1, -1, -1}; /* only crossings downwards */
        CHECK_CV(CVodeSetRootDirection(sv->mem, dir));
    }
    return 0;

fail_mem:
    pp_log_error("battery: out of memory setting up CVODE");
    solver_free(sv);
    return -ENOMEM;
fail:
    solver_free(sv);
    return -EIO;
}

/* CVodeReInit at t with the state in sv->y, keeping the solver statistics
 * (which ReInit resets). */
static int solver_restart(solver *sv, double t)
{
    long steps = 0, nfe = 0;

    CVodeGetNumSteps(sv->mem, &steps);
    CVodeGetNumRhsEvals(sv->mem, &nfe);
    sv->steps_before += steps;
    sv->rhs_before += nfe;
    return CVodeReInit(sv->mem, t, sv->y);
}

/* Check the load and fill the time base of s. */
static int sim_init(sim *s, const pp_battery_params *p, const pp_battery_load *l)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->load = l;
    s->q_c = p->capacity_ah * 3600.0;
    if (l->n == 0) {
        pp_log_error("battery: the trace has no samples");
        return -EINVAL;
    }
    /* one pass: valid samples, the shortest interval, even spacing */
    {
        double dt = l->n > 1 ? (l->t_s[l->n - 1] - l->t_s[0]) / (double)(l->n - 1) : 0.0;
        int even = l->n > 1;
        for (size_t i = 0; i < l->n; i++) {
            if (!isfinite(l->p_w[i]) || l->p_w[i] < 0 || !isfinite(l->t_s[i])) {
                pp_log_error("battery: sample %zu: power %g W at %g s is not a finite power >= 0",
                             i + 1, l->p_w[i], l->t_s[i]);
                return -EINVAL;
            }
            if (i == 0)
                continue;
            if (l->t_s[i] < l->t_s[i - 1]) {
                pp_log_error("battery: sample %zu: time goes backwards", i + 1);
                return -EINVAL;
            }
            if (l->t_s[i] > l->t_s[i - 1] &&
                (s->min_dt_s == 0 || l->t_s[i] - l->t_s[i - 1] < s->min_dt_s))
                s->min_dt_s = l->t_s[i] - l->t_s[i - 1];
            even &= fabs(l->t_s[i] - l->t_s[0] - (double)i * dt) <= 1e-6 * dt;
        }
        if (l->n == 1)
            return 0;
        s->pass_s = l->t_s[l->n - 1] - l->t_s[0];
        if (!(s->pass_s > 0)) {
            pp_log_error("battery: the trace spans no time");
            return -EINVAL;
        }
        s->period_s = s->pass_s * (double)l->n / (double)(l->n - 1);
        s->dt_s = even ? dt : 0.0; /* uneven: search */
    }
    return 0;
}

static void add_event(pp_battery_result *r, pp_battery_event_kind kind, double t, double soc,
                      double v, double power)
{
    pp_battery_event *e;

    if (r->n_events >= PP_BATTERY_EVENTS_MAX)
        return;
    e = &r->events[r->n_events++];
    e->kind = kind;
    e->t_s = t;
    e->soc_frac = soc;
    e->voltage_v = v;
    e->power_w = power;
}

/* After a step from t_prev to t: the minimum terminal voltage at the trace
 * samples in (t_prev, t] (states interpolated linearly: they vary slowly),
 * and the output at those samples (states from CVODE's dense output). */
/* In a reduced run, a voltage or brown-out event at a measured sample:
 * its kind (or -1). */
static int raw_event(const sim *s, const operating_point *op)
{
    if (!s->reduced)
        return -1;
    if (s->p->r_int_ohm > 0 && op->disc < 0)
        return PP_BATTERY_EVENT_BROWNOUT;
    if (s->p->cutoff_v > 0 && op->voltage <= s->p->cutoff_v)
        return PP_BATTERY_EVENT_VOLTAGE_CUTOFF;
    return -1;
}

static int scan_samples(sim *s, solver *sv, const pp_battery_options *o, double t_prev,
                        const double *y_prev, double t, const double *y, double *min_v,
                        size_t *next_sample, double *next_sample_t, double *event_t)
{
    const pp_battery_load *l = s->raw;
    int event = -1;
    double peak_w = -1.0, peak_t = t, ts_next = *next_sample_t;
    size_t k = *next_sample;

    while (ts_next <= t) {
        double ts = ts_next;
        double traced = l->p_w[k];

        if (o->output) {
            double power = load_w(s, traced);
            double w = t > t_prev ? (ts - t_prev) / (t - t_prev) : 1.0;
            double soc = y_prev[0] + w * (y[0] - y_prev[0]);
            double v1 = y_prev[1] + w * (y[1] - y_prev[1]);
            operating_point op;
            if (t > t_prev && CVodeGetDky(sv->mem, ts, 0, sv->tmp) == CV_SUCCESS) {
                const sunrealtype *Y = N_VGetArrayPointer(sv->tmp);
                soc = Y[0];
                v1 = Y[1];
            }
            op = operate(s, soc, v1, power);
            if (op.voltage < *min_v)
                *min_v = op.voltage;
            o->output(o->output_ctx, ts, soc, op.voltage, op.current);
            if (event < 0 && (event = raw_event(s, &op)) >= 0)
                *event_t = ts;
        } else if (traced > peak_w) { /* the load grows with the traced power */
            peak_w = traced;
            peak_t = ts;
        }
        if (l->n == 1)
            break;
        if (++k >= l->n) { /* next repetition */
            k = 0;
            ts_next = ts + (s->period_s - s->pass_s);
        } else {
            ts_next = ts + (l->t_s[k] - l->t_s[k - 1]);
        }
    }
    *next_sample = k;
    *next_sample_t = ts_next;
    /* Without output, the lowest voltage of the step is at its highest load:
     * the states barely move within a step, and the voltage falls with the
     * load. */
    if (peak_w >= 0) {
        double w = t > t_prev ? (peak_t - t_prev) / (t - t_prev) : 1.0;
        operating_point op = operate(s, y_prev[0] + w * (y[0] - y_prev[0]),
                                     y_prev[1] + w * (y[1] - y_prev[1]), load_w(s, peak_w));
        if (op.voltage < *min_v)
            *min_v = op.voltage;
        if ((event = raw_event(s, &op)) >= 0)
            *event_t = peak_t;
    }
    return event;
}

/* Integrate from the current state up to t_end, stopping at the first
 * event. Returns 1 when an event ended it, 0 at t_end, -errno on failure. */
static int integrate(sim *s, solver *sv, const pp_battery_options *o, double t_end,
                     pp_battery_result *r, int record, double *t_io, size_t *next_sample,
                     double *next_sample_t)
{
    double y_prev[N_STATES], t = *t_io;
    sunrealtype *Y = N_VGetArrayPointer(sv->y);
    int flag;

    if (t_end <= t)
        return 0;
    for (;;) {
        double t_prev = t, stop = next_breakpoint(s, t);
        sunrealtype tret;

        /* Steps end at the kinks of the load: each step sees a load that is
         * (nearly) linear in time. */
        CHECK_CV(CVodeSetStopTime(sv->mem, stop < t_end ? stop : t_end));
        memcpy(y_prev, Y, sizeof y_prev);
        flag = CVode(sv->mem, t_end, sv->y, &tret, CV_ONE_STEP);
        if (flag < 0) {
            char *name = CVodeGetReturnFlagName(flag); /* malloc'd by SUNDIALS */
            pp_log_error("battery: CVODE failed at t = %.6f s: %s", t, name ? name : "?");
            free(name);
            return -EIO;
        }
        t = tret;
        if (record || s->reduced) {
            double scratch_v = INFINITY, te = t;
            int ev = scan_samples(s, sv, o, t_prev, y_prev, t, Y,
                                  record ? &r->min_voltage_v : &scratch_v, next_sample,
                                  next_sample_t, &te);
            if (ev >= 0) { /* at a measured peak that the reduced load smooths out */
                double power;
                operating_point op;
                if (te < t && CVodeGetDky(sv->mem, te, 0, sv->y) == CV_SUCCESS)
                    t = te;
                power = load_w(s, trace_w_raw(s, t));
                op = operate(s, Y[0], Y[1], power);
                if (record)
                    add_event(r, (pp_battery_event_kind)ev, t, Y[0], op.voltage, power);
                if (r->cutoff_kind < 0) {
                    r->cutoff_kind = ev;
                    r->time_to_cutoff_s = t;
                }
                *t_io = t;
                return 1;
            }
        }
        if (flag == CV_ROOT_RETURN) {
            int info[N_ROOTS];
            double power = load_w(s, trace_w(s, t));
            operating_point op = operate(s, Y[0], Y[1], power);
            CHECK_CV(CVodeGetRootInfo(sv->mem, info));
            for (int k = 0; k < N_ROOTS; k++) {
                if (!info[k])
                    continue;
                if (record)
                    add_event(r, (pp_battery_event_kind)k, t, Y[0], op.voltage, power);
                if (r->cutoff_kind < 0) {
                    r->cutoff_kind = k;
                    r->time_to_cutoff_s = t;
                }
            }
            *t_io = t;
            return 1;
        }
        if (t >= t_end) {
            *t_io = t;
            return 0;
        }
        /* At a jump of the load the multistep history belongs to the other
         * side: restart just past it, with a first step over the next
         * segment. The lookup is left-continuous, so the restart's first
         * derivative must be taken after the jump: the restart time is 16
         * units in the last place later (6e-12 s at an hour), a drain left
         * out of about 1e-15 per jump. */
        if (t >= stop - 1e-12 * (1.0 + fabs(stop)) && jumps_at(s, t)) {
            double next = next_breakpoint(s, t);
            t += 16.0 * DBL_EPSILON * (1.0 + fabs(t));
            CHECK_CV(solver_restart(sv, t));
            if (next > t && isfinite(next))
                CHECK_CV(CVodeSetInitStep(sv->mem, next - t < t_end - t ? next - t : t_end - t));
        }
    }
fail:
    return -EIO;
}

/* A load whose every sample is a kink (sensor noise at the sampling rate)
 * makes the solver stop at each sample. Such a load is replaced by its means
 * over windows, as steps: the charge drawn depends on the load through
 * I(P), whose first-order term integrates exactly (the mean keeps the
 * energy), so what is lost over a window is the second-order term,
 *     at most R0 / (u^2 - 4 R0 Pmax)^(3/2) x integral (P - mean)^2 dt
 * coulombs, u the lowest open-circuit voltage the run can see. Windows grow
 * while that bound stays within REDUCE_SOC_BUDGET of the capacity over the
 * pass (pro rata), and last at most 1 s and 1/100 of the RC time constant.
 * Voltage and brown-out events, and the lowest voltage, are still checked
 * on the measured samples. Returns 1 when reduced (arrays in *tb, *pb, to
 * free), 0 when not worth it or not safe (close to brown-out). */
#define REDUCE_SOC_BUDGET 1e-7

static int reduce_load(const sim *s, pp_battery_load *out, double **tb, double **pb)
{
    const pp_battery_load *l = s->load;
    const pp_battery_params *p = s->p;
    double u_min, p_max = 0, r0 = p->r_int_ohm, w_max = 1.0, rate, *t, *w;
    size_t n_out = 0, a = 0;

    if (l->n < 1000 || s->n_kinks < l->n / 4 || r0 <= 0)
        return 0;
    for (size_t i = 0; i < l->n; i++)
        p_max = l->p_w[i] > p_max ? l->p_w[i] : p_max;
    p_max = load_w(s, p_max);
    u_min = pp_battery_ocv_v(p, p->soc_cutoff_frac < p->soc_start_frac ? p->soc_cutoff_frac : 0);
    if (p->model == PP_BATTERY_THEVENIN) {
        double i_max = 2.0 * p_max / u_min; /* at most twice the current at u_min */
        u_min -= i_max * p->r1_ohm;        /* the RC voltage cannot exceed I R1 */
        if (p->r1_ohm * p->c1_f / 100 < w_max)
            w_max = p->r1_ohm * p->c1_f / 100;
    }
    if (!(u_min > 0) || u_min * u_min <= 8.0 * r0 * p_max)
        return 0; /* near brown-out: keep every sample */
    /* coulombs of error allowed per second, and per (W^2 s) of variance */
    rate = REDUCE_SOC_BUDGET * s->q_c / s->pass_s;
    {
        double k = r0 / pow(u_min * u_min - 4.0 * r0 * p_max, 1.5);
        double eff = 1.0 / p->efficiency;
        t = malloc(2 * l->n * sizeof *t);
        w = malloc(2 * l->n * sizeof *w);
        if (!t || !w) {
            free(t);
            free(w);
            return 0;
        }
        while (a + 1 < l->n) {
            /* extend the window [a, b] sample by sample */
            double e1 = 0, e2 = 0; /* integrals of P and P^2 (traced watts) */
            size_t b = a;
            while (b + 1 < l->n) {
                double h = l->t_s[b + 1] - l->t_s[b], p0 = l->p_w[b], p1 = l->p_w[b + 1];
                double n1 = e1 + 0.5 * h * (p0 + p1), n2 = e2 + h * (p0 * p0 + p0 * p1 + p1 * p1) / 3;
                double len = l->t_s[b + 1] - l->t_s[a], var = n2 - n1 * n1 / len;
                if (b > a && (len > w_max || k * eff * eff * var > rate * len))
                    break;
                e1 = n1;
                e2 = n2;
                b++;
            }
            {
                double len = l->t_s[b] - l->t_s[a], mean = len > 0 ? e1 / len : l->p_w[a];
                t[n_out] = l->t_s[a];
                w[n_out++] = mean;
                t[n_out] = l->t_s[b];
                w[n_out++] = mean;
            }
            a = b;
        }
    }
    if (n_out * 4 > l->n) { /* not much shorter: not worth it */
        free(t);
        free(w);
        return 0;
    }
    out->t_s = t;
    out->p_w = w;
    out->n = n_out;
    *tb = t;
    *pb = w;
    return 1;
}

int pp_battery_run(const pp_battery_params *p, const pp_battery_load *load,
                   const pp_battery_options *o, pp_battery_result *r)
{
    const char *bad_key;
    char why[256];
    sim s;
    solver sv;
    pp_battery_load reduced;
    double *red_t = NULL, *red_w = NULL;
    double y0[N_STATES], t = 0.0, next_sample_t = 0.0;
    double horizon = o->max_time_s > 0 ? o->max_time_s : DEFAULT_HORIZON_S;
    size_t next_sample = 0;
    sunrealtype *Y;
    int rc, ended;

    memset(r, 0, sizeof *r);
    r->cutoff_kind = -1;
    r->time_to_cutoff_s = NAN;
    if (pp_battery_params_check(p, &bad_key, why, sizeof why) < 0) {
        pp_log_error("battery: %s: %s", bad_key, why);
        return -EINVAL;
    }
    rc = sim_init(&s, p, load);
    if (rc == 0)
        rc = find_kinks(&s);
    if (rc < 0)
        return rc;
    s.raw = load;
    if (reduce_load(&s, &reduced, &red_t, &red_w)) {
        double period = s.period_s;
        free(s.kinks);
        rc = sim_init(&s, p, &reduced);
        if (rc == 0)
            rc = find_kinks(&s);
        if (rc < 0) {
            free(red_t);
            free(red_w);
            return rc;
        }
        s.period_s = period; /* the measured trace's */
        s.raw = load;
        s.reduced = 1;
    }
    y0[0] = p->soc_start_frac;
    y0[1] = y0[2] = y0[3] = 0.0;
    rc = solver_init(&sv, &s, o->rtol > 0 ? o->rtol : 1e-10, y0);
    if (rc < 0) {
        free(s.kinks);
        free(red_t);
        free(red_w);
        return rc;
    }
    Y = N_VGetArrayPointer(sv.y);
    r->soc_start_frac = p->soc_start_frac;
    r->min_voltage_v = INFINITY;

    /* The reported run: one pass of the trace, or until cutoff. A load that
     * fails already at t = 0 (brown-out, voltage below cutoff) is an event
     * at 0; CVODE only sees crossings. */
    {
        double power = load_w(&s, load->p_w[0]);
        operating_point op = operate(&s, Y[0], Y[1], power);
        int kind = op.disc < 0 && p->r_int_ohm > 0 ? PP_BATTERY_EVENT_BROWNOUT
                   : p->cutoff_v > 0 && op.voltage <= p->cutoff_v ? PP_BATTERY_EVENT_VOLTAGE_CUTOFF
                                                                 : -1;
        if (kind >= 0) {
            add_event(r, (pp_battery_event_kind)kind, 0.0, Y[0], op.voltage, power);
            r->cutoff_kind = kind;
            r->time_to_cutoff_s = 0.0;
            r->min_voltage_v = op.voltage;
            ended = 1;
            goto report;
        }
    }
    if (load->n == 1 || o->until_cutoff) {
        double t_end = o->until_cutoff ? horizon : s.pass_s;
        /* the sample at t = 0 */
        double te;
        scan_samples(&s, &sv, o, 0.0, Y, 0.0, Y, &r->min_voltage_v, &next_sample, &next_sample_t,
                     &te);
        ended = t_end > 0 ? integrate(&s, &sv, o, t_end, r, 1, &t, &next_sample, &next_sample_t) : 0;
    } else {
        double te;
        scan_samples(&s, &sv, o, 0.0, Y, 0.0, Y, &r->min_voltage_v, &next_sample, &next_sample_t,
                     &te);
        ended = integrate(&s, &sv, o, s.pass_s, r, 1, &t, &next_sample, &next_sample_t);
    }
    if (ended < 0) {
        rc = ended;
        goto out;
    }
report:
    r->duration_s = t;
    r->soc_end_frac = Y[0];
    r->soc_drained_frac = r->soc_start_frac - Y[0];
    r->energy_j = Y[2];
    r->load_energy_j = Y[3];

    /* Time to cutoff: go on with the trace repeated. For rint the state of
     * charge is all that changes from one period to the next, and by the
     * same amount each time: whole periods are skipped exactly, then the
     * last ones integrated. */
    if (!ended && o->time_to_cutoff && !o->until_cutoff) {
        if (load->n > 1 && p->model == PP_BATTERY_RINT) {
            double soc_period_start = p->soc_start_frac, per_period;
            ended = integrate(&s, &sv, o, s.period_s, r, 0, &t, &next_sample, &next_sample_t);
            per_period = soc_period_start - Y[0];
            if (ended == 0 && per_period > 0) {
                double margin = Y[0] - p->soc_cutoff_frac;
                double skip = floor(margin / per_period) - 1.0;
                double max_skip = floor(horizon / s.period_s) - 2.0;
                if (skip > max_skip)
                    skip = max_skip;
                if (skip >= 1.0) {
                    double e2 = Y[2] / 1.0, e3 = Y[3];
                    double y_new[N_STATES] = {Y[0] - skip * per_period, 0.0, e2 * (1.0 + skip),
                                              e3 * (1.0 + skip)};
                    N_Vector yv = sv.y;
                    t = s.period_s * (1.0 + skip);
                    next_sample_t += skip * s.period_s; /* the measured samples move along */
                    memcpy(N_VGetArrayPointer(yv), y_new, sizeof y_new);
                    solver_restart(&sv, t);
                }
            }
        }
        if (ended == 0)
            ended = integrate(&s, &sv, o, horizon, r, 0, &t, &next_sample, &next_sample_t);
        if (ended < 0) {
            rc = ended;
            goto out;
        }
    }
    if (o->until_cutoff && r->cutoff_kind < 0)
        r->time_to_cutoff_s = NAN;
    {
        long steps = 0, nfe = 0;
        CVodeGetNumSteps(sv.mem, &steps);
        CVodeGetNumRhsEvals(sv.mem, &nfe);
        r->n_steps = steps + sv.steps_before;
        r->n_rhs = nfe + sv.rhs_before;
    }
    rc = 0;
out:
    solver_free(&sv);
    free(s.kinks);
    free(red_t);
    free(red_w);
    return rc;
}
