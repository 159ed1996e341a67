/* trace.h - a layer-1 power trace in memory and as CSV.
 *
 * File format (DESIGN.md): a header "t_s,<rail>_w,..." then one row per
 * sample: seconds since the start of the run, then watts per rail.
 */
#ifndef PP_TRACE_H
#define PP_TRACE_H

#include <stddef.h>

#define PP_TRACE_NAME_MAX 48
#define PP_TRACE_MAX_RAILS 64

typedef struct pp_trace {
    size_t n_rails;
    char names[PP_TRACE_MAX_RAILS][PP_TRACE_NAME_MAX]; /* rail names, no "_w" */
    size_t n_samples;
    size_t cap;
    double *t_s;     /* n_samples times, non-decreasing */
    double *power_w; /* n_samples x n_rails, row-major */
    /* 1 when each sample is the mean power over the interval since the
     * previous sample (energy counters, utilization), 0 for instantaneous
     * readings. Decides how energy is integrated; not stored in the file. */
    int interval_average;
} pp_trace;

/* An empty trace with these rails. Returns 0, -EINVAL (no rails, too many,
 * empty or over-long name) or -ENOMEM. */
int pp_trace_init(pp_trace *t, size_t n_rails, const char *const *names);
void pp_trace_free(pp_trace *t);

/* Append one sample (power_w has n_rails values). 0 or -ENOMEM. */
int pp_trace_append(pp_trace *t, double t_s, const double *power_w);

static inline double pp_trace_at(const pp_trace *t, size_t sample, size_t rail)
{
    return t->power_w[sample * t->n_rails + rail];
}

/* Energy of a rail in joules: the trapezoidal rule over instantaneous
 * samples, or sum of P_i (t_i - t_{i-1}) (t_{-1} = 0) for interval averages.
 * 0 for a trace of fewer than two instantaneous samples. */
double pp_trace_energy_j(const pp_trace *t, size_t rail);

/* Time span in seconds covered: last t_s for interval averages (they start
 * at 0), last minus first otherwise. */
double pp_trace_duration_s(const pp_trace *t);

/* Mean power of a rail over the span: energy / duration (the single sample
 * itself when the span is zero; 0 for an empty trace). */
double pp_trace_mean_w(const pp_trace *t, size_t rail);

/* Whether rail r is contained in another rail of the trace, by the naming
 * rules of the back-ends: a board input (name ending in "_IN") contains
 * every other rail; a rail named "<name>-<part>" is inside rail "<name>"
 * (RAPL core/uncore in their package); "psys" contains every other rail. */
int pp_trace_rail_is_inside(const pp_trace *t, size_t r);

/* Total power of every sample into out[n_samples]: the sum of the rails no
 * other rail contains. */
void pp_trace_total_series(const pp_trace *t, double *out);

/* Write atomically (temporary file + rename). 0 or -errno (logged). */
int pp_trace_write_csv(const pp_trace *t, const char *path);

/* Read a trace file. Every error (missing file, bad header, ragged row,
 * non-number, NaN, time going backwards, no samples) is logged with the file
 * and line and returns a negative errno; *t is then empty. */
int pp_trace_read_csv(const char *path, pp_trace *t);

#endif
