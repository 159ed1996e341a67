/* The model's files: model.json, written and read with jansson, and the
 * grid files of the plotted surfaces; opening and freeing a model
 * (model.h), over model.c (groups, fits, predictions) and variability.c
 * (the fleet). */
#include "model_file.h"
#include "model_held.h"
#include "model_pool.h"
#include "variability.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/results/json_file.h"
#include "src/results/summary_unique.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 2: band_q_between per grid step (band.h, pp_band_between); 3: the
 * smoothing length under one key (version 2 is read too: "sigma" or
 * "smoother_length"); 4: no edge quantile in the band (versions 2 and 3
 * are read too, their "q_edge", "q_edge_dims" and "n_edge" left unread:
 * the band outside the range is band_q times pp_band_scale) */
#define MODEL_VERSION 4
#define H_KEY "smoothing_length"

/* FNV-1a hash of dir/summary.csv (0 when unreadable). */
static unsigned long long file_hash(const char *dir)
{
    char path[PP_PATH_MAX], buf[65536];
    unsigned long long h = 1469598103934665603ULL;
    size_t n;
    FILE *fp;

    if (pp_fmt(path, sizeof path, "%s/summary.csv", dir) < 0 || !(fp = fopen(path, "rb")))
        return 0;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
    fclose(fp);
    return h;
}

/* A number, or null when not finite (JSON has no NaN). */
#define MODEL_JSON_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(10))

static double num_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Where a number of model.json is: the file, the group, the metric. */
typedef struct where {
    const char *path;
    size_t g;
    const char *metric;
} where;

/* The number at key of o (in part, "" or "band."), null or absent as
 * NaN, checked: NaN (when nan_ok), else within [lo, hi]. 0, or -EINVAL
 * logged with the file and the key. */
static int checked(const where *w, json_t *o, const char *part, const char *key, double lo,
                   double hi, int nan_ok, double *out)
{
    json_t *v = json_object_get(o, key);

    *out = num_of(o, key);
    if ((v && !json_is_number(v) && !json_is_null(v)) || (isnan(*out) && !nan_ok) ||
        (!isnan(*out) && !(*out >= lo && *out <= hi))) {
        char what[64] = "missing or not a number";
        if (v && json_is_number(v))
            pp_text(what, sizeof what, "%g is out of range", *out);
        pp_log_error("%s: groups[%zu] %s: %s%s %s, not a number from %g to %g (edited by hand? "
                     "remove it, or build the model again)", w->path, w->g, w->metric, part, key,
                     what, lo, hi);
        return -EINVAL;
    }
    return 0;
}

/* A count of model.json (n, folds): a whole number from 0 to 1e9. */
static int count_of(const where *w, json_t *o, const char *part, const char *key, size_t *out)
{
    double v;
    int rc = checked(w, o, part, key, 0, 1e9, 1, &v);

    *out = rc == 0 && v == floor(v) ? (size_t)v : 0;
    if (rc == 0 && !isnan(v) && v != floor(v)) {
        pp_log_error("%s: groups[%zu] %s: %s%s %g is not a whole number", w->path, w->g,
                     w->metric, part, key, v);
        return -EINVAL;
    }
    return rc;
}

/* A fit's errors, then (NULL: not there) whether nested and its folds. */
static json_t *cv_json(const pp_cv *cv, json_t *nested, json_t *folds)
{
    return json_pack("{s:o,s:o,s:o,s:I,s:I,s:o*,s:o*}", "mape_pct", pp_json_num(cv->mape),
                     "inner_mape_pct", pp_json_num(cv->mape_inner), "rmse", pp_json_num(cv->rmse),
                     "n", (json_int_t)cv->n, "n_inner", (json_int_t)cv->n_inner, "nested", nested,
                     "folds", folds);
}

/* A number per dimension of the surface (null: none) as a JSON array. */
static json_t *dims_json(const double *v, size_t d)
{
    json_t *a = json_array();

    for (size_t j = 0; j < d; j++)
        json_array_append_new(a, pp_json_num(v[j]));
    return a;
}

/* The array at key of o (in part, "" or "band.") into v (NaN where null or
 * absent): each from 0 to hi. 0, or -EINVAL (logged with the file, the
 * group, the metric and the key). derived_weight_edge: the blend's weight
 * outside the range along each dimension (model.h). */
static int dims_of(const where *w, json_t *o, const char *part, const char *key, double hi,
                   double *v)
{
    json_t *a = json_object_get(o, key), *e;
    size_t j;

    for (j = 0; j < PP_SURFACE_MAX_DIMS; j++)
        v[j] = NAN;
    if (!a)
        return 0;
    if (!json_is_array(a) || json_array_size(a) > PP_SURFACE_MAX_DIMS) {
        pp_log_error("%s: groups[%zu] %s: %s%s is not an array of at most %d "
                     "numbers (edited by hand? remove it, or build the model again)", w->path,
                     w->g, w->metric, part, key, PP_SURFACE_MAX_DIMS);
        return -EINVAL;
    }
    json_array_foreach(a, j, e) {
        double q = json_is_number(e) ? json_number_value(e) : NAN;
        if ((!json_is_null(e) && !json_is_number(e)) || q < 0 || q > hi) {
            char what[64] = "not a number";
            if (json_is_number(e))
                pp_text(what, sizeof what, "%g is out of range", q);
            pp_log_error("%s: groups[%zu] %s: %s%s[%zu]: %s, not a number from 0 to "
                         "%g or null (edited by hand? remove it, or build the model again)",
                         w->path, w->g, w->metric, part, key, j, what, hi);
            return -EINVAL;
        }
        v[j] = q;
    }
    return 0;
}

static int cv_of(const where *w, json_t *o, const char *part, pp_cv *cv)
{
    cv->mape_sd = NAN; /* not saved: an adaptive run's refit computes it */
    return checked(w, o, part, "mape_pct", 0, HUGE_VAL, 1, &cv->mape) |
           checked(w, o, part, "inner_mape_pct", 0, HUGE_VAL, 1, &cv->mape_inner) |
           checked(w, o, part, "rmse", 0, HUGE_VAL, 1, &cv->rmse) |
           count_of(w, o, part, "n", &cv->n) | count_of(w, o, part, "n_inner", &cv->n_inner);
}

/* The key of the smoothing length in entry o: version 2 named it "sigma"
 * (nw, loclin) or "smoother_length" (boxcox). */
static const char *h_key_of(json_t *o)
{
    return json_object_get(o, H_KEY) ? H_KEY
           : json_object_get(o, "smoother_length") ? "smoother_length"
           : json_object_get(o, "sigma") ? "sigma" : H_KEY;
}

/* boxcox's exponent per numeric parameter. */
static json_t *exponents_json(const pp_model *m, const pp_est_spec *sp)
{
    json_t *e = json_object();

    for (size_t j = 0; j < m->n_num; j++)
        json_object_set_new(e, m->sum.params[m->num[j]], json_real(sp->expo[j]));
    return e;
}

static json_t *band_json(const pp_choice *c)
{
    return json_pack("{s:f,s:o,s:I,s:o,s:I,s:s,s:b}", "level", PP_BAND_LEVEL, "q",
                     pp_json_num(c->band_q), "n", (json_int_t)c->band_n, "q_between",
                     pp_json_num(c->band_q_between), "n_between", (json_int_t)c->band_n_between,
                     "space", c->positive ? "log" : "linear", "nonnegative", c->nonnegative);
}

/* A metric's entry: what is not there (a value not finite, a method's own
 * keys, a derivation) is left out. */
static json_t *fit_json(const pp_model *m, const char *name, const pp_model_fit *f)
{
    const pp_choice *c = &f->choice;
    int bc = c->spec.method == PP_METHOD_BOXCOX, dv = f->derived;
    char text[2 * PP_SUMMARY_NAME_MAX + 8]; /* two names and " / ": always fits */
    const char *from = NULL;

    if (f->n_values < 2)
        return json_pack("{s:s,s:I}", "name", name, "values_n", (json_int_t)f->n_values);
    if (dv && pp_fmt(text, sizeof text, "%s %c %s", m->sum.metrics[f->from[0]],
                     f->divide ? '/' : '*', m->sum.metrics[f->from[1]]) == 0)
        from = text;
    return json_pack(
        "{s:s,s:I,s:s,s:s,s:o*,s:o*,s:o*,s:s*,s:o*,s:o*,s:o,s:o,s:o*,s:o}", "name", name,
        "values_n", (json_int_t)f->n_values, "method", pp_method_name(c->spec.method), "values",
        c->spec.log_values ? "log" : "linear", H_KEY, json_real(c->spec.h), "exponents",
        bc ? exponents_json(m, &c->spec) : NULL, "interactions",
        bc ? json_boolean(c->spec.inter) : NULL, "derived", from, "derived_weight",
        dv ? json_real(f->weight) : NULL, "derived_weight_edge",
        dv && f->edge_weighted ? dims_json(f->weight_edge, c->range.d) : NULL, "loo",
        cv_json(&c->loo, NULL, NULL), "honest",
        cv_json(&c->honest, json_boolean(c->nested), json_integer((json_int_t)c->folds)),
        "between",
        c->between.n ? cv_json(&c->between, NULL, json_integer((json_int_t)c->between_folds))
                     : NULL,
        "band", band_json(c));
}

/* "A * B" or "A / B": the metrics fit f is derived from, and the weight
 * of that derivation in its blend (model.h; files written before the
 * blend: 1). 0 or -EINVAL (logged with the file and the key). */
static int derived_of(const pp_model *m, const where *w, json_t *o, pp_model_fit *f)
{
    char a[PP_SUMMARY_NAME_MAX], b[PP_SUMMARY_NAME_MAX], op;
    const char *text = json_string_value(json_object_get(o, "derived"));
    int ka, kb;

    if (!text || sscanf(text, "%159s %c %159s", a, &op, b) != 3 || (op != '*' && op != '/') ||
        (ka = pp_summary_metric(&m->sum, a)) < 0 || (kb = pp_summary_metric(&m->sum, b)) < 0) {
        pp_log_error("%s: groups[%zu] %s: derived '%.100s': not \"METRIC * METRIC\" or "
                     "\"METRIC / METRIC\" of summary.csv", w->path, w->g, w->metric,
                     text ? text : "");
        return -EINVAL;
    }
    f->derived = 1;
    f->divide = op == '/';
    f->from[0] = (size_t)ka;
    f->from[1] = (size_t)kb;
    if (!json_object_get(o, "derived_weight")) {
        f->weight = 1;
        return 0;
    }
    if (checked(w, o, "", "derived_weight", 0, 1, 0, &f->weight))
        return -EINVAL;
    f->edge_weighted = json_object_get(o, "derived_weight_edge") != NULL;
    return dims_of(w, o, "", "derived_weight_edge", 1, f->weight_edge);
}

/* boxcox's exponents (-2 to 3) and interactions of entry o; -EINVAL when
 * missing or out of range (logged). */
static int boxcox_of(const pp_model *m, const where *w, json_t *o, pp_est_spec *sp)
{
    json_t *e = json_object_get(o, "exponents");
    int rc = 0;

    if (!json_is_object(e)) {
        pp_log_error("%s: groups[%zu] %s: boxcox without its exponents", w->path, w->g, w->metric);
        return -EINVAL;
    }
    for (size_t j = 0; j < m->n_num; j++)
        rc |= checked(w, e, "exponents.", m->sum.params[m->num[j]], -2, 3, 0, &sp->expo[j]);
    sp->inter = json_is_true(json_object_get(o, "interactions"));
    return rc ? -EINVAL : 0;
}

/* The choice of a metric's entry; 0, 1 when it is not one (another
 * method), -EINVAL when a number is out of range (logged with the file
 * and the key: a hand-edited band must not reach a plan). Files written
 * before the level-out errors (no "between", no band "space") get the
 * band they had: the same everywhere inside, in the fit's space. */
static int fit_of(const pp_model *m, const where *w, json_t *o, pp_model_fit *f)
{
    const char *method = json_string_value(json_object_get(o, "method"));
    const char *values = json_string_value(json_object_get(o, "values"));
    json_t *honest = json_object_get(o, "honest"), *band = json_object_get(o, "band");
    pp_choice *c = &f->choice;
    size_t folds;
    int rc;

    memset(c, 0, sizeof *c);
    if (!method || !values || pp_method_parse(method, &c->spec.method) < 0 ||
        c->spec.method == PP_METHOD_AUTO || !json_is_object(honest) || !json_is_object(band))
        return 1;
    c->spec.log_values = strcmp(values, "log") == 0;
    if (json_is_string(json_object_get(band, "space")))
        c->positive = strcmp(json_string_value(json_object_get(band, "space")), "log") == 0;
    else
        c->positive = c->spec.log_values;
    c->nonnegative = json_is_true(json_object_get(band, "nonnegative"));
    rc = checked(w, o, "", h_key_of(o), 0, 1e12, 0, &c->spec.h) |
         cv_of(w, json_object_get(o, "loo"), "loo.", &c->loo) |
         cv_of(w, honest, "honest.", &c->honest) |
         count_of(w, honest, "honest.", "folds", &folds) |
         checked(w, band, "band.", "q", 0, c->positive ? 50 : HUGE_VAL, 1, &c->band_q) |
         count_of(w, band, "band.", "n", &c->band_n);
    /* absent (a file written before them): NaN and 0, as null */
    rc |= checked(w, band, "band.", "q_between", 0, c->positive ? 50 : HUGE_VAL, 1,
                  &c->band_q_between) |
          count_of(w, band, "band.", "n_between", &c->band_n_between);
    if (c->spec.method == PP_METHOD_BOXCOX)
        rc |= boxcox_of(m, w, o, &c->spec);
    if (json_object_get(o, "derived"))
        rc |= derived_of(m, w, o, f);
    if (json_is_object(json_object_get(o, "between")))
        rc |= cv_of(w, json_object_get(o, "between"), "between.", &c->between) |
              count_of(w, json_object_get(o, "between"), "between.", "folds", &c->between_folds);
    c->nested = json_is_true(json_object_get(honest, "nested"));
    c->folds = folds;
    return rc ? -EINVAL : 0;
}

static json_t *params_json(const pp_model *m)
{
    json_t *a = json_array();

    for (size_t k = 0; k < m->sum.n_params; k++) {
        const pp_summary_param_info *p = &m->sum.param[k];
        json_t *o = json_pack("{s:s,s:s}", "name", p->name, "kind",
                              p->kind == PP_PARAM_CATEGORICAL ? "categorical" : "numeric");
        if (p->kind == PP_PARAM_CATEGORICAL) {
            json_t *l = json_array();
            for (size_t i = 0; i < p->n_labels; i++)
                json_array_append_new(l, json_string(p->labels[i]));
            json_object_set_new(o, "labels", l);
        } else {
            json_object_set_new(o, "scale", json_string(m->sum.log_scale[k] ? "log" : "linear"));
            json_object_set_new(o, "integer", json_boolean(p->integer));
        }
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *group_json(const pp_model *m, const pp_model_group *g)
{
    json_t *labels = json_object(), *range = json_object(), *metrics = json_array();

    for (size_t k = 0; k < m->sum.n_params; k++)
        if (g->label[k] >= 0)
            json_object_set_new(labels, m->sum.params[k],
                                json_string(m->sum.param[k].labels[(size_t)g->label[k]]));
    for (size_t j = 0; j < m->n_num; j++)
        json_object_set_new(range, m->sum.params[m->num[j]],
                            json_pack("[o,o]", pp_json_num(pp_surface_denormalize(&g->surf, j, 0)),
                                      pp_json_num(pp_surface_denormalize(&g->surf, j, 1))));
    for (size_t k = 0; k < m->sum.n_metrics; k++)
        json_array_append_new(metrics, fit_json(m, m->sum.metrics[k], &g->fits[k]));
    return json_pack("{s:o,s:I,s:o,s:o}", "labels", labels, "rows", (json_int_t)g->n_rows,
                     "range", range, "metrics", metrics);
}

static json_t *model_json(const pp_model *m)
{
    char hash[32];
    json_t *groups = json_array();
    const pp_model_options *o = &m->opts;

    _Static_assert(sizeof hash >= 17, "16 hex digits fit");
    snprintf(hash, sizeof hash, "%016llx", m->summary_hash);
    for (size_t g = 0; g < m->n_groups; g++)
        json_array_append_new(groups, group_json(m, &m->groups[g]));
    return json_pack("{s:i,s:s,s:I,s:I,s:I,s:s,s:{s:s,s:o,s:s},s:f,s:o,s:o}", "version",
                     MODEL_VERSION, "summary_hash", hash, "rows", (json_int_t)m->sum.n_rows,
                     "left_out", (json_int_t)m->sum.n_left_out, "short_runs",
                     (json_int_t)m->sum.n_short, "short_run_weight",
                     "(samples / 5)^2, at least 0.2: weighted down, not left out", "options",
                     "method", pp_method_name(o->method), H_KEY,
                     o->h >= 0 ? json_real(o->h) : json_null(), "values",
                     o->value_space < 0 ? "auto" : o->value_space ? "log" : "linear",
                     "band_level", PP_BAND_LEVEL, "params", params_json(m), "groups", groups);
}

/* model.json's document, the fleet's figures with it. */
static json_t *document(const pp_model *m)
{
    json_t *root = model_json(m);

    if (root && m->fleet)
        json_object_set_new(root, "fleet", pp_fleet_json(m, m->fleet));
    return root;
}

int pp_model_dump(const pp_model *m, FILE *fp)
{
    json_t *root = document(m);
    int rc;

    if (!root)
        return -ENOMEM;
    rc = json_dumpf(root, fp, MODEL_JSON_FLAGS) < 0 ? -EIO : 0;
    if (rc == 0 && fputc('\n', fp) == EOF)
        rc = -EIO;
    json_decref(root);
    return rc;
}

int pp_model_save(const pp_model *m, const char *dir)
{
    char path[PP_PATH_MAX];
    json_t *root;
    int rc;

    if ((rc = pp_path_fmt(path, sizeof path, dir, "model.json")) < 0)
        return rc;
    if (!(root = document(m)))
        return -ENOMEM;
    rc = pp_json_save(path, root, MODEL_JSON_FLAGS);
    json_decref(root);
    return rc;
}

/* Fit group g with the choices of its entry jg: 0, 1 (does not match),
 * -EINVAL (a number out of range: logged), -ENOMEM. */
static int load_group(pp_model *m, pp_model_group *g, json_t *jg, where *w)
{
    json_t *metrics = json_object_get(jg, "metrics");

    if ((size_t)json_integer_value(json_object_get(jg, "rows")) != g->n_rows ||
        json_array_size(metrics) != m->sum.n_metrics)
        return 1;
    g->fits = calloc(m->sum.n_metrics + 1, sizeof *g->fits);
    if (!g->fits)
        return -ENOMEM;
    for (size_t k = 0; k < m->sum.n_metrics; k++) {
        json_t *o = json_array_get(metrics, k);
        const char *name = json_string_value(json_object_get(o, "name"));
        double *y;
        int rc;
        if (!name || strcmp(name, m->sum.metrics[k]) != 0)
            return 1;
        w->metric = m->sum.metrics[k];
        if (json_integer_value(json_object_get(o, "values_n")) >= 2 &&
            (rc = fit_of(m, w, o, &g->fits[k])) != 0)
            return rc;
        if (!(y = pp_model_column(m, g, k)))
            return -ENOMEM;
        rc = pp_model_fit_column(m, g, &g->fits[k], k, y, 1);
        free(y);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Take the choices of dir/model.json when it was written for this
 * summary.csv (same hash, groups and metrics), fitting every metric with
 * them: 0 with m->from_file set; 1 when there is no usable model.json
 * (m->stale set when there was one for another summary.csv); -ENOMEM. */
static int file_load(pp_model *m, const char *dir)
{
    char path[PP_PATH_MAX], hash[32];
    json_error_t err;
    json_t *root, *groups;
    json_int_t version;
    int rc = 1;

    if (pp_fmt(path, sizeof path, "%s/model.json", dir) < 0 || /* too long: none to read */
        !(root = json_load_file(path, 0, &err)))
        return 1;
    _Static_assert(sizeof hash >= 17, "16 hex digits fit");
    snprintf(hash, sizeof hash, "%016llx", m->summary_hash);
    groups = json_object_get(root, "groups");
    version = json_integer_value(json_object_get(root, "version"));
    if (version < 2 || version > MODEL_VERSION ||
        !json_is_string(json_object_get(root, "summary_hash")) ||
        strcmp(json_string_value(json_object_get(root, "summary_hash")), hash) != 0 ||
        json_array_size(groups) != m->n_groups) {
        m->stale = 1;
    } else {
        rc = 0;
        for (size_t g = 0; rc == 0 && g < m->n_groups; g++) {
            where w = {path, g, ""};
            rc = load_group(m, &m->groups[g], json_array_get(groups, g), &w);
        }
        m->from_file = rc == 0;
        if (rc == 0) {
            json_t *o = json_object_get(root, "options");
            const char *method = json_string_value(json_object_get(o, "method"));
            if (method)
                pp_method_parse(method, &m->opts.method);
        }
    }
    for (size_t g = 0; rc != 0 && g < m->n_groups; g++)
        pp_model_drop_fits(&m->groups[g], m->sum.n_metrics);
    json_decref(root);
    return rc;
}

/* Opening and freeing a model. */

void pp_model_free(pp_model *m)
{
    for (size_t g = 0; g < m->n_groups; g++)
        pp_model_free_group(&m->groups[g], m->sum.n_metrics);
    free(m->groups);
    free(m->node_factor);
    pp_fleet_free(m->fleet);
    free(m->fleet);
    pp_summary_free(&m->sum);
    memset(m, 0, sizeof *m);
}

int pp_model_read(const char *dir, const pp_model_options *o, int use_saved, pp_model *m)
{
    int rc;

    memset(m, 0, sizeof *m);
    m->band_kappa = NAN;
    if (o)
        m->opts = *o;
    else
        pp_model_options_init(&m->opts);
    if (m->opts.derivation < -1 || m->opts.derivation > 2) {
        pp_log_error("model options: derivation %d: -1 (the blend), 0, 1 or 2 (energy, mean "
                     "power or duration derived alone)", m->opts.derivation);
        return -EINVAL;
    }
    if ((rc = pp_summary_read_unique(dir, &m->sum)) < 0)
        return rc;
    if (m->sum.n_params == 0) {
        pp_log_error("%s/summary.csv has no parameter columns: nothing to model", dir);
        pp_model_free(m);
        return -EINVAL;
    }
    for (size_t k = 0; k < m->sum.n_params; k++)
        if (m->sum.param[k].kind != PP_PARAM_CATEGORICAL)
            m->num[m->n_num++] = k;
    m->summary_hash = file_hash(dir);
    rc = pp_model_build_groups(m);
    if (rc == 0 && use_saved)
        rc = file_load(m, dir);  /* 1: no usable model.json */
    if (rc == 1 || (rc == 0 && !m->from_file)) {
        rc = pp_model_build_fits(m);
        if (rc == 0) /* energy, power and duration made consistent */
            rc = pp_model_derive(m);
        if (rc == 0)
            rc = pp_model_calibrate_bands(m);
        if (rc == 0)
            rc = pp_model_pool_bands(m);
        if (!m->opts.keep_held)
            pp_model_fits_release(m);
    }
    if (rc < 0)
        pp_model_free(m);
    return rc;
}

/* The grid files of the plotted surfaces: the .dat files under RESULTS/model/, with the
 * 90 % band beside each value. */

enum { LINE = 200, SIDE = 60 };

/* dir/model/<metric>[__<a>__<b>][.g<g>].dat, the names checked by
 * pp_path_fmt (a name that cannot be part of a file name gets no grid). */
static int grid_path(char *buf, size_t cap, const char *dir, const char *metric, const char *a,
                     const char *b, size_t g)
{
    if (a && g > 0)
        return pp_path_fmt(buf, cap, dir, "model/%s__%s__%s.g%zu.dat", metric, a, b, g);
    if (a)
        return pp_path_fmt(buf, cap, dir, "model/%s__%s__%s.dat", metric, a, b);
    if (g > 0)
        return pp_path_fmt(buf, cap, dir, "model/%s.g%zu.dat", metric, g);
    return pp_path_fmt(buf, cap, dir, "model/%s.dat", metric);
}

/* Values at the grid points xs[n x d] (normalized): value, lo, hi each. The
 * weighted average's fast grid is not needed at these sizes: every
 * estimator goes through pp_est_predict, the path of every prediction. */
static void evaluate(const pp_model_fit *f, const double *xs, size_t n, size_t d, double *out)
{
    for (size_t i = 0; i < n; i++) {
        const double *xn = xs + i * d;
        out[3 * i] = pp_est_predict(&f->est, xn);
        pp_band(&f->choice, out[3 * i], xn, &out[3 * i + 1], &out[3 * i + 2]);
    }
}

/* A line over dimension a (the one that varies), or a surface over a and
 * b, the others at their middle. */
static int write_one(const pp_model *m, size_t g, size_t k, size_t a, size_t b, int line,
                     const char *dir, double *xs, double *out)
{
    const pp_model_group *gr = &m->groups[g];
    const pp_surface *s = &gr->surf;
    size_t n = line ? LINE : SIDE * SIDE, d = s->d ? s->d : 1;
    const char *pa = m->sum.params[m->num[a]], *pb = line ? NULL : m->sum.params[m->num[b]];
    char path[4400];
    pp_atomic_file af; /* whole or not at all: a full disk leaves no grid cut short */
    FILE *fp;
    int rc;

    if (grid_path(path, sizeof path, dir, m->sum.metrics[k], line ? NULL : pa, pb, g) < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < s->d; j++)
            xs[i * d + j] = 0.5;
        xs[i * d + a] = line ? (double)i / (LINE - 1.0) : (double)(i / SIDE) / (SIDE - 1.0);
        if (!line)
            xs[i * d + b] = (double)(i % SIDE) / (SIDE - 1.0);
    }
    evaluate(&gr->fits[k], xs, n, d, out);
    if ((rc = pp_atomic_file_open(&af, path)) < 0)
        return rc; /* said with the file and the reason */
    fp = af.fp;
    fprintf(fp, "# %s%s%s %s, lo, hi: predicted (%s) with its 90 %% band%s\n", pa,
            line ? "" : " ", line ? "" : pb, m->sum.metrics[k],
            pp_method_name(gr->fits[k].choice.spec.method),
            !line && s->d > 2 ? "; other parameters at their middle" : "");
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "%.10g ", pp_surface_denormalize(s, a, xs[i * d + a]));
        if (!line)
            fprintf(fp, "%.10g ", pp_surface_denormalize(s, b, xs[i * d + b]));
        fprintf(fp, "%.10g %.10g %.10g\n", out[3 * i], out[3 * i + 1], out[3 * i + 2]);
        if (!line && i % SIDE == SIDE - 1)
            fputc('\n', fp);
    }
    return pp_atomic_file_commit(&af); /* a failed write said with the file and the reason */
}

static int write_group(const pp_model *m, size_t g, const char *dir, double *xs, double *out)
{
    const pp_surface *s = &m->groups[g].surf;
    size_t vary[PP_SURFACE_MAX_DIMS], n_vary = pp_surface_varying(s, vary);
    int rc = 0;

    for (size_t k = 0; k < m->sum.n_metrics && rc == 0; k++) {
        if (m->groups[g].fits[k].n_values < 2)
            continue;
        if (n_vary == 1)
            rc = write_one(m, g, k, vary[0], vary[0], 1, dir, xs, out);
        for (size_t a = 0; n_vary > 1 && a < n_vary && rc == 0; a++)
            for (size_t b = a + 1; b < n_vary && rc == 0; b++)
                rc = write_one(m, g, k, vary[a], vary[b], 0, dir, xs, out);
    }
    return rc;
}

int pp_model_write_grids(const pp_model *m, const char *dir)
{
    char path[PP_PATH_MAX];
    size_t d = m->n_num ? m->n_num : 1;
    double *xs = malloc(SIDE * SIDE * d * sizeof *xs), *out = malloc(3 * SIDE * SIDE * sizeof *out);
    int rc = -ENOMEM;

    if (pp_path_in(path, sizeof path, dir, "model") < 0) {
        rc = -ENAMETOOLONG;
    } else if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", path, strerror(errno));
    } else if (xs && out) {
        rc = 0;
        for (size_t g = 0; g < m->n_groups && rc == 0; g++)
            rc = write_group(m, g, dir, xs, out);
    }
    free(xs);
    free(out);
    return rc;
}
