/* adaptive_model.h - the layer-2 model of a results folder as the
 * predictor of an adaptive run (src/adaptive/adaptive.h): refitted on the
 * folder's summary.csv after every round, predicting the planning metrics
 * (total_energy_j, total_mean_w, and every <component>.achieved_fps the
 * folder has: the rate the planner checks requests against; the
 * achieved_hz of a component paced by sleep_s is no quantity a plan is
 * made on) and duration_s (the cost) through pp_model_predict, value and
 * band only.
 *
 * A metric's error is its nested cross-validated MAPE as `powprof model`
 * reports it, over the groups of labels weighted by their configurations
 * (NAN while some group has fewer than two); its claim (error_hi_pct)
 * the larger of the 90 % quantile over the folds of the error left on
 * the candidates not chosen (adaptive_claim.h, the predictor's claim
 * hook, after each refit; none with fewer than 3 folds) and a one-sided 90 % upper bound, mean + t(0.9, f - 1) sd / sqrt(f) over the f
 * folds (each fold counted as one observation), of the larger of the
 * nested errors between measured levels and at them (a run leaves both
 * configurations between levels and edges, which leave-one-out holds out
 * as extrapolations), and its noise floors: noise_pct the least of
 * pp_adaptive_noise_pct and its nested error at measured levels (which
 * holds the noise: curvature along the grid's lines biases the first
 * upwards), reported; noise_repeats_pct from repeats alone, which the
 * stop relies on.
 */
#ifndef PP_ADAPTIVE_MODEL_H
#define PP_ADAPTIVE_MODEL_H

#include "src/layer2/model.h"
#include "adaptive.h"

typedef struct pp_adaptive_model {
    pp_model m;
    int open;
    int metric[PP_ADAPTIVE_MAX_METRICS + 1]; /* the model's index of each (and of duration_s) */
    size_t n_metrics;
    int has_cost;
} pp_adaptive_model;

/* A predictor over am (zeroed here). */
void pp_adaptive_model_predictor(pp_adaptive_model *am, pp_adaptive_predictor *pr);
void pp_adaptive_model_free(pp_adaptive_model *am);

/* The noise floor of metric k of m as a MAPE in % (NAN: fewer than 3
 * terms, or a metric not always > 0): the error a model that knew the
 * surface would still make. Each configuration measured more than once
 * gives its rows' squared deviations from their mean (log units); each
 * configuration with a measured neighbour on either side along one
 * parameter, every other parameter equal (a grid line), gives its squared
 * distance to the line through them (Gasser, Sroka and Jennen-Steinmetz,
 * 1986), scaled to the noise variance. sigma^2 is the median of these
 * over the chi-square(1) median (robust to the curvature of a few lines;
 * the rest of it biases the floor upwards); the MAPE of a normal error
 * of that sigma, 79.8 sigma %. *repeats_pct: the same from the repeats'
 * terms alone (NAN with fewer than 3): the floor an adaptive run's stop
 * may rely on, since the lines' terms mix noise with curvature (on the
 * replayed grids of bench_claims they read 12-22 % where the surface was
 * known to 1-4 %). */
double pp_adaptive_noise_pct(const pp_model *m, size_t k, double *repeats_pct);

/* 1 for a planning metric's name. */
int pp_adaptive_planning_metric(const char *name);

#endif
