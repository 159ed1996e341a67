/* trace_stream.h - a trace file written while it is sampled.
 *
 * The sampling thread hands each sample to a ring of fixed size (the sink's
 * push copies it: no lock, no allocation, no system call). A writer thread
 * of the stream's own wakes every PP_TRACE_STREAM_FLUSH_S, turns the samples
 * into rows and writes them (whole lines only; and at the end), and asks the
 * disk to keep them (fdatasync) every PP_TRACE_STREAM_SYNC_S, so that a kill -9
 * loses at most the last flush interval and a power loss the last sync
 * interval; a slow disk or a stalled reader of a FIFO delays only this
 * thread. When the disk is so slow that the ring fills, the samples that do
 * not fit are left out of the file (a sampler's running sums still count
 * them), counted in the stats, and marked by a gap row (trace.h).
 *
 * Memory: the ring holds about PP_TRACE_STREAM_RING_S seconds of samples at
 * the given rate (at most PP_TRACE_STREAM_RING_MAX bytes), allocated and
 * touched when the stream opens, so it does not grow with the run.
 */
#ifndef PP_TRACE_STREAM_H
#define PP_TRACE_STREAM_H

#include "sampler.h"
#include "src/traces/trace.h"

#include "devices/device.h"

#include <stddef.h>
#include <stdint.h>

#define PP_TRACE_STREAM_FLUSH_S 0.1
#define PP_TRACE_STREAM_SYNC_S 1.0
#define PP_TRACE_STREAM_RING_S 8.0
#define PP_TRACE_STREAM_RING_MAX (16u << 20)

typedef struct pp_trace_stream pp_trace_stream;

typedef struct pp_trace_stream_stats {
    uint64_t rows;          /* sample rows written */
    uint64_t gap_rows;      /* gap rows written */
    uint64_t dropped;       /* samples left out because the ring was full */
    size_t ring_samples;    /* the ring's capacity */
    double longest_write_s; /* longest write() or fdatasync() of the writer */
    int error;              /* the first write error (-errno), or 0 */
} pp_trace_stream_stats;

/* Create or truncate path (a FIFO is opened for writing, which waits for its
 * reader), write the header of these rails and start the writer thread.
 * rate_hz sizes the ring. Returns 0 or -errno (logged, naming the file). */
int pp_trace_stream_open(const char *path, size_t n_rails, const char *const *names,
                         double rate_hz, pp_trace_stream **out);

/* The sink to give a sampler (pp_sampler_set_sink). Its push never fails:
 * write errors are kept for pp_trace_stream_close. */
pp_trace_sink pp_trace_stream_sink(pp_trace_stream *w);

/* Open a stream of dev's rails to path, sized for rate_hz, and make it the
 * sink of s (before s starts). 0 or -errno (logged). */
int pp_trace_stream_attach(pp_sampler *s, const pp_device *dev, double rate_hz,
                           const char *path, pp_trace_stream **out);

/* After the last push: write what is left, sync, close the file and stop
 * the thread; the stats (may be NULL) say what was written. Returns 0, or
 * the first write error (logged when it happened, naming the file). */
int pp_trace_stream_close(pp_trace_stream *w, pp_trace_stream_stats *st);

#endif
