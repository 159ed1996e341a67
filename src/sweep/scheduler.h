/* scheduler.h - paces the steps of one component in one configuration:
 * a target rate (fps, deadline based, late frames counted), a sleep after
 * each step (sleep_s), and an end: one step (completion), a number of
 * iterations, or a duration. fps and sleep_s may be parameters.
 *
 * Step deadlines: timeout_s after a step's start when given; otherwise,
 * for a duration, 10 s past the end of the duration; none for completion
 * and iterations.
 */
#ifndef PP_SCHEDULER_H
#define PP_SCHEDULER_H

#include "src/base/clock.h"

#include "components/component.h"

#include <stdatomic.h>
#include <stddef.h>

typedef enum pp_run_status {
    PP_RUN_OK = 0,
    PP_RUN_FAILED,
    PP_RUN_TIMEOUT,
    PP_RUN_INTERRUPTED,
} pp_run_status;

const char *pp_run_status_name(pp_run_status s);

typedef struct pp_run_result {
    pp_run_status status;
    long iterations;      /* steps completed */
    long late_frames;     /* steps that ended after the next frame's deadline (fps) */
    double duration_s;    /* from setup done to the last step's end */
    char reason[512];     /* why, when not ok */
} pp_run_result;

/* The three phases, so that setup (loading a network, allocating matrices)
 * happens before sampling starts and teardown after it ends. */
typedef struct pp_scheduled {
    pp_component comp;
    const pp_clock *clock;
    const atomic_int *cancel;
    int ready;
} pp_scheduled;

/* The type of spec: spec->ops, or looked up by spec->type (loading its
 * module). 0, or -errno with why "<name>: <reason>". */
int pp_scheduled_ops(const pp_component_spec *spec, const pp_component_ops **ops, char *why,
                     size_t cap);

/* The type's preflight check (pp_component_ops.check) for every combination
 * of spec's categorical parameters, the numbers at their first value: 0, or
 * the first failure's -errno with why "<name> (<type>): <reason> (with
 * <name>.<param> = <label>)". */
int pp_scheduled_check(const pp_component_spec *spec, char *why, size_t cap);

/* Setup: 0, or -errno with res filled (status failed). */
int pp_scheduled_setup(pp_scheduled *s, const pp_component_spec *spec, const double *values,
                       const pp_component_ops *ops, const pp_clock *clock,
                       const atomic_int *cancel, pp_run_result *res);
/* The paced steps. Returns 0 when res->status is PP_RUN_OK. */
int pp_scheduled_run(pp_scheduled *s, pp_run_result *res);
void pp_scheduled_teardown(pp_scheduled *s);

/* All three: run spec with this configuration's values (in spec->params order). ops
 * NULL: the type's own. clock NULL: the monotonic clock. cancel (may be
 * NULL) interrupts between steps and inside long ones. Always fills res;
 * returns 0 when res->status is PP_RUN_OK. */
int pp_schedule_component(const pp_component_spec *spec, const double *values,
                          const pp_component_ops *ops, const pp_clock *clock,
                          const atomic_int *cancel, pp_run_result *res);

#endif
