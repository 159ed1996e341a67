/* Replay of a recorded trace CSV (src/traces/trace.h format), so that everything
 * downstream of the sampler can be run and tested without sensors. The first
 * reading is the trace's first sample; later readings hold the last sample
 * at or before the elapsed time (sample and hold). Past the last sample the
 * trace has ended: -ENODATA, logged. Rails keep the trace's names.
 */
#include "device.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct replay_priv {
    pp_trace trace;
    int started;
    int64_t t0_ns;
    size_t cursor;
} replay_priv;

static int replay_probe(const pp_device_options *opts, char *why, size_t cap)
{
    if (opts->replay_path && opts->replay_path[0] && access(opts->replay_path, R_OK) == 0)
        return 0;
    if (why)
        pp_text(why, cap, "needs a trace file (--replay FILE.csv)");
    return -ENODEV;
}

static void replay_close(pp_device *dev)
{
    replay_priv *p = dev->priv;

    if (!p)
        return;
    pp_trace_free(&p->trace);
    free(p);
    dev->priv = NULL;
}

static int replay_open(pp_device *dev)
{
    replay_priv *p;
    int rc;

    if (!dev->replay_path[0]) {
        pp_log_error("replay: no trace file given (--replay FILE.csv)");
        return -EINVAL;
    }
    p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    dev->priv = p;
    rc = pp_trace_read_csv(dev->replay_path, &p->trace);
    if (rc < 0)
        goto fail;
    for (size_t r = 0; r < p->trace.n_rails; r++) {
        rc = pp_device_add_rail(dev, p->trace.names[r], 0);
        if (rc < 0)
            goto fail;
    }
    pp_device_mark_board_input(dev);
    return 0;

fail:
    replay_close(dev);
    return rc;
}

static int replay_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    replay_priv *p = dev->priv;
    const pp_trace *t = &p->trace;
    double at_s;

    if (!p->started) {
        p->started = 1;
        p->t0_ns = t_ns;
    }
    at_s = t->t_s[0] + (double)(t_ns - p->t0_ns) * 1e-9;
    if (at_s > t->t_s[t->n_samples - 1] + 1e-9) {
        pp_log_error("replay: %s ended at %.3f s", dev->replay_path,
                     t->t_s[t->n_samples - 1] - t->t_s[0]);
        return -ENODATA;
    }
    while (p->cursor + 1 < t->n_samples && t->t_s[p->cursor + 1] <= at_s + 1e-9)
        p->cursor++;
    memcpy(power_w, t->power_w + p->cursor * t->n_rails, t->n_rails * sizeof *power_w);
    return 0;
}

const pp_device_ops pp_device_replay = {
    .name = "replay",
    .summary = "plays back a recorded trace CSV (--replay FILE)",
    .flags = 0,
    .probe = replay_probe,
    .open = replay_open,
    .read = replay_read,
    .close = replay_close,
};
