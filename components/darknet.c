/* darknet: object detection with libdarknet, one frame per step.
 *
 * Settings: cfg (a name from /usr/share/darknet/cfg, ".cfg" optional, or a
 * path), weights (optional: without them the network has random weights,
 * which cost the same compute), images (a folder of .jpg/.png frames;
 * default darknet's sample images in /usr/share/darknet/data). The frames
 * are decoded and letterboxed to the network's input once, at setup, so a
 * step is network_predict alone; they are used in turn. Pace with fps.
 * Files are checked before darknet sees them (it exits the process on a
 * missing cfg), and its layer table is kept off the terminal.
 *
 * This is the only file that sees darknet's types (DESIGN.md).
 */
#include "component.h"

#include "../src/util.h"

#include <darknet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DARKNET_CFG_DIR "/usr/share/darknet/cfg"
#define DARKNET_DATA_DIR "/usr/share/darknet/data"
#define MAX_FRAMES 64

typedef struct darknet_priv {
    network *net;
    size_t n_frames, next;
    image frames[MAX_FRAMES];
} darknet_priv;

static int readable(const char *path) { return access(path, R_OK) == 0; }

/* cfg by name or path into out. */
static int resolve_cfg(pp_component *c, char *out, size_t cap)
{
    const char *cfg = c->spec->cfg[0] ? c->spec->cfg : "yolov3-tiny";

    if (strchr(cfg, '/'))
        pp_strlcpy(out, cfg, cap);
    else if (strstr(cfg, ".cfg"))
        pp_fmt(out, cap, "%s/%s", DARKNET_CFG_DIR, cfg);
    else
        pp_fmt(out, cap, "%s/%s.cfg", DARKNET_CFG_DIR, cfg);
    if (!readable(out)) {
        pp_fmt(c->reason, sizeof c->reason, "darknet cfg %s: %s", out, strerror(errno));
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

static int darknet_setup(pp_component *c)
{
    char cfg[1024], weights[1024], path[2048];
    const char *dir = c->spec->images[0] ? c->spec->images : DARKNET_DATA_DIR;
    char *names[256];
    size_t n_names = 0;
    darknet_priv *d;
    DIR *dp;
    struct dirent *de;
    int rc = resolve_cfg(c, cfg, sizeof cfg);

    if (rc < 0)
        return rc;
    weights[0] = '\0';
    if (c->spec->weights[0]) {
        pp_strlcpy(weights, c->spec->weights, sizeof weights);
        if (!readable(weights)) {
            pp_fmt(c->reason, sizeof c->reason, "darknet weights %s: %s", weights,
                     strerror(errno));
            return -ENOENT;
        }
    }
    dp = opendir(dir);
    if (!dp) {
        pp_fmt(c->reason, sizeof c->reason, "images %s: %s", dir, strerror(errno));
        return -ENOENT;
    }
    while ((de = readdir(dp)) && n_names < 256)
        if (has_image_suffix(de->d_name) && (names[n_names] = strdup(de->d_name)))
            n_names++;
    closedir(dp);
    if (n_names == 0) {
        pp_fmt(c->reason, sizeof c->reason, "images %s: no .jpg or .png file", dir);
        return -ENOENT;
    }
    qsort(names, n_names, sizeof *names, cmp_str);
    d = calloc(1, sizeof *d);
    if (!d) {
        rc = -ENOMEM;
        goto out;
    }
    c->priv = d;
    d->net = quiet_load(cfg, weights[0] ? weights : NULL);
    if (!d->net) {
        pp_fmt(c->reason, sizeof c->reason, "darknet could not load %s", cfg);
        rc = -EINVAL;
        goto out;
    }
    set_batch_network(d->net, 1);
    for (size_t i = 0; i < n_names && d->n_frames < MAX_FRAMES; i++) {
        image im;
        pp_fmt(path, sizeof path, "%s/%s", dir, names[i]);
        im = load_image_color(path, 0, 0);
        if (!im.data)
            continue;
        d->frames[d->n_frames++] = letterbox_image(im, network_width(d->net), network_height(d->net));
        free_image(im);
    }
    if (d->n_frames == 0) {
        pp_fmt(c->reason, sizeof c->reason, "images %s: none could be decoded", dir);
        rc = -EINVAL;
    }
out:
    for (size_t i = 0; i < n_names; i++)
        free(names[i]);
    if (rc < 0)
        darknet_teardown(c);
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

const pp_component_ops pp_component_darknet = {"darknet", darknet_setup, darknet_step,
                                               darknet_teardown};
