/* idle: no work at all, to measure the base power. Its step does nothing
 * and says so (PP_STEP_IDLE): the scheduler then sleeps through the
 * duration (the sampler still samples), so that the CPU stays idle. With
 * fps or sleep_s the steps are paced as for any component, sleeping
 * between them. */
#include "component.h"

static int idle_setup(pp_component *c)
{
    (void)c;
    return 0;
}

static int idle_step(pp_component *c, int64_t deadline_ns)
{
    (void)c;
    (void)deadline_ns;
    return PP_STEP_IDLE;
}

static void idle_teardown(pp_component *c) { (void)c; }

const pp_component_ops pp_component_idle = {
    .type = "idle",
    .summary = "no work: the base power; sleeps through duration_s (or paced by fps or sleep_s)",
    .setup = idle_setup,
    .step = idle_step,
    .teardown = idle_teardown,
};
