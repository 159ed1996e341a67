/* trace.h - a layer-1 power trace: in memory, as CSV, and as running sums.
 *
 * File format (DESIGN.md): a header "t_s,<rail>_w,..." then one row per
 * sample: seconds since the start of the run, then watts per rail.
 *
 * Gaps. When readings are missing (a sensor read failed, or a stream's
 * writer fell behind), the file has one gap row at the time of the first
 * missing reading: the time, then every rail field empty ("3.201000,,").
 * CSV tools read it as missing values (NaN in pandas, a break in gnuplot);
 * pp_trace_read_csv skips it with a warning naming the line and counts it in
 * n_gaps. Integration joins the samples on either side of a gap (trapezoid
 * for instantaneous readings; an interval reading already covers the time
 * since the previous reading), so the count and the span of the gaps are
 * reported wherever an energy is.
 *
 * A file cut short (kill -9, power loss) is valid up to its last complete
 * line: a last line without its newline, or with NUL bytes, is read with a
 * warning naming it when it is a whole row, and left out with a warning
 * when it is not.
 */
#ifndef PP_TRACE_H
#define PP_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PP_TRACE_NAME_MAX 48
#define PP_TRACE_MAX_RAILS 64
/* Longest row pp_trace_format_row writes, newline and NUL included. */
#define PP_TRACE_ROW_MAX (32 * (PP_TRACE_MAX_RAILS + 1))
/* The longest line a trace reader accepts (a row of 65 fields of 1 KiB). */
#define PP_TRACE_LINE_MAX (1024 * (PP_TRACE_MAX_RAILS + 1))

/* True for labels that name a board's input rail: "VDD_IN", "POM_5V_IN",
 * any label ending in "_IN" (Jetson TX2, Nano, Xavier NX, Orin). Traces
 * read from files and devices alike take it as the parent of the others. */
int pp_rail_is_board_input(const char *label);

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
    size_t n_gaps;   /* gap rows met (file) or marked (sink): see above */
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
 * and line and returns a negative errno; *t is then empty. Gap rows and a
 * last line cut short are warnings (see above). */
int pp_trace_read_csv(const char *path, pp_trace *t);

/* ---- Pieces shared by the writers and readers of trace files ---------- */

/* The header line "t_s,<a>_w,...\n" into buf. Returns its length, or -1
 * when it does not fit. */
int pp_trace_format_header(char *buf, size_t cap, size_t n_rails, const char *const *names);

/* One row "t,p0,p1,...\n" (%.6f) into buf, or a gap row "t,,...\n" when
 * power_w is NULL. Returns its length, or -1 when it does not fit
 * (PP_TRACE_ROW_MAX always does). */
int pp_trace_format_row(char *buf, size_t cap, double t_s, const double *power_w,
                        size_t n_rails);

/* For a CSV reader that reads lines with getline(): line (len bytes as
 * getline returned them, newline included) is line line_no of path and has
 * no newline or holds a NUL byte, so a crash cut the file there. Returns 1,
 * after logging a warning naming the line, when it is not a whole row of
 * n_fields numbers (the caller stops reading: the file ends there); 0 when
 * the line is complete or a whole row (the caller reads it). */
int pp_trace_csv_line_cut(const char *path, long line_no, const char *line, ssize_t len,
                          size_t n_fields);

/* 1 when every field of a split row but time_col is empty: a gap row. */
int pp_trace_csv_row_is_gap(char *const *fields, size_t n, size_t time_col);

/* ---- Where a sampler puts its samples ---------------------------------- */

/* Called on the sampling thread, so neither may block for long. push gets
 * one sample (n_rails values), gap says readings are missing from t_s on,
 * until the next push. Each returns 0 or -errno (the sampler then stops). */
typedef struct pp_trace_sink {
    int (*push)(void *ctx, double t_s, const double *power_w);
    void (*gap)(void *ctx, double t_s);
    void *ctx;
} pp_trace_sink;

/* A sink that appends to t (pp_trace_init'ed) and counts its gaps. */
pp_trace_sink pp_trace_memory_sink(pp_trace *t);

/* ---- Running sums: a report in O(rails) memory ------------------------ */

typedef struct pp_trace_sums {
    size_t n_rails;             /* index n_rails of the arrays is the total */
    int interval_average;       /* as in pp_trace */
    unsigned char in_total[PP_TRACE_MAX_RAILS];
    uint64_t n_samples;
    uint64_t n_gaps;            /* gaps the integration joined over */
    double gap_s, longest_gap_s;/* span joined over: previous sample to next */
    double t_first_s, t_last_s;
    double energy_j[PP_TRACE_MAX_RAILS + 1];
    double min_w[PP_TRACE_MAX_RAILS + 1], max_w[PP_TRACE_MAX_RAILS + 1];
    double sum_w[PP_TRACE_MAX_RAILS + 1];  /* plain sum of the samples */
    double last_w[PP_TRACE_MAX_RAILS + 1];
    int in_gap;
} pp_trace_sums;

/* Empty sums for n_rails rails; in_total[r] != 0 for the rails that add to
 * the total (NULL: every rail). */
void pp_trace_sums_init(pp_trace_sums *s, size_t n_rails, const int *in_total,
                        int interval_average);
/* Add one sample (times non-decreasing). */
void pp_trace_sums_add(pp_trace_sums *s, double t_s, const double *power_w);
/* Readings are missing from here to the next sample. */
void pp_trace_sums_gap(pp_trace_sums *s);
/* Span, mean (energy / span; the plain mean when the span is 0) and energy
 * of rail r, r == n_rails for the total, with pp_trace's rules. */
double pp_trace_sums_duration_s(const pp_trace_sums *s);
double pp_trace_sums_mean_w(const pp_trace_sums *s, size_t r);

/* ---- The load of a trace in 16 bytes a sample -------------------------- */

#define PP_TRACE_LOAD_BYTES_PER_SAMPLE (2 * sizeof(double))

typedef struct pp_trace_load {
    double *t_s, *p_w; /* n samples; free with pp_trace_load_free */
    size_t n;
    size_t n_gaps;
} pp_trace_load;

/* Read only the time and the total power of a trace file (rail NULL: the
 * rails no other contains, as pp_trace_total_series), or one rail's power:
 * 16 bytes a sample. The rows are counted first; when they need more than
 * max_bytes (0: MemAvailable of /proc/meminfo) the error names the file,
 * its sample count and the memory needed and available, and returns
 * -ENOMEM before anything is allocated. Other errors as pp_trace_read_csv;
 * an unknown rail is -ENOENT (logged, naming it). */
int pp_trace_read_load(const char *path, const char *rail, uint64_t max_bytes,
                       pp_trace_load *out);
void pp_trace_load_free(pp_trace_load *l);

#endif
