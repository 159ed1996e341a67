/* darknet (module powprof-darknet.so): object detection with libdarknet,
 * one frame per step.
 *
 * Settings: cfg (a name from /usr/share/darknet/cfg, ".cfg" optional, or a
 * path; "{model}" or a parameter named cfg takes it from a categorical
 * parameter), weights (optional: without them the network has random weights,
 * which cost the same compute), images (a folder of .jpg/.png frames;
 * default darknet's sample images in /usr/share/darknet/data). The frames
 * are decoded and letterboxed to the network's input once, at setup, so a
 * step is network_predict alone; they are used in turn. Pace with fps.
 * Files are checked before darknet sees them (it exits the process on a
 * missing cfg), and its layer table is kept off the terminal.
 *
 * The module's second entry point, the layer timer of layer_timer.h
 * (`powprof layers profile`), is at the end of this file.
 *
 * This is the only file that sees darknet's types (DESIGN.md).
 */
#include "component.h"
#include "layer_timer.h"

#include <darknet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DARKNET_CFG_DIR "/usr/share/darknet/cfg"
#define DARKNET_DATA_DIR "/usr/share/darknet/data"
#define MAX_FRAMES 64

typedef struct darknet_priv {
    network *net;
    size_t n_frames, next;
    image frames[MAX_FRAMES];
} darknet_priv;

static const pp_component_key darknet_keys[] = {
    {"cfg", PP_KEY_STRING, 0, NULL,
     "the network: a name in " DARKNET_CFG_DIR " (\".cfg\" optional) or a path; default "
     "yolov3-tiny"},
    {"weights", PP_KEY_STRING, 0, NULL, "trained weights (default: random, same compute)"},
    {"images", PP_KEY_STRING, 0, NULL,
     "a folder of .jpg/.png frames (default " DARKNET_DATA_DIR ")"},
    {NULL, 0, 0, NULL, NULL},
};

static int readable(const char *path) { return access(path, R_OK) == 0; }

/* Text of a key, or dflt when not given; -errno with the reason set. */
static int key_text(pp_component *c, const char *key, const char *dflt, char *out, size_t cap)
{
    int rc = pp_component_text(c, key, out, cap);

    if (rc == -ENAMETOOLONG)
        snprintf(c->reason, sizeof c->reason, "%s is too long", key);
    if (rc == 1)
        snprintf(out, cap, "%s", dflt);
    return rc < 0 ? rc : 0;
}

/* cfg by name or path into cfg, weights (or "") into weights, the frames'
 * folder into dir; every file checked before darknet sees it. */
static int resolve_files(pp_component *c, char *cfg, char *weights, char *dir, size_t cap)
{
    char name[1024];
    int rc;

    if ((rc = key_text(c, "cfg", "yolov3-tiny", name, sizeof name)) < 0 ||
        (rc = key_text(c, "weights", "", weights, cap)) < 0 ||
        (rc = key_text(c, "images", DARKNET_DATA_DIR, dir, cap)) < 0)
        return rc;
    if ((size_t)snprintf(cfg, cap, "%s%s%s%s", strchr(name, '/') ? "" : DARKNET_CFG_DIR,
                         strchr(name, '/') ? "" : "/", name,
                         strchr(name, '/') || strstr(name, ".cfg") ? "" : ".cfg") >= cap) {
        snprintf(c->reason, sizeof c->reason, "cfg is too long");
        return -ENAMETOOLONG;
    }
    if (!readable(cfg)) {
        snprintf(c->reason, sizeof c->reason, "darknet cfg '%.150s': %.300s: %s", name, cfg,
                 strerror(errno));
        return -ENOENT;
    }
    if (weights[0] && !readable(weights)) {
        snprintf(c->reason, sizeof c->reason, "darknet weights %.400s: %s", weights,
                 strerror(errno));
        return -ENOENT;
    }
    return 0;
}

static int has_image_suffix(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0 ||
                   strcasecmp(dot, ".png") == 0);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run f with file descriptors 1 and 2 on /dev/null (darknet's chatter). */
static network *quiet_load(char *cfg, char *weights)
{
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    int saved1 = dup(1), saved2 = dup(2);
    network *net;

    fflush(stdout);
    fflush(stderr);
    if (null_fd >= 0) {
        dup2(null_fd, 1);
        dup2(null_fd, 2);
    }
    net = load_network(cfg, weights, 0);
    fflush(stdout);
    fflush(stderr);
    if (saved1 >= 0) {
        dup2(saved1, 1);
        close(saved1);
    }
    if (saved2 >= 0) {
        dup2(saved2, 2);
        close(saved2);
    }
    if (null_fd >= 0)
        close(null_fd);
    return net;
}

static void darknet_teardown(pp_component *c)
{
    darknet_priv *d = c->priv;

    if (!d)
        return;
    for (size_t i = 0; i < d->n_frames; i++)
        free_image(d->frames[i]);
    if (d->net)
        free_network(d->net);
    free(d);
    c->priv = NULL;
}

/* The image file names of dir, sorted, into names (malloc'd). Returns how
 * many, or -ENOENT with the reason set. */
static int list_images(pp_component *c, const char *dir, char **names, size_t cap)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    size_t n = 0;

    if (!dp) {
        snprintf(c->reason, sizeof c->reason, "images %.400s: %s", dir, strerror(errno));
        return -ENOENT;
    }
    while ((de = readdir(dp)) && n < cap)
        if (has_image_suffix(de->d_name) && (names[n] = strdup(de->d_name)))
            n++;
    closedir(dp);
    if (n == 0) {
        snprintf(c->reason, sizeof c->reason, "images %.400s: no .jpg or .png file", dir);
        return -ENOENT;
    }
    qsort(names, n, sizeof *names, cmp_str);
    return (int)n;
}

static int darknet_check(pp_component *c)
{
    char cfg[1024], weights[1024], dir[1024], *names[256];
    int n = resolve_files(c, cfg, weights, dir, sizeof cfg);

    if (n == 0)
        n = list_images(c, dir, names, 256);
    for (int i = 0; i < n; i++)
        free(names[i]);
    return n < 0 ? n : 0;
}

static int darknet_setup(pp_component *c)
{
    char cfg[1024], weights[1024], dir[1024], path[2048];
    char *names[256];
    int n_names = 0;
    darknet_priv *d;
    int rc = resolve_files(c, cfg, weights, dir, sizeof cfg);

    if (rc == 0 && (n_names = list_images(c, dir, names, 256)) < 0)
        rc = n_names;
    if (rc < 0)
        return rc;
    d = calloc(1, sizeof *d);
    if (!d) {
        rc = -ENOMEM;
        goto out;
    }
    c->priv = d;
    d->net = quiet_load(cfg, weights[0] ? weights : NULL);
    if (!d->net) {
        snprintf(c->reason, sizeof c->reason, "darknet could not load %.400s", cfg);
        rc = -EINVAL;
        goto out;
    }
    set_batch_network(d->net, 1);
    for (int i = 0; i < n_names && d->n_frames < MAX_FRAMES; i++) {
        image im;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        im = load_image_color(path, 0, 0);
        if (!im.data)
            continue;
        d->frames[d->n_frames++] = letterbox_image(im, network_width(d->net), network_height(d->net));
        free_image(im);
    }
    if (d->n_frames == 0) {
        snprintf(c->reason, sizeof c->reason, "images %.400s: none could be decoded", dir);
        rc = -EINVAL;
    }
out:
    for (int i = 0; i < n_names; i++)
        free(names[i]);
    return rc;
}

static int darknet_step(pp_component *c, int64_t deadline_ns)
{
    darknet_priv *d = c->priv;

    (void)deadline_ns;
    network_predict(d->net, d->frames[d->next].data);
    d->next = (d->next + 1) % d->n_frames;
    return 0;
}

static const pp_component_ops darknet = {
    .type = "darknet",
    .summary = "darknet object detection, one frame per step (pace it with fps)",
    .keys = darknet_keys,
    .check = darknet_check,
    .setup = darknet_setup,
    .step = darknet_step,
    .teardown = darknet_teardown,
};

PP_COMPONENT_MODULE(&darknet);

/* ---- The layer timer (layer_timer.h) ------------------------------------ */

typedef struct timed_net {
    network *net;
    float *input;
} timed_net;

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void read_clocks(int64_t *t_ns, int64_t *cpu_ns)
{
    *cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    *t_ns = clock_ns(CLOCK_MONOTONIC);
}

static void timer_close(void *h)
{
    timed_net *t = h;

    if (!t)
        return;
    if (t->net)
        free_network(t->net);
    free(t->input);
    free(t);
}

static int timer_open(const char *cfg_path, void **out, size_t *n_layers, char *why, size_t cap)
{
    char cfg[1024];
    timed_net *t;
    unsigned seed = 1;

    *out = NULL;
    if ((size_t)snprintf(cfg, sizeof cfg, "%s", cfg_path) >= sizeof cfg || !readable(cfg)) {
        snprintf(why, cap, "darknet cfg %.400s: %s", cfg_path,
                 strlen(cfg_path) >= sizeof cfg ? "path too long" : strerror(errno));
        return -ENOENT;
    }
    if (!(t = calloc(1, sizeof *t)))
        return -ENOMEM;
    t->net = quiet_load(cfg, NULL);
    if (!t->net) {
        snprintf(why, cap, "darknet could not load %.400s", cfg);
        timer_close(t);
        return -EINVAL;
    }
    set_batch_network(t->net, 1);
    if (!(t->input = malloc((size_t)t->net->inputs * sizeof *t->input))) {
        timer_close(t);
        return -ENOMEM;
    }
    for (int i = 0; i < t->net->inputs; i++)
        t->input[i] = (float)rand_r(&seed) / (float)RAND_MAX;
    *out = t;
    *n_layers = (size_t)t->net->n;
    return 0;
}

static const char *type_name(LAYER_TYPE type)
{
    switch (type) {
    case CONVOLUTIONAL: return "convolutional";
    case CONNECTED: return "connected";
    case MAXPOOL: return "maxpool";
    case AVGPOOL: return "avgpool";
    case ROUTE: return "route";
    case UPSAMPLE: return "upsample";
    case SHORTCUT: return "shortcut";
    case YOLO: return "yolo";
    case REGION: return "region";
    case DETECTION: return "detection";
    case DROPOUT: return "dropout";
    case SOFTMAX: return "softmax";
    case COST: return "cost";
    case REORG: return "reorg";
    case CROP: return "crop";
    default: return "other";
    }
}

static void timer_info(void *h, size_t i, pp_layer_timer_info *out)
{
    const layer *l = &((timed_net *)h)->net->layers[i];

    memset(out, 0, sizeof *out);
    snprintf(out->type, sizeof out->type, "%s", type_name(l->type));
    out->in_w = l->w;
    out->in_h = l->h;
    out->in_c = l->c;
    out->out_w = l->out_w;
    out->out_h = l->out_h;
    out->out_c = l->out_c;
    out->filters = l->n;
    out->size = l->size;
    out->stride = l->stride;
    out->groups = l->groups;
    out->nweights = l->nweights;
    out->inputs = l->inputs;
    out->outputs = l->outputs;
    if (l->type == CONVOLUTIONAL)
        out->flops = 2.0 * l->n * l->size * l->size * l->c / l->groups * l->out_h * l->out_w;
    else if (l->type == CONNECTED)
        out->flops = 2.0 * l->inputs * l->outputs;
}

static void timer_frame(void *h, int64_t t_ns[2], int64_t cpu_ns[2])
{
    timed_net *t = h;

    read_clocks(&t_ns[0], &cpu_ns[0]);
    network_predict(t->net, t->input);
    read_clocks(&t_ns[1], &cpu_ns[1]);
}

/* network_predict and forward_network (darknet's network.c) with a clock
 * reading after each layer. */
static void timer_frame_layers(void *h, int64_t *t_ns, int64_t *cpu_ns)
{
    timed_net *t = h;
    network orig = *t->net, net;

    read_clocks(&t_ns[0], &cpu_ns[0]);
    t->net->input = t->input;
    t->net->truth = 0;
    t->net->train = 0;
    t->net->delta = 0;
    net = *t->net;
    for (int i = 0; i < net.n; i++) {
        layer l = net.layers[i];
        net.index = i;
        if (l.delta)
            fill_cpu(l.outputs * l.batch, 0, l.delta, 1);
        l.forward(l, net);
        net.input = l.output;
        if (l.truth)
            net.truth = l.output;
        read_clocks(&t_ns[i + 1], &cpu_ns[i + 1]);
    }
    *t->net = orig;
}

__attribute__((visibility("default"))) const pp_layer_timer_ops pp_layer_timer_exports = {
    .abi = PP_LAYER_TIMER_ABI,
    .info_size = sizeof(pp_layer_timer_info),
    .open = timer_open,
    .info = timer_info,
    .frame = timer_frame,
    .frame_layers = timer_frame_layers,
    .close = timer_close,
};
