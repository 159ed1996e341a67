/* A logged battery's samples as they come: the dropout rule and the bins
 * (ulog_samples.h). */
#include "ulog_samples.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAG_FRAC 0.02
#define SAG_WINDOW_S 60.0

/* The highest voltage of the last SAG_WINDOW_S: a monotone queue (voltages
 * decreasing) in a ring, so each sample enters and leaves it once; and the
 * open bin's sums. */
struct pp_ulog_stream {
    double *qt, *qv;
    size_t head, len, cap;
    double sum[3], mah, rem;
    size_t n_open;
};

static int grow(pp_ulog_battery *b)
{
    size_t cap = b->cap ? 2 * b->cap : 256;
    double *a = malloc(5 * cap * sizeof *a), **cols[5] = {&b->t_s, &b->voltage_v, &b->current_a,
                                                         &b->discharged_mah, &b->remaining};

    if (!a)
        return -ENOMEM;
    for (int k = 0; k < 5; k++)
        if (b->n)
            memcpy(a + (size_t)k * cap, *cols[k], b->n * sizeof *a);
    free(b->t_s);
    for (int k = 0; k < 5; k++)
        *cols[k] = a + (size_t)k * cap;
    b->cap = cap;
    return 0;
}

static int store(pp_ulog_battery *b, const double s[5])
{
    if (b->n == b->cap && grow(b) < 0)
        return -ENOMEM;
    b->t_s[b->n] = s[0];
    b->voltage_v[b->n] = s[1];
    b->current_a[b->n] = s[2];
    b->discharged_mah[b->n] = s[3];
    b->remaining[b->n++] = s[4];
    return 0;
}

/* The open bin's means stored; the bin emptied. */
static int store_open(pp_ulog_battery *b, struct pp_ulog_stream *w)
{
    double n = (double)w->n_open, mean[5] = {w->sum[0] / n, w->sum[1] / n, w->sum[2] / n, w->mah,
                                              w->rem};

    memset(w->sum, 0, sizeof w->sum);
    w->n_open = 0;
    return store(b, mean);
}

/* Pairs of stored values (each a bin of b->bin samples) into one: twice
 * the bin, half the values. */
static void halve(pp_ulog_battery *b)
{
    size_t j = 0;

    for (size_t k = 0; k + 1 < b->n; k += 2, j++) {
        b->t_s[j] = (b->t_s[k] + b->t_s[k + 1]) / 2;
        b->voltage_v[j] = (b->voltage_v[k] + b->voltage_v[k + 1]) / 2;
        b->current_a[j] = (b->current_a[k] + b->current_a[k + 1]) / 2;
        b->discharged_mah[j] = b->discharged_mah[k + 1];
        b->remaining[j] = b->remaining[k + 1];
    }
    b->n = j;
    b->bin *= 2;
}

/* The highest voltage of the window ending at sample (t, v), v entered. */
static int window_max(struct pp_ulog_stream *w, double t, double v, double *vmax)
{
    if (w->len == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        double *qt = malloc(cap * sizeof *qt), *qv = malloc(cap * sizeof *qv);
        if (!qt || !qv) {
            free(qt);
            free(qv);
            return -ENOMEM;
        }
        for (size_t k = 0; k < w->len; k++) {
            qt[k] = w->qt[(w->head + k) % w->cap];
            qv[k] = w->qv[(w->head + k) % w->cap];
        }
        free(w->qt);
        free(w->qv);
        w->qt = qt, w->qv = qv, w->cap = cap, w->head = 0;
    }
    while (w->len && w->qv[(w->head + w->len - 1) % w->cap] <= v)
        w->len--;
    w->qt[(w->head + w->len) % w->cap] = t;
    w->qv[(w->head + w->len++) % w->cap] = v;
    while (w->len && w->qt[w->head] < t - SAG_WINDOW_S)
        w->head = (w->head + 1) % w->cap, w->len--;
    *vmax = w->qv[w->head];
    return 0;
}

/* The sample into the open bin; the bin stored when full, and the stored
 * values halved when 2 x keep_max. */
static int into_bin(pp_ulog_battery *b, struct pp_ulog_stream *w, const double s[5])
{
    int rc;

    for (int k = 0; k < 3; k++)
        w->sum[k] += s[k];
    w->mah = s[3], w->rem = s[4];
    if (++w->n_open < b->bin)
        return 0;
    if ((rc = store_open(b, w)) < 0)
        return rc;
    if (b->n >= 2 * b->keep_max)
        halve(b);
    return 0;
}

int pp_ulog_samples_add(pp_ulog_battery *b, const double s[5])
{
    struct pp_ulog_stream *w = b->stream;
    double vmax;
    int rc;

    b->last_t_s = s[0];
    if (!b->clean && !b->keep_max) {
        b->n_logged++;
        return store(b, s);
    }
    if (!w && !(w = b->stream = calloc(1, sizeof *w)))
        return -ENOMEM;
    if (b->clean) {
        if ((rc = window_max(w, s[0], s[1], &vmax)) < 0)
            return rc;
        if (s[2] == 0 && s[1] < (1 - SAG_FRAC) * vmax)
            return 1;
    }
    b->n_logged++;
    if (!b->keep_max)
        return store(b, s);
    if (b->bin < 1)
        b->bin = 1;
    return into_bin(b, w, s);
}

static void stream_free(pp_ulog_battery *b)
{
    if (b->stream) {
        free(b->stream->qt);
        free(b->stream->qv);
        free(b->stream);
    }
    b->stream = NULL;
}

int pp_ulog_samples_end(pp_ulog_battery *b)
{
    struct pp_ulog_stream *w = b->stream;
    int rc = 0;

    if (w && w->n_open)
        rc = store_open(b, w);
    stream_free(b);
    return rc;
}

void pp_ulog_samples_free(pp_ulog_battery *b)
{
    stream_free(b);
    free(b->t_s);
    memset(b, 0, sizeof *b);
}
