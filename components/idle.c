/* idle: no work at all, to measure the base power. Its steps take no time;
 * the scheduler's pacing (duration_s, fps, sleep_s) is all there is. */
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
    return 0;
}

static void idle_teardown(pp_component *c) { (void)c; }

const pp_component_ops pp_component_idle = {
    .type = "idle",
    .summary = "no work: the base power, paced by duration_s, fps or sleep_s",
    .setup = idle_setup,
    .step = idle_step,
    .teardown = idle_teardown,
};
