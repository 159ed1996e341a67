#include "run_json.h"
#include "json_file.h"

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
    char path[PP_PATH_MAX], host[256] = "", when[64];
    time_t now = time(NULL);
    struct tm tm;
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
    if ((rc = pp_path_in(path, sizeof path, dir, "run.json")) < 0) {
        json_decref(root);
        return rc;
    }
    if (!root || add_info(root, p, dev, info) < 0) {
        pp_log_error("%s: cannot build the JSON (a name that is not UTF-8?)", path);
        json_decref(root);
        return -EINVAL;
    }
    rc = pp_json_save(path, root, PP_RUN_JSON_FLAGS);
    json_decref(root);
    return rc;
}

/* 1 when a and b hold the same JSON, numbers compared by value (run.json
 * writes 2.0 where the hash writes 2). */
static int same_json(json_t *a, json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) /* run.json keeps 15 digits */
        return fabs(json_number_value(a) - json_number_value(b)) <=
               1e-12 * fmax(fabs(json_number_value(a)), fabs(json_number_value(b)));
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same_json(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (json_is_object(a) && json_is_object(b)) {
        const char *key;
        json_t *v;
        if (json_object_size(a) != json_object_size(b))
            return 0;
        json_object_foreach(a, key, v) if (!same_json(v, json_object_get(b, key))) return 0;
        return 1;
    }
    return json_equal(a, b);
}

/* "what: old -> new" for a field that differs, appended to buf. */
static void add_change(char *buf, size_t cap, const char *what, json_t *was, json_t *now)
{
    size_t flags = JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10);
    char *a = was ? json_dumps(was, flags) : NULL;
    char *b = now ? json_dumps(now, flags) : NULL;
    size_t len = strlen(buf);

    if (len + 8 < cap)
        pp_text(buf + len, cap - len, "%s%s %.80s -> %.80s", len ? "; " : "", what,
                a ? a : "(none)", b ? b : "(none)");
    free(a);
    free(b);
}

/* What differs between run.json's root and profile p, into buf. */
static void describe_changes(json_t *root, const pp_profile *p, char *buf, size_t cap)
{
    json_t *was = json_object_get(root, "params"), *now = params_json(p), *v;
    json_t *bat = battery_json(&p->battery), *x;
    const char *key;
    char what[200];

    buf[0] = '\0';
    json_object_foreach(now, key, v) {
        x = json_object_get(was, key);
        pp_text(what, sizeof what, "%s values", key);
        if (!x || !same_json(json_object_get(x, "values"), json_object_get(v, "values")))
            add_change(buf, cap, what, x ? json_object_get(x, "values") : NULL,
                       json_object_get(v, "values"));
    }
    json_object_foreach(was, key, v) if (!json_object_get(now, key))
        add_change(buf, cap, key, json_object_get(v, "values"), NULL);
    json_object_foreach(bat, key, v) {
        pp_text(what, sizeof what, "battery.%s", key);
        if (!same_json(json_object_get(json_object_get(root, "battery"), key), v))
            add_change(buf, cap, what, json_object_get(json_object_get(root, "battery"), key), v);
    }
    x = json_real(p->rate_hz);
    if (!same_json(json_object_get(root, "rate_hz"), x))
        add_change(buf, cap, "rate_hz", json_object_get(root, "rate_hz"), x);
    json_decref(x);
    x = json_real(p->warmup_s);
    if (!same_json(json_object_get(root, "warmup_s"), x))
        add_change(buf, cap, "warmup_s", json_object_get(root, "warmup_s"), x);
    json_decref(x);
    if (!buf[0])
        pp_text(buf, cap, "the components' names, types or pacing (until, duration_s, "
                          "iterations, fps, sleep_s) or the mode");
    json_decref(now);
    json_decref(bat);
}

int pp_run_json_check_resume(const char *dir, const pp_profile *p)
{
    char path[PP_PATH_MAX], hash[PP_CONFIG_HASH_MAX], changes[1024];
    json_t *root, *was;
    int rc;

    if (pp_path_in(path, sizeof path, dir, "run.json") < 0 || access(path, F_OK) != 0)
        return 0;
    root = json_load_file(path, 0, NULL);
    was = json_object_get(root, "config_hash");
    if (!json_is_string(was)) { /* an older powprof's: the header check stands alone */
        json_decref(root);
        return 0;
    }
    if ((rc = pp_run_json_config_hash(p, hash, sizeof hash)) < 0 ||
        strcmp(json_string_value(was), hash) == 0) {
        json_decref(root);
        return rc;
    }
    describe_changes(root, p, changes, sizeof changes);
    pp_log_error("%s: made by another version of this profile (config_hash %s, now %s): %s. "
                 "Resuming would mix the two (rows are numbered by configuration): resume with "
                 "the profile the folder was made with (%s/profile.cfg), or profile into a new "
                 "folder", path, json_string_value(was), hash, changes, dir);
    json_decref(root);
    return -EINVAL;
}

json_t *pp_run_json_battery(const pp_battery_params *b)
{
    json_t *o = battery_json(b), *soc = json_array(), *v = json_array();

    for (size_t i = 0; i < b->ocv_n && i < PP_BATTERY_OCV_MAX; i++) {
        json_array_append_new(soc, json_real(b->ocv_soc[i]));
        json_array_append_new(v, json_real(b->ocv_v[i]));
    }
    json_object_set_new(o, "ocv_soc", soc);
    json_object_set_new(o, "ocv_v", v);
    return o;
}

/* Number key of o into *out when there (else *out unchanged). */
static void get_number(json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);

    if (json_is_number(v))
        *out = json_number_value(v);
}

int pp_run_json_battery_read(json_t *o, pp_battery_params *b)
{
    json_t *soc = json_object_get(o, "ocv_soc"), *v = json_object_get(o, "ocv_v");
    const char *model = json_string_value(json_object_get(o, "model")), *key;
    double cells = b->cells;
    char why[256];

    if (!json_is_object(o) || (model && pp_battery_model_parse(model, &b->model) < 0))
        return -EINVAL;
    get_number(o, "cells", &cells);
    b->cells = (int)cells;
    get_number(o, "capacity_ah", &b->capacity_ah);
    get_number(o, "voltage_v", &b->voltage_v);
    get_number(o, "r_int_ohm", &b->r_int_ohm);
    get_number(o, "r1_ohm", &b->r1_ohm);
    get_number(o, "c1_f", &b->c1_f);
    get_number(o, "soc_start", &b->soc_start_frac);
    get_number(o, "soc_cutoff", &b->soc_cutoff_frac);
    get_number(o, "cutoff_v", &b->cutoff_v);
    get_number(o, "base_power_w", &b->base_power_w);
    get_number(o, "efficiency", &b->efficiency);
    if (json_is_array(soc) && json_is_array(v) && json_array_size(soc) == json_array_size(v) &&
        json_array_size(soc) <= PP_BATTERY_OCV_MAX) {
        b->ocv_n = json_array_size(soc);
        for (size_t i = 0; i < b->ocv_n; i++) {
            b->ocv_soc[i] = json_number_value(json_array_get(soc, i));
            b->ocv_v[i] = json_number_value(json_array_get(v, i));
        }
    }
    return pp_battery_params_check(b, &key, why, sizeof why) < 0 ? -EINVAL : 0;
}

int pp_run_json_battery_load(const char *path, pp_battery_params *b)
{
    json_error_t err;
    json_t *root, *o;
    int rc = 0;

    if (access(path, F_OK) != 0)
        return 0;
    if (!(root = json_load_file(path, 0, &err))) {
        pp_log_error("%s:%d: %s", path, err.line, err.text);
        return -EINVAL;
    }
    if ((o = json_object_get(root, "battery")) && pp_run_json_battery_read(o, b) < 0) {
        pp_log_error("%s: the battery it records is not valid", path);
        rc = -EINVAL;
    } else if (o) {
        rc = 1;
    }
    json_decref(root);
    return rc;
}
