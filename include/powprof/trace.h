/* powprof/trace.h - a recorded power trace: what `powprof meter -o` and
 * `powprof profile` write. A CSV file with a header "t_s,<rail>_w,..." and
 * one row per sample: seconds since the start, then watts per rail.
 *
 * Threads (powprof.h): one call at a time on a pp_trace.
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

/* A trace in memory: n_samples times t_s (seconds, finite, not
 * decreasing) and power_w (n_samples x n_rails watts, row-major, finite,
 * >= 0) on rails names[0 .. n_rails - 1] (names as in a trace's header,
 * without "_w"; a rail ending in _IN is the board input, which contains
 * the others). The arrays are copied. 0 and *out (close it with
 * pp_trace_close), or -EINVAL (logged with the sample and the value) or
 * -ENOMEM. */
int pp_trace_new(size_t n_rails, const char *const *names, size_t n_samples, const double *t_s,
                 const double *power_w, pp_trace **out);

#ifdef __cplusplus
}
#endif

#endif
