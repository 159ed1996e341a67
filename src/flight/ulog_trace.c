/* A flight's battery as a power trace, and its charge (ulog_trace.h). */
#include "ulog_trace.h"
#include "src/traces/trace.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Battery b's power at time t: linear between its samples, held outside. */
static double power_at(const pp_ulog_battery *b, double t)
{
    size_t lo = 0, hi = b->n - 1;

    if (t <= b->t_s[0])
        return b->voltage_v[0] * b->current_a[0];
    if (t >= b->t_s[hi])
        return b->voltage_v[hi] * b->current_a[hi];
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (b->t_s[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    double p0 = b->voltage_v[lo] * b->current_a[lo], p1 = b->voltage_v[hi] * b->current_a[hi];
    return b->t_s[hi] == b->t_s[lo] ? p1 : p0 + (p1 - p0) * (t - b->t_s[lo]) / (b->t_s[hi] - b->t_s[lo]);
}

int pp_ulog_battery_trace(const pp_ulog_flight *f, const char *name, pp_trace *t)
{
    char names[PP_ULOG_MAX_BATTERIES][PP_TRACE_NAME_MAX];
    const char *np[PP_ULOG_MAX_BATTERIES];
    pp_ulog_battery bat[PP_ULOG_MAX_BATTERIES];
    double *times, w[PP_ULOG_MAX_BATTERIES], t0;
    size_t n = 0, nb = 0;
    int rc;

    memset(t, 0, sizeof *t);
    for (size_t b = 0; b < f->n_batteries; b++) {
        bat[nb] = f->bat[b];
        if (bat[nb].n) {
            if (pp_fmt(names[nb], sizeof names[nb], "battery%d", bat[nb].instance) < 0)
                return -ENAMETOOLONG; /* never: "battery" and an int fit */
            np[nb] = names[nb];
            n += bat[nb++].n;
        }
    }
    if (nb == 0) {
        pp_log_error("%s: %s", name, f->battery_defined
                                         ? f->n_skipped || f->n_unmeasured ? "the log defines battery_status but "
                                                        "every sample of it was left out (see "
                                                        "above): no battery data to import"
                                         : "the log defines battery_status but holds no sample "
                                           "of it (with a voltage and a current): no battery "
                                           "data to import"
                                         : "the log has no battery_status topic: no battery data "
                                           "to import");
        return -EINVAL;
    }
    if (!(times = malloc(n * sizeof *times)))
        return -ENOMEM;
    n = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t i = 0; i < bat[b].n; i++)
            times[n++] = bat[b].t_s[i];
    qsort(times, n, sizeof *times, cmp_double);
    t0 = times[0];
    rc = pp_trace_init(t, nb, np);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (i && times[i] == times[i - 1])
            continue;
        for (size_t b = 0; b < nb; b++)
            w[b] = fmax(0, power_at(&bat[b], times[i]));
        rc = pp_trace_append(t, times[i] - t0, w);
    }
    free(times);
    if (rc < 0)
        pp_trace_free(t);
    return rc;
}

void pp_ulog_charge_mah(const pp_ulog_battery *b, double *from_current_mah, double *logged_mah)
{
    double q = 0;

    for (size_t i = 1; i < b->n; i++)
        q += 0.5 * (b->current_a[i] + b->current_a[i - 1]) * (b->t_s[i] - b->t_s[i - 1]);
    *from_current_mah = q / 3.6;
    *logged_mah = b->n ? b->discharged_mah[b->n - 1] - b->discharged_mah[0] : NAN;
}

double pp_ulog_interval_s(const pp_ulog_battery *b)
{
    return b->n >= 2 ? (b->t_s[b->n - 1] - b->t_s[0]) / (double)(b->n - 1) : NAN;
}
