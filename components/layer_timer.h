/* layer_timer.h - the darknet module's second entry point: a network run
 * frame by frame with a timestamp at every layer (`powprof layers profile`).
 *
 * powprof-darknet.so exports, beside its component table, one
 * pp_layer_timer_ops under the name PP_LAYER_TIMER_SYMBOL. The core finds
 * the module through the component registry (the module of type "darknet",
 * components/registry.h) and looks the symbol up with dlsym, so that the
 * core never links darknet (src/dnn/layers_profile.c does this). The core drives
 * the frames and samples power; the module only loads the network, runs
 * frames and reads the monotonic clock.
 *
 * Each clock reading is taken twice: CLOCK_MONOTONIC (wall time, which also
 * counts the time other processes had the core) and
 * CLOCK_THREAD_CPUTIME_ID (the CPU time of the thread running the frame,
 * which does not), both in nanoseconds. darknet's forward pass on the CPU is
 * single-threaded (its own gemm; Debian's build has no OpenMP), so a frame
 * uses one core and its CPU time is its cost on an unshared core.
 *
 * Like component.h, this header depends on no other powprof header.
 */
#ifndef PP_LAYER_TIMER_H
#define PP_LAYER_TIMER_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever a structure below changes. */
#define PP_LAYER_TIMER_ABI 1
#define PP_LAYER_TIMER_SYMBOL "pp_layer_timer_exports"

/* What darknet itself says of a layer, to check powprof's own reading of
 * the cfg (src/dnn/layers.h) against it. */
typedef struct pp_layer_timer_info {
    char type[16];      /* darknet's section name: "convolutional", "maxpool", ... */
    int in_w, in_h, in_c;
    int out_w, out_h, out_c; /* l.out_w, l.out_h, l.out_c */
    int filters, size, stride, groups; /* l.n, l.size, l.stride, l.groups */
    long nweights;      /* l.nweights */
    long inputs, outputs; /* l.inputs, l.outputs */
    double flops;       /* as darknet prints it: 2 l.n l.size^2 l.c/l.groups l.out_h l.out_w for
                           convolutional layers; 2 l.inputs l.outputs for connected; else 0 */
} pp_layer_timer_info;

typedef struct pp_layer_timer_ops {
    unsigned abi;     /* PP_LAYER_TIMER_ABI */
    size_t info_size; /* sizeof(pp_layer_timer_info) as the module was built */
    /* Load the network of cfg_path with random weights at batch 1, and a
     * random input frame (fixed seed). darknet's layer table is kept off the
     * terminal. darknet exits the process on a cfg it cannot read: check the
     * cfg first (src/dnn/layers.h). 0 and *net, *n_layers; or -errno with a
     * one-line reason in why. */
    int (*open)(const char *cfg_path, void **net, size_t *n_layers, char *why, size_t cap);
    /* Layer i (< n_layers) as darknet built it. */
    void (*info)(void *net, size_t i, pp_layer_timer_info *out);
    /* One frame through darknet's network_predict: t_ns[0] and cpu_ns[0]
     * just before, t_ns[1] and cpu_ns[1] just after. */
    void (*frame)(void *net, int64_t t_ns[2], int64_t cpu_ns[2]);
    /* One frame layer by layer, the loop of darknet's forward_network with
     * the clocks read between layers: layer i ran from t_ns[i] to t_ns[i+1]
     * (t_ns and cpu_ns hold n_layers + 1 values). */
    void (*frame_layers)(void *net, int64_t *t_ns, int64_t *cpu_ns);
    void (*close)(void *net);
} pp_layer_timer_ops;

#endif
