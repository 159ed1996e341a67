/* api_meter.c - the public facade of `powprof meter` (include/powprof/meter.h)
 * over src/sweep/meter.h. */
#include "include/powprof/meter.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/sweep/meter.h"
#include "handle.h"
#include "meter_doc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The run res of dev into out, and the warnings `powprof meter` prints. */
static void report_of(const pp_device *dev, const pp_meter_result *res, pp_meter_report *out)
{
    const pp_trace_sums *s = &res->sums;

    out->exit_status = res->exit_status;
    out->duration_s = res->duration_s;
    pp_text(out->source, sizeof out->source, "%s", dev->ops->name);
    out->estimated = pp_device_is_estimated(dev);
    if (!res->measured)
        return;
    out->n_samples = (size_t)res->stats.n_samples;
    out->n_rails = s->n_rails < PP_DEVICE_MAX_RAILS ? s->n_rails : PP_DEVICE_MAX_RAILS;
    for (size_t r = 0; r < out->n_rails; r++) {
        pp_text(out->rail[r], sizeof out->rail[r], "%s", dev->rails[r].name);
        out->rail_mean_w[r] = pp_trace_sums_mean_w(s, r);
        out->rail_energy_j[r] = s->energy_j[r];
    }
    out->mean_w = pp_trace_sums_mean_w(s, s->n_rails);
    out->energy_j = s->energy_j[s->n_rails];
    pp_meter_checks(dev, res, &out->saturated, &out->short_run, &out->ceiling_w);
    if (out->estimated)
        pp_log_warn("%s: the rails are ESTIMATED from a model, not measured", out->source);
    if (out->saturated)
        pp_log_warn("the estimate sat at its ceiling (%.3f W, every core busy): it measured the "
                    "machine, not this command; measure on an idle machine or with a power "
                    "sensor", out->ceiling_w);
    if (out->short_run)
        pp_log_warn("too short to measure: %zu samples in %.3f s at %g Hz (fewer than 5 samples "
                    "or 5 sampling periods); the energy is quantized: make it run longer, sample "
                    "faster or repeat it", out->n_samples, out->duration_s,
                    res->stats.requested_hz);
}

/* The device of name (NULL: auto) under sysfs_root (NULL: /), to be
 * sampled at rate_hz (refused as `meter -r` refuses it). */
static int open_device(const char *device, const char *sysfs_root, double rate_hz,
                       pp_device **dev)
{
    pp_device_options d;
    char why[128];

    if (pp_meter_rate_check(rate_hz, why, sizeof why) < 0) {
        pp_log_error("meter: rate %g Hz: %s", rate_hz, why);
        return -EINVAL;
    }
    pp_device_options_init(&d);
    if (sysfs_root)
        d.sysfs_root = sysfs_root;
    return pp_device_open_with(device ? device : "auto", &d, dev);
}

/* The document of `powprof meter --json` of run res on dev (argv NULL: a
 * block of code, the command []) into *json_out (NULL when nothing was
 * measured or rc < 0). rc, or -ENOMEM. */
static int doc_of(const pp_device *dev, char *const argv[], const char *trace,
                  const pp_meter_result *res, int rc, char **json_out)
{
    static char *const none[] = {NULL};
    pp_meter_ask a = {argv ? argv : none, trace, 0};
    json_t *doc;

    *json_out = NULL;
    if (rc < 0 || !res->measured)
        return rc;
    doc = pp_meter_doc(dev, &a, res, 1, rc);
    *json_out = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    return *json_out ? 0 : -ENOMEM;
}

/* pp_meter_command, and with json_out not NULL its document. */
static int meter_command(const char *device, const char *sysfs_root, double rate_hz,
                         const char *trace_path, char *const argv[], pp_meter_report *out,
                         char **json_out)
{
    pp_meter_options o = {rate_hz == 0 ? 10.0 : rate_hz, trace_path}; /* NaN refused */
    pp_meter_result *res = calloc(1, sizeof *res);
    pp_device *dev = NULL;
    int rc;

    memset(out, 0, sizeof *out);
    out->ceiling_w = NAN;
    if (!res)
        return -ENOMEM;
    if (!argv || !argv[0] || !argv[0][0]) {
        pp_log_error("meter: no command to run");
        free(res);
        return -EINVAL;
    }
    if ((rc = open_device(device, sysfs_root, o.rate_hz, &dev)) == 0) {
        rc = pp_meter_run(dev, &o, argv, res);
        report_of(dev, res, out);
        if (json_out)
            rc = doc_of(dev, argv, trace_path, res, rc, json_out);
        pp_device_close(dev);
    }
    free(res);
    return rc;
}

int pp_meter_command(const char *device, const char *sysfs_root, double rate_hz,
                     const char *trace_path, char *const argv[], pp_meter_report *out)
{
    return meter_command(device, sysfs_root, rate_hz, trace_path, argv, out, NULL);
}

int pp_meter_command_json(const char *device, const char *sysfs_root, double rate_hz,
                          const char *trace_path, char *const argv[], char **json_out)
{
    pp_meter_report out;

    *json_out = NULL;
    return meter_command(device, sysfs_root, rate_hz, trace_path, argv, &out, json_out);
}

struct pp_meter {
    pp_device *dev;
    char *trace;         /* the trace's path (NULL: none), for the document */
    pp_meter_session *session;
    pp_meter_result res; /* filled by pp_meter_stop: nothing to allocate then */
};

int pp_meter_start(const char *device, const char *sysfs_root, double rate_hz,
                   const char *trace_path, pp_meter **out)
{
    pp_meter_options o = {rate_hz == 0 ? 10.0 : rate_hz, trace_path};
    pp_meter *m = calloc(1, sizeof *m);
    int rc;

    *out = NULL;
    if (!m || (trace_path && !(m->trace = strdup(trace_path)))) {
        free(m);
        return -ENOMEM;
    }
    if ((rc = open_device(device, sysfs_root, o.rate_hz, &m->dev)) == 0 &&
        (rc = pp_meter_session_begin(m->dev, &o, &m->session)) == 0) {
        if ((rc = pp_handle_add(m, PP_HANDLE_METER)) == 0) {
            *out = m;
            return 0;
        }
        pp_meter_session_end(m->session, 0, &m->res);
    }
    pp_device_close(m->dev);
    free(m->trace);
    free(m);
    return rc;
}

/* pp_meter_stop, and with json_out not NULL its document. */
static int meter_stop(pp_meter *m, pp_meter_report *out, char **json_out)
{
    int rc;

    memset(out, 0, sizeof *out);
    out->ceiling_w = NAN;
    if ((rc = pp_handle_remove(m, PP_HANDLE_METER, __func__)) != 0)
        return rc < 0 ? rc : -EINVAL; /* NULL */
    rc = pp_meter_session_end(m->session, 1, &m->res);
    report_of(m->dev, &m->res, out);
    if (json_out)
        rc = doc_of(m->dev, NULL, m->trace, &m->res, rc, json_out);
    pp_device_close(m->dev);
    free(m->trace);
    free(m);
    return rc;
}

int pp_meter_stop(pp_meter *m, pp_meter_report *out)
{
    return meter_stop(m, out, NULL);
}

int pp_meter_stop_json(pp_meter *m, char **json_out)
{
    pp_meter_report out;

    *json_out = NULL;
    return meter_stop(m, &out, json_out);
}
