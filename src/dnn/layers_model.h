/* layers_model.h - models of a layer's cost per frame from its shape,
 * fitted on per-layer profiles (src/dnn/layers_profile.h), and predictions for
 * networks never run (`powprof layers model`, `powprof layers predict`).
 *
 * Three quantities are modelled per layer kind (convolutional, maxpool,
 * route, ...): CPU time (the thread's, which leaves out the time other
 * processes had the core: the latency on an unshared core), wall time, and
 * energy (the device's, estimated on a machine without sensors). Each
 * is fitted by least squares on relative errors (LAPACK dgelsd through
 * src/layer2/lapack.h: rows divided by the measured value, then Gauss-Newton steps
 * on the squared log errors, which remove the low bias noisy values give
 * the first fit) in one of these families, x being the layer's work (its
 * FLOPs when it has any, else the bytes it reads and writes):
 *
 *   linear  a + b x                    (Blackthorn's linear template)
 *   step    a + b x ceil(c / w) w / c  (Blackthorn's step template: the
 *           output channels c rounded up to a multiple of w, w from
 *           {2, 4, ..., 64} chosen by the least squared error)
 *   terms   a + sum_k b_k t_k over the terms of darknet's CPU work: for a
 *           convolution, FLOPs, weights (one pass of gemm's inner loop per
 *           weight), im2col's copy (size^2 c_in out_w out_h when size > 1),
 *           outputs (bias, batch norm, activation), outputs again when the
 *           activation calls exp(), and two step terms: FLOPs again when a
 *           row of the im2col matrix (4 out_w out_h bytes) exceeds a knot,
 *           and when the whole matrix does (Blackthorn's step template on
 *           the data size: a cache level; knots chosen by the least
 *           squared error); for a connected layer FLOPs and outputs; for a
 *           maxpool outputs x size^2 and inputs; else inputs and outputs
 *   power   exp(a) x^b                 (fitted on logarithms)
 *
 *   rate    b x                        (the baseline: one rate of the work)
 *
 * For each kind and quantity the family is chosen by leave-one-network-out
 * cross-validation over the profiled networks (every input size of a
 * network left out together) on what decides a network's error: per run
 * left out, the kind's layers summed, their error relative to the whole
 * network's measured value (RMS over runs). The baseline is among the
 * candidates, and the others enter shrunk toward it: the prediction is
 * weight x family + (1 - weight) x baseline, weight from {1/4, 1/2, 3/4, 1}
 * (a family that does not beat the baseline alone does not enter),
 * chosen with the family; a candidate must beat the best so far by 5 % to
 * be taken (the simplest wins ties). A kind profiled in fewer than
 * PP_LAYERS_MIN_CHOICE_NETS networks takes the baseline without choosing
 * (the model says so). The choice is made on the data that measures it,
 * so the per-kind figures are slightly optimistic: pp_layers_evaluate
 * nests the choice inside an outer leave-one-network-out to measure it
 * honestly, and that is the error the model reports.
 *
 * The whole network is then the layers' sum shrunk toward the baseline
 * of whole networks, FLOPs x one rate: net_weight x sum + (1 - net_weight)
 * x rate x FLOPs, net_weight from {0, 1/4, 1/2, 3/4, 1} by
 * leave-one-network-out on whole networks (each fold fits the layers as
 * above on the others), a larger weight taken only when it beats the
 * smaller ones by 5 %; the layers are scaled to that total. With fewer
 * than PP_LAYERS_MIN_CHOICE_NETS networks the weight is 1 (the kinds then
 * take their baselines).
 *
 * A kind never profiled is predicted from what its shape costs on this
 * machine: a + bytes / B + FLOPs / F (family "roofline", the bytes it reads,
 * writes and holds as weights, and its FLOPs: a memory rate and a compute
 * rate), fitted on every profiled layer of every kind, with a band twice
 * the widest of the profiled kinds'. pp_layers_predict names such layers
 * and their share of the predicted time, and refuses a network where they
 * are more than PP_LAYERS_UNPROFILED_MAX_FRAC of it.
 * Predictions are never below a tenth of the smallest value measured for
 * the kind (a fit may cross zero outside the data).
 */
#ifndef PP_LAYERS_MODEL_H
#define PP_LAYERS_MODEL_H

#include "layers.h"

#include <stddef.h>

typedef enum pp_layers_quantity {
    PP_LQ_CPU = 0, /* seconds per frame, CPU time of the thread */
    PP_LQ_WALL,    /* seconds per frame, wall time */
    PP_LQ_ENERGY,  /* joules per frame */
    PP_LQ_COUNT
} pp_layers_quantity;

typedef enum pp_layer_family {
    PP_LF_LINEAR = 0,
    PP_LF_STEP,
    PP_LF_TERMS,
    PP_LF_POWER,
    PP_LF_RATE,                   /* the baseline */
    PP_LF_COUNT,                  /* the families chosen among per kind */
    PP_LF_ROOFLINE = PP_LF_COUNT, /* kinds never profiled, fitted on every kind */
} pp_layer_family;

#define PP_LAYERS_MIN_CHOICE_NETS 3      /* fewer networks with a kind: the baseline */
#define PP_LAYERS_UNPROFILED_MAX_FRAC 0.2 /* of a network's time, predicted by the roofline */

const char *pp_layers_quantity_name(pp_layers_quantity q); /* "cpu_s", "time_s", "energy_j" */
const char *pp_layer_family_name(pp_layer_family f);       /* "linear", ... */

/* ---- Profiles read back ------------------------------------------------- */

typedef struct pp_layer_sample {
    pp_layer_desc d;
    size_t net;                     /* its network run: networks[net] */
    size_t file;                    /* read from files[file] (layers.csv) ... */
    int line;                       /* ... at this line (0: not read from a file) */
    double y[PP_LQ_COUNT];          /* measured per frame (medians) */
} pp_layer_sample;

typedef struct pp_network_sample {
    char name[64];
    int width, height;
    size_t first, n_layers;         /* its layers: samples[first .. first + n_layers) */
    double flops;
    double y[PP_LQ_COUNT];          /* the whole network per frame */
    double layers_y[PP_LQ_COUNT];   /* the sum of its layers per frame */
    double idle_w;
    int estimated;
    char device[32];
} pp_network_sample;

typedef struct pp_layers_data {
    size_t n_samples, n_networks;
    pp_layer_sample *samples;
    pp_network_sample *networks;
    char **files;                   /* the layers.csv files read */
    size_t n_files;
} pp_layers_data;

/* ---- Models ------------------------------------------------------------- */

#define PP_LAYER_MAX_COEF 8

typedef struct pp_layer_fit {
    int family;                   /* pp_layer_family; -1: no data */
    int step_w;                   /* step: the width */
    double knot[2];               /* terms of a convolution: row and matrix bytes */
    size_t n_coef;
    double coef[PP_LAYER_MAX_COEF];
    double floor;                 /* predictions are at least this */
    double weight;                /* the family's share, the baseline's 1 - weight */
    double base_coef;             /* the baseline's rate (value per FLOP or byte) */
    size_t n_samples, n_networks; /* what it was fitted on */
    int thin;                     /* too few networks to choose: the baseline */
    double loo_rmspe[PP_LF_COUNT]; /* leave-one-network-out RMSPE (fraction) of each
                                      family's layers; NaN when fewer than 2 networks */
    double loo_net[PP_LF_COUNT];  /* the choice's criterion (above) per family */
    double band_frac;             /* leave-one-network-out RMSPE of what is used (the
                                     family and weight chosen): its layers' band */
} pp_layer_fit;

typedef struct pp_layer_model {
    pp_layer_fit fit[PP_LQ_COUNT][PP_LAYER_KINDS];
    pp_layer_fit roofline[PP_LQ_COUNT]; /* every kind, for kinds never profiled */
    /* leave-one-network-out error of whole networks (sum of the layers
     * against the whole measured): the error band of predictions */
    double net_mape[PP_LQ_COUNT], net_rms[PP_LQ_COUNT];
    /* the whole network: net_weight x the layers' sum + (1 - net_weight) x
     * net_rate x its FLOPs (the baseline), net_weight chosen by
     * leave-one-network-out on whole networks (the layers scaled to the
     * total); 1 and 0 when not chosen (fewer than 3 networks: 0) */
    double net_weight[PP_LQ_COUNT], net_rate[PP_LQ_COUNT];
    double idle_w;                /* median idle power of the profiles (NaN: none) */
    int estimated;                /* energies come from an estimate */
    char device[32];
    size_t n_networks;            /* distinct networks (names) */
    double pixels_min, pixels_max; /* input sizes profiled (width x height; NaN: unknown) */
    char path[256];               /* the file it was read from, for messages ("" if fitted) */
} pp_layer_model;

/* Which fits to make: family < 0 chooses per kind by leave-one-network-out
 * (as above); else that family everywhere. use[i] (NULL: all) says whether
 * network run i of d takes part. */
typedef struct pp_layer_fit_opts {
    int family;
    const unsigned char *use;
    int layers_only; /* net_weight 1: no choice of it (inside its own choice) */
} pp_layer_fit_opts;

/* ---- Evaluation --------------------------------------------------------- */

/* Errors of predictions for networks left out of the fit. */
typedef struct pp_layers_eval_stats {
    double layer_rmspe;       /* every layer (fraction) */
    double layer_rmspe_major; /* layers of at least 1 % of their network's measured value */
    double layer_rmspe_flops; /* layers with FLOPs (convolutional, connected) */
    double net_mape, net_rms, net_max; /* whole networks: sum of the layers against the
                                          whole network measured */
    size_t n_layers, n_major, n_flops, n_runs;
} pp_layers_eval_stats;

typedef struct pp_layers_eval {
    /* leave-one-network-out (every input size of a network out together),
     * the family chosen per kind inside each fold by an inner
     * leave-one-network-out on the other networks only */
    pp_layers_eval_stats model[PP_LQ_COUNT];
    /* the same with one family everywhere */
    pp_layers_eval_stats family[PP_LF_COUNT][PP_LQ_COUNT];
    /* the baseline: FLOPs x one rate (fitted on the other networks, on
     * relative errors); per layer, the rate fitted on their layers with
     * FLOPs, over layers with FLOPs only */
    pp_layers_eval_stats baseline[PP_LQ_COUNT];
    size_t n_runs, n_networks;
    double (*pred)[PP_LQ_COUNT]; /* per run of the data: the model's prediction (nested) */
    double (*base)[PP_LQ_COUNT]; /* and the baseline's */
} pp_layers_eval;

/* ---- Predictions -------------------------------------------------------- */

typedef struct pp_layers_prediction {
    size_t n;
    unsigned char *roofline;           /* per layer: 1 when its kind was never profiled */
    size_t n_roofline;                 /* how many such layers */
    double roofline_frac;              /* their share of the predicted CPU time */
    char note[512];                    /* says which they are ("" when none) */
    int outside_pixels;                /* the input size is outside the profiled range */
    double (*layer)[PP_LQ_COUNT];      /* per layer (malloc'd, n) */
    double (*layer_band)[PP_LQ_COUNT];
    double total[PP_LQ_COUNT];         /* per frame: the layers' sum */
    double band[PP_LQ_COUNT];          /* its band: the model's network RMS error x total */
    double max_fps;                    /* 1 / CPU time: frames per second on one core */
} pp_layers_prediction;

/* ---- The hook for layer 2 and plans ------------------------------------- */

/* What a darknet component costs per frame, from a layer model instead of
 * a measurement. */
typedef struct pp_layers_cost {
    double time_s, time_band_s;     /* latency per frame on an unshared core (CPU time) */
    double energy_j, energy_band_j; /* the device's energy per frame (idle power included) */
    double idle_w;                  /* the device's power between frames (NaN: unknown) */
    double max_fps;                 /* 1 / time_s */
    int estimated;                  /* energies from an estimate, not a sensor */
} pp_layers_cost;

/* ---- Inside the models: one family fitted on samples, and evaluated ---- */

/* The samples a fit is made on: d->samples[idx[0 .. n)], quantity q. */
typedef struct pp_lsamples {
    const pp_layers_data *d;
    const size_t *idx;
    size_t n;
    pp_layers_quantity q;
} pp_lsamples;

/* Fit family f (pp_layer_family, PP_LF_ROOFLINE too) on s into fit, with
 * weight 1: 0; -EDOM (too few samples for the family); -ENOSYS (no
 * LAPACK); -ERANGE when the least squares fail on the values (fit->floor
 * then says nothing; pp_lfit_extreme names the row). */
int pp_lfit_family(const pp_lsamples *s, int f, pp_layer_fit *fit);

/* fit's value for l: the family's (at least fit->floor) mixed with the
 * baseline's by fit->weight, at least fit->floor. */
double pp_lfit_eval(const pp_layer_fit *fit, const pp_layer_desc *l);

/* The sample of s whose value is farthest from its work's (log of value
 * over work against the median's): where a failed fit should look. */
size_t pp_lfit_extreme(const pp_lsamples *s);

#endif
