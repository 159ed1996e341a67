#include "meter.h"

#include "log.h"
#include "proc.h"

#include <errno.h>
#include <string.h>

int pp_meter_run(pp_device *dev, double rate_hz, char *const argv[], pp_meter_result *res)
{
    pp_sampler *s;
    pid_t pid;
    int64_t t_start, t_end;
    int rc, src;

    memset(res, 0, sizeof *res);
    rc = pp_sampler_create(dev, NULL, rate_hz, 0, &s);
    if (rc < 0)
        return rc;
    rc = pp_sampler_start(s);
    if (rc < 0)
        goto out;
    t_start = pp_clock_now_ns(&pp_clock_monotonic);
    rc = pp_proc_spawn(argv, 0, &pid);
    if (rc < 0) {
        res->exit_status = pp_proc_spawn_status(rc);
        pp_sampler_stop(s);
        goto out;
    }
    rc = pp_proc_wait(pid, &res->exit_status);
    t_end = pp_clock_now_ns(&pp_clock_monotonic);
    res->duration_s = pp_ns_to_s(t_end - t_start);
    src = pp_sampler_stop(s);
    if (rc == 0)
        rc = src;
    pp_sampler_get_stats(s, &res->stats);
    {
        int trc = pp_sampler_trace(s, &res->trace);
        if (rc == 0)
            rc = trc;
    }
out:
    pp_sampler_destroy(s);
    return rc;
}

void pp_meter_result_free(pp_meter_result *res) { pp_trace_free(&res->trace); }
