/* A recorded flight's battery from a ULog or a ulog2csv CSV (flight_log.h). */
#include "flight_log.h"
#include "src/traces/trace.h"

#include "src/base/util.h"

#include <errno.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pp_flight_log_is(const char *path) { return pp_ulog_is_ulog(path) || pp_ulog_csv_is(path); }

int pp_flight_log_read(const char *path, pp_ulog_flight *f)
{
    return pp_flight_log_read_max(path, f, 0);
}

/* The dropout rule applied as the samples come (ulog_samples.c): a ULog's
 * instances left with no sample are dropped by its reader. */
int pp_flight_log_read_max(const char *path, pp_ulog_flight *f, size_t keep_max)
{
    return pp_ulog_is_ulog(path) ? pp_ulog_read_battery_opt(path, f, 1, keep_max)
                                 : pp_ulog_csv_read_opt(path, f, 1, keep_max);
}

void pp_flight_log_left_out(const pp_ulog_flight *f, char *buf, size_t cap)
{
    size_t n = f->n_disconnected + f->n_unmeasured + f->n_zero_sag + f->n_duplicate + f->n_skipped;

    if (n == 0) {
        pp_text(buf, cap, "%s", "");
        return;
    }
    pp_text(buf, cap, "%zu samples left out (not fitted or drawn): %zu disconnected (connected = "
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
