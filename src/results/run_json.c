#include "run_json.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *pp_run_json_kind(pp_range_kind kind)
{
    static const char *const names[] = {"fixed", "linear", "exponential", "list", "categorical"};

    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

json_t *pp_run_json_number(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

static json_t *rails_json(const pp_device *dev)
{
    json_t *rails = json_array();

    for (size_t r = 0; r < dev->n_rails; r++) {
        const pp_rail *rail = &dev->rails[r];
        json_array_append_new(
            rails, json_pack("{s:s, s:b, s:b, s:o}", "name", rail->name, "estimated",
                             (rail->flags & PP_RAIL_ESTIMATED) != 0, "board_input",
                             (rail->flags & PP_RAIL_BOARD_INPUT) != 0, "inside",
                             rail->parent >= 0 ? json_string(dev->rails[rail->parent].name)
                                               : json_null()));
    }
    return rails;
}

static json_t *params_json(const pp_profile *p)
{
    json_t *params = json_object();
    char name[160];

    for (size_t k = 0; k < pp_profile_n_params(p); k++) {
        const pp_param_spec *ps = pp_profile_param(p, k);
        json_t *values = json_array();
        for (size_t v = 0; v < ps->n_values; v++)
            json_array_append_new(values, ps->kind == PP_RANGE_CATEGORICAL
                                              ? json_string(ps->labels[v])
                                              : pp_run_json_number(ps->values[v]));
        pp_profile_param_name(p, k, name, sizeof name);
        json_object_set_new(params, name,
                            json_pack("{s:s, s:s, s:o}", "scale", pp_run_json_kind(ps->kind),
                                      "kind", pp_run_json_kind(ps->kind), "values", values));
    }
    return params;
}

static json_t *battery_json(const pp_battery_params *b)
{
    return json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "model",
                     pp_battery_model_name(b->model), "cells", b->cells, "capacity_ah",
                     b->capacity_ah, "voltage_v", b->voltage_v, "r_int_ohm", b->r_int_ohm,
                     "r1_ohm", b->r1_ohm, "c1_f", b->c1_f, "soc_start", b->soc_start_frac,
                     "soc_cutoff", b->soc_cutoff_frac, "cutoff_v", b->cutoff_v, "base_power_w",
                     b->base_power_w, "efficiency", b->efficiency);
}

static json_t *components_json(const pp_profile *p)
{
    static const char *const until[] = {"completion", "duration", "iterations"};
    json_t *a = json_array();

    for (size_t c = 0; c < p->n_components; c++) {
        const pp_component_spec *cs = &p->components[c];
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:s, s:o, s:I, s:o, s:o}", "name", cs->name, "type",
                         cs->type, "until", (size_t)cs->until < 3 ? until[cs->until] : "?",
                         "duration_s", pp_run_json_number(cs->duration_s), "iterations",
                         (json_int_t)cs->iterations, "fps", pp_run_json_number(cs->fps),
                         "sleep_s", pp_run_json_number(cs->sleep_s)));
    }
    return a;
}

int pp_run_json_config_hash(const pp_profile *p, char *buf, size_t cap)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:s, s:o}", "params", params_json(p),
                          "components", components_json(p), "rate_hz",
                          pp_run_json_number(p->rate_hz), "warmup_s",
                          pp_run_json_number(p->warmup_s), "mode",
                          p->sequential ? "sequential" : "parallel", "battery",
                          battery_json(&p->battery));
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17))
                   : NULL;
    unsigned long long h = 1469598103934665603ULL;

    json_decref(o);
    if (!text)
        return -ENOMEM;
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    free(text);
    return pp_fmt(buf, cap, "fnv1a64:%016llx", h) < 0 ? -ENOMEM : 0;
}

/* node, config_hash, shard and repeats into root. */
static int add_info(json_t *root, const pp_profile *p, const pp_device *dev,
                    const pp_run_json_info *info)
{
    char hash[PP_CONFIG_HASH_MAX];
    const pp_shard *sh = info ? info->shard : NULL;
    int rc = pp_run_json_config_hash(p, hash, sizeof hash);

    if (rc < 0)
        return rc;
    json_object_set_new(root, "node", info && info->node ? pp_node_json(info->node, dev)
                                                         : json_null());
    json_object_set_new(root, "config_hash", json_string(hash));
    json_object_set_new(root, "shard", json_pack("{s:I, s:I, s:s}", "k",
                                                 (json_int_t)(sh ? sh->k : 0), "n",
                                                 (json_int_t)(sh ? sh->n : 1), "from",
                                                 sh ? sh->from : ""));
    json_object_set_new(root, "repeats",
                        json_integer(info && info->repeats > 1 ? info->repeats : 1));
    return 0;
}

int pp_run_json_write(const char *dir, const pp_profile *p, const pp_device *dev,
                      const pp_run_json_info *info)
{
    char path[4096], host[256] = "", when[64];
    time_t now = time(NULL);
    struct tm tm;
    pp_atomic_file af;
    json_t *root;
    int rc;

    gethostname(host, sizeof host - 1);
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    root = json_pack("{s:s, s:s, s:s, s:f, s:f, s:s, s:s, s:s, s:o, s:o, s:I, s:o}", "profile",
                     p->name, "config", p->path, "device", dev->ops->name, "rate_hz", p->rate_hz,
                     "warmup_s", p->warmup_s, "mode", p->sequential ? "sequential" : "parallel",
                     "host", host, "started", when, "rails", rails_json(dev), "params",
                     params_json(p), "configurations", (json_int_t)pp_profile_count(p),
                     "battery", battery_json(&p->battery));
    pp_fmt(path, sizeof path, "%s/run.json", dir);
    if (!root || add_info(root, p, dev, info) < 0) {
        pp_log_error("%s: cannot build the JSON (a name that is not UTF-8?)", path);
        json_decref(root);
        return -EINVAL;
    }
    rc = pp_atomic_file_open(&af, path);
    if (rc == 0 && json_dumpf(root, af.fp, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) != 0) {
        pp_atomic_file_abort(&af);
        rc = -EIO;
    } else if (rc == 0) {
        fputc('\n', af.fp);
        rc = pp_atomic_file_commit(&af);
    }
    if (rc < 0)
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    json_decref(root);
    return rc;
}
