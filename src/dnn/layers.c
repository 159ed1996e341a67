#include "layers.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BYTES_PER_FLOAT 4.0
#define MAX_DIM 65536
/* darknet holds a layer's element counts (l.inputs, l.outputs, l.nweights)
 * in an int: a layer past that cannot be run, and its sizes would overflow */
#define MAX_ELEMENTS ((int64_t)INT_MAX)

static const char *const kind_names[PP_LAYER_KINDS] = {
    "convolutional", "connected", "maxpool", "avgpool", "route",   "upsample", "shortcut", "yolo",
    "region",        "detection", "dropout", "softmax", "cost",    "reorg",    "crop",
};

/* darknet's short names for the same sections */
static const struct {
    const char *name;
    pp_layer_kind kind;
} aliases[] = {
    {"conv", PP_LAYER_CONVOLUTIONAL}, {"conn", PP_LAYER_CONNECTED}, {"max", PP_LAYER_MAXPOOL},
    {"avg", PP_LAYER_AVGPOOL},        {"soft", PP_LAYER_SOFTMAX},
};

const char *pp_layer_kind_name(pp_layer_kind k)
{
    return (unsigned)k < PP_LAYER_KINDS ? kind_names[k] : "?";
}

int pp_layer_kind_from_name(const char *name)
{
    for (int k = 0; k < PP_LAYER_KINDS; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    for (size_t i = 0; i < PP_ARRAY_SIZE(aliases); i++)
        if (strcmp(aliases[i].name, name) == 0)
            return (int)aliases[i].kind;
    return -1;
}

/* One layer being described: its section, its place and what it reads. */
typedef struct ctx {
    const pp_dncfg *cfg;
    const pp_dncfg_section *s;
    pp_network_desc *net;
    size_t index;
    pp_layer_desc *l;
} ctx;

static int fail(const ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const ctx *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pp_log_error("%s:%d: [%s] (layer %zu): %s", c->cfg->name, c->s->line, c->s->type, c->index,
                 msg);
    return -EINVAL;
}

/* l's activation, refused (said with the layer) when longer than darknet's. */
static int set_activation(const ctx *c, pp_layer_desc *l, const char *act)
{
    if (pp_strlcpy(l->activation, act, sizeof l->activation) == 0)
        return 0;
    return fail(c, "activation '%.40s': longer than %zu characters", act,
                sizeof l->activation - 1);
}

static int get(const ctx *c, const char *key, int dflt, int min, int max, int *out)
{
    return pp_dncfg_int(c->cfg, c->s, key, dflt, min, max, out);
}

static int need_image(const ctx *c)
{
    const pp_layer_desc *l = c->l;

    if (l->in_w > 0 && l->in_h > 0 && l->in_c > 0)
        return 0;
    return fail(c, "the layer before gives no image (%d x %d x %d)", l->in_w, l->in_h, l->in_c);
}

/* The output shape, its size checked (checked arithmetic: w, h and ch come
 * from the cfg's numbers multiplied, up to 64 bits): -EINVAL logged with
 * the cfg's line past MAX_DIM or MAX_ELEMENTS. */
static int set_out(const ctx *c, int64_t w, int64_t h, int64_t ch)
{
    pp_layer_desc *l = c->l;

    if (w > MAX_DIM || h > MAX_DIM || ch > INT_MAX ||
        (w > 0 && h > 0 && ch > 0 && ch > MAX_ELEMENTS / (w * h)))
        return fail(c, "its output would be %lld x %lld x %lld values: more than darknet can "
                       "hold (%d per side, %lld in all)", (long long)w, (long long)h,
                    (long long)ch, MAX_DIM, (long long)MAX_ELEMENTS);
    l->out_w = (int)w;
    l->out_h = (int)h;
    l->out_c = (int)ch;
    l->outputs = l->out_w > 0 && l->out_h > 0 && l->out_c > 0 ? (long)w * h * ch : 0;
    return 0;
}

/* A layer's weight count (darknet's int l.nweights), checked. */
static int set_weights(const ctx *c, int64_t a, int64_t b)
{
    if (a > MAX_ELEMENTS || b > MAX_ELEMENTS || (a > 0 && b > MAX_ELEMENTS / a))
        return fail(c, "%lld x %lld weights: more than darknet can hold (%lld)", (long long)a,
                    (long long)b, (long long)MAX_ELEMENTS);
    c->l->nweights = (long)(a * b);
    return 0;
}

static int check_out(const ctx *c)
{
    if (c->l->out_w >= 1 && c->l->out_h >= 1 && c->l->out_c >= 1)
        return 0;
    return fail(c, "its output would be %d x %d x %d: the input (%d x %d) is too small for it",
                c->l->out_w, c->l->out_h, c->l->out_c, c->l->in_w, c->l->in_h);
}

static int describe_conv(const ctx *c)
{
    pp_layer_desc *l = c->l;
    const pp_dncfg_option *act = pp_dncfg_find(c->s, "activation");
    int pad = 0, padding = 0, rc;

    if ((rc = need_image(c)) < 0 || (rc = get(c, "filters", 1, 1, MAX_DIM, &l->filters)) < 0 ||
        (rc = get(c, "size", 1, 1, 1024, &l->size)) < 0 ||
        (rc = get(c, "stride", 1, 1, 1024, &l->stride)) < 0 ||
        (rc = get(c, "pad", 0, 0, 1, &pad)) < 0 ||
        (rc = get(c, "padding", 0, 0, 1024, &padding)) < 0 ||
        (rc = get(c, "groups", 1, 1, MAX_DIM, &l->groups)) < 0 ||
        (rc = get(c, "batch_normalize", 0, 0, 1, &l->batch_normalize)) < 0)
        return rc;
    if (l->in_c % l->groups != 0)
        return fail(c, "groups=%d does not divide the %d input channels", l->groups, l->in_c);
    l->pad = pad ? l->size / 2 : padding;
    if ((rc = set_out(c, ((int64_t)l->in_w + 2 * l->pad - l->size) / l->stride + 1,
                      ((int64_t)l->in_h + 2 * l->pad - l->size) / l->stride + 1, l->filters)) < 0 ||
        (rc = set_weights(c, (int64_t)(l->in_c / l->groups) * l->filters,
                          (int64_t)l->size * l->size)) < 0)
        return rc;
    if ((rc = set_activation(c, l, act ? act->value : "logistic")) < 0)
        return rc;
    l->flops = 2.0 * l->filters * l->size * l->size * l->in_c / l->groups * l->out_h * l->out_w;
    l->param_bytes = BYTES_PER_FLOAT * ((double)l->nweights + l->filters * (l->batch_normalize ? 4 : 1));
    return check_out(c);
}

static int describe_connected(const ctx *c)
{
    pp_layer_desc *l = c->l;
    const pp_dncfg_option *act = pp_dncfg_find(c->s, "activation");
    int rc;

    if ((rc = get(c, "output", 1, 1, INT_MAX, &l->filters)) < 0 ||
        (rc = get(c, "batch_normalize", 0, 0, 1, &l->batch_normalize)) < 0)
        return rc;
    if (l->inputs <= 0)
        return fail(c, "the layer before gives no output");
    if ((rc = set_out(c, 1, 1, l->filters)) < 0 || (rc = set_weights(c, l->inputs, l->filters)) < 0)
        return rc;
    if ((rc = set_activation(c, l, act ? act->value : "logistic")) < 0)
        return rc;
    l->flops = 2.0 * (double)l->inputs * l->filters;
    l->param_bytes = BYTES_PER_FLOAT * ((double)l->nweights + l->filters * (l->batch_normalize ? 4 : 1));
    return 0;
}

static int describe_maxpool(const ctx *c)
{
    pp_layer_desc *l = c->l;
    int rc;

    if ((rc = need_image(c)) < 0 || (rc = get(c, "stride", 1, 1, 1024, &l->stride)) < 0 ||
        (rc = get(c, "size", l->stride, 1, 1024, &l->size)) < 0 ||
        (rc = get(c, "padding", l->size - 1, 0, 1024, &l->pad)) < 0)
        return rc;
    if ((rc = set_out(c, ((int64_t)l->in_w + l->pad - l->size) / l->stride + 1,
                      ((int64_t)l->in_h + l->pad - l->size) / l->stride + 1, l->in_c)) < 0)
        return rc;
    return check_out(c);
}

/* index as written (negative: counted back from this layer) into from[]. */
static int resolve(const ctx *c, const char *key, int index)
{
    int abs_index = index < 0 ? (int)c->index + index : index;

    if (abs_index < 0 || abs_index >= (int)c->index)
        return fail(c, "%s=%d: no such earlier layer (this is layer %zu)", key, index, c->index);
    c->l->from[c->l->n_from++] = abs_index;
    return 0;
}

static int describe_route(const ctx *c)
{
    pp_layer_desc *l = c->l;
    int idx[PP_LAYER_MAX_FROM];
    size_t n;
    int rc = pp_dncfg_ints(c->cfg, c->s, "layers", idx, PP_LAYER_MAX_FROM, &n);

    if (rc == -ENOENT)
        return fail(c, "a route needs layers=");
    if (rc < 0)
        return rc;
    l->inputs = 0;
    for (size_t i = 0; i < n; i++) {
        const pp_layer_desc *src;
        if ((rc = resolve(c, "layers", idx[i])) < 0)
            return rc;
        src = &c->net->layers[l->from[i]];
        l->inputs += src->outputs;
        if (i == 0)
            rc = set_out(c, src->out_w, src->out_h, src->out_c);
        else if (src->out_w == l->out_w && src->out_h == l->out_h)
            rc = set_out(c, l->out_w, l->out_h, (int64_t)l->out_c + src->out_c);
        else
            return fail(c, "layers=%s: layer %d is %d x %d, layer %d is %d x %d: they cannot be "
                           "concatenated", pp_dncfg_find(c->s, "layers")->value, l->from[0],
                        l->out_w, l->out_h, l->from[i], src->out_w, src->out_h);
        if (rc < 0)
            return rc;
    }
    l->in_w = l->out_w;
    l->in_h = l->out_h;
    l->in_c = l->out_c;
    return 0;
}

static int describe_upsample(const ctx *c)
{
    pp_layer_desc *l = c->l;
    int rc;

    if ((rc = need_image(c)) < 0 || (rc = get(c, "stride", 2, -1024, 1024, &l->stride)) < 0)
        return rc;
    if (l->stride == 0)
        return fail(c, "stride=0");
    if (l->stride > 0)
        rc = set_out(c, (int64_t)l->in_w * l->stride, (int64_t)l->in_h * l->stride, l->in_c);
    else
        rc = set_out(c, l->in_w / -l->stride, l->in_h / -l->stride, l->in_c);
    return rc < 0 ? rc : check_out(c);
}

static int describe_shortcut(const ctx *c)
{
    const pp_dncfg_option *o = pp_dncfg_find(c->s, "from");
    int from, rc;

    if (!o)
        return fail(c, "a shortcut needs from=");
    if ((rc = need_image(c)) < 0 || (rc = get(c, "from", 0, INT_MIN, INT_MAX, &from)) < 0 ||
        (rc = resolve(c, "from", from)) < 0)
        return rc;
    return set_out(c, c->l->in_w, c->l->in_h, c->l->in_c);
}

/* yolo, region: the layer before must give n (classes + coords + 1)
 * channels, as darknet asserts (it aborts otherwise). */
static int describe_detector(const ctx *c, int coords_dflt)
{
    pp_layer_desc *l = c->l;
    int classes, num, coords = coords_dflt, mask[64], rc;
    size_t n_mask = 0;

    if ((rc = need_image(c)) < 0 || (rc = get(c, "classes", 20, 1, 1 << 20, &classes)) < 0 ||
        (rc = get(c, "num", 1, 1, 4096, &num)) < 0 ||
        (l->kind == PP_LAYER_REGION && (rc = get(c, "coords", 4, 0, 64, &coords)) < 0))
        return rc;
    if (l->kind == PP_LAYER_YOLO &&
        (rc = pp_dncfg_ints(c->cfg, c->s, "mask", mask, PP_ARRAY_SIZE(mask), &n_mask)) < 0 &&
        rc != -ENOENT)
        return rc;
    if (n_mask)
        num = (int)n_mask;
    if ((long)num * (classes + coords + 1) != l->in_c)
        return fail(c, "the layer before has %d channels; %d boxes x (%d classes + %d) need %ld",
                    l->in_c, num, classes, coords + 1, (long)num * (classes + coords + 1));
    return set_out(c, l->in_w, l->in_h, l->in_c);
}

static int describe_detection(const ctx *c)
{
    pp_layer_desc *l = c->l;
    int classes, num, coords, side, rc;

    if ((rc = get(c, "classes", 1, 1, 1 << 20, &classes)) < 0 ||
        (rc = get(c, "num", 1, 1, 4096, &num)) < 0 ||
        (rc = get(c, "coords", 1, 0, 64, &coords)) < 0 ||
        (rc = get(c, "side", 7, 1, 4096, &side)) < 0)
        return rc;
    if ((long)side * side * ((1 + coords) * num + classes) != l->inputs)
        return fail(c, "the layer before gives %ld values; side %d, %d boxes, %d coords and %d "
                       "classes need %ld", l->inputs, side, num, coords, classes,
                    (long)side * side * ((1 + coords) * num + classes));
    if ((rc = set_out(c, l->in_w, l->in_h, l->in_c)) < 0)
        return rc;
    l->outputs = l->inputs;
    return 0;
}

static int describe_reorg(const ctx *c)
{
    pp_layer_desc *l = c->l;
    int reverse, rc;

    if ((rc = need_image(c)) < 0 || (rc = get(c, "stride", 1, 1, 1024, &l->stride)) < 0 ||
        (rc = get(c, "reverse", 0, 0, 1, &reverse)) < 0)
        return rc;
    if (reverse)
        rc = set_out(c, (int64_t)l->in_w * l->stride, (int64_t)l->in_h * l->stride,
                     l->in_c / ((int64_t)l->stride * l->stride));
    else
        rc = set_out(c, l->in_w / l->stride, l->in_h / l->stride,
                     (int64_t)l->in_c * l->stride * l->stride);
    return rc < 0 ? rc : check_out(c);
}

static int describe_crop(const ctx *c)
{
    pp_layer_desc *l = c->l;
    int cw, ch, rc;

    if ((rc = need_image(c)) < 0 || (rc = get(c, "crop_width", 1, 1, MAX_DIM, &cw)) < 0 ||
        (rc = get(c, "crop_height", 1, 1, MAX_DIM, &ch)) < 0)
        return rc;
    if (cw > l->in_w || ch > l->in_h)
        return fail(c, "crop_width=%d crop_height=%d: larger than its %d x %d input", cw, ch,
                    l->in_w, l->in_h);
    return set_out(c, cw, ch, l->in_c);
}

/* Layers whose output is their input (dropout, softmax, cost); darknet
 * leaves a softmax's and a cost's image shape at 0. */
static int describe_same(const ctx *c)
{
    pp_layer_desc *l = c->l;

    if (l->inputs <= 0)
        return fail(c, "the layer before gives no output");
    if (l->kind == PP_LAYER_DROPOUT && set_out(c, l->in_w, l->in_h, l->in_c) < 0)
        return -EINVAL;
    l->outputs = l->inputs;
    return 0;
}

static int describe_kind(const ctx *c)
{
    switch (c->l->kind) {
    case PP_LAYER_CONVOLUTIONAL: return describe_conv(c);
    case PP_LAYER_CONNECTED: return describe_connected(c);
    case PP_LAYER_MAXPOOL: return describe_maxpool(c);
    case PP_LAYER_AVGPOOL:
        if (need_image(c) < 0)
            return -EINVAL;
        return set_out(c, 1, 1, c->l->in_c);
    case PP_LAYER_ROUTE: return describe_route(c);
    case PP_LAYER_UPSAMPLE: return describe_upsample(c);
    case PP_LAYER_SHORTCUT: return describe_shortcut(c);
    case PP_LAYER_YOLO: return describe_detector(c, 4);
    case PP_LAYER_REGION: return describe_detector(c, 4);
    case PP_LAYER_DETECTION: return describe_detection(c);
    case PP_LAYER_REORG: return describe_reorg(c);
    case PP_LAYER_CROP: return describe_crop(c);
    default: return describe_same(c);
    }
}

/* The [net] section: input size (width x height override when > 0). */
static int describe_input(const pp_dncfg *cfg, int width, int height, pp_network_desc *out)
{
    const pp_dncfg_section *s = &cfg->sections[0];
    int rc;

    if ((rc = pp_dncfg_int(cfg, s, "width", 0, 0, MAX_DIM, &out->width)) < 0 ||
        (rc = pp_dncfg_int(cfg, s, "height", 0, 0, MAX_DIM, &out->height)) < 0 ||
        (rc = pp_dncfg_int(cfg, s, "channels", 0, 0, MAX_DIM, &out->channels)) < 0)
        return rc;
    if (width > 0 && height > 0) {
        out->width = width;
        out->height = height;
    }
    if (out->width <= 0 || out->height <= 0 || out->channels <= 0) {
        pp_log_error("%s:%d: [%s]: width, height and channels must be given (%d x %d x %d)",
                     cfg->name, s->line, s->type, out->width, out->height, out->channels);
        return -EINVAL;
    }
    if ((int64_t)out->width * out->height > MAX_ELEMENTS / out->channels) {
        pp_log_error("%s:%d: [%s]: an input of %d x %d x %d values: more than darknet can hold "
                     "(%lld)", cfg->name, s->line, s->type, out->width, out->height,
                     out->channels, (long long)MAX_ELEMENTS);
        return -EINVAL;
    }
    return 0;
}

static void finish_layer(pp_layer_desc *l)
{
    l->in_bytes = BYTES_PER_FLOAT * (double)l->inputs;
    l->out_bytes = BYTES_PER_FLOAT * (double)l->outputs;
}

int pp_layers_describe(const pp_dncfg *cfg, int width, int height, pp_network_desc *out)
{
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = describe_input(cfg, width, height, out)) < 0)
        return rc;
    for (size_t i = 1; i < cfg->n_sections; i++) {
        ctx c = {cfg, &cfg->sections[i], out, i - 1, &out->layers[i - 1]};
        const pp_layer_desc *prev = i > 1 ? &out->layers[i - 2] : NULL;
        int kind = pp_layer_kind_from_name(c.s->type);

        if (i - 1 == PP_LAYER_MAX) {
            pp_log_error("%s:%d: more than %d layers", cfg->name, c.s->line, PP_LAYER_MAX);
            return -E2BIG;
        }
        if (kind < 0) {
            pp_log_error("%s:%d: [%s]: a layer type powprof does not model (known: "
                         "convolutional, connected, maxpool, avgpool, route, upsample, shortcut, "
                         "yolo, region, detection, dropout, softmax, cost, reorg, crop)",
                         cfg->name, c.s->line, c.s->type);
            return -EINVAL;
        }
        c.l->kind = (pp_layer_kind)kind;
        c.l->line = c.s->line;
        c.l->in_w = prev ? prev->out_w : out->width;
        c.l->in_h = prev ? prev->out_h : out->height;
        c.l->in_c = prev ? prev->out_c : out->channels;
        c.l->inputs = prev ? prev->outputs : (long)out->width * out->height * out->channels;
        if ((rc = describe_kind(&c)) < 0)
            return rc;
        finish_layer(c.l);
        out->flops += c.l->flops;
        out->n++;
    }
    if (out->n == 0) {
        pp_log_error("%s: no layer after [%s]", cfg->name, cfg->sections[0].type);
        return -EINVAL;
    }
    return 0;
}

int pp_layers_describe_file(const char *path, int width, int height, pp_network_desc *out)
{
    pp_dncfg cfg;
    const char *base = strrchr(path, '/');
    size_t len;
    int rc = pp_dncfg_read(path, &cfg);

    if (rc < 0)
        return rc;
    rc = pp_layers_describe(&cfg, width, height, out);
    pp_dncfg_free(&cfg);
    base = base ? base + 1 : path;
    len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".cfg") == 0)
        len -= 4;
    snprintf(out->name, sizeof out->name, "%.*s", (int)len, base);
    return rc;
}
