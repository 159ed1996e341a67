/* component.h - workloads behind one interface.
 *
 * A component type is a static const pp_component_ops table. The scheduler
 * (src/scheduler.h), not the component, paces the steps. A component reads
 * its settings from spec and this configuration's parameter values from
 * values (same order as spec->params). Functions return 0 or a negative
 * errno, with a one-line reason in c->reason.
 */
#ifndef PP_COMPONENT_H
#define PP_COMPONENT_H

#include "../src/profile.h"

#include <stdatomic.h>

typedef struct pp_component pp_component;

typedef struct pp_component_ops {
    const char *type;
    int (*setup)(pp_component *c);
    /* One unit of work (a multiplication, a frame, one run of a program).
     * deadline_ns (monotonic) is when the step must be given up (0: none);
     * a step past it returns -ETIMEDOUT. */
    int (*step)(pp_component *c, int64_t deadline_ns);
    void (*teardown)(pp_component *c);
} pp_component_ops;

struct pp_component {
    const pp_component_ops *ops;
    const pp_component_spec *spec;
    const double *values;
    const atomic_int *cancel; /* set when the sweep is interrupted */
    void *priv;
    char reason[512];
};

/* The ops of a type name, or NULL (unknown, or not built here: CUDA types
 * without nvcc). */
const pp_component_ops *pp_component_find(const char *type);

/* The value of parameter name for this configuration: 0, or -ENOENT. */
int pp_component_param(const pp_component *c, const char *name, double *out);

#endif
