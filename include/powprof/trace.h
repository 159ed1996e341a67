/* powprof/trace.h - a recorded power trace: what `powprof meter -o` and
 * `powprof profile` write. A CSV file with a header "t_s,<rail>_w,..." and
 * one row per sample: seconds since the start, then watts per rail.
 */
#ifndef POWPROF_TRACE_H
#define POWPROF_TRACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_trace pp_trace;

/* Read the trace at path. 0 and *out (close it with pp_trace_close), or a
 * negative errno; every error names the file and the line. */
int pp_trace_open(const char *path, pp_trace **out);
void pp_trace_close(pp_trace *t);

size_t pp_trace_sample_count(const pp_trace *t);
size_t pp_trace_rail_count(const pp_trace *t);
const char *pp_trace_rail_name(const pp_trace *t, size_t rail); /* without "_w" */
double pp_trace_time_s(const pp_trace *t, size_t sample);
double pp_trace_power_w(const pp_trace *t, size_t sample, size_t rail);

/* Time span in seconds, and a rail's energy (J) and mean power (W) over it. */
double pp_trace_duration_s(const pp_trace *t);
double pp_trace_energy_j(const pp_trace *t, size_t rail);
double pp_trace_mean_w(const pp_trace *t, size_t rail);

#ifdef __cplusplus
}
#endif

#endif
