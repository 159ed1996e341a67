/* api_fit.c - the pack fitted to flight logs through the public API
 * (include/powprof/battery.h) over src/flight/flight_fit.h: the same
 * options, document and refusals as `powprof battery fit`. */
#include "include/powprof/battery.h"

#include "src/base/log.h"
#include "src/config/battery_config.h"
#include "battery_answer.h"
#include "src/results/flight_fit_doc.h"
#include "results_doc.h"
#include "src/flight/ulog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pp_battery_fit_request_init(pp_battery_fit_request *q)
{
    memset(q, 0, sizeof *q);
    q->model = "thevenin";
    q->train_frac = 0.5;
    q->instance = -1;
    q->ocv = "auto";
}

/* q as the fit's options and the pack it replaces. 0 or -errno (logged). */
static int options_of(const pp_battery_fit_request *q, pp_flight_fit_options *o)
{
    pp_battery_choice choice;

    pp_flight_fit_options_init(o);
    if (q->model && pp_battery_model_parse(q->model, &o->model) < 0) {
        pp_log_error("battery fit: model %s: thevenin or rint", q->model);
        return -EINVAL;
    }
    o->train_frac = q->train_frac;
    o->train_s = q->train_s;
    o->instance = q->instance;
    o->cells = q->cells;
    o->ocv = q->ocv ? q->ocv : "auto";
    pp_battery_choice_init(&choice);
    choice.file = q->config;
    choice.preset = q->preset;
    return pp_battery_fit_start(&choice, o);
}

int pp_battery_fit_logs_json(const char *const *logs, size_t n_logs,
                             const pp_battery_fit_request *q, char **json_out)
{
    pp_battery_fit_request dflt;
    const char *replaces;
    pp_flight_fit_options o;
    pp_flight_fit *r;
    json_t *doc = NULL;
    int rc;

    if (!json_out || (!logs && n_logs)) {
        pp_log_error("battery fit: no logs or no place for the document (NULL)");
        return -EINVAL;
    }
    *json_out = NULL;
    if (!q) {
        pp_battery_fit_request_init(&dflt);
        q = &dflt;
    }
    replaces = pp_flight_fit_replaces(q->config, q->preset);
    if ((rc = options_of(q, &o)) < 0)
        return rc;
    if (!(r = malloc(sizeof *r)))
        return -ENOMEM;
    rc = pp_flight_fit_run(logs, n_logs, &o, r);
    if (rc == 0 && q->output)
        rc = pp_flight_fit_write(r, replaces, q->output, q->force);
    if (rc == 0 && (!(doc = pp_flight_fit_json(r, replaces, q->output)) ||
                    !(*json_out = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                                      JSON_REAL_PRECISION(12)))))
        rc = -ENOMEM;
    json_decref(doc);
    pp_flight_fit_free(r);
    free(r);
    return rc;
}

int pp_ulog_info_json(const char *path, char **json_out)
{
    pp_ulog_flight f;
    json_t *doc = NULL;
    int rc;

    if (!path || !json_out) {
        pp_log_error("ulog info: no log or no place for the document (NULL)");
        return -EINVAL;
    }
    *json_out = NULL;
    rc = pp_ulog_read_battery(path, &f);
    if (rc == 0 && (!(doc = pp_ulog_info_doc(path, &f)) ||
                    !(*json_out = json_dumps(doc, PP_ULOG_INFO_JSON_FLAGS))))
        rc = -ENOMEM;
    json_decref(doc);
    pp_ulog_flight_free(&f);
    return rc;
}
