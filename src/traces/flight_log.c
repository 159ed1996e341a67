/* A recorded flight's battery from a ULog or a ulog2csv CSV (flight_log.h). */
#include "flight_log.h"
#include "trace.h"

#include "src/base/util.h"

#include <errno.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAG_FRAC 0.02
#define SAG_WINDOW_S 60.0

int pp_flight_log_is(const char *path) { return pp_ulog_is_ulog(path) || pp_ulog_csv_is(path); }

/* Keep sample k of b at position j. */
static void move(pp_ulog_battery *b, size_t j, size_t k)
{
    b->t_s[j] = b->t_s[k];
    b->voltage_v[j] = b->voltage_v[k];
    b->current_a[j] = b->current_a[k];
    b->discharged_mah[j] = b->discharged_mah[k];
    b->remaining[j] = b->remaining[k];
}

/* A current of -1 (not measured), a voltage of 0 or less (no pack seen:
 * a ULog keeps no 'connected' here), or a current of 0 while the voltage
 * sags below the highest voltage of the SAG_WINDOW_S before: that maximum
 * kept by a monotone queue of sample indices (voltages decreasing), so
 * each sample enters and leaves it once: linear in the samples. */
static int clean(pp_ulog_flight *f, pp_ulog_battery *b)
{
    size_t j = 0, head = 0, tail = 0, *q = malloc((b->n ? b->n : 1) * sizeof *q);

    if (!q)
        return -ENOMEM;
    for (size_t k = 0; k < b->n; k++) {
        while (b->voltage_v[k] > 0 && tail > head && b->voltage_v[q[tail - 1]] <= b->voltage_v[k])
            tail--;
        if (b->voltage_v[k] > 0) /* no voltage (NaN, 0 or less) raises no maximum */
            q[tail++] = k;
        while (tail > head && b->t_s[q[head]] < b->t_s[k] - SAG_WINDOW_S)
            head++;
        double vmax = tail > head ? b->voltage_v[q[head]] : 0;
        if (b->current_a[k] == -1 || !(b->voltage_v[k] > 0)) { /* not measured (nor connected) */
            f->n_unmeasured++;
            continue;
        }
        if (b->current_a[k] == 0 && b->voltage_v[k] < (1 - SAG_FRAC) * vmax) {
            f->n_zero_sag++;
            continue;
        }
        move(b, j++, k);
    }
    free(q);
    b->n = j;
    return 0;
}

int pp_flight_log_read(const char *path, pp_ulog_flight *f)
{
    int rc = pp_ulog_is_ulog(path) ? pp_ulog_read_battery(path, f) : pp_ulog_csv_read(path, f);
    size_t k = 0;

    if (rc < 0)
        return rc;
    for (size_t b = 0; b < f->n_batteries; b++)
        if ((rc = clean(f, &f->bat[b])) < 0)
            return rc;
    for (size_t b = 0; b < f->n_batteries; b++) { /* instances left with no sample */
        pp_ulog_battery keep = f->bat[b];
        f->bat[b] = (pp_ulog_battery){0};
        if (keep.n)
            f->bat[k++] = keep;
        else
            free(keep.t_s);
    }
    f->n_batteries = k;
    return 0;
}

size_t pp_flight_log_decimate(pp_ulog_battery *b, size_t max_n)
{
    size_t bin = max_n ? (b->n + max_n - 1) / max_n : 1, j = 0;

    if (bin <= 1)
        return 1;
    for (size_t k = 0; k < b->n; k += bin, j++) {
        size_t e = k + bin < b->n ? k + bin : b->n;
        double t = 0, v = 0, i = 0;
        for (size_t m = k; m < e; m++)
            t += b->t_s[m], v += b->voltage_v[m], i += b->current_a[m];
        b->t_s[j] = t / (double)(e - k);
        b->voltage_v[j] = v / (double)(e - k);
        b->current_a[j] = i / (double)(e - k);
        b->discharged_mah[j] = b->discharged_mah[e - 1];
        b->remaining[j] = b->remaining[e - 1];
    }
    b->n = j;
    return bin;
}

void pp_flight_log_left_out(const pp_ulog_flight *f, char *buf, size_t cap)
{
    size_t n = f->n_disconnected + f->n_unmeasured + f->n_zero_sag + f->n_duplicate + f->n_skipped;

    if (n == 0) {
        pp_fmt(buf, cap, "%s", "");
        return;
    }
    pp_fmt(buf, cap, "%zu samples left out (not fitted or drawn): %zu disconnected (connected = "
           "0), %zu without a measured voltage or current (NaN, empty, or current -1), %zu with "
           "a current of 0 while the voltage sagged, %zu repeating the time before%s", n,
           f->n_disconnected, f->n_unmeasured + f->n_skipped, f->n_zero_sag, f->n_duplicate,
           f->n_skipped ? " or with values no battery has or out of order" : "");
}

int pp_flight_log_load(const char *path, pp_trace_load *out)
{
    pp_ulog_flight f;
    pp_trace t;
    int rc;

    memset(out, 0, sizeof *out);
    rc = pp_flight_log_read(path, &f);
    if (rc == 0)
        rc = pp_ulog_battery_trace(&f, path, &t);
    pp_ulog_flight_free(&f);
    if (rc < 0)
        return rc;
    out->t_s = malloc((t.n_samples ? t.n_samples : 1) * sizeof *out->t_s);
    out->p_w = malloc((t.n_samples ? t.n_samples : 1) * sizeof *out->p_w);
    if (!out->t_s || !out->p_w) {
        pp_trace_load_free(out);
        pp_trace_free(&t);
        return -ENOMEM;
    }
    out->n = t.n_samples;
    memcpy(out->t_s, t.t_s, t.n_samples * sizeof *out->t_s);
    pp_trace_total_series(&t, out->p_w);
    pp_trace_free(&t);
    return 0;
}
