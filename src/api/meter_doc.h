/* meter_doc.h - the report of `powprof meter`: one document, the library's.
 *
 * What was asked (the command, the trace, --repeat) and the runs measured
 * (src/sweep/meter.h) make the report: as one JSON object (--json, and
 * Python's powprof.meter), or in words for a person (perf stat's layout),
 * and the exit status the command line gives.
 *
 * The document: command, device, estimated; one run's figures at the top
 * level (exit_status, duration_s, trace_span_s, samples, requested_hz,
 * achieved_hz, expected_samples, missed_deadlines, failed_readings,
 * retried_readings, gaps, longest_gap_s, jitter_p50_us, jitter_p99_us,
 * jitter_max_us, sampler_cpu_s, rails [{name, mean_w, energy_j, min_w,
 * max_w, estimated, board_input}], total_energy_j, total_mean_w,
 * total_min_w, total_max_w, trace, trace_rows, trace_dropped,
 * trace_longest_write_s, signal, error, saturated, short_run); with
 * --repeat: repeat, exit_status, runs [each run's figures] and statistics
 * {runs, duration_s, total_mean_w, total_energy_j, rails [{name, mean_w,
 * energy_j}]}, each a spread {mean, sd, min, max}. NaN is null.
 */
#ifndef PP_API_METER_DOC_H
#define PP_API_METER_DOC_H

#include "src/sweep/meter.h"

#include <jansson.h>
#include <stdio.h>

/* What was metered: the command (NULL-ended), the trace's path (NULL:
 * none), --repeat's count (0: not asked: one run, reported alone). */
typedef struct pp_meter_ask {
    char *const *cmd;
    const char *trace;
    int repeat;
} pp_meter_ask;

/* The document of runs[0 .. n) (n >= 1) of a on dev, rc the last run's
 * return (pp_meter_repeat's). A new reference, NULL without memory. */
json_t *pp_meter_doc(const pp_device *dev, const pp_meter_ask *a, const pp_meter_result *runs,
                     size_t n, int rc);

/* The same report in words on fp, as `powprof meter` prints it. */
void pp_meter_text(FILE *fp, const pp_device *dev, const pp_meter_ask *a,
                   const pp_meter_result *runs, size_t n, int rc);

/* The exit status of `powprof meter` after runs[0 .. n) (rc as above):
 * the last run's; 125 when powprof failed; and *report, whether there is
 * a report to give (0: the command never ran, its status says why). */
int pp_meter_exit_status(const pp_meter_result *runs, size_t n, int rc, int *report);

#endif
