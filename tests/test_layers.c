/* Per-layer profiles, layer models and predictions (issue 14). */
#include "harness.h"

#include "src/api/layers_doc.h"
#include "src/layer2/lapack.h"
#include "src/dnn/darknet_cfg.h"
#include "src/dnn/layers.h"
#include "src/dnn/layers_model.h"
#include "src/dnn/layers_plan.h"
#include "src/dnn/layers_profile.h"
#include "src/dnn/layers_choose.h"
#include "src/dnn/layers_data.h"
#include "src/dnn/layers_eval.h"
#include "src/dnn/layers_predict.h"
#include "src/dnn/layers_json.h"
#include "components/registry.h"
#include "battery/battery.h"

#include <errno.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A cfg written into the test's folder; its path (static buffer). */
static const char *cfg_file(const char *name, const char *text)
{
    static char path[4][600];
    static int k;
    char *p = path[k++ % 4];

    snprintf(p, 600, "%s/%s", test_tmpdir(), name);
    CHECK_INT(write_file(p, text), 0);
    return p;
}

static const char small_cfg[] =
    "# conv 3x3 stride 2, maxpool, 1x1 conv, upsample, two routes\n"
    "[net]\n"
    "width=64\n"
    "height = 48\n"
    "channels=3\n"
    "\n"
    "[convolutional]\n"            /* layer 0, line 7 */
    "batch_normalize=1\n"
    "filters=8\n"
    "size=3\n"
    "stride=2\n"
    "pad=1\n"
    "activation=leaky\n"
    "\n"
    "[maxpool]\n"                  /* layer 1, line 15 */
    "size=2\n"
    "stride=2\n"
    "\n"
    "[convolutional]\n"            /* layer 2, line 19 */
    "filters=16\n"
    "size=1\n"
    "activation=linear\n"
    "\n"
    "[upsample]\n"                 /* layer 3 */
    "stride=2\n"
    "\n"
    "[route]\n"                    /* layer 4 */
    "layers = -1, 0\n"
    "\n"
    "[route]\n"                    /* layer 5 */
    "layers=-4\n";

static void check_shape(const pp_layer_desc *l, int iw, int ih, int ic, int ow, int oh, int oc)
{
    CHECK_INT(l->in_w, iw);
    CHECK_INT(l->in_h, ih);
    CHECK_INT(l->in_c, ic);
    CHECK_INT(l->out_w, ow);
    CHECK_INT(l->out_h, oh);
    CHECK_INT(l->out_c, oc);
}

/* Shapes, FLOPs and bytes worked out by hand from darknet's rules. */
void test_layers_descriptors_by_hand(void);
void test_layers_descriptors_by_hand(void)
{
    pp_network_desc *d = malloc(sizeof *d);
    const pp_layer_desc *l = d->layers;

    CHECK_INT(pp_layers_describe_file(cfg_file("small.cfg", small_cfg), 0, 0, d), 0);
    CHECK_STR(d->name, "small");
    CHECK_INT(d->n, 6);
    /* conv: (64 + 2 - 3) / 2 + 1 = 32, (48 + 2 - 3) / 2 + 1 = 24 */
    CHECK_INT(l[0].kind, PP_LAYER_CONVOLUTIONAL);
    CHECK_INT(l[0].line, 7);
    check_shape(&l[0], 64, 48, 3, 32, 24, 8);
    CHECK_INT(l[0].pad, 1);
    CHECK_INT(l[0].nweights, 3 * 8 * 3 * 3);
    CHECK_NEAR(l[0].flops, 2.0 * 8 * 9 * 3 * 32 * 24, 0);
    CHECK_NEAR(l[0].param_bytes, 4.0 * (216 + 8 * 4), 0); /* weights, biases, 3 batch-norm */
    CHECK_NEAR(l[0].in_bytes, 4.0 * 64 * 48 * 3, 0);
    CHECK_NEAR(l[0].out_bytes, 4.0 * 32 * 24 * 8, 0);
    CHECK_STR(l[0].activation, "leaky");
    /* maxpool: padding size - 1 = 1: (32 + 1 - 2) / 2 + 1 = 16, (24 + 1 - 2) / 2 + 1 = 12 */
    CHECK_INT(l[1].kind, PP_LAYER_MAXPOOL);
    check_shape(&l[1], 32, 24, 8, 16, 12, 8);
    CHECK_NEAR(l[1].flops, 0, 0);
    /* 1x1 conv, no padding; the default activation would be logistic */
    check_shape(&l[2], 16, 12, 8, 16, 12, 16);
    CHECK_NEAR(l[2].flops, 2.0 * 16 * 8 * 16 * 12, 0);
    CHECK_NEAR(l[2].param_bytes, 4.0 * (8 * 16 + 16), 0);
    check_shape(&l[3], 16, 12, 16, 32, 24, 16);
    /* route -1, 0: layer 3 (32x24x16) and layer 0 (32x24x8) */
    CHECK_INT(l[4].kind, PP_LAYER_ROUTE);
    CHECK_INT(l[4].n_from, 2);
    CHECK_INT(l[4].from[0], 3);
    CHECK_INT(l[4].from[1], 0);
    check_shape(&l[4], 32, 24, 24, 32, 24, 24);
    CHECK_INT(l[4].inputs, 32 * 24 * 16 + 32 * 24 * 8);
    /* route -4 from layer 5: layer 1 */
    CHECK_INT(l[5].from[0], 1);
    check_shape(&l[5], 16, 12, 8, 16, 12, 8);
    CHECK_NEAR(d->flops, l[0].flops + l[2].flops, 0);
    /* another input size: the same rules */
    CHECK_INT(pp_layers_describe_file(cfg_file("small.cfg", small_cfg), 96, 64, d), 0);
    check_shape(&l[0], 96, 64, 3, 48, 32, 8);
    check_shape(&l[5], 24, 16, 8, 24, 16, 8);
    free(d);
}

static void expect_cfg_error(const char *text, const char *message)
{
    pp_network_desc *d = malloc(sizeof *d);

    test_log_clear();
    CHECK(pp_layers_describe_file(cfg_file("bad.cfg", text), 0, 0, d) < 0);
    CHECK_CONTAINS(test_log(), message);
    free(d);
}

/* Bad cfgs name the file and the line, with the value at fault. */
void test_layers_cfg_errors(void);
void test_layers_cfg_errors(void)
{
    char path[700];

    expect_cfg_error("[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=abc\n",
                     "bad.cfg:6: [convolutional] filters=abc: not an integer");
    expect_cfg_error("[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nsize 3\n",
                     "bad.cfg:6: not 'key=value': 'size3'");
    expect_cfg_error("width=32\n[net]\n", "bad.cfg:1: a key before the first [section]");
    expect_cfg_error("[convolutional]\nfilters=2\n", "bad.cfg:1: a network file starts with "
                                                     "[net], not [convolutional]");
    expect_cfg_error("[net]\nwidth=32\nheight=32\nchannels=3\n[maxpool]\n[route]\nlayers=-3\n",
                     "bad.cfg:6: [route] (layer 1): layers=-3: no such earlier layer");
    expect_cfg_error("[net]\nwidth=32\nheight=32\nchannels=3\n\n[lstm]\noutput=4\n",
                     "bad.cfg:6: [lstm]: a layer type powprof does not model");
    expect_cfg_error("[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=4\n"
                     "size=3\nstride=2\n[maxpool]\nsize=2\nstride=2\n[route]\nlayers=-1,-2\n",
                     "bad.cfg:12: [route] (layer 2): layers=-1,-2: layer 1 is 8 x 8, layer 0 "
                     "is 15 x 15: they cannot be concatenated");
    expect_cfg_error("[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=20\n"
                     "[yolo]\nmask=0,1,2\nclasses=80\nnum=9\n",
                     "bad.cfg:7: [yolo] (layer 1): the layer before has 20 channels; 3 boxes x "
                     "(80 classes + 5) need 255");
    expect_cfg_error("[net]\nwidth=4\nheight=4\nchannels=3\n[convolutional]\nsize=7\n",
                     "bad.cfg:5: [convolutional] (layer 0): its output would be -2 x -2 x 1");
    /* issue 40: an activation that does not fit is refused, not cut */
    expect_cfg_error("[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\n"
                     "activation=leaky_and_then_some\n",
                     "bad.cfg:5: [convolutional] (layer 0): activation 'leaky_and_then_some': "
                     "longer than 15 characters");
    expect_cfg_error("[net]\nchannels=3\n[maxpool]\n",
                     "bad.cfg:1: [net]: width, height and channels must be given (0 x 0 x 3)");
    expect_cfg_error("[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional\n",
                     "bad.cfg:5: a section is '[type]', not '[convolutional'");
    snprintf(path, sizeof path, "%s/nothing.cfg", test_tmpdir());
    {
        pp_network_desc *d = malloc(sizeof *d);
        CHECK(pp_layers_describe_file(path, 0, 0, d) < 0);
        CHECK_CONTAINS(test_log(), "nothing.cfg: cannot read");
        free(d);
    }
}

/* darknet's rules for the cfgs Debian ships: the FLOPs darknet prints. */
void test_layers_debian_cfgs(void);
void test_layers_debian_cfgs(void)
{
    static const struct {
        const char *name;
        double gflops; /* darknet's layer table, summed */
        size_t n;
    } nets[] = {{"yolov3-tiny", 5.565, 24}, {"yolov2-tiny", 5.406, 16}, {"resnet18", 4.688, 29},
                {"yolov3", 140.692, 107}};
    pp_network_desc *d = malloc(sizeof *d);
    char path[600];

    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.cfg", PP_LAYERS_CFG_DIR, nets[i].name);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "    (skipped %s: darknet's cfgs not installed)\n", path);
            continue;
        }
        CHECK_INT(pp_layers_describe_file(path, 0, 0, d), 0);
        CHECK_INT(d->n, nets[i].n);
        CHECK_NEAR(d->flops * 1e-9, nets[i].gflops, 0.001);
    }
    free(d);
}

/* dgelsd through the lazily loaded LAPACK: an exact fit, and a rank
 * deficient one (the minimum-norm solution). */
void test_layers_lapack_least_squares(void);
void test_layers_lapack_least_squares(void)
{
    /* y = 1 + 2 x at x = 0..4, column-major [1 x] */
    double a[10] = {1, 1, 1, 1, 1, 0, 1, 2, 3, 4}, b[5] = {1, 3, 5, 7, 9};
    double c[6] = {1, 1, 1, 1, 1, 1}, d[3] = {2, 2, 2};
    int rank = 0;

    CHECK_INT(pp_lapack_dgelsd(5, 2, a, 5, b, -1.0, &rank), 0);
    CHECK_INT(rank, 2);
    CHECK_NEAR(b[0], 1.0, 1e-12);
    CHECK_NEAR(b[1], 2.0, 1e-12);
    /* two equal columns: rank 1, the solution split between them */
    CHECK_INT(pp_lapack_dgelsd(3, 2, c, 3, d, 1e-10, &rank), 0);
    CHECK_INT(rank, 1);
    CHECK_NEAR(d[0], 1.0, 1e-12);
    CHECK_NEAR(d[1], 1.0, 1e-12);
}

/* ---- Synthetic profiles ------------------------------------------------- */

/* A law of a layer's CPU time: what the synthetic profiles measure. */
typedef double (*time_law)(const pp_layer_desc *l);

static double channels_up(int c, int w) { return ceil((double)c / w) * w; }

/* linear: 20 us + FLOPs at 8 GFLOPS; data layers 5 us + 1 ns per byte */
static double linear_law(const pp_layer_desc *l)
{
    return l->flops > 0 ? 20e-6 + l->flops / 8e9 : 5e-6 + 1e-9 * (l->in_bytes + l->out_bytes);
}

/* step: filters rounded up to a multiple of 8 (parallel lanes) */
static double step_law(const pp_layer_desc *l)
{
    if (l->flops <= 0)
        return linear_law(l);
    return 30e-6 + l->flops * channels_up(l->filters, 8) / l->filters / 5e9;
}

/* Profile rows of cfg text at sizes (n of them), times from law, energy 2 W
 * times the time, appended to dir's files (through the writer). */
static void synthetic_profile(const char *dir, const char *name, const char *text,
                              const int *sizes, size_t n, time_law law)
{
    static pp_layers_result res[32];
    static size_t n_res;
    char file[64];

    snprintf(file, sizeof file, "%s.cfg", name);
    for (size_t k = 0; k < n; k++) {
        pp_layers_result *r = &res[n_res++];
        memset(r, 0, sizeof *r);
        r->desc = malloc(sizeof *r->desc);
        CHECK_INT(pp_layers_describe_file(cfg_file(file, text), sizes[k], sizes[k], r->desc), 0);
        r->layer = calloc(r->desc->n, sizeof *r->layer);
        r->n_frames = 3;
        r->idle_w = 1.5;
        r->estimated = 1;
        strcpy(r->device, "procstat");
        for (size_t i = 0; i < r->desc->n; i++) {
            double t = law(&r->desc->layers[i]);
            r->layer[i].time_s = r->layer[i].cpu_s = t;
            r->layer[i].energy_j = 2.0 * t;
            r->layers_sum.cpu_s += t;
        }
        r->whole = r->layers_sum;
        r->whole.time_s = r->layers_sum.time_s = r->whole.cpu_s;
        r->whole.energy_j = r->layers_sum.energy_j = 2.0 * r->whole.cpu_s;
    }
    CHECK_INT(pp_layers_write(dir, res, n_res), 0);
    if (!name[0]) { /* "": start again */
        for (size_t k = 0; k < n_res; k++)
            pp_layers_result_free(&res[k]);
        n_res = 0;
    }
}

/* Networks of convolutions with many filter counts (none a multiple of 8
 * in net b), for the fits to see the step. */
static const char net_a[] =
    "[net]\nwidth=32\nheight=32\nchannels=3\n"
    "[convolutional]\nfilters=12\nsize=3\npad=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[convolutional]\nfilters=20\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=44\nsize=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[convolutional]\nfilters=60\nsize=3\npad=1\nactivation=leaky\n";
static const char net_b[] =
    "[net]\nwidth=32\nheight=32\nchannels=3\n"
    "[convolutional]\nfilters=5\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=27\nsize=3\nstride=2\npad=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[convolutional]\nfilters=33\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=50\nsize=1\nactivation=leaky\n";
static const char net_c[] = /* reads what net a's first layer writes */
    "[net]\nwidth=32\nheight=32\nchannels=12\n"
    "[convolutional]\nfilters=9\nsize=5\npad=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[convolutional]\nfilters=70\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=3\nsize=1\nactivation=leaky\n";

static void synthetic_data(const char *dir, time_law law, pp_layers_data *d)
{
    static const int sizes[] = {32, 48, 64};

    mkdir(dir, 0755);
    synthetic_profile(dir, "a", net_a, sizes, 3, law);
    synthetic_profile(dir, "b", net_b, sizes, 3, law);
    synthetic_profile(dir, "c", net_c, sizes, 3, law);
    synthetic_profile(dir, "", net_c, sizes, 0, law); /* frees */
    memset(d, 0, sizeof *d);
    CHECK_INT(pp_layers_data_read(dir, d), 0);
    CHECK_INT(d->n_networks, 9);
}

/* A model fitted on synthetic layer times recovers them: the linear law by
 * the linear family, the step law by the step family with its width (8),
 * and the family chosen by leave-one-network-out for each is the one that
 * made the data. */
void test_layers_fit_recovers_synthetic(void);
void test_layers_fit_recovers_synthetic(void)
{
    char dir[700];
    pp_layers_data d;
    pp_layer_model *m = malloc(sizeof *m);
    pp_layer_fit_opts lin = {PP_LF_LINEAR, NULL, 0}, chosen = {-1, NULL, 0};
    const pp_layer_fit *f = &m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL];

    snprintf(dir, sizeof dir, "%s/linear", test_tmpdir());
    synthetic_data(dir, linear_law, &d);
    CHECK_INT(pp_layer_model_fit(&d, &lin, m), 0);
    CHECK_INT(f->family, PP_LF_LINEAR);
    CHECK_NEAR(f->coef[0], 20e-6, 1e-9);
    CHECK_NEAR(f->coef[1] * 8e9, 1.0, 1e-6);
    CHECK_NEAR(m->fit[PP_LQ_ENERGY][PP_LAYER_CONVOLUTIONAL].coef[1] * 8e9, 2.0, 2e-6);
    CHECK_INT(pp_layer_model_fit(&d, &chosen, m), 0); /* chosen: the errors of every family */
    CHECK_INT(f->family, PP_LF_LINEAR);
    CHECK(f->loo_rmspe[PP_LF_LINEAR] < 1e-6);
    CHECK_NEAR(m->idle_w, 1.5, 0);
    pp_layers_data_free(&d);

    snprintf(dir, sizeof dir, "%s/step", test_tmpdir());
    synthetic_data(dir, step_law, &d);
    CHECK_INT(pp_layer_model_fit(&d, &chosen, m), 0);
    CHECK_INT(f->family, PP_LF_STEP);
    CHECK_INT(f->step_w, 8);
    CHECK_NEAR(f->coef[0], 30e-6, 1e-9);
    CHECK_NEAR(f->coef[1] * 5e9, 1.0, 1e-6);
    CHECK(f->loo_rmspe[PP_LF_STEP] < 1e-6);
    CHECK(f->loo_rmspe[PP_LF_LINEAR] > 0.01); /* the linear template cannot follow the steps */
    pp_layers_data_free(&d);
    free(m);
}

/* Find in d a layer of the same kind and shape as l; its CPU time. */
static double profiled_time(const pp_layers_data *d, const pp_layer_desc *l)
{
    for (size_t i = 0; i < d->n_samples; i++) {
        const pp_layer_desc *s = &d->samples[i].d;
        if (s->kind == l->kind && s->in_w == l->in_w && s->in_h == l->in_h &&
            s->in_c == l->in_c && s->out_c == l->out_c && s->size == l->size &&
            s->stride == l->stride && s->filters == l->filters)
            return d->samples[i].y[PP_LQ_CPU];
    }
    return NAN;
}

/* A network never profiled, made of layers whose shapes were (net a's
 * first layer, then net c's, which reads what it writes): its prediction is
 * the sum of those layers' profiled times; and through the commands. */
void test_layers_predict_composed_network(void);
void test_layers_predict_composed_network(void)
{
    static const char composed[] =
        "[net]\nwidth=32\nheight=32\nchannels=3\n"
        "[convolutional]\nfilters=12\nsize=3\npad=1\nactivation=leaky\n" /* a's layer 0 */
        "[convolutional]\nfilters=9\nsize=5\npad=1\nactivation=leaky\n"  /* c's layers */
        "[maxpool]\nsize=2\nstride=2\n"
        "[convolutional]\nfilters=70\nsize=3\npad=1\nactivation=leaky\n"
        "[convolutional]\nfilters=3\nsize=1\nactivation=leaky\n";
    char dir[700], model[800], *out = NULL;
    pp_layers_data d;
    pp_layer_model *m = malloc(sizeof *m);
    pp_network_desc *net = malloc(sizeof *net);
    pp_layers_prediction p;
    pp_layer_fit_opts o = {-1, NULL, 0};
    double sum = 0.0;
    json_t *root;

    snprintf(dir, sizeof dir, "%s/step", test_tmpdir());
    synthetic_data(dir, step_law, &d);
    CHECK_INT(pp_layer_model_fit(&d, &o, m), 0);
    CHECK_INT(pp_layers_describe_file(cfg_file("composed.cfg", composed), 0, 0, net), 0);
    CHECK_INT(net->n, 5);
    for (size_t i = 0; i < net->n; i++) {
        CHECK(isfinite(profiled_time(&d, &net->layers[i])));
        sum += profiled_time(&d, &net->layers[i]);
    }
    CHECK_INT(pp_layers_predict(m, net, &p), 0);
    CHECK_NEAR(p.total[PP_LQ_CPU] / sum, 1.0, 1e-6);
    CHECK_NEAR(p.total[PP_LQ_ENERGY] / (2.0 * sum), 1.0, 1e-6);
    CHECK_NEAR(p.max_fps, 1.0 / p.total[PP_LQ_CPU], 1e-9);
    pp_layers_prediction_free(&p);

    /* the same through the commands, with the power at 10 fps */
    snprintf(model, sizeof model, "%s/model.json", dir);
    CHECK_INT(run_powprof(&out, NULL, "layers", "model", dir, "-o", model, "--json", NULL), 0);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "layers", "predict", model, cfg_file("composed.cfg", composed),
                          "--json", "--fps", "10", NULL), 0);
    root = json_loads(out ? out : "", 0, NULL);
    CHECK(root != NULL);
    CHECK_NEAR(json_number_value(json_object_get(json_array_get(root, 0), "cpu_s")) / sum, 1.0,
               1e-6);
    /* 1.5 W idle, and 10 frames a second of 2 W x t instead of 1.5 W x t */
    CHECK_NEAR(json_number_value(json_object_get(json_array_get(root, 0), "power_w")),
               1.5 + 10 * 0.5 * sum, 1e-6);
    json_decref(root);
    free(out);
    pp_layers_data_free(&d);
    free(net);
    free(m);
}

/* ---- With darknet (the module) ------------------------------------------ */

/* The darknet module's layer timer, or NULL (darknet not built: say so, and
 * check it is really not there). */
static const pp_layer_timer_ops *timer_or_skip(void)
{
    const pp_layer_timer_ops *ops;
    const char *dir = getenv("POWPROF_DARKNET_DIR");
    char h[600];

    if (pp_layer_timer_load(&ops) == 0)
        return ops;
    fprintf(stderr, "    (skipped: the darknet module is not built)\n");
    snprintf(h, sizeof h, "%s/include/darknet.h", dir ? dir : "/usr/lib/darknet");
    CHECK(access(h, F_OK) != 0); /* not built although darknet is there: a build bug */
    return NULL;
}

/* Layer i as powprof reads it against darknet's own (darknet of 2018 leaves
 * a connected layer's l.nweights at 0, and sees its input as 1 x 1 x
 * inputs). */
static void compare_layer(const char *name, size_t i, const pp_layer_desc *l,
                          const pp_layer_timer_info *info)
{
    int has_weights = l->kind == PP_LAYER_CONVOLUTIONAL || l->kind == PP_LAYER_CONNECTED;

    if (strcmp(info->type, pp_layer_kind_name(l->kind)) != 0 || info->outputs != l->outputs ||
        (info->out_w && (info->out_w != l->out_w || info->out_h != l->out_h ||
                         info->out_c != l->out_c)) ||
        (has_weights && info->flops != l->flops) ||
        (has_weights && info->nweights && info->nweights != l->nweights) || /* 0: not set */
        (l->kind == PP_LAYER_CONVOLUTIONAL &&
         (info->in_w != l->in_w || info->in_h != l->in_h || info->in_c != l->in_c)))
        pp_test_fail(__FILE__, __LINE__,
                     "%s layer %zu: powprof %s %dx%dx%d -> %dx%dx%d (%ld), %ld weights, %.0f "
                     "FLOPs; darknet %s %dx%dx%d -> %dx%dx%d (%ld), %ld weights, %.0f FLOPs",
                     name, i, pp_layer_kind_name(l->kind), l->in_w, l->in_h, l->in_c, l->out_w,
                     l->out_h, l->out_c, l->outputs, l->nweights, l->flops, info->type,
                     info->in_w, info->in_h, info->in_c, info->out_w, info->out_h, info->out_c,
                     info->outputs, info->nweights, info->flops);
}

/* A cfg at a size (0: its own), read by powprof and built by darknet. */
static void agree_with_darknet(const pp_layer_timer_ops *ops, const char *path, int size)
{
    char tmp[700], why[512];
    pp_network_desc *d = malloc(sizeof *d);
    pp_dncfg cfg;
    size_t n = 0;
    void *net = NULL;

    snprintf(tmp, sizeof tmp, "%s/sized-%d.cfg", test_tmpdir(), size);
    CHECK_INT(pp_layers_describe_file(path, size, size, d), 0);
    CHECK_INT(pp_dncfg_read(path, &cfg), 0);
    CHECK_INT(pp_dncfg_write_sized(&cfg, d->width, d->height, tmp), 0);
    pp_dncfg_free(&cfg);
    CHECK_INT(ops->open(tmp, &net, &n, why, sizeof why), 0);
    CHECK_INT(n, d->n);
    for (size_t i = 0; net && i < n && i < d->n; i++) {
        pp_layer_timer_info info;
        ops->info(net, i, &info);
        compare_layer(d->name, i, &d->layers[i], &info);
    }
    if (net)
        ops->close(net);
    free(d);
}

/* Kinds Debian's small cfgs lack: crop, grouped convolution, reorg. */
static const char zoo_cfg[] =
    "[net]\nwidth=40\nheight=40\nchannels=3\n"
    "[crop]\ncrop_width=32\ncrop_height=32\n"
    "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=8\nsize=3\npad=1\ngroups=2\nactivation=leaky\n"
    "[shortcut]\nfrom=-2\nactivation=linear\n"
    "[reorg]\nstride=2\n"
    "[avgpool]\n"
    "[dropout]\nprobability=.5\n"
    "[connected]\noutput=10\nactivation=linear\n"
    "[softmax]\n"
    "[cost]\n";

/* powprof's reading of cfgs against darknet's (l.out_w/h/c, l.outputs,
 * l.nweights, the FLOPs darknet prints), at their own input size and at
 * another: Debian's (convolutions, pooling, routes, upsample, shortcuts,
 * dropout, connected, yolo, region, detection) and one with the other
 * kinds (crop, grouped convolution, reorg). */
void test_layers_agree_with_darknet(void);
void test_layers_agree_with_darknet(void)
{
    static const struct {
        const char *name;
        int both; /* also at another size (the large ones only at 160) */
    } nets[] = {{"yolov3-tiny", 1}, {"yolov2-tiny", 1}, {"yolov1-tiny", 1}, {"tiny", 1},
                {"alexnet", 1},     {"resnet18", 1},    {"densenet201", 0}};
    const pp_layer_timer_ops *ops = timer_or_skip();
    char path[600];

    for (size_t i = 0; ops && i < sizeof nets / sizeof nets[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.cfg", PP_LAYERS_CFG_DIR, nets[i].name);
        if (nets[i].both)
            agree_with_darknet(ops, path, 0);
        agree_with_darknet(ops, path, 160);
    }
    if (ops) {
        agree_with_darknet(ops, cfg_file("zoo.cfg", zoo_cfg), 0);
        agree_with_darknet(ops, cfg_file("zoo.cfg", zoo_cfg), 48);
    }
}

static const char tiny_a[] =
    "[net]\nwidth=32\nheight=32\nchannels=3\n"
    "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=leaky\n"
    "[route]\nlayers=-1,-2\n";
static const char tiny_b[] =
    "[net]\nwidth=32\nheight=32\nchannels=3\n"
    "[convolutional]\nfilters=4\nsize=3\nstride=2\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=24\nsize=1\nactivation=linear\n"
    "[maxpool]\nsize=2\nstride=2\n";

/* `plan --network` with the layer model just fitted: tiny-b in place of
 * tiny-a on a measured surface, and tiny-a in its own place (the measured
 * plan again). */
static void plan_swapped_networks(const char *model, const char *a, const char *b)
{
    /* rates down to 1/32 of the top one, so that a network up to 32 times
     * cheaper than the measured one (its time ratio comes from the model
     * just fitted) still has a rate to be planned at */
    const char *dir = results_folder_with("measured", "id,det.fps,status,duration_s,total_mean_w,"
                                                      "reason\n0,0.25,ok,10,1.1,\n1,0.5,ok,10,1.2,\n"
                                                      "2,1,ok,10,1.5,\n3,2,ok,10,2,\n"
                                                      "4,4,ok,10,3,\n5,8,ok,10,5,\n", NULL);
    char *out = NULL, *err = NULL;
    json_t *root, *nets, *measured;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--layer-model", model,
                          "--measured", a, "--network", b, "--network", a, "--json", NULL), 0);
    root = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(root != NULL);
    nets = json_object_get(root, "networks");
    measured = json_object_get(json_object_get(root, "measured_plan"), "best");
    CHECK_INT(json_array_size(nets), 2);
    CHECK(json_real_value(json_object_get(json_array_get(nets, 0), "time_ratio")) > 0);
    CHECK_NEAR(json_real_value(json_object_get(json_array_get(nets, 1), "time_ratio")), 1.0, 1e-12);
    CHECK(json_equal(json_object_get(json_object_get(json_array_get(nets, 1), "plan"), "best"),
                     measured));
    json_decref(root);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--layer-model", model,
                          "--measured", a, "--network", b, NULL), 0);
    CHECK_CONTAINS(out, "networks side by side (det.fps");
    CHECK_CONTAINS(out, "in place of");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "600", "--layer-model", model,
                          "--network", b, NULL), 2);
    CHECK_CONTAINS(err, "--network, --layer-model and --measured go together");
    free(err);
}

/* `layers profile` on two small networks at two sizes (darknet really
 * runs), then `layers model` on the result and `layers predict`. */
void test_layers_profile_model_predict(void);
void test_layers_profile_model_predict(void)
{
    char dir[700], model[800], *out = NULL, *err = NULL, *text;
    const char *a, *b;
    pp_layers_data d = {0};

    if (!timer_or_skip())
        return;
    /* darknet's free_network leaves a few buffers (its workspace...): under
     * LeakSanitizer (make asan) the command would fail on them */
    snprintf(dir, sizeof dir, "%s/lsan.supp", test_tmpdir());
    write_file(dir, "leak:libdarknet.so\n");
    snprintf(model, sizeof model, "suppressions=%s", dir);
    setenv("LSAN_OPTIONS", model, 1);
    a = cfg_file("tiny-a.cfg", tiny_a);
    b = cfg_file("tiny-b.cfg", tiny_b);
    snprintf(dir, sizeof dir, "%s/prof", test_tmpdir());
    CHECK_INT(run_powprof(&out, &err, "layers", "profile", a, b, "--sizes", "32,48x40", "--frames",
                          "3", "-d", "procstat", "--idle-s", "0.2", "-o", dir, NULL), 0);
    CHECK_CONTAINS(out, "tiny-a             32x32");
    CHECK_CONTAINS(out, "tiny-b             48x40");
    CHECK_CONTAINS(out, "(estimated)");
    free(out);
    free(err);
    CHECK_INT(pp_layers_data_read(dir, &d), 0);
    CHECK_INT(d.n_networks, 4);
    {   /* without --sizes: the cfg's own (32x32) and 1.5 times it (48, rounded to 64;
         * 0.75 times it rounds to 32 again) */
        char *o2 = NULL, dir2[760];
        snprintf(dir2, sizeof dir2, "%s/prof-default", test_tmpdir());
        CHECK_INT(run_powprof(&o2, NULL, "layers", "profile", a, "--frames", "1", "--warmup",
                              "0", "-d", "procstat", "--idle-s", "0", "-o", dir2, NULL), 0);
        CHECK_CONTAINS(o2, "tiny-a             32x32");
        CHECK_CONTAINS(o2, "tiny-a             64x64");
        CHECK(!strstr(o2, "24x24") && !strstr(o2, "48x48"));
        free(o2);
    }
    CHECK_INT(d.n_samples, 2 * 4 + 2 * 3);
    for (size_t i = 0; i < d.n_samples; i++) {
        CHECK(d.samples[i].y[PP_LQ_CPU] > 0);
        /* a thread's CPU time cannot outrun the wall clock; layers of a few
         * microseconds carry the clocks' read-out noise (the CPU clock is a
         * system call, the wall clock is not), hence the absolute slack: CI
         * once saw one layer's median wall time below half its CPU time */
        CHECK(d.samples[i].y[PP_LQ_WALL] + 50e-6 >= d.samples[i].y[PP_LQ_CPU] * 0.5);
        CHECK(d.samples[i].y[PP_LQ_ENERGY] > 0);
    }
    for (size_t r = 0; r < d.n_networks; r++) {
        CHECK(d.networks[r].estimated);
        CHECK(d.networks[r].idle_w > 0);
        CHECK(d.networks[r].layers_y[PP_LQ_WALL] > 0);
        CHECK(d.networks[r].layers_y[PP_LQ_CPU] <= 1.2 * d.networks[r].layers_y[PP_LQ_WALL] + 50e-6);
        CHECK(d.networks[r].y[PP_LQ_WALL] > 0);
    }
    text = slurp(strcat(strcpy(model, dir), "/networks.csv"));
    CHECK_CONTAINS(text, "tiny-b,48,40,3,");
    free(text);
    pp_layers_data_free(&d);
    snprintf(model, sizeof model, "%s/m.json", dir);
    CHECK_INT(run_powprof(&out, NULL, "layers", "model", dir, "-o", model, NULL), 0);
    CHECK_CONTAINS(out, "FLOPs*rate");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "layers", "predict", model, cfg_file("small.cfg", small_cfg),
                          NULL), 0);
    CHECK_CONTAINS(out, "small 64x48: 6 layers");
    CHECK_CONTAINS(out, "fps at most");
    free(out);
    plan_swapped_networks(model, a, b);
}

/* Errors of the commands: named files and lines, usage errors, nothing run. */
void test_layers_command_errors(void);
void test_layers_command_errors(void)
{
    char *out = NULL, *err = NULL, dir[700], model[800];
    const char *bad = cfg_file("bad.cfg", "[net]\nwidth=8\nheight=8\nchannels=3\n[conv]\nsize=x\n");

    CHECK_INT(run_powprof(&out, NULL, "layers", "--help", NULL), 0);
    CHECK_CONTAINS(out, "powprof layers predict MODEL.json CFG...");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "layers", "profile", bad, "-o", test_tmpdir(), NULL), 125);
    CHECK_CONTAINS(err, "bad.cfg:6: [conv] size=x: not an integer");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "layers", "profile", "no-such-net", NULL), 125);
    CHECK_CONTAINS(err, "network 'no-such-net': no such file here, nor "
                        "/usr/share/darknet/cfg/no-such-net.cfg");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "layers", "profile", bad, "--sizes", "0x5", NULL), 2);
    CHECK_CONTAINS(err, "--sizes '0x5'");
    free(err);
    snprintf(dir, sizeof dir, "%s/empty", test_tmpdir());
    mkdir(dir, 0755);
    CHECK_INT(run_powprof(NULL, &err, "layers", "model", dir, NULL), 125);
    CHECK_CONTAINS(err, "empty/networks.csv: cannot read");
    free(err);
    snprintf(model, sizeof model, "%s/m.json", dir);
    write_file(model, "{\"format\": \"powprof-layer-model\", \"version\": 1, \"device\": \"x\", "
                      "\"idle_w\": null, \"networks\": 2, \"network_error\": {}}\n");
    CHECK_INT(run_powprof(NULL, &err, "layers", "predict", model, bad, NULL), 125);
    CHECK_CONTAINS(err, "m.json: network_error.cpu_s: an object is expected");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "layers", "predict", model, NULL), 2);
    free(err);
}

/* The plan hook: the power at a frame rate, and the highest frame rate a
 * battery carries through a mission (just lasts at it, not a little above;
 * all one core sustains when the battery allows more). */
void test_layers_plan_hook(void);
void test_layers_plan_hook(void)
{
    pp_layers_cost c = {0.5, 0.05, 2.0, 0.2, 1.5, 2.0, 1}; /* 0.5 s, 2 J a frame; 1.5 W idle */
    pp_battery_params p;
    double w, fps, soc, t[2] = {0, 0}, load_w[2];
    pp_battery_load load = {t, load_w, 2, 0};
    pp_battery_options o;
    pp_battery_result r;

    CHECK_INT(pp_layers_power_at_fps(&c, 1.0, &w), 0);
    CHECK_NEAR(w, 1.5 + 1.0 * (2.0 - 1.5 * 0.5), 1e-12);
    CHECK_INT(pp_layers_power_at_fps(&c, 2.5, &w), -ERANGE);
    pp_battery_params_default(&p);
    p.base_power_w = 200.0;
    /* how long the battery lasts at 2 fps, then a mission a little longer */
    CHECK_INT(pp_layers_power_at_fps(&c, 2.0, &w), 0);
    load_w[0] = load_w[1] = w;
    t[1] = 60.0;
    pp_battery_options_init(&o);
    o.time_to_cutoff = 1;
    CHECK_INT(pp_battery_run(&p, &load, &o, &r), 0);
    CHECK(isfinite(r.time_to_cutoff_s));
    CHECK_INT(pp_layers_plan_fps(&c, &p, 0.5 * r.time_to_cutoff_s, p.soc_cutoff_frac, &fps, &soc), 0);
    CHECK_NEAR(fps, 2.0, 0); /* half the time: all one core sustains */
    CHECK_INT(pp_layers_plan_fps(&c, &p, 1.0001 * r.time_to_cutoff_s, p.soc_cutoff_frac, &fps,
                                 &soc), 0);
    CHECK(fps > 0.5 && fps < 2.0);
    CHECK(soc >= p.soc_cutoff_frac);
    {   /* a little more is too much */
        pp_layers_cost more = c;
        more.max_fps = fps * 1.01;
        double fps2;
        CHECK_INT(pp_layers_plan_fps(&more, &p, 1.0001 * r.time_to_cutoff_s, p.soc_cutoff_frac,
                                     &fps2, &soc), 0);
        CHECK(fps2 < more.max_fps);
    }
    CHECK_INT(pp_layers_plan_fps(&c, &p, 100 * r.time_to_cutoff_s, p.soc_cutoff_frac, &fps, &soc),
              1); /* not even idle */
    {   /* the pessimistic end: slower, costlier frames; an unknown band changes nothing */
        pp_layers_cost u = c;
        pp_layers_cost_upper(&u);
        CHECK_NEAR(u.time_s, 0.55, 1e-12);
        CHECK_NEAR(u.max_fps, 1 / 0.55, 1e-12);
        CHECK_NEAR(u.energy_j, 2.2, 1e-12);
        u = c;
        u.time_band_s = u.energy_band_j = NAN;
        pp_layers_cost_upper(&u);
        CHECK_NEAR(u.time_s, 0.5, 0);
        CHECK_NEAR(u.energy_j, 2.0, 0);
    }
    c.idle_w = NAN;
    CHECK_INT(pp_layers_plan_fps(&c, &p, 60, 0.2, &fps, &soc), -EINVAL);
}

/* A network swapped in by a layer model (layers_plan.h), on a measured
 * surface whose answers are known: 1 W + 0.5 W per frame per second, every
 * rate from 1 to 8 achieved. N's frame takes twice M's CPU time (k = 2). */
void test_layers_swap_plan(void);
void test_layers_swap_plan(void)
{
    const char *dir;
    pp_model_options mo;
    pp_model m;
    pp_plan_options o;
    pp_plan_result *r = malloc(sizeof *r);
    pp_plan_choice c;
    pp_layers_swap s = {.measured = {0.1, NAN, 0.35, NAN, 1.0, 10.0, 1},
                        .network = {0.2, NAN, 0.7, NAN, 1.0, 5.0, 1}, .time_ratio = 2.0};
    int w, a;

    dir = results_folder_with("swap", "id,det.fps,status,duration_s,iterations,late_frames,"
                                      "det.achieved_fps,samples,short_run,total_mean_w,reason\n"
                                      "0,1,ok,10,10,0,1,100,0,1.5,\n1,2,ok,10,20,0,2,100,0,2,\n"
                                      "2,3,ok,10,30,0,3,100,0,2.5,\n3,4,ok,10,40,0,4,100,0,3,\n"
                                      "4,5,ok,10,50,0,5,100,0,3.5,\n5,6,ok,10,60,0,6,100,0,4,\n"
                                      "6,7,ok,10,70,0,7,100,0,4.5,\n7,8,ok,10,80,0,8,100,0,5,\n",
                              NULL);
    pp_model_options_init(&mo);
    mo.method = PP_METHOD_LOCLIN; /* reproduces the line exactly */
    CHECK_INT(pp_model_read(dir, &mo, 0, &m), 0);
    w = pp_summary_metric(&m.sum, "total_mean_w");
    a = pp_summary_metric(&m.sum, "det.achieved_fps");
    CHECK(w >= 0 && a >= 0);
    /* the same busy power per CPU second (e_N = 2 e_M): N at 3 fps costs
     * what M did at 6, and achieves 3 */
    memset(&c, 0, sizeof c);
    c.point.raw[0] = 3;
    CHECK_INT(pp_layers_swap_predict(&s, &m, (size_t)w, a, 0, &c), 0);
    CHECK_NEAR(c.power.value, 4.0, 1e-6);
    CHECK_NEAR(c.achieved.value, 3.0, 1e-6);
    /* 5 fps would ask for M's 10: outside the measured rates, left out */
    c.point.raw[0] = 5;
    CHECK_INT(pp_layers_swap_predict(&s, &m, (size_t)w, a, 0, &c), 1);
    /* N's frame costs 0.2 J more above idle: + 3 x 0.2 W at 3 fps; the
     * band widens by both networks' energy bands at their rates */
    s.network.energy_j = 0.9;
    s.network.energy_band_j = 0.1;
    s.measured.energy_band_j = 0.05;
    c.point.raw[0] = 3;
    CHECK_INT(pp_layers_swap_predict(&s, &m, (size_t)w, a, 0, &c), 0);
    CHECK_NEAR(c.power.value, 4.6, 1e-6);
    CHECK(c.power.hi >= c.power.value + 3 * 0.1 + 6 * 0.05 - 1e-9);
    CHECK(c.power.lo <= c.power.value - 3 * 0.1 - 6 * 0.05 + 1e-9);
    /* the plan: only 1..4 fps have a prediction; the best is 4 */
    pp_plan_options_init(&o);
    o.mission_s = 600;
    o.predict = pp_layers_swap_predict;
    o.predict_ctx = &s;
    CHECK_INT(pp_plan(&m, &o, r), 0);
    CHECK_INT(r->n_candidates, 4);
    CHECK(r->feasible);
    CHECK_NEAR(r->best.point.raw[0], 4.0, 1e-12);
    CHECK_NEAR(r->best.qos, 4.0, 1e-6);
    /* the measured network's own cfg: the measured plan itself */
    s.same = 1;
    CHECK_INT(pp_plan(&m, &o, r), 0);
    CHECK_INT(r->n_candidates, 8);
    CHECK_NEAR(r->best.power.value, 5.0, 1e-6);
    pp_model_free(&m);
    free(r);
}

/* ---- Issue 24: choices that cannot lose to the baseline ------------------ */

/* A deterministic noise of +-amp, from the layer's shape and the run's size. */
static double noise(const pp_layer_desc *l, double amp)
{
    unsigned h = (unsigned)(l->in_w * 2654435761u) ^ (unsigned)(l->filters * 40503u) ^
                 (unsigned)(l->in_c * 977u) ^ (unsigned)(l->size * 131u) ^ (unsigned)l->kind;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return 1.0 + amp * (2.0 * (h % 10007) / 10006.0 - 1.0);
}

/* linear (20 us + FLOPs at 8 GFLOPS; data layers 5 us + 1 ns per byte),
 * measured with 3 % noise */
static double noisy_linear_law(const pp_layer_desc *l) { return linear_law(l) * noise(l, 0.03); }

/* the baseline: FLOPs at 8 GFLOPS, data layers 1 ns per byte, 3 % noise */
static double rate_law(const pp_layer_desc *l)
{
    return (l->flops > 0 ? l->flops / 8e9 : 1e-9 * (l->in_bytes + l->out_bytes)) * noise(l, 0.03);
}

static const char net_d[] =
    "[net]\nwidth=32\nheight=32\nchannels=3\n"
    "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=7\nsize=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[convolutional]\nfilters=40\nsize=3\nstride=2\npad=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n";

/* nets a..d (n of them, 2 to 4) at sizes, times from law */
static void synthetic_set(const char *name, time_law law, size_t n, const int *sizes,
                          size_t n_sizes, pp_layers_data *d)
{
    static const char *const texts[] = {net_a, net_b, net_c, net_d};
    static const char *const names[] = {"a", "b", "c", "d"};
    char dir[700];

    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), name);
    mkdir(dir, 0755);
    for (size_t i = 0; i < n; i++)
        synthetic_profile(dir, names[i], texts[i], sizes, n_sizes, law);
    synthetic_profile(dir, "", net_c, sizes, 0, law); /* frees */
    memset(d, 0, sizeof *d);
    CHECK_INT(pp_layers_data_read(dir, d), 0);
    CHECK_INT(d->n_networks, n * n_sizes);
}

/* Four networks measured with noise around the linear law: the choice
 * (leave-one-network-out on each kind's share of whole networks) finds
 * the linear family whole; the terms family (8 coefficients) follows the
 * noise and the baseline misses the 20 us a layer, and both do worse on
 * networks left out. */
void test_layers_choice_finds_family(void);
void test_layers_choice_finds_family(void)
{
    static const int sizes[] = {32, 48, 64};
    pp_layers_data d;
    pp_layer_model *m = malloc(sizeof *m);
    pp_layer_fit_opts chosen = {-1, NULL, 0};
    const pp_layer_fit *f = &m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL];
    char why[160];

    synthetic_set("choice", noisy_linear_law, 4, sizes, 3, &d);
    CHECK_INT(pp_layer_model_fit(&d, &chosen, m), 0);
    CHECK_INT(f->family, PP_LF_LINEAR);
    CHECK_NEAR(f->weight, 1.0, 0);
    CHECK(!f->thin);
    CHECK(f->loo_net[PP_LF_LINEAR] < f->loo_net[PP_LF_TERMS]);
    CHECK(f->loo_net[PP_LF_LINEAR] < 0.9 * f->loo_net[PP_LF_RATE]);
    CHECK_NEAR(f->coef[1] * 8e9, 1.0, 0.05);
    CHECK(f->band_frac > 0.005 && f->band_frac < 0.1); /* the noise, not zero */
    pp_layer_fit_describe(f, why, sizeof why);
    CHECK_STR(why, "linear");
    pp_layers_data_free(&d);
    free(m);
}

/* Three networks whose layers cost their FLOPs (or bytes) at one rate,
 * with noise: every other family fits the noise, and the baseline wins for
 * every kind; the whole-network error of networks left out is the
 * baseline's or better. With two networks there is no choosing: the
 * baseline, said so. */
void test_layers_baseline_wins(void);
void test_layers_baseline_wins(void)
{
    static const int sizes[] = {32, 64};
    pp_layers_data d;
    pp_layers_eval e;
    pp_layer_model *m = malloc(sizeof *m);
    pp_layer_fit_opts chosen = {-1, NULL, 0};
    char why[160];

    synthetic_set("baseline3", rate_law, 3, sizes, 2, &d);
    CHECK_INT(pp_layer_model_fit(&d, &chosen, m), 0);
    for (int k = 0; k < PP_LAYER_KINDS; k++) {
        const pp_layer_fit *f = &m->fit[PP_LQ_CPU][k];
        if (f->family < 0)
            continue;
        if (f->family != PP_LF_RATE || f->weight != 1.0)
            fprintf(stderr, "    %s: %s, weight %g; criteria %g %g %g %g rate %g\n",
                    pp_layer_kind_name((pp_layer_kind)k),
                    pp_layer_family_name((pp_layer_family)f->family), f->weight, f->loo_net[0],
                    f->loo_net[1], f->loo_net[2], f->loo_net[3], f->loo_net[4]);
        CHECK_INT(f->family, PP_LF_RATE);
        CHECK(!f->thin);
    }
    CHECK_NEAR(m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL].coef[0] * 8e9, 1.0, 0.05);
    CHECK_INT(pp_layers_evaluate(&d, &e), 0);
    CHECK(e.model[PP_LQ_CPU].net_mape <= e.baseline[PP_LQ_CPU].net_mape + 1e-3);
    CHECK(e.model[PP_LQ_CPU].net_mape < 0.05);
    pp_layers_eval_free(&e);
    pp_layers_data_free(&d);

    synthetic_set("baseline2", noisy_linear_law, 2, sizes, 2, &d);
    CHECK_INT(pp_layer_model_fit(&d, &chosen, m), 0);
    CHECK_INT(m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL].family, PP_LF_RATE);
    CHECK(m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL].thin);
    pp_layer_fit_describe(&m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL], why, sizeof why);
    CHECK_STR(why, "rate (2 networks: too few to choose, the baseline)");
    pp_layers_data_free(&d);
    free(m);
}

/* A model fitted on networks of convolutions and maxpools only. */
static pp_layer_model *conv_pool_model(void)
{
    static const int sizes[] = {32, 48, 64};
    pp_layers_data d;
    pp_layer_model *m = malloc(sizeof *m);
    pp_layer_fit_opts chosen = {-1, NULL, 0};

    synthetic_set("convpool", noisy_linear_law, 3, sizes, 3, &d);
    CHECK_INT(pp_layer_model_fit(&d, &chosen, m), 0);
    pp_layers_data_free(&d);
    for (int q = 0; q < PP_LQ_COUNT; q++)
        m->net_rms[q] = 0.05;
    return m;
}

static const char some_unprofiled_cfg[] =
    "[net]\nwidth=32\nheight=32\nchannels=3\n"
    "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nfilters=64\nsize=3\npad=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[convolutional]\nfilters=4\nsize=1\nactivation=leaky\n"
    "[upsample]\nstride=2\n"
    "[route]\nlayers=-1\n";

/* Kinds never profiled (upsample, route) are predicted from their bytes
 * and FLOPs by the roofline fit, with a band twice the widest kind's, and
 * named with their share; where they would be most of the time, the
 * prediction is refused and says which network to profile. */
void test_layers_unprofiled_kinds(void);
void test_layers_unprofiled_kinds(void)
{
    pp_layer_model *m = conv_pool_model();
    pp_network_desc *net = malloc(sizeof *net);
    pp_layers_prediction p;
    double widest = 0, v, band;

    CHECK(m->fit[PP_LQ_CPU][PP_LAYER_UPSAMPLE].family < 0);
    CHECK_INT(m->roofline[PP_LQ_CPU].family, PP_LF_ROOFLINE);
    CHECK(m->roofline[PP_LQ_CPU].coef[1] > 0); /* a memory rate, s per byte */
    for (int k = 0; k < PP_LAYER_KINDS; k++)
        if (m->fit[PP_LQ_CPU][k].family >= 0 && m->fit[PP_LQ_CPU][k].band_frac > widest)
            widest = m->fit[PP_LQ_CPU][k].band_frac;
    CHECK(widest > 0);
    CHECK_INT(pp_layers_describe_file(cfg_file("some.cfg", some_unprofiled_cfg), 0, 0, net), 0);
    test_log_clear();
    if (pp_layers_predict(m, net, &p) != 0) {
        CHECK(!"the prediction of some.cfg");
        fprintf(stderr, "%s", test_log());
        free(net);
        free(m);
        return;
    }
    CHECK_INT(p.n_roofline, 2);
    CHECK(p.roofline[4] && p.roofline[5] && !p.roofline[0] && !p.roofline[3]);
    CHECK(p.roofline_frac > 0 && p.roofline_frac < PP_LAYERS_UNPROFILED_MAX_FRAC);
    CHECK_STR(p.note, "route layer 5; upsample layer 4");
    CHECK_CONTAINS(test_log(), "some: 2 layers of kinds the model has no profile of (route layer "
                               "5; upsample layer 4)");
    CHECK_CONTAINS(test_log(), "band twice the widest");
    CHECK_NEAR(p.layer_band[4][PP_LQ_CPU], 2 * widest * p.layer[4][PP_LQ_CPU], 1e-15);
    CHECK_INT(pp_layer_model_layer(m, PP_LQ_CPU, &net->layers[4], &v, &band), 1);
    CHECK_INT(pp_layer_model_layer(m, PP_LQ_CPU, &net->layers[0], &v, &band), 0);
    /* the network's band: the profiled layers' share of it, the others' own */
    CHECK(p.band[PP_LQ_CPU] > 0.05 * (p.total[PP_LQ_CPU] - p.layer[4][0] - p.layer[5][0]));
    pp_layers_prediction_free(&p);

    /* upsampling and routes most of the time: refused, naming a network */
    CHECK_INT(pp_layers_describe_file(cfg_file("mostly.cfg",
                                               "[net]\nwidth=64\nheight=64\nchannels=3\n"
                                               "[convolutional]\nfilters=1\nsize=1\n"
                                               "[upsample]\nstride=4\n[route]\nlayers=-1\n"
                                               "[upsample]\nstride=2\n"), 0, 0, net), 0);
    test_log_clear();
    CHECK_INT(pp_layers_predict(m, net, &p), -ENOENT);
    CHECK_CONTAINS(test_log(), "mostly: layers of kinds the model has no profile of (route "
                               "layer 2; upsample layer 1, 3) would be");
    CHECK_CONTAINS(test_log(), "more than 20 %: profile a network with them (e.g. 'powprof "
                               "layers profile yolov3-tiny'");
    free(net);
    free(m);
}

/* Input sizes: three around the cfg's own unless told (0.75x and 1.5x in
 * multiples of 32), and a warning when predicting outside the profiled
 * pixel counts. */
void test_layers_default_sizes(void);
void test_layers_default_sizes(void)
{
    int w[3], h[3];
    pp_layers_job jobs[3];
    pp_layer_model *m = conv_pool_model();
    pp_network_desc *net = malloc(sizeof *net);
    pp_layers_prediction p;

    CHECK_INT(pp_layers_default_sizes(416, 416, w, h), 3);
    CHECK(w[0] == 320 && w[1] == 416 && w[2] == 640 && h[0] == 320 && h[2] == 640);
    CHECK_INT(pp_layers_default_sizes(227, 227, w, h), 3); /* alexnet: its own kept */
    CHECK(w[0] == 160 && w[1] == 227 && w[2] == 352);
    CHECK_INT(pp_layers_default_sizes(32, 32, w, h), 2); /* 24 rounds up to 32: once */
    CHECK(w[0] == 32 && w[1] == 64);
    CHECK_INT(pp_layers_jobs_of(cfg_file("small.cfg", small_cfg), 0, NULL, NULL, jobs), 3);
    CHECK(jobs[0].width == 64 && jobs[0].height == 32); /* 64x48: 48x36 -> 64x32 */
    CHECK(jobs[1].width == 64 && jobs[1].height == 48);
    CHECK(jobs[2].width == 96 && jobs[2].height == 64); /* 96x72 -> 96x64 */
    CHECK_INT(pp_layers_jobs_of(cfg_file("small.cfg", small_cfg), 1, (int[]){0}, (int[]){0},
                                jobs), 1);
    CHECK(jobs[0].width == 0 && jobs[0].height == 0);
    /* profiled at 32x32 to 64x64 */
    CHECK_NEAR(m->pixels_min, 32 * 32, 0);
    CHECK_NEAR(m->pixels_max, 64 * 64, 0);
    CHECK_INT(pp_layers_describe_file(cfg_file("a.cfg", net_a), 48, 48, net), 0);
    test_log_clear();
    CHECK_INT(pp_layers_predict(m, net, &p), 0);
    CHECK(!p.outside_pixels);
    CHECK(!strstr(test_log(), "outside the profiled range"));
    pp_layers_prediction_free(&p);
    CHECK_INT(pp_layers_describe_file(cfg_file("a.cfg", net_a), 160, 96, net), 0);
    CHECK_INT(pp_layers_predict(m, net, &p), 0);
    CHECK(p.outside_pixels);
    CHECK_CONTAINS(test_log(), "a at 160x96: 15360 pixels, outside the profiled range (1024 to "
                               "4096)");
    pp_layers_prediction_free(&p);
    free(net);
    free(m);
}

/* ---- Issue 23's reproducers --------------------------------------------- */

/* The version-1 model of the reproducers with key set to value (JSON
 * text) at the top or in fits.cpu_s.convolutional; its path. */
static const char *edited_model(const char *name, const char *key, const char *value, int top)
{
    static char path[4][700];
    static int k;
    char *p = path[k++ % 4];
    json_t *root = json_load_file(fixture("layers/layer-model-v1.json"), 0, NULL);
    json_t *v = json_loads(value, JSON_DECODE_ANY, NULL);
    json_t *conv;

    CHECK(root != NULL && v != NULL);
    conv = json_object_get(json_object_get(json_object_get(root, "fits"), "cpu_s"),
                           "convolutional");
    json_object_set_new(top ? root : conv, key, v);
    snprintf(p, 700, "%s/%s", test_tmpdir(), name);
    CHECK_INT(json_dump_file(root, p, 0), 0);
    json_decref(root);
    return p;
}

/* layer-model-idle.sh, layer-model-samples-1e300.json, layers-predict-exit0.sh
 * (coefficients of 1e308): numbers out of range refused with the file and
 * the key; a mission without idle power fails (it exited 0). */
void test_layers_model_json_out_of_range(void);
void test_layers_model_json_out_of_range(void)
{
    static const struct {
        const char *key, *value;
        int top;
        const char *message;
    } cases[] = {
        {"idle_w", "-5", 1, "(top).idle_w: -5 is out of range (0 to 10000)"},
        {"idle_w", "1e308", 1, "(top).idle_w: 1e+308 is out of range"},
        {"networks", "1e300", 1, "(top).networks: 1e+300 is out of range (0 to 1e+09)"},
        {"samples", "1e300", 0, "fits.cpu_s.convolutional.samples: 1e+300 is out of range"},
        {"coef", "[1e308, 1e308, 1e308, 1e308, 1e308, 1e308, 1e308, 1e308]", 0,
         "fits.cpu_s.convolutional.coef: [0]: a number from -1000 to 1000 is expected"},
        {"floor", "-1", 0, "fits.cpu_s.convolutional.floor: -1 is out of range"},
        {"weight", "2", 0, "fits.cpu_s.convolutional.weight: 2 is out of range (0 to 1)"},
    };
    const char *cfg = cfg_file("small.cfg", small_cfg);
    char *out = NULL, *err = NULL;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *model = edited_model("edited.json", cases[i].key, cases[i].value, cases[i].top);
        CHECK_INT(run_powprof(&out, &err, "layers", "predict", model, cfg, "--json", NULL), 125);
        CHECK_CONTAINS(err, "edited.json: ");
        CHECK_CONTAINS(err, cases[i].message);
        CHECK_STR(out, "");
        free(out);
        free(err);
    }
    /* the model as it is (version 1, no idle power) predicts, but plans nothing */
    CHECK_INT(run_powprof(&out, NULL, "layers", "predict", fixture("layers/layer-model-v1.json"),
                          cfg, NULL), 0);
    CHECK_CONTAINS(out, "small 64x48: 6 layers");
    free(out);
    CHECK_INT(run_powprof(&out, &err, "layers", "predict", fixture("layers/layer-model-v1.json"),
                          cfg, "--mission-s", "600", NULL), 125);
    CHECK_CONTAINS(err, "idle");
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, &err, "layers", "predict", fixture("layers/layer-model-v1.json"),
                          cfg, "--mission-s", "600", "--json", NULL), 125);
    CHECK_STR(out, "");
    free(out);
    free(err);
}

/* layers-upsample-int-overflow.cfg, layers-setout-long-overflow.cfg: sizes
 * past what darknet holds are refused with the cfg's line (they overflowed
 * int and long, and one was predicted). */
void test_layers_size_overflow(void);
void test_layers_size_overflow(void)
{
    char model[700], *err = NULL;

    snprintf(model, sizeof model, "%s", fixture("layers/layer-model-v1.json"));
    CHECK_INT(run_powprof(NULL, &err, "layers", "predict", model,
                          fixture("layers/layers-upsample-int-overflow.cfg"), NULL), 125);
    CHECK_CONTAINS(err, "layers-upsample-int-overflow.cfg:1: [net]: an input of 65536 x 65536 x "
                        "1 values: more than darknet can hold (2147483647)");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "layers", "predict", model,
                          fixture("layers/layers-setout-long-overflow.cfg"), NULL), 125);
    CHECK_CONTAINS(err, "layers-setout-long-overflow.cfg:1: [net]: an input of 65536");
    free(err);
    /* the same layers at an input darknet holds: the layer's own line */
    expect_cfg_error("[net]\nwidth=32768\nheight=32768\nchannels=1\n\n[upsample]\nstride=1024\n",
                     "bad.cfg:6: [upsample] (layer 0): its output would be 33554432 x 33554432 x "
                     "1 values: more than darknet can hold");
    expect_cfg_error("[net]\nwidth=8192\nheight=8192\nchannels=1\n[convolutional]\n"
                     "filters=65536\nsize=1\nstride=1\nactivation=leaky\n",
                     "bad.cfg:5: [convolutional] (layer 0): its output would be 8192 x 8192 x "
                     "65536 values");
    expect_cfg_error("[net]\nwidth=8\nheight=8\nchannels=3\n[connected]\noutput=2000000000\n",
                     "bad.cfg:5: [connected] (layer 0): 192 x 2000000000 weights: more than "
                     "darknet can hold");
}

/* layers-model-lapack-msg.sh: one edited cell of a real profile gave
 * "least squares failed (is LAPACK installed?)" with no file, or UBSan's
 * overflow; each is refused naming the file, line and column. */
void test_layers_profile_cells(void);
void test_layers_profile_cells(void)
{
    static const struct {
        const char *column;
        int line;
        const char *value, *message;
    } cases[] = {
        {"time_s", 9, "1e-300", "layers.csv:9: column time_s: 1e-300 is out of range (0, or "
                                "1e-12 to 1e+06)"},
        {"flops", 20, "1e308", "layers.csv:20: column flops: 1e308 is out of range (0 to 1e+18)"},
        {"size", 42, "-1e9", "layers.csv:42: column size: -1e9 is out of range (0 to 1024)"},
        {"cpu_s", 12, "-0.5", "layers.csv:12: column cpu_s: -0.5 is out of range"},
    };
    char *err = NULL;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[700], path[800], *text, *line, *out;
        size_t col = 0, at = 0;
        snprintf(dir, sizeof dir, "%s/cell%zu", test_tmpdir(), i);
        mkdir(dir, 0755);
        snprintf(path, sizeof path, "%s/networks.csv", dir);
        text = slurp(fixture("layers/profile4/networks.csv"));
        CHECK_INT(write_file(path, text), 0);
        free(text);
        snprintf(path, sizeof path, "%s/layers.csv", dir);
        text = slurp(fixture("layers/profile4/layers.csv"));
        char *header = strdup(text);
        for (char *c = strtok(header, ","); c && strcmp(c, cases[i].column) != 0;
             c = strtok(NULL, ","))
            col++;
        free(header);
        line = text;
        for (int l = 1; l < cases[i].line; l++)
            line = strchr(line, '\n') + 1;
        out = malloc(strlen(text) + 64);
        memcpy(out, text, (size_t)(line - text));
        at = (size_t)(line - text);
        for (size_t c = 0; c < col; c++) { /* the fields before */
            size_t len = strcspn(line, ",") + 1;
            memcpy(out + at, line, len);
            at += len;
            line += len;
        }
        at += (size_t)sprintf(out + at, "%s", cases[i].value);
        strcpy(out + at, line + strcspn(line, ",\n"));
        CHECK_INT(write_file(path, out), 0);
        CHECK_INT(run_powprof(NULL, &err, "layers", "model", dir, NULL), 125);
        CHECK_CONTAINS(err, cases[i].message);
        CHECK(!strstr(err, "LAPACK"));
        free(err);
        free(out);
        free(text);
    }
}

/* A value the reader would refuse, given in memory: the least squares
 * fail, and the message names the row (file and line) to look at, not
 * LAPACK's installation. */
void test_layers_fit_failure_names_row(void);
void test_layers_fit_failure_names_row(void)
{
    static const int sizes[] = {32, 48};
    pp_layers_data d;
    pp_layer_model *m = malloc(sizeof *m);
    pp_layer_fit_opts chosen = {-1, NULL, 0};
    size_t bad = 0;
    char where[800];

    synthetic_set("failure", linear_law, 3, sizes, 2, &d);
    while (d.samples[bad].d.kind != PP_LAYER_CONVOLUTIONAL || d.samples[bad].line < 3)
        bad++;
    d.samples[bad].y[PP_LQ_CPU] = 1e-320; /* its inverse is infinite */
    test_log_clear();
    CHECK(pp_layer_model_fit(&d, &chosen, m) < 0);
    snprintf(where, sizeof where, "the row farthest from the others is %s:%d", d.files[0],
             d.samples[bad].line);
    CHECK_CONTAINS(test_log(), "layer model: the least squares of convolutional (cpu_s) failed");
    CHECK_CONTAINS(test_log(), where);
    CHECK(!strstr(test_log(), "is LAPACK installed"));
    pp_layers_data_free(&d);
    free(m);
}

/* --sizes and --rate of `layers profile`, checked by the library
 * (layers_doc.h): WxH or N (NxN) or own, each side 1 to 8192, at most cap
 * sizes; a rate the sampler takes. */
void test_layers_sizes_and_rate_parse(void);
void test_layers_sizes_and_rate_parse(void)
{
    int w[4], h[4];
    double hz;

    CHECK_INT(pp_layers_sizes_parse("416x320,256,own", w, h, 4), 3);
    CHECK(w[0] == 416 && h[0] == 320 && w[1] == 256 && h[1] == 256 && w[2] == 0 && h[2] == 0);
    CHECK_INT(pp_layers_sizes_parse("0x0", w, h, 4), -1);
    CHECK_INT(pp_layers_sizes_parse("8193x32", w, h, 4), -1);
    CHECK_INT(pp_layers_sizes_parse("32xq", w, h, 4), -1);
    CHECK_INT(pp_layers_sizes_parse("1,2,3,4,5", w, h, 4), -1);
    CHECK_INT(pp_layers_sizes_parse("", w, h, 4), -1);
    CHECK_INT(pp_layers_rate_parse("50", &hz), 0);
    CHECK_NEAR(hz, 50, 0);
    CHECK_INT(pp_layers_rate_parse("fast", &hz), -EINVAL);
    CHECK_INT(pp_layers_rate_parse("0", &hz), -ERANGE);
    CHECK_CONTAINS(test_log(), "--rate");
}

/* `layers model --json` prints the library's document of the evaluation
 * (pp_layers_eval_json) byte for byte; --width without --height is
 * refused by the library with the words the CLI says. */
void test_layers_model_json_cli_equals_library(void);
void test_layers_model_json_cli_equals_library(void)
{
    const char *dir = fixture("layers/profile4");
    char model[512], *out = NULL, *err = NULL, *text = NULL, why[160];
    pp_layers_predict_request rq = {.width = 64, .min_soc = -1};
    pp_layers_data d = {0};
    pp_layers_eval e;
    json_t *doc;

    snprintf(model, sizeof model, "%s/m.json", test_tmpdir());
    CHECK_INT(pp_layers_data_read(dir, &d), 0);
    CHECK_INT(pp_layers_evaluate(&d, &e), 0);
    doc = pp_layers_eval_json(&e, model);
    text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) : NULL;
    CHECK_INT(run_powprof(&out, &err, "layers", "model", dir, "-o", model, "--json", NULL), 0);
    CHECK(text && out && strncmp(out, text, strlen(text)) == 0 &&
          strcmp(out + strlen(text), "\n") == 0);
    CHECK(json_object_get(doc, "cpu_s") && json_object_get(doc, "energy_j"));
    CHECK_INT(pp_layers_predict_check(&rq, why, sizeof why), -EINVAL);
    CHECK_STR(why, "give --width and --height together");
    rq.height = 64;
    CHECK_INT(pp_layers_predict_check(&rq, why, sizeof why), 0);
    free(text);
    json_decref(doc);
    pp_layers_eval_free(&e);
    pp_layers_data_free(&d);
    free(out);
    free(err);
}

/* A family's leave-one-out error is whatever the fit gave: a power law
 * that misses tiny layers timed on a busy core reached 81634.7 (8e6 %),
 * and the model written with it was refused when read ("out of range (0
 * to 1000)"), so layers predict failed on a model layers model had just
 * written. Written, it reads back; a negative error is still refused. */
void test_layers_model_reads_any_loo_error(void);
void test_layers_model_reads_any_loo_error(void)
{
    char path[600];
    pp_layers_data d = {0};
    pp_layer_fit_opts o = {-1, NULL, 0};
    pp_layer_model *m = malloc(sizeof *m);
    json_t *root, *fits, *kind, *loo = NULL;
    const char *name;

    snprintf(path, sizeof path, "%s/loo.json", test_tmpdir());
    CHECK_INT(pp_layers_data_read(fixture("layers/profile4"), &d), 0);
    CHECK_INT(pp_layer_model_fit(&d, &o, m), 0);
    CHECK_INT(pp_layer_model_write(m, path), 0);
    root = json_load_file(path, 0, NULL);
    fits = json_object_get(json_object_get(root, "fits"), "time_s");
    json_object_foreach(fits, name, kind) {
        if (!loo && json_is_object(json_object_get(kind, "loo_rmspe")))
            loo = json_object_get(kind, "loo_rmspe");
    }
    CHECK(loo != NULL);
    json_object_set_new(loo, "power", json_real(81634.7));
    CHECK_INT(json_dump_file(root, path, JSON_INDENT(1)), 0);
    CHECK_INT(pp_layer_model_read(path, m), 0);
    json_object_set_new(loo, "power", json_real(-1));
    CHECK_INT(json_dump_file(root, path, JSON_INDENT(1)), 0);
    CHECK(pp_layer_model_read(path, m) < 0);
    CHECK_CONTAINS(test_log(), "loo_rmspe.power: -1 is out of range");
    json_decref(root);
    pp_layers_data_free(&d);
    free(m);
}
