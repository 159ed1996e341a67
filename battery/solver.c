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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#define N_STATES 4
#define KINKS_FINAL 0      /* s->kinks lists every kink */
#define KINKS_CANDIDATES 1 /* a superset (see sim_init) */
#define KINKS_OVERFLOW 2   /* candidates past a quarter of the samples, not all kept */
#define SURVEY_BLOCK 4096  /* samples a block of the survey (sim_init) */
#define N_MOMENTS 3        /* central moments 2, 3, 4 of a reduced window */
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
    double p_max_w;   /* largest traced power (at least 1 mW) */
    double p_cap_w;   /* most traced power the battery can give at the start (inf: no limit) */
    size_t *kinks;    /* samples where the slope of the load changes noticeably */
    size_t n_kinks;
    int kinks_partial; /* kinks holds candidates only (see survey) */
    /* The trace as measured: the same as load, unless load is its reduction
     * (reduce_load): then minimum voltage and the voltage and brown-out
     * events are checked on raw's samples. */
    const pp_battery_load *raw;
    int reduced;
    /* reduced: the central moments 2, 3, 4 of the load about each window's
     * mean (W^2, W^3, W^4), N_MOMENTS a sample */
    const double *mom;
    double raw_dt_s;  /* dt_s of raw */
    /* The next measured sample to check: raw sample next_k of the
     * repetition that starts at rep_base_s. */
    size_t next_k;
    double rep_base_s;
} sim;

void pp_battery_options_init(pp_battery_options *o)
{
    memset(o, 0, sizeof *o);
    o->time_to_cutoff = 1;
    o->max_time_s = DEFAULT_HORIZON_S;
    o->rtol = 1e-10;
}

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

/* Traced power at time t (since the start), the trace repeated; its
 * segment in *seg (SIZE_MAX: the wrap segment, or a one-sample trace). */
static double trace_w_seg(sim *s, double t, size_t *seg)
{
    const pp_battery_load *l = s->load;
    double x;
    size_t i;

    *seg = SIZE_MAX;
    if (l->n == 1)
        return l->p_w[0];
    x = t < s->period_s ? (t < 0 ? 0 : t) : fmod(t, s->period_s);
    if (x > s->pass_s) /* the wrap segment, from the last sample back to the first */
        return l->p_w[l->n - 1] +
               (l->p_w[0] - l->p_w[l->n - 1]) * (x - s->pass_s) / (s->period_s - s->pass_s);
    *seg = i = find_segment(s, x); /* left-continuous: x = pass is in the last segment */
    {
        double ta = l->t_s[i] - l->t_s[0], tb = l->t_s[i + 1] - l->t_s[0];
        if (tb <= ta)
            return l->p_w[i + 1];
        return l->p_w[i] + (l->p_w[i + 1] - l->p_w[i]) * (x - ta) / (tb - ta);
    }
}

static double trace_w(sim *s, double t)
{
    size_t seg;
    return trace_w_seg(s, t, &seg);
}

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

/* The power that kinks are measured against: the largest of the trace, or
 * the most the battery can give if less (a glitch of 1e9 W would otherwise
 * hide every real kink; past that power the run ends in a brown-out). */
static double kink_scale_w(const sim *s, double p_max_w)
{
    return p_max_w < s->p_cap_w ? p_max_w : s->p_cap_w;
}

/* A kink: a sample where the slope of the load changes by more than a
 * millionth of that power per shortest interval. Between two kinks the load
 * is linear to that level, so the solver may step across the samples there;
 * a kink itself ends a step, so that no step straddles a change of the load
 * it cannot see (a spike, a plateau). find_kinks lists every kink in one
 * pass; the survey (sim_init) lists candidates on the way, and finish_kinks
 * filters those. */
static int find_kinks(sim *s)
{
    const pp_battery_load *l = s->load;
    double threshold = 1e-6 * kink_scale_w(s, s->p_max_w) / s->min_dt_s;

    free(s->kinks);
    s->kinks = NULL;
    s->n_kinks = 0;
    s->kinks_partial = KINKS_FINAL;
    if (l->n < 3)
        return 0;
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

/* The final kinks from the survey's candidates: those past the final
 * threshold (candidates were taken against a lower one, see sim_init), or a
 * full pass where the candidates do not do (uneven spacing, too many). */
static int finish_kinks(sim *s)
{
    const double *w = s->load->p_w;
    double limit = 1e-6 * kink_scale_w(s, s->p_max_w) / s->min_dt_s * s->dt_s;
    size_t m = 0;

    if (s->kinks_partial == KINKS_FINAL)
        return 0;
    if (s->kinks_partial == KINKS_OVERFLOW || !(s->dt_s > 0))
        return find_kinks(s);
    for (size_t j = 0; j < s->n_kinks; j++) {
        size_t i = s->kinks[j];
        if (!(fabs(w[i + 1] - 2.0 * w[i] + w[i - 1]) <= limit))
            s->kinks[m++] = i;
    }
    s->n_kinks = m;
    s->kinks_partial = KINKS_FINAL;
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
    size_t seg;
    double power = load_w(s, trace_w_seg(s, t, &seg));
    operating_point op = operate(s, Y[0], Y[1], power);

    /* a reduced load: the terms of order 2 to 4 of the mean current over
     * the window (reduce_load), the moments in load watts */
    if (s->mom && seg != SIZE_MAX && op.disc > 0) {
        const double *m = s->mom + N_MOMENTS * seg;
        double r0 = s->p->r_int_ohm, a = r0 / (s->p->efficiency * s->p->efficiency);
        double b = r0 / (s->p->efficiency * op.disc), d32 = op.disc * sqrt(op.disc);
        op.current += a / d32 * (m[0] + b * (2.0 * m[1] + 5.0 * b * m[2]));
    }

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
    memset(sv, 0, sizeof *sv); /* freeing again does nothing */
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

/* Log the first sample of l that is not a finite power >= 0 at a finite
 * time, or where time goes backwards: -EINVAL, or 0 if none. */
static int bad_sample(const pp_battery_load *l)
{
    for (size_t i = 0; i < l->n; i++) {
        if (!isfinite(l->p_w[i]) || l->p_w[i] < 0 || !isfinite(l->t_s[i])) {
            pp_log_error("battery: sample %zu: power %g W at %g s is not a finite power >= 0",
                         i + 1, l->p_w[i], l->t_s[i]);
            return -EINVAL;
        }
        if (i > 0 && !(l->t_s[i] >= l->t_s[i - 1])) {
            pp_log_error("battery: sample %zu: time goes backwards", i + 1);
            return -EINVAL;
        }
    }
    return 0;
}

/* Append kink candidate i (growing the list up to a quarter of the samples,
 * past which the list is marked as overflowing and no longer kept). */
static int add_candidate(sim *s, size_t i, size_t *cap)
{
    size_t most = s->load->n / 4 + 1;

    if (s->n_kinks == *cap) {
        size_t want = *cap ? 2 * *cap : 256;
        size_t *k;
        if (*cap >= most) {
            s->kinks_partial = KINKS_OVERFLOW;
            return 0;
        }
        if (want > most)
            want = most;
        k = realloc(s->kinks, want * sizeof *k);
        if (!k)
            return -ENOMEM;
        s->kinks = k;
        *cap = want;
    }
    s->kinks[s->n_kinks++] = i;
    return 0;
}

/* Check the load and fill the time base of s, in one pass over the trace
 * (an hour at 1 kHz is 3.6 M samples: the passes over it cost more than the
 * solver does). On the way: the largest power and the kink candidates,
 * taken as for even spacing against a lower bound of the final threshold
 * (the largest power so far, the mean interval for the shortest), so that
 * every kink is among them; finish_kinks keeps the real ones. Bad samples
 * are looked for only once the pass has seen one. */
static int sim_init(sim *s, const pp_battery_params *p, const pp_battery_load *l)
{
    const double *T = l->t_s, *W = l->p_w;
    size_t n = l->n, cap = 0;
    double t0, dt, dev = 0.0, min_dt = INFINITY, p_max = 1e-3;
    int ok, even;

    memset(s, 0, sizeof *s);
    s->p = p;
    s->load = l;
    s->q_c = p->capacity_ah * 3600.0;
    s->p_max_w = 1e-3;
    s->p_cap_w = INFINITY;
    if (p->r_int_ohm > 0) {
        double u = pp_battery_ocv_v(p, p->soc_start_frac);
        double most = (u * u / (4.0 * p->r_int_ohm) - p->base_power_w) * p->efficiency;
        if (most > 1e-3)
            s->p_cap_w = most;
    }
    if (n == 0) {
        pp_log_error("battery: the trace has no samples");
        return -EINVAL;
    }
    if (n == 1) {
        if (bad_sample(l) < 0)
            return -EINVAL;
        s->p_max_w = W[0] > p_max ? W[0] : p_max;
        return 0;
    }
    t0 = T[0];
    dt = (T[n - 1] - t0) / (double)(n - 1);
    s->kinks_partial = KINKS_CANDIDATES;
    ok = isfinite(t0) && isfinite(T[n - 1]) && W[0] >= 0 && W[0] <= DBL_MAX;
    if (ok && W[0] > p_max)
        p_max = W[0];
    for (size_t a = 1; a < n; a += SURVEY_BLOCK) {
        size_t b = n - a > SURVEY_BLOCK ? a + SURVEY_BLOCK : n, i;
        double lim = 1e-6 * kink_scale_w(s, p_max); /* with the largest power so far */
        double x = (double)a, dev1 = dev, p_max1 = p_max, w_min = 0.0, w_min1 = 0.0, h_min = 0.0,
               h_min1 = 0.0, sum = 0.0, sum1 = 0.0;
        /* Checks, time base, largest power, in two lanes against the
         * latency of the running extremes. A NaN slips past a comparison:
         * the sums of the powers and deviations catch it (and an infinity). */
        for (i = a; i + 2 <= b; i += 2, x += 2.0) {
            double h = T[i] - T[i - 1], h1 = T[i + 1] - T[i];
            double d = fabs(T[i] - t0 - x * dt), d1 = fabs(T[i + 1] - t0 - (x + 1.0) * dt);
            h_min = h < h_min ? h : h_min;
            h_min1 = h1 < h_min1 ? h1 : h_min1;
            dev = d > dev ? d : dev;
            dev1 = d1 > dev1 ? d1 : dev1;
            p_max = W[i] > p_max ? W[i] : p_max;
            p_max1 = W[i + 1] > p_max1 ? W[i + 1] : p_max1;
            w_min = W[i] < w_min ? W[i] : w_min;
            w_min1 = W[i + 1] < w_min1 ? W[i + 1] : w_min1;
            sum += W[i] + d;
            sum1 += W[i + 1] + d1;
        }
        for (; i < b; i++) {
            double h = T[i] - T[i - 1], d = fabs(T[i] - t0 - (double)i * dt);
            h_min = h < h_min ? h : h_min;
            dev = d > dev ? d : dev;
            p_max = W[i] > p_max ? W[i] : p_max;
            w_min = W[i] < w_min ? W[i] : w_min;
            sum += W[i] + d;
        }
        dev = dev1 > dev ? dev1 : dev;
        p_max = p_max1 > p_max ? p_max1 : p_max;
        ok &= h_min >= 0 && h_min1 >= 0 && w_min >= 0 && w_min1 >= 0 && isfinite(sum + sum1);
        /* kink candidates, against the limit of the blocks before */
        for (i = a; i < b && i + 1 < n && s->kinks_partial == KINKS_CANDIDATES; i++)
            if (!(fabs(W[i + 1] - 2.0 * W[i] + W[i - 1]) <= lim) && add_candidate(s, i, &cap) < 0) {
                pp_log_error("battery: out of memory");
                return -ENOMEM;
            }
    }
    even = dev <= 1e-6 * dt;
    /* The shortest interval: with even spacing, every one is within
     * 2e-6 dt of dt; else another pass (uneven traces are short imports). */
    if (even) {
        min_dt = dt * (1.0 - 2e-6);
    } else {
        for (size_t i = 1; i < n; i++)
            if (T[i] > T[i - 1] && T[i] - T[i - 1] < min_dt)
                min_dt = T[i] - T[i - 1];
    }
    if (!ok && bad_sample(l) < 0) /* (a sum can overflow where no sample is bad) */
        return -EINVAL;
    s->p_max_w = p_max;
    s->pass_s = T[n - 1] - t0;
    if (!(s->pass_s > 0)) {
        pp_log_error("battery: the trace spans no time");
        return -EINVAL;
    }
    s->min_dt_s = min_dt;
    s->period_s = s->pass_s * (double)n / (double)(n - 1);
    s->dt_s = even ? dt : 0.0; /* uneven: search */
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

/* Time of raw sample j in the repetition that starts at base. */
static double raw_time(const sim *s, size_t j, double base)
{
    return base + (s->raw->t_s[j] - s->raw->t_s[0]);
}

/* The last raw sample j >= k of the repetition at base with a time <= t
 * (sample k's is): for even spacing from the time itself, corrected by a
 * look at the neighbours (a search would wait on a cache miss at each
 * probe: the trace is far larger than the cache); else galloping, then
 * bisection. */
static size_t last_raw_sample(const sim *s, size_t k, double base, double t)
{
    size_t n = s->raw->n, lo = k, hi, step = 1;

    if (s->raw_dt_s > 0) {
        double guess = floor((t - raw_time(s, k, base)) / s->raw_dt_s);
        size_t j = guess < (double)(n - 1 - k) ? k + (size_t)guess : n - 1;
        while (j + 1 < n && raw_time(s, j + 1, base) <= t)
            j++;
        while (j > k && raw_time(s, j, base) > t)
            j--;
        return j;
    }
    while (lo + step < n && raw_time(s, lo + step, base) <= t) {
        lo += step;
        step *= 2;
    }
    hi = lo + step < n ? lo + step : n; /* raw_time(hi) > t, or hi == n */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (raw_time(s, mid, base) <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The first index of the largest of w[a..b]: a plain maximum first (four
 * independent lanes, which the compiler can vectorize), then where. */
static size_t argmax(const double *w, size_t a, size_t b)
{
    double m0 = w[a], m1 = w[a], m2 = w[a], m3 = w[a], m;
    size_t i = a;

    for (; i + 3 <= b; i += 4) {
        m0 = w[i] > m0 ? w[i] : m0;
        m1 = w[i + 1] > m1 ? w[i + 1] : m1;
        m2 = w[i + 2] > m2 ? w[i + 2] : m2;
        m3 = w[i + 3] > m3 ? w[i + 3] : m3;
    }
    for (; i <= b; i++)
        m0 = w[i] > m0 ? w[i] : m0;
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    m = m2 > m0 ? m2 : m0;
    for (i = a; w[i] != m; i++)
        ;
    return i;
}

/* After a step from t_prev to t: the minimum terminal voltage at the
 * measured samples in (t_prev, t], the output there, and in a reduced run a
 * voltage or brown-out event at one of them (returned, its time in
 * *event_t; -1 if none). The samples are those from s->next_k on; states
 * between t_prev and t come from CVODE's dense output when there is output,
 * else are interpolated linearly (they vary slowly). */
static int scan_samples(sim *s, solver *sv, const pp_battery_options *o, double t_prev,
                        const double *y_prev, double t, const double *y, double *min_v,
                        double *event_t)
{
    const pp_battery_load *l = s->raw;
    const double *W = l->p_w;
    size_t n = l->n, k = s->next_k;
    double base = s->rep_base_s, peak_w = -1.0, peak_t = t;
    int event = -1;

    if (n == 1) { /* a constant load: its one sample at the end of every step */
        peak_w = W[0];
        if (o->output) {
            operating_point op = operate(s, y[0], y[1], load_w(s, W[0]));
            if (op.voltage < *min_v)
                *min_v = op.voltage;
            o->output(o->output_ctx, t, y[0], op.voltage, op.current);
            if ((event = raw_event(s, &op)) >= 0)
                *event_t = t;
            return event;
        }
        k = 0;
        base = t;
    }
    for (;;) {
        if (k == n) { /* the next repetition */
            k = 0;
            base += s->period_s;
        }
        if (n == 1 || !(raw_time(s, k, base) <= t))
            break;
        if (!o->output) { /* only the highest load of the step matters */
            size_t j = last_raw_sample(s, k, base, t), m = argmax(W, k, j);
            if (W[m] > peak_w) {
                peak_w = W[m];
                peak_t = raw_time(s, m, base);
            }
            k = j + 1;
            continue;
        }
        {
            double ts = raw_time(s, k, base), power = load_w(s, W[k]);
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
            k++;
        }
    }
    if (n > 1) {
        s->next_k = k;
        s->rep_base_s = base;
    }
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

/* Record event kind at t (state Y, traced power traced_w): in the events
 * when record, and as the cutoff when it is the first. */
static void note_event(sim *s, pp_battery_result *r, int record, int kind, double t,
                       const double *Y, double traced_w)
{
    double power = load_w(s, traced_w);
    operating_point op = operate(s, Y[0], Y[1], power);

    if (record)
        add_event(r, (pp_battery_event_kind)kind, t, Y[0], op.voltage, power);
    if (r->cutoff_kind < 0) {
        r->cutoff_kind = kind;
        r->time_to_cutoff_s = t;
    }
}

/* Where a step from t towards stop must end so as not to run into a load
 * the battery cannot give. CVODE looks for the brown-out root only after a
 * step succeeds, and a step up a ramp to a glitch of 1e9 W fails its error
 * test first: the step ends just past the point where the load reaches the
 * most that any state from here on can deliver (the open-circuit voltage
 * now is the highest ahead, the RC voltage only lowers it), so that the
 * root lies within the step and the load there stays moderate. */
static double brownout_stop(sim *s, double t, double stop, double soc)
{
    double r0 = s->p->r_int_ohm, u, cap, w0, w1;

    if (!(r0 > 0) || !isfinite(stop))
        return stop;
    u = pp_battery_ocv_v(s->p, soc);
    cap = (u * u / (4.0 * r0) - s->p->base_power_w) * s->p->efficiency * (1.0 + 1e-3);
    w1 = trace_w(s, stop);
    if (!(w1 > cap))
        return stop;
    w0 = trace_w(s, t);
    if (!(w0 < cap))
        return stop;
    return t + (cap - w0) / (w1 - w0) * (stop - t);
}

#define MAX_STALLED_STEPS 1000

/* Integrate from the current state up to t_end, stopping at the first
 * event. Returns 1 when an event ended it, 0 at t_end, -errno on failure. */
static int integrate(sim *s, solver *sv, const pp_battery_options *o, double t_end,
                     pp_battery_result *r, int record, double *t_io)
{
    double y_prev[N_STATES], t = *t_io;
    sunrealtype *Y = N_VGetArrayPointer(sv->y);
    int flag, stalled = 0;

    if (t_end <= t)
        return 0;
    for (;;) {
        double t_prev = t, stop = next_breakpoint(s, t);
        sunrealtype tret;

        /* Already asking for more than the battery gives (past a jump of
         * the load, or where brownout_stop ended the last step): CVODE
         * sees no crossing there. */
        if (s->p->r_int_ohm > 0 &&
            operate(s, Y[0], Y[1], load_w(s, trace_w(s, t))).disc < 0) {
            note_event(s, r, record, PP_BATTERY_EVENT_BROWNOUT, t, Y, trace_w(s, t));
            *t_io = t;
            return 1;
        }
        /* Steps end at the kinks of the load: each step sees a load that is
         * (nearly) linear in time. */
        stop = brownout_stop(s, t, stop < t_end ? stop : t_end, Y[0]);
        if (stop - t < 64.0 * DBL_EPSILON * (1.0 + fabs(t))) { /* a wall: no step fits */
            note_event(s, r, record, PP_BATTERY_EVENT_BROWNOUT, t, Y, trace_w(s, stop));
            *t_io = t;
            return 1;
        }
        CHECK_CV(CVodeSetStopTime(sv->mem, stop));
        memcpy(y_prev, Y, sizeof y_prev);
        flag = CVode(sv->mem, t_end, sv->y, &tret, CV_ONE_STEP);
        if (flag < 0) {
            char *name = CVodeGetReturnFlagName(flag); /* malloc'd by SUNDIALS */
            pp_log_error("battery: CVODE failed at t = %.6f s: %s", t, name ? name : "?");
            free(name);
            return -EIO;
        }
        if (!(tret > t)) { /* steps of zero length: t + h == t */
            if (++stalled > MAX_STALLED_STEPS) {
                pp_log_error("battery: the solver makes no progress at t = %.6f s", t);
                return -EIO;
            }
        } else {
            stalled = 0;
        }
        t = tret;
        if (record || s->reduced) {
            double scratch_v = INFINITY, te = t;
            int ev = scan_samples(s, sv, o, t_prev, y_prev, t, Y,
                                  record ? &r->min_voltage_v : &scratch_v, &te);
            if (ev >= 0) { /* at a measured peak that the reduced load smooths out */
                if (te < t && CVodeGetDky(sv->mem, te, 0, sv->y) == CV_SUCCESS)
                    t = te;
                note_event(s, r, record, ev, t, Y, trace_w_raw(s, t));
                *t_io = t;
                return 1;
            }
        }
        if (flag == CV_ROOT_RETURN) {
            int info[N_ROOTS];
            CHECK_CV(CVodeGetRootInfo(sv->mem, info));
            for (int k = 0; k < N_ROOTS; k++)
                if (info[k])
                    note_event(s, r, record, k, t, Y, trace_w(s, t));
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
         * units in the last place later (6e-12 s at an hour), and the state
         * is carried over that gap by the new segment's derivative (left
         * out, it was 1e-16 of drain a jump: 5e-13 over an hour of 1-s
         * windows, ten times RK4's error). */
        if (t >= stop - 1e-12 * (1.0 + fabs(stop)) && jumps_at(s, t)) {
            double next = next_breakpoint(s, t), gap = 16.0 * DBL_EPSILON * (1.0 + fabs(t));
            t += gap;
            rhs(t, sv->y, sv->tmp, s);
            N_VLinearSum(1.0, sv->y, gap, sv->tmp, sv->y);
            CHECK_CV(solver_restart(sv, t));
            if (next > t && isfinite(next))
                CHECK_CV(CVodeSetInitStep(sv->mem, next - t < t_end - t ? next - t : t_end - t));
        }
    }
fail:
    return -EIO;
}

/* A load whose every sample is a kink (sensor noise at the sampling rate)
 * makes the solver stop at each sample, and a long one costs passes over
 * every sample per step. Such a load (with rint any long one, see
 * pp_battery_run) is replaced by its means over windows, as steps, each with
 * the central moments m2, m3, m4 of the load about its mean (the mean of
 * (P - P')^k over the window). The charge drawn depends on the load through
 * I(P); expanded about the window's mean P', with d = u^2 - 4 R0 P', its
 * integral over the window is
 *     [I(P') + 0 + I''/2 m2 + I'''/6 m3 + I''''/24 m4] len + remainder,
 *     I''/2 = R0 / d^(3/2),  I'''/6 = 2 R0^2 / d^(5/2),  I''''/24 = 5 R0^3 / d^(7/2),
 * the first-order term vanishing and the next three added by the
 * right-hand side (rhs, at the state's own u), so that what is lost over a
 * window is the fifth-order remainder, I'''''/120 = 14 R0^4 / d^(9/2) times
 * the integral of |P - P'|^5, at most
 *     14 R0^4 / (u^2 - 4 R0 Pmax)^(9/2) x range^3 x integral (P - P')^2 dt
 * coulombs, range the spread of the window's samples and u the lowest
 * open-circuit voltage the run can see. Windows grow while that bound stays
 * within REDUCE_SOC_BUDGET of the capacity over the pass (pro rata), and
 * last at most 1 s and 1/100 of the RC time constant. Voltage and brown-out
 * events, and the lowest voltage, are still checked on the measured
 * samples. Returns 1 when reduced (out's arrays in *tb, *pb, the moments,
 * N_MOMENTS a sample, in *mom, to free), 0 when not worth it or not safe
 * (close to brown-out). */
#define REDUCE_SOC_BUDGET 1e-7
#define REDUCE_BLOCK 32 /* a multiple of 4 */

/* Add to e the integrals of q, q^2, q^3, q^4 over a segment of length h on
 * which q goes linearly from x to y, each times k + 1 (2, 3, 4, 5: the
 * division is left to the window's end, see SEGMENT_POWER_SCALE). */
static inline void add_segment_powers(double h, double x, double y, double e[4])
{
    e[0] += h * (x + y);
    e[1] += h * (x * x + x * y + y * y);
    e[2] += h * (x + y) * (x * x + y * y);
    e[3] += h * (x * x * (x * x + x * y + y * y) + y * y * (x * y + y * y));
}

static const double segment_power_scale[4] = {1.0 / 2.0, 1.0 / 3.0, 1.0 / 4.0, 1.0 / 5.0};

/* Whether a window of length len with the sums e (of add_segment_powers)
 * keeps its remainder, bound x integral (P - mean)^2, within rate x len; the
 * integral times len is e1 len - e0^2, so that nothing is divided. */
static int window_fits(double bound, const double e[4], double len, double rate)
{
    double e0 = e[0] * segment_power_scale[0], e1 = e[1] * segment_power_scale[1];
    return !(bound * (e1 * len - e0 * e0) > rate * len * len);
}

static int reduce_load(const sim *s, pp_battery_load *out, double **tb, double **pb, double **mom)
{
    const pp_battery_load *l = s->load;
    const double *T = l->t_s, *W = l->p_w;
    const pp_battery_params *p = s->p;
    double u_min, p_max = load_w(s, s->p_max_w), r0 = p->r_int_ohm, w_max = 1.0, rate, k, d;
    double eff = p->efficiency, *t, *w, *v;
    size_t n_out = 0, a = 0, n = l->n;

    if (r0 <= 0)
        return 0;
    u_min = pp_battery_ocv_v(p, p->soc_cutoff_frac < p->soc_start_frac ? p->soc_cutoff_frac : 0);
    if (p->model == PP_BATTERY_THEVENIN) {
        double i_max = 2.0 * p_max / u_min; /* at most twice the current at u_min */
        u_min -= i_max * p->r1_ohm;        /* the RC voltage cannot exceed I R1 */
        if (p->r1_ohm * p->c1_f / 100 < w_max)
            w_max = p->r1_ohm * p->c1_f / 100;
    }
    if (!(u_min > 0) || u_min * u_min <= 8.0 * r0 * p_max)
        return 0; /* near brown-out: keep every sample */
    /* coulombs of error allowed per second; the bound per (W^5 s) of range^3
     * x variance, in traced watts */
    rate = REDUCE_SOC_BUDGET * s->q_c / s->pass_s;
    d = u_min * u_min - 4.0 * r0 * p_max;
    k = 14.0 * pow(r0 / eff, 4) / pow(d, 4.5) / eff;
    t = malloc(2 * n * sizeof *t);
    w = malloc(2 * n * sizeof *w);
    v = malloc(2 * n * N_MOMENTS * sizeof *v);
    if (!t || !w || !v)
        goto not_reduced;
    while (a + 1 < n) {
        /* Extend the window [a, b]. The integrals of the powers 1 to 4 of
         * q = P - P(a) (traced watts; exact for a linear segment): their
         * central moments are those of P, with less cancellation; the test
         * is the bound above times the window's length, so that nothing is
         * divided. */
        double e[4] = {0, 0, 0, 0}, ta = T[a], wa = W[a], lo = wa, hi = wa;
        size_t b = a;
        /* First by blocks of REDUCE_BLOCK segments, their integrals in four
         * lanes: only the window's end needs to meet the bound, so a block
         * is taken whole when its end does. */
        while (n - b > REDUCE_BLOCK) {
            double l0[4] = {0}, l1[4] = {0}, l2[4] = {0}, l3[4] = {0}, sum[4];
            double len = T[b + REDUCE_BLOCK] - ta, blo = lo, bhi = hi;
            if (len > w_max)
                break;
            for (size_t i = b; i < b + REDUCE_BLOCK; i += 4) {
                add_segment_powers(T[i + 1] - T[i], W[i] - wa, W[i + 1] - wa, l0);
                add_segment_powers(T[i + 2] - T[i + 1], W[i + 1] - wa, W[i + 2] - wa, l1);
                add_segment_powers(T[i + 3] - T[i + 2], W[i + 2] - wa, W[i + 3] - wa, l2);
                add_segment_powers(T[i + 4] - T[i + 3], W[i + 3] - wa, W[i + 4] - wa, l3);
            }
            for (size_t i = b + 1; i <= b + REDUCE_BLOCK; i++) {
                blo = W[i] < blo ? W[i] : blo;
                bhi = W[i] > bhi ? W[i] : bhi;
            }
            for (int m = 0; m < 4; m++)
                sum[m] = e[m] + ((l0[m] + l1[m]) + (l2[m] + l3[m]));
            if (!window_fits(k * (bhi - blo) * (bhi - blo) * (bhi - blo), sum, len, rate))
                break;
            memcpy(e, sum, sizeof e);
            lo = blo;
            hi = bhi;
            b += REDUCE_BLOCK;
        }
        /* then sample by sample */
        while (b + 1 < n) {
            double next[4], len = T[b + 1] - ta;
            double nlo = W[b + 1] < lo ? W[b + 1] : lo, nhi = W[b + 1] > hi ? W[b + 1] : hi;
            memcpy(next, e, sizeof next);
            add_segment_powers(T[b + 1] - T[b], W[b] - wa, W[b + 1] - wa, next);
            if (b > a && (len > w_max ||
                          !window_fits(k * (nhi - nlo) * (nhi - nlo) * (nhi - nlo), next, len, rate)))
                break;
            memcpy(e, next, sizeof e);
            lo = nlo;
            hi = nhi;
            b++;
        }
        {
            /* central moments from those about W[a]: c the mean's offset */
            double len = T[b] - ta, c;
            for (int m = 0; m < 4; m++)
                e[m] *= segment_power_scale[m];
            c = len > 0 ? e[0] / len : 0.0;
            double m[N_MOMENTS] = {0, 0, 0};
            if (len > 0) {
                m[0] = (e[1] - c * e[0]) / len;
                m[1] = (e[2] - 3.0 * c * e[1] + 2.0 * c * c * e[0]) / len;
                m[2] = (e[3] - 4.0 * c * e[2] + 6.0 * c * c * e[1] - 3.0 * c * c * c * e[0]) / len;
                m[0] = m[0] > 0 ? m[0] : 0.0; /* even moments: rounding aside, >= 0 */
                m[2] = m[2] > 0 ? m[2] : 0.0;
            }
            for (int end = 0; end < 2; end++) {
                t[n_out] = end ? T[b] : ta;
                memcpy(v + N_MOMENTS * n_out, m, sizeof m);
                w[n_out++] = wa + c;
            }
        }
        a = b;
    }
    if (n_out * 4 > n) /* not much shorter: not worth it */
        goto not_reduced;
    out->t_s = t;
    out->p_w = w;
    out->n = n_out;
    *tb = t;
    *pb = w;
    *mom = v;
    return 1;

not_reduced:
    free(t);
    free(w);
    free(v);
    return 0;
}

int pp_battery_run(const pp_battery_params *p, const pp_battery_load *load,
                   const pp_battery_options *o, pp_battery_result *r)
{
    const char *bad_key;
    char why[256];
    sim s;
    solver sv;
    pp_battery_load reduced;
    double *red_t = NULL, *red_w = NULL, *red_mom = NULL;
    double y0[N_STATES], t = 0.0;
    double horizon = o->max_time_s > 0 ? o->max_time_s : DEFAULT_HORIZON_S;
    sunrealtype *Y;
    int rc, ended;

    memset(r, 0, sizeof *r);
    r->cutoff_kind = -1;
    r->time_to_cutoff_s = NAN;
    if (pp_battery_params_check(p, &bad_key, why, sizeof why) < 0) {
        pp_log_error("battery: %s: %s", bad_key, why);
        return -EINVAL;
    }
    memset(&sv, 0, sizeof sv); /* every exit frees through out */
    rc = sim_init(&s, p, load);
    if (rc == 0 && s.kinks_partial != KINKS_OVERFLOW)
        rc = finish_kinks(&s);
    if (rc < 0)
        goto out;
    /* A long load is reduced to windows (reduce_load), if that is safe and
     * worth it: with rint always (the windows' right-hand side is constant,
     * so each is integrated exactly and only the bounded remainder is
     * lost); with thevenin, whose windows must be short against the RC time
     * constant, when the load kinks at a quarter of its samples or more
     * (noise), which would stop the solver at every sample. Otherwise every
     * kink is needed. */
    if (load->n >= 1000 &&
        (p->model == PP_BATTERY_RINT || s.kinks_partial == KINKS_OVERFLOW ||
         s.n_kinks >= load->n / 4) &&
        reduce_load(&s, &reduced, &red_t, &red_w, &red_mom)) {
        double period = s.period_s, raw_dt = s.dt_s;
        free(s.kinks);
        rc = sim_init(&s, p, &reduced);
        if (rc == 0)
            rc = finish_kinks(&s);
        if (rc < 0)
            goto out;
        s.period_s = period; /* the measured trace's */
        s.raw_dt_s = raw_dt;
        s.reduced = 1;
        s.mom = red_mom;
    } else {
        s.raw_dt_s = s.dt_s;
        rc = finish_kinks(&s);
        if (rc < 0)
            goto out;
    }
    s.raw = load;
    y0[0] = p->soc_start_frac;
    y0[1] = y0[2] = y0[3] = 0.0;
    rc = solver_init(&sv, &s, o->rtol > 0 ? o->rtol : 1e-10, y0);
    if (rc < 0)
        goto out;
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
        scan_samples(&s, &sv, o, 0.0, Y, 0.0, Y, &r->min_voltage_v, &te);
        ended = t_end > 0 ? integrate(&s, &sv, o, t_end, r, 1, &t) : 0;
    } else {
        double te;
        scan_samples(&s, &sv, o, 0.0, Y, 0.0, Y, &r->min_voltage_v, &te);
        ended = integrate(&s, &sv, o, s.pass_s, r, 1, &t);
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
            ended = integrate(&s, &sv, o, s.period_s, r, 0, &t);
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
                    s.rep_base_s += skip * s.period_s; /* the measured samples move along */
                    memcpy(N_VGetArrayPointer(yv), y_new, sizeof y_new);
                    solver_restart(&sv, t);
                }
            }
        }
        if (ended == 0)
            ended = integrate(&s, &sv, o, horizon, r, 0, &t);
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
    free(red_mom);
    return rc;
}
