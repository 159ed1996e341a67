#include "trace_stream.h"

#include "src/base/clock.h"
#include "src/base/log.h"
#include "sampler.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF_BYTES (64 * 1024)
#define POLL_NS ((int64_t)(PP_TRACE_STREAM_FLUSH_S * 1e9)) /* the writer's pace */
#define RING_MIN 256

struct pp_trace_stream {
    char path[PP_PATH_MAX];
    int fd;
    size_t n_rails;

    /* The ring: slot i holds t_s[i], and power_w[i * n_rails ...] or, when
     * is_gap[i], a gap row. head is written by the sampling thread only,
     * tail by the writer thread only. */
    size_t cap;             /* a power of two */
    double *t_s, *power_w;
    unsigned char *is_gap;
    _Atomic uint64_t head, tail;

    /* The sampling thread's own: a run of samples the full ring left out. */
    int dropping;
    double drop_from_s;
    _Atomic uint64_t dropped;

    /* The writer thread's own until it is joined. */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_int stop;
    char *buf;
    size_t len;
    uint64_t rows, gap_rows;
    double longest_write_s;
    int error;
};

static int64_t now_ns(void) { return pp_clock_now_ns(&pp_clock_monotonic); }

static size_t ring_capacity(double rate_hz, size_t n_rails)
{
    size_t slot = 2 * sizeof(double) + 1 + n_rails * sizeof(double), cap = RING_MIN;
    double want = rate_hz * PP_TRACE_STREAM_RING_S;

    while ((double)cap < want && 2 * cap * slot <= PP_TRACE_STREAM_RING_MAX)
        cap *= 2;
    return cap;
}

/* ---- The sampling thread's side ------------------------------------------ */

static size_t ring_free(pp_trace_stream *w)
{
    uint64_t h = atomic_load_explicit(&w->head, memory_order_relaxed);
    return w->cap - (size_t)(h - atomic_load_explicit(&w->tail, memory_order_acquire));
}

/* Put a sample (power_w NULL: a gap row) if there is room. 0 or -1. */
static int ring_put(pp_trace_stream *w, double t_s, const double *power_w)
{
    uint64_t h = atomic_load_explicit(&w->head, memory_order_relaxed);
    size_t i = (size_t)(h & (w->cap - 1));

    if (ring_free(w) == 0)
        return -1;
    w->t_s[i] = t_s;
    w->is_gap[i] = power_w == NULL;
    if (power_w)
        memcpy(w->power_w + i * w->n_rails, power_w, w->n_rails * sizeof *power_w);
    atomic_store_explicit(&w->head, h + 1, memory_order_release);
    return 0;
}

static int stream_push(void *ctx, double t_s, const double *power_w)
{
    pp_trace_stream *w = ctx;

    /* After a run of left-out samples: a gap row where it began, then this. */
    if (w->dropping && ring_free(w) >= 2) {
        ring_put(w, w->drop_from_s, NULL);
        w->dropping = 0;
    }
    if (w->dropping || ring_put(w, t_s, power_w) < 0) {
        if (!w->dropping) {
            w->dropping = 1;
            w->drop_from_s = t_s;
        }
        atomic_fetch_add(&w->dropped, 1);
    }
    return 0;
}

static void stream_gap(void *ctx, double t_s)
{
    pp_trace_stream *w = ctx;

    if (!w->dropping && ring_put(w, t_s, NULL) < 0) {
        w->dropping = 1; /* the gap row is written when there is room again */
        w->drop_from_s = t_s;
    }
}

pp_trace_sink pp_trace_stream_sink(pp_trace_stream *w)
{
    pp_trace_sink s = {stream_push, stream_gap, w};
    return s;
}

/* ---- The writer thread's side -------------------------------------------- */

static void note_error(pp_trace_stream *w, int err, const char *what)
{
    if (w->error == 0) {
        w->error = -err;
        pp_log_error("%s: cannot %s the trace: %s (sampling goes on; the rows from here on are "
                     "lost)", w->path, what, strerror(err));
    }
}

static void timed(pp_trace_stream *w, int64_t t0)
{
    double s = pp_ns_to_s(now_ns() - t0);
    if (s > w->longest_write_s)
        w->longest_write_s = s;
}

/* Write the buffer (whole lines only) to the file. */
static void flush_buf(pp_trace_stream *w)
{
    size_t done = 0;
    int64_t t0 = now_ns();

    while (w->error == 0 && done < w->len) {
        ssize_t n = write(w->fd, w->buf + done, w->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            note_error(w, n < 0 ? errno : ENOSPC, "write");
            break;
        }
        done += (size_t)n;
    }
    w->len = 0;
    timed(w, t0);
}

static void sync_file(pp_trace_stream *w)
{
    int64_t t0 = now_ns();

    /* Pipes and FIFOs cannot be synced (EINVAL): nothing to keep there. */
    if (w->error == 0 && fdatasync(w->fd) != 0 && errno != EINVAL && errno != EROFS &&
        errno != ENOTSUP)
        note_error(w, errno, "sync");
    timed(w, t0);
}

/* Format every sample the ring holds into the buffer. */
static void drain(pp_trace_stream *w)
{
    uint64_t t = atomic_load_explicit(&w->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&w->head, memory_order_acquire);

    for (; t < h; t++) {
        size_t i = (size_t)(t & (w->cap - 1));
        int n;
        if (BUF_BYTES - w->len < PP_TRACE_ROW_MAX)
            flush_buf(w);
        n = pp_trace_format_row(w->buf + w->len, BUF_BYTES - w->len, w->t_s[i],
                                w->is_gap[i] ? NULL : w->power_w + i * w->n_rails, w->n_rails);
        if (w->error == 0 && n > 0) /* after an error the rows are only consumed */
            w->len += (size_t)n;
        if (w->is_gap[i])
            w->gap_rows++;
        else
            w->rows++;
        atomic_store_explicit(&w->tail, t + 1, memory_order_release);
    }
}

static void *writer_main(void *arg)
{
    pp_trace_stream *w = arg;
    int64_t last_sync = now_ns();
    int stopping;

    do {
        int64_t now = now_ns();
        struct timespec until = {(time_t)((now + POLL_NS) / 1000000000),
                                 (long)((now + POLL_NS) % 1000000000)};
        pthread_mutex_lock(&w->lock);
        if (!atomic_load(&w->stop))
            pthread_cond_timedwait(&w->wake, &w->lock, &until);
        pthread_mutex_unlock(&w->lock);
        stopping = atomic_load(&w->stop); /* read before the last drain */
        drain(w);
        if (w->len)
            flush_buf(w);
        now = now_ns();
        if (stopping || pp_ns_to_s(now - last_sync) >= PP_TRACE_STREAM_SYNC_S) {
            sync_file(w);
            last_sync = now_ns();
        }
    } while (!stopping);
    return NULL;
}

/* ---- Open and close ---------------------------------------------------------- */

static void stream_free(pp_trace_stream *w)
{
    if (w->fd >= 0)
        close(w->fd);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w->t_s);
    free(w->power_w);
    free(w->is_gap);
    free(w->buf);
    free(w);
}

/* Write to every page now, so that the resident size is what it will be
 * (a memset of zeros may become a calloc, which leaves fresh pages alone). */
static void touch(void *p, size_t n)
{
    volatile char *c = p;

    for (size_t i = 0; i < n; i += 4096)
        c[i] = 0;
}

static int stream_alloc(pp_trace_stream *w, size_t n_rails, double rate_hz)
{
    w->n_rails = n_rails;
    w->cap = ring_capacity(rate_hz, n_rails);
    w->t_s = malloc(w->cap * sizeof *w->t_s);
    w->power_w = malloc(w->cap * n_rails * sizeof *w->power_w);
    w->is_gap = malloc(w->cap);
    w->buf = malloc(BUF_BYTES);
    if (!w->t_s || !w->power_w || !w->is_gap || !w->buf)
        return -ENOMEM;
    touch(w->t_s, w->cap * sizeof *w->t_s);
    touch(w->power_w, w->cap * n_rails * sizeof *w->power_w);
    touch(w->is_gap, w->cap);
    touch(w->buf, BUF_BYTES);
    return 0;
}

int pp_trace_stream_open(const char *path, size_t n_rails, const char *const *names,
                         double rate_hz, pp_trace_stream **out)
{
    pp_trace_stream *w = calloc(1, sizeof *w);
    int rc;

    *out = NULL;
    if (!w)
        return -ENOMEM;
    w->fd = -1;
    pthread_mutex_init(&w->lock, NULL);
    {
        pthread_condattr_t attr; /* timed waits on the monotonic clock */
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&w->wake, &attr);
        pthread_condattr_destroy(&attr);
    }
    if (pp_strlcpy(w->path, path, sizeof w->path) < 0) {
        pp_log_error("%s: the path is too long", path);
        rc = -ENAMETOOLONG;
        goto fail;
    }
    if ((rc = stream_alloc(w, n_rails, rate_hz)) < 0) {
        pp_log_error("%s: out of memory for the trace's ring", path);
        goto fail;
    }
    rc = pp_trace_format_header(w->buf, BUF_BYTES, n_rails, names);
    if (rc < 0) {
        pp_log_error("%s: the rail names do not fit a header", path);
        rc = -EINVAL;
        goto fail;
    }
    w->len = (size_t)rc;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        rc = -errno;
        pp_log_error("%s: cannot create the trace: %s", path, strerror(errno));
        goto fail;
    }
    flush_buf(w);
    if (w->error < 0) {
        rc = w->error;
        goto fail;
    }
    if ((rc = pp_thread_start_quiet(&w->thread, writer_main, w, "trace writer")) < 0)
        goto fail;
    *out = w;
    return 0;
fail:
    stream_free(w);
    return rc;
}

int pp_trace_stream_attach(pp_sampler *s, const pp_device *dev, double rate_hz,
                           const char *path, pp_trace_stream **out)
{
    const char *names[PP_DEVICE_MAX_RAILS];
    pp_trace_sink sink;
    int rc;

    for (size_t r = 0; r < dev->n_rails; r++)
        names[r] = dev->rails[r].name;
    rc = pp_trace_stream_open(path, dev->n_rails, names, rate_hz, out);
    if (rc < 0)
        return rc;
    sink = pp_trace_stream_sink(*out);
    pp_sampler_set_sink(s, &sink);
    return 0;
}

int pp_trace_stream_close(pp_trace_stream *w, pp_trace_stream_stats *st)
{
    int rc;

    if (!w)
        return 0;
    pthread_mutex_lock(&w->lock);
    atomic_store(&w->stop, 1);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    if (w->dropping) { /* left out up to the end: say so in the file */
        w->len = (size_t)pp_trace_format_row(w->buf, BUF_BYTES, w->drop_from_s, NULL, w->n_rails);
        w->gap_rows++;
        flush_buf(w);
    }
    if (close(w->fd) != 0)
        note_error(w, errno, "close");
    w->fd = -1;
    if (atomic_load(&w->dropped) > 0)
        pp_log_warn("%s: %llu samples left out of the file (the disk was too slow; marked by "
                    "gap rows)", w->path, (unsigned long long)atomic_load(&w->dropped));
    if (st) {
        st->rows = w->rows;
        st->gap_rows = w->gap_rows;
        st->dropped = atomic_load(&w->dropped);
        st->ring_samples = w->cap;
        st->longest_write_s = w->longest_write_s;
        st->error = w->error;
    }
    rc = w->error;
    stream_free(w);
    return rc;
}
