/* api.c - the public facade (include/powprof.h and include/powprof/) over the
 * modules. Both headers of each pair are included, so the compiler checks
 * that the declarations they share agree. */
#include "include/powprof/battery.h"
#include "include/powprof/device.h"
#include "include/powprof/trace.h"

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/traces/trace.h"

#include "src/config/battery_config.h"
#include "handle.h"
#include "devices/device.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int pp_device_open(const char *name, const char *sysfs_root, pp_device **out)
{
    pp_device_options o;

    pp_device_options_init(&o);
    if (sysfs_root)
        o.sysfs_root = sysfs_root;
    return pp_device_open_with(name, &o, out);
}

int pp_device_open_by_name(const char *name, const char *sysfs_root, pp_device **out)
{
    return pp_device_open(name, sysfs_root, out);
}

const char *pp_device_source(const pp_device *dev) { return dev->ops->name; }

size_t pp_device_rail_count(const pp_device *dev) { return dev->n_rails; }

const char *pp_device_rail_name(const pp_device *dev, size_t rail)
{
    return rail < dev->n_rails ? dev->rails[rail].name : NULL;
}

int pp_device_rail_estimated(const pp_device *dev, size_t rail)
{
    return rail < dev->n_rails && (dev->rails[rail].flags & PP_RAIL_ESTIMATED) != 0;
}

int pp_device_rail_in_total(const pp_device *dev, size_t rail)
{
    return rail < dev->n_rails && dev->rails[rail].parent < 0;
}

int pp_device_read_now(pp_device *dev, double *power_w)
{
    if (dev->first_due_ns > 0) { /* a mean over less than the first interval is the floor */
        if (pp_clock_now_ns(&pp_clock_monotonic) < dev->first_due_ns)
            pp_clock_monotonic.sleep_until_ns(NULL, dev->first_due_ns);
        dev->first_due_ns = 0;
    }
    return pp_device_read(dev, pp_clock_now_ns(&pp_clock_monotonic), power_w);
}

/* t, made, registered into *out; freed when that fails. */
static int trace_out(pp_trace *t, pp_trace **out)
{
    int rc = pp_handle_add(t, PP_HANDLE_TRACE);

    if (rc < 0) {
        pp_trace_free(t);
        free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int pp_trace_open(const char *path, pp_trace **out)
{
    pp_trace *t = calloc(1, sizeof *t);
    int rc;

    *out = NULL;
    if (!t)
        return -ENOMEM;
    rc = pp_trace_read_csv(path, t);
    if (rc < 0) {
        free(t);
        return rc;
    }
    return trace_out(t, out);
}

int pp_trace_new(size_t n_rails, const char *const *names, size_t n_samples, const double *t_s,
                 const double *power_w, pp_trace **out)
{
    pp_trace *t = calloc(1, sizeof *t);
    int rc;

    *out = NULL;
    if (!t)
        return -ENOMEM;
    if (n_rails == 0 || n_rails > PP_TRACE_MAX_RAILS)
        pp_log_error("%zu rails: 1 to %d expected", n_rails, PP_TRACE_MAX_RAILS);
    for (size_t r = 0; r < n_rails && n_rails <= PP_TRACE_MAX_RAILS; r++)
        if (pp_name_check(names[r] ? names[r] : "", "rail") < 0)
            n_rails = 0;
    if ((rc = pp_trace_init(t, n_rails, names)) < 0) {
        free(t);
        return rc;
    }
    for (size_t i = 0; i < n_samples && rc == 0; i++) {
        if (!isfinite(t_s[i]) || (i && t_s[i] < t_s[i - 1])) {
            pp_log_error("sample %zu: time %g s: finite and not decreasing expected", i, t_s[i]);
            rc = -EINVAL;
        }
        for (size_t r = 0; r < n_rails && rc == 0; r++)
            if (!(power_w[i * n_rails + r] >= 0) || !isfinite(power_w[i * n_rails + r])) {
                pp_log_error("sample %zu, rail %s: %g W: a finite power >= 0 expected", i,
                             names[r], power_w[i * n_rails + r]);
                rc = -EINVAL;
            }
        if (rc == 0)
            rc = pp_trace_append(t, t_s[i], power_w + i * n_rails);
    }
    if (rc < 0) {
        pp_trace_free(t);
        free(t);
        return rc;
    }
    return trace_out(t, out);
}

void pp_trace_close(pp_trace *t)
{
    if (pp_handle_remove(t, PP_HANDLE_TRACE, __func__) != 0)
        return;
    pp_trace_free(t);
    free(t);
}

size_t pp_trace_sample_count(const pp_trace *t)
{
    PP_HANDLE_OR(t, PP_HANDLE_TRACE, 0);
    return t->n_samples;
}

size_t pp_trace_rail_count(const pp_trace *t)
{
    PP_HANDLE_OR(t, PP_HANDLE_TRACE, 0);
    return t->n_rails;
}

const char *pp_trace_rail_name(const pp_trace *t, size_t rail)
{
    PP_HANDLE_OR(t, PP_HANDLE_TRACE, NULL);
    return rail < t->n_rails ? t->names[rail] : NULL;
}

double pp_trace_time_s(const pp_trace *t, size_t sample)
{
    PP_HANDLE_OR(t, PP_HANDLE_TRACE, NAN);
    return sample < t->n_samples ? t->t_s[sample] : NAN;
}

double pp_trace_power_w(const pp_trace *t, size_t sample, size_t rail)
{
    PP_HANDLE_OR(t, PP_HANDLE_TRACE, NAN);
    return sample < t->n_samples && rail < t->n_rails ? pp_trace_at(t, sample, rail) : NAN;
}

int pp_battery_new(const char *preset_or_file, pp_battery_params **out)
{
    pp_battery_params *b = malloc(sizeof *b);
    pp_battery_choice c;
    int rc;

    *out = NULL;
    if (!b)
        return -ENOMEM;
    pp_battery_choice_init(&c);
    c.preset_or_file = preset_or_file;
    if ((rc = pp_battery_choose(&c, b)) < 0 || (rc = pp_handle_add(b, PP_HANDLE_BATTERY)) < 0) {
        free(b);
        return rc;
    }
    *out = b;
    return 0;
}

void pp_battery_close(pp_battery_params *b)
{
    if (pp_handle_remove(b, PP_HANDLE_BATTERY, __func__) == 0)
        free(b);
}

void pp_battery_free(pp_battery_params *b)
{
    pp_battery_close(b);
}

int pp_battery_set_base_power(pp_battery_params *b, double base_power_w)
{
    PP_HANDLE_OR(b, PP_HANDLE_BATTERY, -EBADF);
    if (!(base_power_w >= 0 && isfinite(base_power_w))) {
        pp_log_error("base power %g W: must be >= 0", base_power_w);
        return -EINVAL;
    }
    b->base_power_w = base_power_w;
    return 0;
}

int pp_battery_drain(const pp_battery_params *b, const double *t_s, const double *p_w, size_t n,
                     pp_battery_summary *out)
{
    pp_battery_load load = {t_s, p_w, n, 0};
    pp_battery_options o;
    pp_battery_result r;
    int rc;

    PP_HANDLE_OR(b, PP_HANDLE_BATTERY, -EBADF);
    pp_battery_options_init(&o);
    o.time_to_cutoff = 1;
    rc = pp_battery_run(b, &load, &o, &r);
    if (rc < 0)
        return rc;
    *out = (pp_battery_summary){r.duration_s, r.energy_j, r.soc_start_frac, r.soc_end_frac,
                                r.soc_drained_frac, r.min_voltage_v, r.time_to_cutoff_s, 0};
    for (size_t i = 0; i < r.n_events; i++)
        out->brownout |= r.events[i].kind == PP_BATTERY_EVENT_BROWNOUT;
    return 0;
}

int pp_battery_drain_trace(const pp_battery_params *b, const pp_trace *t,
                           pp_battery_summary *out)
{
    double *total;
    int rc;

    PP_HANDLE_OR(t, PP_HANDLE_TRACE, -EBADF);
    if (!(total = malloc((t->n_samples ? t->n_samples : 1) * sizeof *total)))
        return -ENOMEM;
    pp_trace_total_series(t, total);
    rc = pp_battery_drain(b, t->t_s, total, t->n_samples, out);
    free(total);
    return rc;
}
