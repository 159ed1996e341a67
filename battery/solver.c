/* The battery ODE solved with SUNDIALS CVODE over the windows of the load:
 * the only file that sees N_Vector and CVODE memory (DESIGN.md).
 * battery.c's pp_battery_run drives it (solver.h).
 *
 * States y = (SoC, V1 the RC voltage, energy drawn from the battery, energy
 * delivered to the load).
 *
 * Windows. A trace at 1 kHz changes at every sample; a solver that stopped
 * at each would take millions of steps an hour. The load is walked in
 * windows (window.c: at most 1 s, and tau / 10 for thevenin; a constant
 * stretch of any length) and CVODE integrates each window from its start
 * (CVodeReInit: the right-hand side jumps there) with a summary of the
 * window in place of the load:
 *  - one linear piece: its mean current in closed form
 *    (pp_battery_rint_charge_c; exact for rint);
 *  - more: the mean power P and variance v, the current being
 *    I(P) + I''(P) v / 2, the expansion of I about the mean (its first-order
 *    term vanishes); window.c keeps what that leaves out within 1e-7 of the
 *    charge drawn.
 *
 * Events, by CVODE root finding: the state of charge reaching soc_cutoff,
 * the terminal voltage reaching cutoff_v, the load reaching what the battery
 * can give (u^2 = 4 R0 P: brown-out). In a window the voltage and brown-out
 * roots are taken at its peak power, so that a spike of one sample is seen;
 * a window with an event is integrated again piece by piece, where the
 * roots follow the load itself and place the event where it happens.
 */
#include "solver.h"

#include "src/base/log.h"

#include <cvode/cvode.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#define N_ROOTS 3
#define MAX_STEPS_A_WINDOW 100000

struct pp_cvode {
    SUNContext ctx;
    void *mem;
    N_Vector y;
    SUNNonlinearSolver nls;
    double q_c;         /* capacity, C */
    const pp_window *w; /* the window being integrated */
    const double *w_y0; /* the state at its start */
    int no_roots;
    double t_out;       /* of the last row of output */
};

static int cvode_failed(const char *what, int flag)
{
    char *name = CVodeGetReturnFlagName(flag); /* malloc'd by SUNDIALS 6 */

    pp_log_error("battery: %s failed: %s", what, name ? name : "?");
    free(name);
    return -EIO;
}

#define CHECK_CV(call)                                                                             \
    do {                                                                                           \
        int flag_ = (call);                                                                        \
        if (flag_ < 0)                                                                             \
            return cvode_failed(#call, flag_);                                                     \
    } while (0)

static pp_battery_point operate(const pp_solver *s, const double *y, double traced_w)
{
    return pp_battery_operate(s->p, y[0], y[1], pp_walk_load_w(&s->walk, traced_w));
}

/* The traced power of a one-piece window at t. */
static double piece_w(const pp_window *w, double t)
{
    return w->p0_w + (w->p1_w - w->p0_w) * ((t - w->t0) / (w->t1 - w->t0));
}

/* What the voltage and brown-out roots see: the piece itself, else the peak. */
static double root_w(const pp_solver *s, double t)
{
    return s->cv->w->pieces == 1 ? piece_w(s->cv->w, t) : s->cv->w->hi_w;
}

static void margins(const pp_solver *s, const double *y, double traced_w, double g[N_ROOTS])
{
    pp_battery_point op = operate(s, y, traced_w);

    g[0] = y[0] - s->p->soc_cutoff_frac;
    g[1] = s->p->cutoff_v > 0 ? op.voltage_v - s->p->cutoff_v : 1.0;
    g[2] = s->p->r_int_ohm > 0 ? op.disc_v2 : 1.0;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    const pp_solver *s = user;
    const pp_window *w = s->cv->w;
    const pp_battery_params *p = s->p;
    const sunrealtype *Y = N_VGetArrayPointer(y);
    sunrealtype *D = N_VGetArrayPointer(ydot);
    pp_battery_point op = operate(s, Y, w->mean_w);

    (void)t;
    if (w->pieces == 1) /* the mean current over a linear piece */
        op.current_a = pp_battery_rint_charge_c(op.ocv_v - Y[1], p->r_int_ohm,
                                                pp_walk_load_w(&s->walk, w->p0_w),
                                                pp_walk_load_w(&s->walk, w->p1_w), 1.0);
    else if (op.disc_v2 > 0) /* + I''/2 v, I'' = 2 R0 / disc^(3/2) per load W^2 */
        op.current_a += p->r_int_ohm * w->var_w2 / (p->efficiency * p->efficiency) /
                        (op.disc_v2 * sqrt(op.disc_v2));
    D[0] = -op.current_a / s->cv->q_c;
    D[1] = p->model == PP_BATTERY_THEVENIN ? (op.current_a - Y[1] / p->r1_ohm) / p->c1_f : 0.0;
    D[2] = op.ocv_v * op.current_a;
    D[3] = pp_walk_load_w(&s->walk, w->mean_w);
    return 0;
}

static int roots(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    const pp_solver *s = user;

    if (s->cv->no_roots)
        g[0] = g[1] = g[2] = 1.0;
    else
        margins(s, N_VGetArrayPointer(y), root_w(s, t), g);
    return 0;
}

/* The lowest voltage, and a row of output at t (once: a window integrated
 * again piece by piece passes the same samples). */
static void output(pp_solver *s, double t, double traced_w)
{
    pp_battery_point op = operate(s, s->y, traced_w);

    if (s->record && op.voltage_v < s->r->min_voltage_v)
        s->r->min_voltage_v = op.voltage_v;
    if (s->record && !s->quiet && s->o->output && t > s->cv->t_out) {
        s->o->output(s->o->output_ctx, t, s->y[0], op.voltage_v, op.current_a);
        s->cv->t_out = t;
    }
}

/* Event kind at t (the state in Y): recorded, and the cutoff if the first. */
static void note_event(pp_solver *s, int kind, double t)
{
    pp_battery_point op = operate(s, s->y, root_w(s, t));
    pp_battery_result *r = s->r;

    if (s->record && r->n_events < PP_BATTERY_EVENTS_MAX)
        r->events[r->n_events++] = (pp_battery_event){
            kind, t, s->y[0], op.voltage_v, pp_walk_load_w(&s->walk, root_w(s, t))};
    if (r->cutoff_kind < 0) {
        r->cutoff_kind = kind;
        r->time_to_cutoff_s = t;
    }
    output(s, t, root_w(s, t));
}

/* The state at t inside one-piece window w: the part of the piece before
 * t integrated again (its mean is not the whole piece's). */
static int integrate_part(pp_solver *s, const pp_window *w, sunrealtype *t)
{
    pp_window part = *w;
    int flag;

    part.p1_w = piece_w(w, *t);
    part.mean_w = w->p0_w / 2 + part.p1_w / 2;
    part.t1 = *t;
    memcpy(s->y, s->cv->w_y0, PP_N_STATES * sizeof *s->y);
    s->cv->w = &part;
    s->cv->no_roots = 1;
    flag = CVodeReInit(s->cv->mem, w->t0, s->cv->y);
    if (flag == CV_SUCCESS)
        flag = CVodeSetStopTime(s->cv->mem, part.t1);
    if (flag == CV_SUCCESS)
        flag = CVode(s->cv->mem, part.t1, s->cv->y, t, CV_NORMAL);
    s->cv->no_roots = 0;
    s->cv->w = w;
    CHECK_CV(flag);
    return 0;
}

/* CVODE from where it is (*t) to tout within window w: 0 there, 1 at an
 * event, 2 when the window's peak stood for its load (refine), -EIO. */
static int advance(pp_solver *s, const pp_window *w, double tout, sunrealtype *t)
{
    int info[N_ROOTS], flag = CVode(s->cv->mem, tout, s->cv->y, t, CV_NORMAL);

    if (flag < 0) {
        pp_log_error("battery: the solver stopped at t = %.9g s", *t);
        return cvode_failed("CVode", flag);
    }
    if (flag != CV_ROOT_RETURN)
        return 0;
    if (w->pieces > 1 && w->hi_w > w->lo_w)
        return 2;
    CHECK_CV(CVodeGetRootInfo(s->cv->mem, info));
    if ((info[1] || info[2]) && w->p1_w != w->p0_w && integrate_part(s, w, t) < 0)
        return -EIO;
    for (int k = 0; k < N_ROOTS; k++)
        if (info[k])
            note_event(s, k, *t);
    return 1;
}

/* Integrate window w from its start: 0 at its end, 1 at an event, 2 to
 * refine (advance), -EIO. Output at the samples inside. */
static int run_window(pp_solver *s, const pp_window *w)
{
    double g[N_ROOTS], len = w->t1 - w->t0;
    sunrealtype t = w->t0;
    int rc = 0, out = s->record && !s->quiet && s->o->output && !s->walk.constant;
    long steps = 0, nfe = 0;
    pp_battery_point op;

    s->cv->w = w;
    margins(s, s->y, root_w(s, w->t0), g);
    if (g[1] < 0 || g[2] < 0) { /* beyond already */
        if (w->pieces > 1 && w->hi_w > w->lo_w)
            return 2;
        note_event(s, g[2] < 0 ? PP_BATTERY_EVENT_BROWNOUT : PP_BATTERY_EVENT_VOLTAGE_CUTOFF, t);
        return 1;
    }
    if (!(len > 8 * DBL_EPSILON * fmax(1.0, fabs(w->t1))))
        return 0; /* too short to integrate */
    CHECK_CV(CVodeReInit(s->cv->mem, w->t0, s->cv->y));
    CHECK_CV(CVodeSetStopTime(s->cv->mem, w->t1));
    /* a short window in one step where that will do; a long one CVODE's way */
    CHECK_CV(CVodeSetInitStep(s->cv->mem, len <= s->walk.w_max_s ? len : 0.0));
    for (size_t j = w->start.j + 1; out && rc == 0 && j < s->walk.n_vertices; j++) {
        double x, pw, ts;
        pp_walk_vertex(&s->walk, j, &x, &pw);
        ts = w->start.k * s->walk.period_s + x;
        if (ts > w->t1)
            break;
        if (ts > w->t0 && !(s->walk.l->interval_means && j % 2 == 0) &&
            (rc = advance(s, w, ts, &t)) == 0)
            output(s, ts, pw);
    }
    if (rc == 0 && t < w->t1)
        rc = advance(s, w, w->t1, &t);
    if (CVodeGetNumSteps(s->cv->mem, &steps) == CV_SUCCESS &&
        CVodeGetNumRhsEvals(s->cv->mem, &nfe) == CV_SUCCESS)
        s->r->n_steps += steps, s->r->n_rhs += nfe;
    if (rc != 0)
        return rc;
    op = operate(s, s->y, w->hi_w); /* the lowest voltage of a window is at its peak */
    s->vmin = fmin(s->vmin, op.voltage_v);
    s->dmin = fmin(s->dmin, op.disc_v2);
    if (s->record && op.voltage_v < s->r->min_voltage_v)
        s->r->min_voltage_v = op.voltage_v;
    if (s->walk.constant)
        output(s, w->t1, w->hi_w);
    return 0;
}

/* Integrate from the cursor to t_end: 0 there, 1 at an event, -errno. */
static int run_span(pp_solver *s, double t_end, int single)
{
    while (!pp_walk_reached(&s->walk, t_end)) {
        pp_window w;
        double y0[PP_N_STATES], u = s->p->model == PP_BATTERY_RINT
                                     ? s->p->voltage_v
                                     : pp_battery_ocv_v(s->p, s->y[0]) - s->y[1];
        int rc;
        memcpy(y0, s->y, sizeof y0);
        pp_walk_window(&s->walk, u, t_end, single, &w);
        if (!memcmp(&w.start, &s->walk.cur, sizeof w.start)) { /* cannot happen; never hang */
            pp_log_error("battery: no progress at t = %.9g s", w.t0);
            return -EIO;
        }
        s->cv->w_y0 = y0;
        rc = run_window(s, &w);
        if (rc == 2) { /* again, piece by piece */
            s->walk.cur = w.start;
            memcpy(s->y, y0, sizeof y0);
            rc = run_span(s, w.t1, 1);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void log_cvode(int code, const char *module, const char *function, char *msg, void *data)
{
    (void)data; /* failures are reported where they return; the rest is detail */
    pp_log_debug("battery: %s %s (%d): %s", module, function, code, msg);
}

void pp_solver_free(pp_solver *s)
{
    struct pp_cvode *cv = s->cv;

    if (!cv)
        return;
    CVodeFree(&cv->mem);
    if (cv->nls && SUNNonlinSolFree(cv->nls) != SUN_NLS_SUCCESS)
        pp_log_debug("battery: SUNNonlinSolFree failed");
    if (cv->y)
        N_VDestroy(cv->y);
    if (cv->ctx && SUNContext_Free(&cv->ctx) != 0)
        pp_log_debug("battery: SUNContext_Free failed");
    free(cv);
    s->cv = NULL;
}

/* CVODE for the four states: Adams-Moulton with fixed-point iteration
 * (small, not stiff), roots only downwards. */
static int cvode_init(pp_solver *s, struct pp_cvode *cv, double rtol)
{
    int dir[N_ROOTS] = {-1, -1, -1}, flag;
    N_Vector atol = NULL;
    sunrealtype *a = NULL;

    if (SUNContext_Create(NULL, &cv->ctx) != 0 || !(cv->y = N_VNew_Serial(PP_N_STATES, cv->ctx)) ||
        !(s->y = N_VGetArrayPointer(cv->y)) || !(cv->mem = CVodeCreate(CV_ADAMS, cv->ctx)) ||
        !(cv->nls = SUNNonlinSol_FixedPoint(cv->y, 0, cv->ctx)) || !(atol = N_VClone(cv->y)) ||
        !(a = N_VGetArrayPointer(atol))) {
        pp_log_error("battery: out of memory setting up CVODE");
        if (atol)
            N_VDestroy(atol);
        return -ENOMEM;
    }
    s->y[0] = s->p->soc_start_frac;
    s->y[1] = s->y[2] = s->y[3] = 0.0;
    a[0] = 1e-2 * rtol;        /* state of charge, a fraction */
    a[1] = 1e2 * rtol;         /* RC voltage, V (10 nV at 1e-10) */
    a[2] = a[3] = 1e7 * rtol;  /* energies, J (1 mJ) */
    flag = CVodeInit(cv->mem, rhs, 0.0, cv->y);
    if (flag == CV_SUCCESS)
        flag = CVodeSVtolerances(cv->mem, rtol, atol); /* CVODE keeps a copy */
    N_VDestroy(atol);
    CHECK_CV(flag);
    CHECK_CV(CVodeSetErrHandlerFn(cv->mem, log_cvode, NULL));
    CHECK_CV(CVodeSetUserData(cv->mem, s));
    CHECK_CV(CVodeSetNonlinearSolver(cv->mem, cv->nls));
    CHECK_CV(CVodeSetMaxNumSteps(cv->mem, MAX_STEPS_A_WINDOW));
    CHECK_CV(CVodeRootInit(cv->mem, N_ROOTS, roots));
    CHECK_CV(CVodeSetRootDirection(cv->mem, dir));
    return 0;
}

int pp_solver_init(pp_solver *s, const pp_battery_params *p, const pp_battery_load *load,
                   const pp_battery_options *o, pp_battery_result *r)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->o = o;
    s->r = r;
    s->record = 1;
    s->vmin = s->dmin = INFINITY;
    pp_walk_init(&s->walk, p, load);
    if (!(s->cv = calloc(1, sizeof *s->cv))) {
        pp_log_error("battery: out of memory");
        return -ENOMEM;
    }
    s->cv->q_c = p->capacity_ah * 3600.0;
    s->cv->t_out = -INFINITY;
    return cvode_init(s, s->cv, o->rtol > 0 ? o->rtol : 1e-10);
}

int pp_solver_span(pp_solver *s, double t_end_s) { return run_span(s, t_end_s, 0); }

void pp_solver_output(pp_solver *s, double t_s, double traced_w) { output(s, t_s, traced_w); }
