/* layers.h - the layers of a darknet network and what each one computes,
 * from its .cfg alone (src/dnn/darknet_cfg.h): no darknet needed.
 *
 * Shapes follow darknet's own rules (its parser, 2018, the version Debian
 * ships): a convolution's output is (w + 2 pad - size) / stride + 1 with
 * pad = size / 2 when "pad=1"; a maxpool's (w + padding - size) / stride + 1
 * with padding = size - 1 by default; a route concatenates the channels of
 * its layers (negative indices count back from the route); an upsample
 * multiplies (a negative stride divides); yolo, region and detection layers
 * check, as darknet does, that the layer before has the channels their
 * classes and anchors need. The test tests/test_layers.c checks these shapes
 * against darknet's own for Debian's cfgs when the darknet module is built.
 *
 * FLOPs are counted as darknet prints them: 2 x multiply-adds, for
 * convolutional (2 n size^2 c/groups out_w out_h) and connected (2 inputs
 * outputs) layers; every other layer counts 0 (their cost is in the bytes
 * they read and write). Bytes are of 32-bit floats.
 */
#ifndef PP_LAYERS_H
#define PP_LAYERS_H

#include "darknet_cfg.h"

#include <stddef.h>

typedef enum pp_layer_kind {
    PP_LAYER_CONVOLUTIONAL = 0,
    PP_LAYER_CONNECTED,
    PP_LAYER_MAXPOOL,
    PP_LAYER_AVGPOOL,
    PP_LAYER_ROUTE,
    PP_LAYER_UPSAMPLE,
    PP_LAYER_SHORTCUT,
    PP_LAYER_YOLO,
    PP_LAYER_REGION,
    PP_LAYER_DETECTION,
    PP_LAYER_DROPOUT,
    PP_LAYER_SOFTMAX,
    PP_LAYER_COST,
    PP_LAYER_REORG,
    PP_LAYER_CROP,
    PP_LAYER_KINDS
} pp_layer_kind;

#define PP_LAYER_MAX_FROM 8
#define PP_LAYER_MAX 1024 /* layers in one network */

typedef struct pp_layer_desc {
    pp_layer_kind kind;
    int line;               /* of its [section] in the cfg */
    int in_w, in_h, in_c;   /* 0 when the layer before gives no image (after a softmax) */
    int out_w, out_h, out_c;
    long inputs, outputs;   /* elements */
    int filters, size, stride, groups, pad; /* 0 when the type has none */
    int batch_normalize;
    char activation[16];    /* convolutional, connected: darknet's name ("leaky", "linear",
                               "logistic" by default); else "" */
    size_t n_from;          /* route, shortcut: the layers read (absolute indices) */
    int from[PP_LAYER_MAX_FROM];
    long nweights;          /* darknet's l.nweights: conv c/groups n size^2, connected in out */
    double flops;           /* darknet's count (see above) */
    double param_bytes;     /* weights, biases and batch-norm scales, means, variances */
    double in_bytes, out_bytes;
} pp_layer_desc;

/* "convolutional", "maxpool", ... (darknet's section names), or "?". */
const char *pp_layer_kind_name(pp_layer_kind k);

/* The kind of a section name, darknet's short forms ("conv", "max") too;
 * -1 for a type powprof does not model. */
int pp_layer_kind_from_name(const char *name);

typedef struct pp_network_desc {
    char name[128];         /* the cfg's base name without ".cfg" */
    int width, height, channels;
    size_t n;
    pp_layer_desc layers[PP_LAYER_MAX];
    double flops;           /* the layers' sum */
} pp_network_desc;

/* The layers of cfg at input width x height (0, 0: the cfg's own [net]
 * width and height). Every error is logged as "FILE:LINE: [type] ..." with
 * the value at fault (unknown layer type, missing or bad key, a route to a
 * layer that does not exist, an output smaller than one pixel, channels a
 * yolo layer cannot use) and returns -EINVAL; -E2BIG past PP_LAYER_MAX
 * layers. out is large: allocate it. */
int pp_layers_describe(const pp_dncfg *cfg, int width, int height, pp_network_desc *out);

/* Read the cfg at path and describe it. The network's name is the file's
 * base name without ".cfg". 0 or -errno (logged). */
int pp_layers_describe_file(const char *path, int width, int height, pp_network_desc *out);

#endif
