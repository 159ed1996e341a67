/* layers_predict.h - predictions of a layer model: every layer of a network,
 * and what a darknet component costs per frame. */
#ifndef PP_LAYERS_PREDICT_H
#define PP_LAYERS_PREDICT_H

#include "layers_model.h"

/* The whole network's q from the sum of its layers' predictions and its
 * FLOPs (net_weight and net_rate above). */
double pp_layer_model_total(const pp_layer_model *m, pp_layers_quantity q, double layers_sum,
                            double flops);

/* A layer's quantity q per frame, and its error band (the fit's
 * leave-one-out RMSPE times the value; NaN when unknown). 0; 1 when the
 * kind was never profiled and the roofline fit predicts it (its band twice
 * the widest kind's); -ENOENT (not logged) when the model has no roofline
 * fit either (a model of version 1). */
int pp_layer_model_layer(const pp_layer_model *m, pp_layers_quantity q, const pp_layer_desc *l,
                         double *value, double *band);

/* Predict every layer of net. Layers of kinds never profiled are predicted
 * by the roofline fit and named in a warning (and note) with their share;
 * an input size outside the profiled pixel counts is warned about. 0;
 * -ENOENT (logged) when those layers would be more than
 * PP_LAYERS_UNPROFILED_MAX_FRAC of the time, naming a network to profile,
 * or the model cannot predict a kind at all; -ERANGE (logged, naming the
 * model's file) when a value is not finite or absurd (a model edited by
 * hand); -ENOMEM. */
int pp_layers_predict(const pp_layer_model *m, const pp_network_desc *net,
                      pp_layers_prediction *out);

void pp_layers_prediction_free(pp_layers_prediction *p);

/* The cost of the network of cfg_path at width x height (0, 0: the cfg's
 * own) under model m: cfg read by powprof's own reader (no darknet). 0 or
 * -errno (logged: file and line of a bad cfg, a kind never profiled). */
int pp_layers_cost_of(const pp_layer_model *m, const char *cfg_path, int width, int height,
                      pp_layers_cost *out);

/* The device's mean power running the network at fps frames per second:
 * idle_w + fps (energy_j - idle_w time_s), the busy share of each second
 * at the frame's power and the rest idle. 0; -ERANGE when fps exceeds
 * max_fps (the core cannot keep up) or is negative; -EINVAL when idle_w is
 * unknown. */
int pp_layers_power_at_fps(const pp_layers_cost *c, double fps, double *power_w);

#endif
