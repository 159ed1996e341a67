/* The layer model as JSON (src/dnn/layers_model.h), with jansson. */
#include "layers_json.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/results/json_file.h"

#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#define FORMAT "powprof-layer-model"
#define VERSION 2 /* 1: no baseline, no roofline (still read) */

/* Ranges of what a model holds: a file outside them was edited or broken. */
#define MAX_COEF 1e3        /* seconds (joules) per FLOP or byte ~1e-9; power: exponents */
#define MAX_FLOOR 1e3       /* s or J per layer and frame */
#define MAX_KNOT 1e12       /* bytes */
#define MAX_FRAC 1e3        /* errors as fractions */
#define MAX_LOO DBL_MAX     /* a family's leave-one-out error: any the fit gave (a family that
                               misses tiny layers measured on a busy core reached 8e4) */
#define MAX_IDLE_W 1e4
#define MAX_COUNT 1e9       /* samples, networks */
#define MAX_PIXELS 4294967296.0


static json_t *fit_json(const pp_layer_fit *f)
{
    json_t *o = json_object(), *coef = json_array(), *loo = json_object();

    for (size_t k = 0; k < f->n_coef; k++)
        json_array_append_new(coef, json_real(f->coef[k]));
    json_t *net = json_object();

    for (int k = 0; k < PP_LF_COUNT; k++) {
        json_object_set_new(loo, pp_layer_family_name((pp_layer_family)k), pp_json_num(f->loo_rmspe[k]));
        json_object_set_new(net, pp_layer_family_name((pp_layer_family)k), pp_json_num(f->loo_net[k]));
    }
    json_object_set_new(o, "family", json_string(pp_layer_family_name((pp_layer_family)f->family)));
    json_object_set_new(o, "step_w", json_integer(f->step_w));
    json_object_set_new(o, "knots_bytes", json_pack("[f,f]", f->knot[0], f->knot[1]));
    json_object_set_new(o, "coef", coef);
    json_object_set_new(o, "floor", json_real(f->floor));
    json_object_set_new(o, "weight", json_real(f->weight));
    json_object_set_new(o, "base_coef", json_real(f->base_coef));
    json_object_set_new(o, "thin", json_boolean(f->thin));
    json_object_set_new(o, "band_frac", pp_json_num(f->band_frac));
    json_object_set_new(o, "samples", json_integer((json_int_t)f->n_samples));
    json_object_set_new(o, "networks", json_integer((json_int_t)f->n_networks));
    json_object_set_new(o, "loo_rmspe", loo);
    json_object_set_new(o, "loo_network_frac", net);
    return o;
}

static json_t *model_json(const pp_layer_model *m)
{
    json_t *root = json_object(), *fits = json_object(), *err = json_object();

    json_object_set_new(root, "format", json_string(FORMAT));
    json_object_set_new(root, "version", json_integer(VERSION));
    json_object_set_new(root, "device", json_string(m->device));
    json_object_set_new(root, "estimated", json_boolean(m->estimated));
    json_object_set_new(root, "idle_w", pp_json_num(m->idle_w));
    json_object_set_new(root, "networks", json_integer((json_int_t)m->n_networks));
    json_object_set_new(root, "profiled_pixels",
                        json_pack("[o,o]", pp_json_num(m->pixels_min), pp_json_num(m->pixels_max)));
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        const char *qn = pp_layers_quantity_name((pp_layers_quantity)q);
        json_t *kinds = json_object();
        for (int k = 0; k < PP_LAYER_KINDS; k++)
            if (m->fit[q][k].family >= 0)
                json_object_set_new(kinds, pp_layer_kind_name((pp_layer_kind)k),
                                    fit_json(&m->fit[q][k]));
        if (m->roofline[q].family >= 0)
            json_object_set_new(kinds, "roofline", fit_json(&m->roofline[q]));
        json_object_set_new(fits, qn, kinds);
        json_object_set_new(err, qn, json_pack("{s:o,s:o,s:o,s:o}", "mape", pp_json_num(m->net_mape[q]),
                                               "rms", pp_json_num(m->net_rms[q]), "weight",
                                               pp_json_num(m->net_weight[q]), "flops_rate",
                                               pp_json_num(m->net_rate[q])));
    }
    json_object_set_new(root, "network_error", err);
    json_object_set_new(root, "fits", fits);
    return root;
}

int pp_layer_model_write(const pp_layer_model *m, const char *path)
{
    json_t *root = model_json(m);
    int rc = root ? pp_json_save(path, root, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) : -ENOMEM;

    json_decref(root);
    return rc;
}

/* ---- Reading ------------------------------------------------------------ */

typedef struct reader {
    const char *path;
    int version;
    char where[160]; /* the key being read, for messages */
} reader;

static int bad(const reader *r, const char *what)
{
    pp_log_error("%s: %s: %s", r->path, r->where, what);
    return -EINVAL;
}

/* key appended to r->where while it is read */
static void enter(reader *r, const char *key)
{
    size_t n = strlen(r->where);
    snprintf(r->where + n, sizeof r->where - n, ".%s", key);
}

static void leave(reader *r) { *strrchr(r->where, '.') = '\0'; }

/* A number within [lo, hi] (null: NaN when nullable; absent: dflt when
 * dflt is not NaN, for keys version 1 lacks). */
static int get_number(reader *r, const json_t *o, const char *key, int nullable, double lo,
                      double hi, double dflt, double *out)
{
    json_t *v = json_object_get(o, key);
    char msg[160];

    enter(r, key);
    if (!v && !isnan(dflt))
        *out = dflt;
    else if (nullable && json_is_null(v))
        *out = NAN;
    else if (!json_is_number(v))
        return bad(r, nullable ? "a number or null is expected" : "a number is expected");
    else if (!((*out = json_number_value(v)) >= lo && *out <= hi)) {
        snprintf(msg, sizeof msg, "%g is out of range (%g to %g)", *out, lo, hi);
        return bad(r, msg);
    }
    leave(r);
    return 0;
}

/* A count (samples, networks): a whole number within [0, MAX_COUNT]. */
static int get_count(reader *r, const json_t *o, const char *key, size_t *out)
{
    double v;
    int rc = get_number(r, o, key, 0, 0, MAX_COUNT, NAN, &v);

    if (rc == 0 && v != floor(v)) {
        enter(r, key);
        return bad(r, "a whole number is expected");
    }
    *out = rc == 0 ? (size_t)v : 0;
    return rc;
}

static int family_of(const char *name)
{
    for (int f = 0; f <= PP_LF_ROOFLINE; f++)
        if (strcmp(pp_layer_family_name((pp_layer_family)f), name) == 0)
            return f;
    return -1;
}

/* An array of n_min to n_max numbers within [lo, hi] into out; its size. */
static int get_array(reader *r, const json_t *o, const char *key, size_t n_min, size_t n_max,
                     double lo, double hi, double *out, size_t *n)
{
    json_t *a = json_object_get(o, key), *v;
    char msg[160];
    size_t i;

    enter(r, key);
    if (!json_is_array(a) || json_array_size(a) < n_min || json_array_size(a) > n_max) {
        snprintf(msg, sizeof msg, "an array of %zu to %zu numbers is expected", n_min, n_max);
        return bad(r, msg);
    }
    json_array_foreach(a, i, v) {
        if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi)) {
            snprintf(msg, sizeof msg, "[%zu]: a number from %g to %g is expected", i, lo, hi);
            return bad(r, msg);
        }
        out[i] = json_number_value(v);
    }
    *n = json_array_size(a);
    leave(r);
    return 0;
}

static int read_errors(reader *r, const json_t *o, const char *key, double *out)
{
    json_t *e = json_object_get(o, key);
    int rc = 0;

    if (!e && r->version == 1 && strcmp(key, "loo_network_frac") == 0) {
        for (int k = 0; k < PP_LF_COUNT; k++)
            out[k] = NAN;
        return 0;
    }
    enter(r, key);
    if (!json_is_object(e))
        return bad(r, "an object is expected");
    for (int k = 0; k < PP_LF_COUNT && rc == 0; k++) {
        const char *name = pp_layer_family_name((pp_layer_family)k);
        if (k == PP_LF_RATE && r->version == 1)
            out[k] = NAN;
        else
            rc = get_number(r, e, name, 1, 0, MAX_LOO, NAN, &out[k]);
    }
    if (rc == 0)
        leave(r);
    return rc;
}

static int read_fit(reader *r, const json_t *o, pp_layer_fit *f)
{
    const char *family = json_string_value(json_object_get(o, "family"));
    json_t *w = json_object_get(o, "step_w");
    size_t n;
    int rc;

    memset(f, 0, sizeof *f);
    if (!json_is_object(o))
        return bad(r, "an object is expected");
    if (!family || (f->family = family_of(family)) < 0)
        return bad(r, "family: linear, step, terms, power, rate or roofline is expected");
    if (!json_is_integer(w) || json_integer_value(w) < 0 || json_integer_value(w) > 64)
        return bad(r, "step_w: a whole number from 0 to 64 is expected");
    f->step_w = (int)json_integer_value(w);
    f->thin = json_is_true(json_object_get(o, "thin"));
    if ((rc = get_array(r, o, "coef", 1, PP_LAYER_MAX_COEF, -MAX_COEF, MAX_COEF, f->coef,
                        &f->n_coef)) < 0 ||
        (rc = get_array(r, o, "knots_bytes", 2, 2, 0, MAX_KNOT, f->knot, &n)) < 0 ||
        (rc = get_number(r, o, "floor", 0, 0, MAX_FLOOR, NAN, &f->floor)) < 0 ||
        (rc = get_number(r, o, "weight", 0, 0, 1, 1.0, &f->weight)) < 0 ||
        (rc = get_number(r, o, "base_coef", 0, 0, MAX_COEF, 0.0, &f->base_coef)) < 0 ||
        (rc = get_count(r, o, "samples", &f->n_samples)) < 0 ||
        (rc = get_count(r, o, "networks", &f->n_networks)) < 0 ||
        (rc = read_errors(r, o, "loo_rmspe", f->loo_rmspe)) < 0 ||
        (rc = read_errors(r, o, "loo_network_frac", f->loo_net)) < 0)
        return rc;
    if (r->version == 1) /* the band was the chosen family's error */
        f->band_frac = f->family < PP_LF_COUNT ? f->loo_rmspe[f->family] : NAN;
    else if ((rc = get_number(r, o, "band_frac", 1, 0, MAX_FRAC, NAN, &f->band_frac)) < 0)
        return rc;
    return 0;
}

/* fits.<quantity>: every kind named (or "roofline"; version 1's "pooled"
 * is left out: it stood in for some kinds only). */
static int read_fits(reader *r, const json_t *kinds, pp_layers_quantity q, pp_layer_model *m)
{
    const char *key;
    json_t *v;

    if (!json_is_object(kinds))
        return bad(r, "an object is expected");
    json_object_foreach((json_t *)kinds, key, v) {
        int roof = strcmp(key, "roofline") == 0 && r->version >= 2;
        int k = roof ? PP_LAYER_KINDS : pp_layer_kind_from_name(key);
        pp_layer_fit *f = roof ? &m->roofline[q] : k >= 0 ? &m->fit[q][k] : NULL;
        int rc;
        snprintf(r->where, sizeof r->where, "fits.%s.%s", pp_layers_quantity_name(q), key);
        if (strcmp(key, "pooled") == 0 && r->version == 1)
            continue;
        if (!f)
            return bad(r, "not a layer kind");
        if ((rc = read_fit(r, v, f)) < 0)
            return rc;
        if ((f->family == PP_LF_ROOFLINE) != roof)
            return bad(r, "family: roofline is the roofline's alone");
    }
    return 0;
}

static int read_header(reader *r, const json_t *root, pp_layer_model *m)
{
    const char *format = json_string_value(json_object_get(root, "format"));
    const char *device = json_string_value(json_object_get(root, "device"));
    json_t *version = json_object_get(root, "version");
    double px[2] = {NAN, NAN};
    size_t n;
    int rc;

    snprintf(r->where, sizeof r->where, "(top)");
    if (!format || strcmp(format, FORMAT) != 0)
        return bad(r, "format: not a layer model (\"" FORMAT "\" expected)");
    if (!json_is_integer(version) || json_integer_value(version) < 1 ||
        json_integer_value(version) > VERSION)
        return bad(r, "version: this powprof reads versions 1 and 2");
    r->version = (int)json_integer_value(version);
    if (!device || pp_strlcpy(m->device, device, sizeof m->device) < 0)
        return bad(r, "device: a short string is expected");
    m->estimated = json_is_true(json_object_get(root, "estimated"));
    if ((rc = get_number(r, root, "idle_w", 1, 0, MAX_IDLE_W, NAN, &m->idle_w)) < 0 ||
        (rc = get_count(r, root, "networks", &m->n_networks)) < 0)
        return rc;
    if (json_object_get(root, "profiled_pixels") &&
        json_is_null(json_array_get(json_object_get(root, "profiled_pixels"), 0)))
        n = 0;
    else if (json_object_get(root, "profiled_pixels") &&
             (rc = get_array(r, root, "profiled_pixels", 2, 2, 1, MAX_PIXELS, px, &n)) < 0)
        return rc;
    if (px[0] > px[1]) {
        enter(r, "profiled_pixels");
        return bad(r, "the first is the smallest");
    }
    m->pixels_min = px[0];
    m->pixels_max = px[1];
    return 0;
}

static int read_model(reader *r, const json_t *root, pp_layer_model *m)
{
    json_t *fits = json_object_get(root, "fits"), *err = json_object_get(root, "network_error");
    int rc = read_header(r, root, m);

    for (int q = 0; q < PP_LQ_COUNT; q++)
        for (int k = 0; k <= PP_LAYER_KINDS; k++)
            (k < PP_LAYER_KINDS ? &m->fit[q][k] : &m->roofline[q])->family = -1;
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++) {
        const char *qn = pp_layers_quantity_name((pp_layers_quantity)q);
        json_t *e = json_object_get(err, qn);
        snprintf(r->where, sizeof r->where, "network_error.%s", qn);
        if (!json_is_object(e))
            return bad(r, "an object is expected");
        if ((rc = get_number(r, e, "mape", 1, 0, MAX_FRAC, NAN, &m->net_mape[q])) < 0 ||
            (rc = get_number(r, e, "rms", 1, 0, MAX_FRAC, NAN, &m->net_rms[q])) < 0 ||
            (rc = get_number(r, e, "weight", 0, 0, 1, 1.0, &m->net_weight[q])) < 0 ||
            (rc = get_number(r, e, "flops_rate", 1, 0, MAX_COEF, 0.0, &m->net_rate[q])) < 0)
            return rc;
        if (m->net_weight[q] < 1 && !isfinite(m->net_rate[q]))
            return bad(r, "flops_rate: a number is needed when weight is below 1");
        snprintf(r->where, sizeof r->where, "fits.%s", qn);
        rc = read_fits(r, json_object_get(fits, qn), (pp_layers_quantity)q, m);
    }
    if (rc == 0 && m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL].family < 0) {
        snprintf(r->where, sizeof r->where, "fits.cpu_s.convolutional");
        return bad(r, "missing: a model has at least the convolutional layers' fit");
    }
    return rc;
}

int pp_layer_model_read(const char *path, pp_layer_model *m)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    reader r = {path, 0, ""};
    int rc;

    memset(m, 0, sizeof *m);
    if (!root) {
        pp_log_error("%s:%d: %s", path, err.line, err.text);
        return -EINVAL;
    }
    rc = read_model(&r, root, m);
    json_decref(root);
    if (rc == 0)
        pp_text(m->path, sizeof m->path, "%s", path); /* for messages */
    return rc;
}
