/* The layer model as JSON (src/layers/layers_model.h), with jansson. */
#include "layers_model.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#define FORMAT "powprof-layer-model"
#define VERSION 1

static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *fit_json(const pp_layer_fit *f)
{
    json_t *o = json_object(), *coef = json_array(), *loo = json_object();

    for (size_t k = 0; k < f->n_coef; k++)
        json_array_append_new(coef, json_real(f->coef[k]));
    for (int k = 0; k < PP_LF_COUNT; k++)
        json_object_set_new(loo, pp_layer_family_name((pp_layer_family)k), number(f->loo_rmspe[k]));
    json_object_set_new(o, "family", json_string(pp_layer_family_name((pp_layer_family)f->family)));
    json_object_set_new(o, "step_w", json_integer(f->step_w));
    json_object_set_new(o, "knots_bytes", json_pack("[f,f]", f->knot[0], f->knot[1]));
    json_object_set_new(o, "coef", coef);
    json_object_set_new(o, "floor", json_real(f->floor));
    json_object_set_new(o, "samples", json_integer((json_int_t)f->n_samples));
    json_object_set_new(o, "networks", json_integer((json_int_t)f->n_networks));
    json_object_set_new(o, "loo_rmspe", loo);
    return o;
}

static json_t *model_json(const pp_layer_model *m)
{
    json_t *root = json_object(), *fits = json_object(), *err = json_object();

    json_object_set_new(root, "format", json_string(FORMAT));
    json_object_set_new(root, "version", json_integer(VERSION));
    json_object_set_new(root, "device", json_string(m->device));
    json_object_set_new(root, "estimated", json_boolean(m->estimated));
    json_object_set_new(root, "idle_w", number(m->idle_w));
    json_object_set_new(root, "networks", json_integer((json_int_t)m->n_networks));
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        const char *qn = pp_layers_quantity_name((pp_layers_quantity)q);
        json_t *kinds = json_object();
        for (int k = 0; k < PP_LAYER_KINDS; k++)
            if (m->fit[q][k].family >= 0)
                json_object_set_new(kinds, pp_layer_kind_name((pp_layer_kind)k),
                                    fit_json(&m->fit[q][k]));
        if (m->pooled[q].family >= 0)
            json_object_set_new(kinds, "pooled", fit_json(&m->pooled[q]));
        json_object_set_new(fits, qn, kinds);
        json_object_set_new(err, qn, json_pack("{s:o,s:o}", "mape", number(m->net_mape[q]), "rms",
                                               number(m->net_rms[q])));
    }
    json_object_set_new(root, "network_error", err);
    json_object_set_new(root, "fits", fits);
    return root;
}

int pp_layer_model_write(const pp_layer_model *m, const char *path)
{
    json_t *root = model_json(m);
    pp_atomic_file af;
    int rc = pp_atomic_file_open(&af, path);

    if (rc == 0) {
        if (json_dumpf(root, af.fp, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) < 0 ||
            fputc('\n', af.fp) == EOF) {
            pp_atomic_file_abort(&af);
            pp_log_error("%s: cannot write", path);
            rc = -EIO;
        } else {
            rc = pp_atomic_file_commit(&af);
        }
    }
    json_decref(root);
    return rc;
}

/* ---- Reading ------------------------------------------------------------ */

typedef struct reader {
    const char *path;
    char where[160]; /* the key being read, for messages */
} reader;

static int bad(const reader *r, const char *what)
{
    pp_log_error("%s: %s: %s", r->path, r->where, what);
    return -EINVAL;
}

/* A number (null: NaN when nullable). */
static int get_number(reader *r, const json_t *o, const char *key, int nullable, double *out)
{
    json_t *v = json_object_get(o, key);

    snprintf(r->where + strlen(r->where), sizeof r->where - strlen(r->where), ".%s", key);
    if (nullable && json_is_null(v))
        *out = NAN;
    else if (json_is_number(v))
        *out = json_number_value(v);
    else
        return bad(r, nullable ? "a number or null is expected" : "a number is expected");
    *strrchr(r->where, '.') = '\0';
    return 0;
}

static int family_of(const char *name)
{
    for (int f = 0; f < PP_LF_COUNT; f++)
        if (strcmp(pp_layer_family_name((pp_layer_family)f), name) == 0)
            return f;
    return -1;
}

static int read_coef(reader *r, const json_t *o, pp_layer_fit *f)
{
    json_t *coef = json_object_get(o, "coef"), *knots = json_object_get(o, "knots_bytes");
    size_t i;
    json_t *v;

    if (!json_is_array(coef) || json_array_size(coef) < 1 ||
        json_array_size(coef) > PP_LAYER_MAX_COEF)
        return bad(r, "coef: an array of 1 to 8 numbers is expected");
    json_array_foreach(coef, i, v) {
        if (!json_is_number(v))
            return bad(r, "coef: an array of numbers is expected");
        f->coef[i] = json_number_value(v);
    }
    f->n_coef = json_array_size(coef);
    if (!json_is_array(knots) || json_array_size(knots) != 2 ||
        !json_is_number(json_array_get(knots, 0)) || !json_is_number(json_array_get(knots, 1)))
        return bad(r, "knots_bytes: two numbers are expected");
    f->knot[0] = json_number_value(json_array_get(knots, 0));
    f->knot[1] = json_number_value(json_array_get(knots, 1));
    return 0;
}

static int read_fit(reader *r, const json_t *o, pp_layer_fit *f)
{
    const char *family = json_string_value(json_object_get(o, "family"));
    json_t *loo = json_object_get(o, "loo_rmspe"), *w = json_object_get(o, "step_w");
    double samples, networks;
    int rc;

    memset(f, 0, sizeof *f);
    if (!json_is_object(o))
        return bad(r, "an object is expected");
    if (!family || (f->family = family_of(family)) < 0)
        return bad(r, "family: linear, step, terms or power is expected");
    if (!json_is_integer(w) || json_integer_value(w) < 0 || json_integer_value(w) > 4096)
        return bad(r, "step_w: a whole number from 0 to 4096 is expected");
    f->step_w = (int)json_integer_value(w);
    if ((rc = read_coef(r, o, f)) < 0 || (rc = get_number(r, o, "floor", 0, &f->floor)) < 0 ||
        (rc = get_number(r, o, "samples", 0, &samples)) < 0 ||
        (rc = get_number(r, o, "networks", 0, &networks)) < 0)
        return rc;
    f->n_samples = samples > 0 ? (size_t)samples : 0;
    f->n_networks = networks > 0 ? (size_t)networks : 0;
    if (!json_is_object(loo))
        return bad(r, "loo_rmspe: an object is expected");
    strcat(r->where, ".loo_rmspe");
    for (int k = 0; k < PP_LF_COUNT && rc == 0; k++)
        rc = get_number(r, loo, pp_layer_family_name((pp_layer_family)k), 1, &f->loo_rmspe[k]);
    return rc;
}

/* fits.<quantity>: every kind named (or "pooled"). */
static int read_fits(reader *r, const json_t *kinds, pp_layers_quantity q, pp_layer_model *m)
{
    const char *key;
    json_t *v;

    if (!json_is_object(kinds))
        return bad(r, "an object is expected");
    json_object_foreach((json_t *)kinds, key, v) {
        int k = strcmp(key, "pooled") == 0 ? PP_LAYER_KINDS : pp_layer_kind_from_name(key);
        int rc;
        snprintf(r->where, sizeof r->where, "fits.%s.%s", pp_layers_quantity_name(q), key);
        if (k < 0)
            return bad(r, "not a layer kind");
        if ((rc = read_fit(r, v, k == PP_LAYER_KINDS ? &m->pooled[q] : &m->fit[q][k])) < 0)
            return rc;
    }
    return 0;
}

static int read_header(reader *r, const json_t *root, pp_layer_model *m)
{
    const char *format = json_string_value(json_object_get(root, "format"));
    const char *device = json_string_value(json_object_get(root, "device"));
    json_t *version = json_object_get(root, "version");
    double networks;
    int rc;

    snprintf(r->where, sizeof r->where, "(top)");
    if (!format || strcmp(format, FORMAT) != 0)
        return bad(r, "format: not a layer model (\"" FORMAT "\" expected)");
    if (!json_is_integer(version) || json_integer_value(version) != VERSION)
        return bad(r, "version: this powprof reads version 1");
    if (!device || pp_strlcpy(m->device, device, sizeof m->device) < 0)
        return bad(r, "device: a short string is expected");
    m->estimated = json_is_true(json_object_get(root, "estimated"));
    if ((rc = get_number(r, root, "idle_w", 1, &m->idle_w)) < 0 ||
        (rc = get_number(r, root, "networks", 0, &networks)) < 0)
        return rc;
    m->n_networks = networks > 0 ? (size_t)networks : 0;
    return 0;
}

static int read_model(reader *r, const json_t *root, pp_layer_model *m)
{
    json_t *fits = json_object_get(root, "fits"), *err = json_object_get(root, "network_error");
    int rc = read_header(r, root, m);

    for (int q = 0; q < PP_LQ_COUNT; q++)
        for (int k = 0; k <= PP_LAYER_KINDS; k++)
            (k < PP_LAYER_KINDS ? &m->fit[q][k] : &m->pooled[q])->family = -1;
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++) {
        const char *qn = pp_layers_quantity_name((pp_layers_quantity)q);
        json_t *e = json_object_get(err, qn);
        snprintf(r->where, sizeof r->where, "network_error.%s", qn);
        if (!json_is_object(e))
            return bad(r, "an object is expected");
        if ((rc = get_number(r, e, "mape", 1, &m->net_mape[q])) < 0 ||
            (rc = get_number(r, e, "rms", 1, &m->net_rms[q])) < 0)
            return rc;
        snprintf(r->where, sizeof r->where, "fits.%s", qn);
        rc = read_fits(r, json_object_get(fits, qn), (pp_layers_quantity)q, m);
    }
    return rc;
}

int pp_layer_model_read(const char *path, pp_layer_model *m)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    reader r = {path, ""};
    int rc;

    memset(m, 0, sizeof *m);
    if (!root) {
        pp_log_error("%s:%d: %s", path, err.line, err.text);
        return -EINVAL;
    }
    rc = read_model(&r, root, m);
    json_decref(root);
    return rc;
}
