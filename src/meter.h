/* meter.h - run one command while sampling a device (`powprof meter`). */
#ifndef PP_METER_H
#define PP_METER_H

#include "sampler.h"
#include "trace.h"

#include "../devices/device.h"

typedef struct pp_meter_result {
    int exit_status;      /* the command's: exit code or 128 + signal */
    double duration_s;    /* from the start of the command to its end */
    pp_trace trace;       /* the samples; free with pp_meter_result_free */
    pp_sampler_stats stats;
} pp_meter_result;

/* Sample dev at rate_hz (on the real clock) while argv runs (no shell).
 * Returns 0 when the command ran and was sampled throughout; the sampler's
 * error when a reading failed part-way (res holds the samples taken before
 * it and the command is still waited for); or the spawn error, when the
 * command could not start (res->exit_status then says 126 or 127). */
int pp_meter_run(pp_device *dev, double rate_hz, char *const argv[], pp_meter_result *res);
void pp_meter_result_free(pp_meter_result *res);

#endif
