#include "scheduler.h"

#include "src/base/util.h"

#include "components/registry.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DURATION_GRACE_NS 10000000000LL
#define CANCEL_SLICE_NS 100000000LL /* an interruption is seen within 0.1 s */

const char *pp_run_status_name(pp_run_status s)
{
    switch (s) {
    case PP_RUN_OK:
        return "ok";
    case PP_RUN_FAILED:
        return "failed";
    case PP_RUN_TIMEOUT:
        return "timeout";
    case PP_RUN_INTERRUPTED:
        return "interrupted";
    }
    return "?";
}

static double param_or(const pp_component_spec *spec, const double *values, const char *name,
                       double dflt)
{
    for (size_t i = 0; i < spec->n_params; i++)
        if (strcmp(spec->params[i].name, name) == 0)
            return values[i];
    return dflt;
}

int pp_scheduled_ops(const pp_component_spec *spec, const pp_component_ops **ops, char *why,
                     size_t cap)
{
    char reason[2048];
    int rc = 0;

    *ops = spec->ops;
    if (!*ops && (rc = pp_component_lookup(spec->type, ops, reason, sizeof reason)) < 0)
        pp_text(why, cap, "%s: %s", spec->name, reason);
    return rc;
}

/* The next combination of the categorical parameters (the others stay at
 * their first value); 0 after the last. */
static int next_category(const pp_component_spec *spec, double *values)
{
    for (size_t i = spec->n_params; i-- > 0;) {
        if (spec->params[i].kind != PP_RANGE_CATEGORICAL)
            continue;
        if (values[i] + 1 < (double)spec->params[i].n_values) {
            values[i] += 1;
            return 1;
        }
        values[i] = 0;
    }
    return 0;
}

/* " (with a.model = x, a.mode = y)" for the categorical values, or "". */
static void categories_text(const pp_component_spec *spec, const double *values, char *buf,
                            size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < spec->n_params && len < cap; i++)
        if (spec->params[i].kind == PP_RANGE_CATEGORICAL)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s.%s = %s", len ? ", " : " (with ",
                                    spec->name, spec->params[i].name,
                                    spec->params[i].labels[(size_t)values[i]]);
    if (len && len + 1 < cap)
        strcat(buf, ")");
}

int pp_scheduled_check(const pp_component_spec *spec, char *why, size_t cap)
{
    pp_component c;
    double values[PP_COMPONENT_MAX_PARAMS];
    char with[512];
    int rc;

    memset(&c, 0, sizeof c);
    if ((rc = pp_scheduled_ops(spec, &c.ops, why, cap)) < 0 || !c.ops->check)
        return rc;
    for (size_t i = 0; i < spec->n_params; i++)
        values[i] = spec->params[i].values[0];
    c.spec = spec;
    c.values = values;
    do {
        c.reason[0] = '\0';
        if ((rc = c.ops->check(&c)) < 0) {
            categories_text(spec, values, with, sizeof with);
            pp_text(why, cap, "%s (%s): %s%s", spec->name, spec->type,
                    c.reason[0] ? c.reason : strerror(-rc), with);
            return rc;
        }
    } while (next_category(spec, values));
    return 0;
}

int pp_scheduled_setup(pp_scheduled *s, const pp_component_spec *spec, const double *values,
                       const pp_component_ops *ops, const pp_clock *clock,
                       const atomic_int *cancel, pp_run_result *res)
{
    static const atomic_int never = 0;
    int rc;

    memset(s, 0, sizeof *s);
    memset(res, 0, sizeof *res);
    s->clock = clock ? clock : &pp_clock_monotonic;
    s->cancel = cancel ? cancel : &never;
    if (!ops && (rc = pp_scheduled_ops(spec, &ops, res->reason, sizeof res->reason)) < 0) {
        res->status = PP_RUN_FAILED;
        return rc;
    }
    s->comp.ops = ops;
    s->comp.spec = spec;
    s->comp.values = values;
    s->comp.cancel = s->cancel;
    rc = ops->setup(&s->comp);
    if (rc < 0) {
        res->status = PP_RUN_FAILED;
        pp_text(res->reason, sizeof res->reason, "%s: setup: %s", spec->name,
                s->comp.reason[0] ? s->comp.reason : strerror(-rc));
        ops->teardown(&s->comp);
        return rc;
    }
    s->ready = 1;
    return 0;
}

void pp_scheduled_teardown(pp_scheduled *s)
{
    if (s->ready)
        s->comp.ops->teardown(&s->comp);
    s->ready = 0;
}

/* How the steps of one run are paced, in ns on the scheduler's clock. */
typedef struct pacing {
    int64_t t0, end_ns;   /* the start; the end of the duration (0: none) */
    int64_t period_ns;    /* fps: a step every period_ns (0: unpaced) */
    int64_t sleep_ns;     /* sleep_s: a pause after each step */
} pacing;

/* Sleep until until_ns in slices of at most CANCEL_SLICE_NS, so that an
 * interruption is seen within one. 1 when interrupted, else 0. */
static int pace_sleep(const pp_scheduled *s, int64_t until_ns)
{
    for (;;) {
        int64_t now = pp_clock_now_ns(s->clock);
        if (atomic_load(s->cancel))
            return 1;
        if (now >= until_ns)
            return 0;
        s->clock->sleep_until_ns(s->clock->ctx, until_ns - now > CANCEL_SLICE_NS
                                                    ? now + CANCEL_SLICE_NS
                                                    : until_ns);
    }
}

/* Step k: wait for its start (fps), run it, pause after it (sleep_s).
 * 0 to go on, 1 when the run is over, or -errno (-ECANCELED when
 * interrupted while waiting). *now is kept up to date. */
static int one_step(pp_scheduled *s, const pacing *pc, long k, int64_t *now, pp_run_result *res)
{
    double timeout_s = s->comp.spec->timeout_s;
    int64_t deadline = 0;
    int rc;

    if (pc->period_ns > 0) { /* frame k starts at its deadline, or at once when late */
        int64_t start = pc->t0 + k * pc->period_ns;
        if (pc->end_ns && start >= pc->end_ns)
            return 1;
        if (start > *now && pace_sleep(s, start))
            return -ECANCELED;
    }
    *now = pp_clock_now_ns(s->clock);
    if (pc->end_ns && *now >= pc->end_ns)
        return 1;
    if (timeout_s > 0)
        deadline = *now + (int64_t)llround(timeout_s * 1e9);
    else if (pc->end_ns)
        deadline = pc->end_ns + DURATION_GRACE_NS;
    rc = s->comp.ops->step(&s->comp, deadline);
    *now = pp_clock_now_ns(s->clock);
    if (rc < 0)
        return rc;
    res->iterations++;
    if (pc->period_ns > 0 && *now > pc->t0 + (k + 1) * pc->period_ns)
        res->late_frames++;
    if (rc == PP_STEP_IDLE && !pc->period_ns && !pc->sleep_ns)
        return pc->end_ns ? 1 : 0; /* nothing to do: the rest of the duration is slept */
    if (pc->sleep_ns > 0) {
        int64_t wake = *now + pc->sleep_ns;
        if (pace_sleep(s, pc->end_ns && wake > pc->end_ns ? pc->end_ns : wake))
            return -ECANCELED;
        *now = pp_clock_now_ns(s->clock);
    }
    return 0;
}

int pp_scheduled_run(pp_scheduled *s, pp_run_result *res)
{
    const pp_component_spec *spec = s->comp.spec;
    double fps = param_or(spec, s->comp.values, "fps", spec->fps);
    double sleep_s = param_or(spec, s->comp.values, "sleep_s", spec->sleep_s);
    pacing pc = {0};
    int64_t now;
    int rc = 0;

    memset(res, 0, sizeof *res);
    pc.period_ns = fps > 0 ? (int64_t)llround(1e9 / fps) : 0;
    pc.sleep_ns = sleep_s > 0 ? (int64_t)llround(sleep_s * 1e9) : 0;
    pc.t0 = now = pp_clock_now_ns(s->clock);
    if (spec->until == PP_UNTIL_DURATION)
        pc.end_ns = pc.t0 + (int64_t)llround(spec->duration_s * 1e9);
    for (long k = 0; rc == 0; k++) {
        if (spec->until == PP_UNTIL_COMPLETION && k == 1)
            break;
        if (spec->until == PP_UNTIL_ITERATIONS && k == spec->iterations)
            break;
        rc = atomic_load(s->cancel) ? -ECANCELED : one_step(s, &pc, k, &now, res);
    }
    if (rc == 1)
        rc = 0;
    /* a duration is a duration: the rest of it idle, when the last frame is done */
    if (rc == 0 && pc.end_ns && now < pc.end_ns) {
        rc = pace_sleep(s, pc.end_ns) ? -ECANCELED : 0;
        now = pp_clock_now_ns(s->clock);
    }
    res->duration_s = pp_ns_to_s(now - pc.t0);
    if (rc == 0) {
        res->status = PP_RUN_OK;
        return 0;
    }
    res->status = rc == -ETIMEDOUT ? PP_RUN_TIMEOUT
                  : rc == -ECANCELED ? PP_RUN_INTERRUPTED
                                     : PP_RUN_FAILED;
    pp_text(res->reason, sizeof res->reason, "%s: %s", spec->name,
            s->comp.reason[0] ? s->comp.reason : strerror(-rc));
    return rc;
}

int pp_schedule_component(const pp_component_spec *spec, const double *values,
                          const pp_component_ops *ops, const pp_clock *clock,
                          const atomic_int *cancel, pp_run_result *res)
{
    pp_scheduled s;
    int rc = pp_scheduled_setup(&s, spec, values, ops, clock, cancel, res);

    if (rc < 0)
        return rc;
    rc = pp_scheduled_run(&s, res);
    pp_scheduled_teardown(&s);
    return rc;
}
