/* model.h - the layer-2 model of a results folder: for every metric of
 * summary.csv, an estimator chosen and fitted over the parameters
 * (estimator.h), its honest error and its 90 % band; predictions at any
 * configuration; RESULTS/model.json and the grid files of the plots.
 *
 * One prediction path: `powprof model`, `predict`, `plan`, `run` and the
 * plotted surfaces all predict through pp_model_predict.
 *
 * Categorical parameters split the model: one surface per combination of
 * labels that was measured, over the numeric parameters (a prediction
 * needs labels that were measured together). Short runs (summary.h) are
 * weighted down, never left out.
 *
 * Repeats and fleets: rows with the same parameters (a configuration
 * measured several times, or on several nodes) are one sample of the
 * surface, their mean: the mean over the node's repeats, then over the
 * nodes (each node counts once, however often it measured), weighing the
 * sum of the rows' run weights. The node is never a dimension of the
 * surface: the surface is the fleet's mean board. The band covers one new
 * measurement rather than the mean: its residuals are those of every row
 * against the held-out prediction of its configuration (estimator.h,
 * replicates), so the spread between repeats and between boards widens
 * it. A model can be aimed at one node (pp_model_target_node in
 * variability.h): its predictions are then the mean board's times that
 * node's factor.
 *
 * Library code: nothing here prints; errors are logged and returned as
 * -errno.
 */
#ifndef PP_MODEL_H
#define PP_MODEL_H

#include "estimator.h"
#include "src/results/summary.h"
#include "battery/battery.h"

#include <stddef.h>
#include <stdio.h>

typedef struct pp_model_options {
    pp_method method;  /* default auto */
    double h;          /* < 0 (default): tuned; else the smoothing length (est.h)
                          of every metric; not with auto */
    int value_space;   /* -1 (default): chosen, 0 linear, 1 log */
    const char *const *only; /* NULL (default): every metric; else a NULL-terminated
                                list of the metrics to model (the others get none:
                                faster, for the planner; not for saving) */
    int keep_held;     /* 1: keep every fit's nested predictions after the model is
                          built (model_held.h; an adaptive run's claim); default 0 */
} pp_model_options;

void pp_model_options_init(pp_model_options *o);

/* One metric in one group. */
typedef struct pp_model_fit {
    size_t n_values;   /* samples with a value: 0 no model, 1 that value, no band */
    double constant;   /* the value when n_values == 1 */
    pp_choice choice;  /* when n_values >= 2 */
    pp_est est;
    /* Blended with its derivation from two other metrics of the group
     * (E = P x T, model_held.c): the value is its own estimator's to the
     * power 1 - weight times from[0] x from[1] (divide: from[0] / from[1])
     * to the power weight; choice's errors and band are those of the
     * blended nested predictions. A from metric blended with this one
     * (its own from holds this metric) enters with its own estimator's
     * value, else with its value (the duration blended by the total).
     * Files written before the blend: weight 1. */
    int derived, divide;
    double weight;
    size_t from[2];
    /* edge_weighted: outside the measured range along dimension j (the
     * farthest outside, in steps) the blend weighs weight_edge[j] instead,
     * judged on that dimension's two edges held out (model_held.c: an
     * extrapolation is not an interpolation; NaN, or files without it:
     * weight) */
    int edge_weighted;
    double weight_edge[PP_SURFACE_MAX_DIMS];
    /* the least and the largest configuration value measured (pp_model_value_ranges) */
    double y_min, y_max;
} pp_model_fit;

/* The configurations of one combination of labels. */
typedef struct pp_model_group {
    size_t n_rows;                     /* configurations: the surface's samples */
    size_t *rows;                      /* per configuration, its first summary row */
    size_t *member_start;              /* n_rows + 1: configuration r is the summary rows */
    size_t *members;                   /* members[member_start[r] .. member_start[r + 1]),
                                          sorted by node, then repeat */
    int replicated;                    /* some configuration has more than one row */
    double label[PP_SUMMARY_MAX_PARAMS]; /* label index per categorical parameter (else -1) */
    pp_surface surf;                   /* over the numeric parameters */
    pp_model_fit *fits;                /* one per metric */
} pp_model_group;

typedef struct pp_model {
    pp_summary sum;
    pp_model_options opts;
    size_t n_num;                          /* numeric parameters: the surface's dimensions */
    size_t num[PP_SUMMARY_MAX_PARAMS];     /* their indices among the parameters */
    size_t n_groups;
    pp_model_group *groups;
    int from_file;   /* the choices came from a model.json that matches summary.csv */
    int stale;       /* a model.json was there but summary.csv changed since: rebuilt */
    unsigned long long summary_hash;
    /* aimed at one node (variability.h): every prediction of metric k is
     * multiplied by node_factor[k]; NULL: the fleet's mean board */
    double *node_factor;
    char target_node[PP_NODE_NAME_MAX];
    struct pp_fleet *fleet; /* variability.h: what `powprof model` measured of the
                               fleet (NULL: not measured); saved in model.json */
    /* the results' battery (run.json), when the caller read it: the metrics
     * it derives from power are predicted through it (src/plan/derived.c) */
    int has_battery;
    pp_battery_params battery;
    /* the factor pp_model_calibrate_bands scaled the bands between levels
     * by (NaN: not calibrated, e.g. a model read from model.json, whose
     * bands have it already) */
    double band_kappa;
} pp_model;

/* Open the model of dir: read summary.csv (and run.json), then either
 * reuse the choices of dir/model.json when it was written for this very
 * summary.csv (use_saved), or choose every estimator anew with o (NULL:
 * defaults), nested cross-validation included (seconds for a few hundred
 * configurations). Returns 0, -EINVAL (logged: no summary, no parameter,
 * bad model.json) or -ENOMEM. */
int pp_model_open(const char *dir, const pp_model_options *o, int use_saved, pp_model *m);
void pp_model_free(pp_model *m);

/* Write dir/model.json (atomically): the parameters, and per group and
 * metric the estimator, its value space, bandwidth or smoothing, errors
 * and band. 0 or -errno. */
int pp_model_save(const pp_model *m, const char *dir);

/* The same JSON document on a stream (what `powprof model --json` prints).
 * 0 or -errno. */
int pp_model_dump(const pp_model *m, FILE *fp);

/* Grid files of the plotted surfaces under dir/model/ (created): for each
 * metric, a line over the one varying numeric parameter (<metric>.dat:
 * x, value, lo, hi; 200 points), or a surface over every pair of varying
 * ones (<metric>__<a>__<b>.dat: a, b, value, lo, hi; 60 x 60, the others
 * at their middle). With categorical parameters the first group's files
 * have these names and group g >= 1 adds ".g<g>" before ".dat" (labels
 * never reach a file name; model.json lists the groups). Names that
 * pp_path_fmt refuses get no grid file (logged). 0 or -errno. */
int pp_model_write_grids(const pp_model *m, const char *dir);

/* A configuration: one value per parameter of the summary (a categorical
 * one: its label's index). */
typedef struct pp_model_point {
    double raw[PP_SUMMARY_MAX_PARAMS];
} pp_model_point;

/* Parameter name of s at value as a user writes it (a number, or a
 * categorical parameter's label) into pt; *k (may be NULL) gets its index.
 * 0, -ENOENT (no such parameter) or -EINVAL (not a number, not positive on
 * a log scale, not one of the labels), logged with what is accepted. */
int pp_model_point_set(const pp_summary *s, const char *name, const char *value,
                       pp_model_point *pt, int *k);

/* Where a point lies: its group, the nearest measured configuration there
 * (summary row and distance in normalized units), and for each numeric
 * parameter whether it lies outside the measured range. */
typedef struct pp_model_where {
    size_t group;
    size_t nearest_row;
    double distance;
    int outside[PP_SUMMARY_MAX_PARAMS];
    int any_outside;
} pp_model_where;

/* -ENOENT (logged at debug level) when no group has the point's labels. */
int pp_model_locate(const pp_model *m, const pp_model_point *pt, pp_model_where *w);

typedef struct pp_prediction {
    double value, lo, hi; /* in the metric's units; lo/hi the 90 % band, NaN without one */
    double honest_mape;   /* the metric's honest error in % (NaN: unknown) */
    int beyond;           /* 1: the value lies outside PP_MODEL_BEYOND_FACTOR times the
                             metric's measured range (below a tenth of its least value or
                             above ten times its largest, for a positive metric; outside
                             the range widened by that factor of its span otherwise): an
                             extrapolation the measurements do not support */
} pp_prediction;

#define PP_MODEL_BEYOND_FACTOR 10.0

/* The prediction of metric (index into m->sum.metrics) at pt, with its
 * band. 0, -ENOENT (labels never measured together) or -EINVAL (metric
 * without a model in that group: value NaN). */
int pp_model_predict(const pp_model *m, size_t metric, const pp_model_point *pt,
                     pp_prediction *p);

/* Energy, mean power and duration made consistent (model_held.c,
 * issue 43): per rail R with R_energy_j, R_mean_w and duration_s
 * modelled, the three derivations (E = P x T, P = E / T, T = E / P; for a
 * rail other than the total only the first two: the duration is the
 * total's) are blended in log space: a geometric blend of consistent
 * triples is consistent. Each derivation alone is scored fold by fold on
 * the nested predictions between measured levels (at them without level
 * folds), by the sum of the blended metrics' errors; the best weighs 1,
 * each other exp(-z^2 / 2), z its mean loss over the standard error
 * (model_held.c, weights_without): a near tie is shared, not decided; a loss the
 * folds agree on weighs nothing. The printed errors have the weights
 * remade without each pair's fold. Positive metrics only. Needs the
 * nested predictions (pp_choose's keep_held). 0 or -ENOMEM. */
int pp_model_derive(pp_model *m);

/* Every fit's y_min and y_max from its group's configurations (model.c;
 * pp_model_open does it). 0 or -ENOMEM. */
int pp_model_value_ranges(pp_model *m);

/* A categorical parameter's groups are fitted apart, each with a few
 * residuals behind its band at measured levels; below 9 the conformal
 * quantile is only their largest, which covers less than 90 % (the local
 * darknet set: 4 or 5 rates per network, 83 % of interior values held
 * out). Such a group's band_q becomes at least the quantile of the
 * residuals of every group of the metric, relative errors being alike
 * across labels (model_pool.c; pp_model_open does it after the fits, on
 * their kept residuals). 0 or -ENOMEM. */
int pp_model_pool_bands(pp_model *m);

/* The bands between measured levels sized by what they cover (model_pool.c,
 * issue 43): each fit's band_q_between becomes kappa x the quantile of its
 * needs on the level folds the printed error uses (each fold's residuals,
 * its chosen spec refitted without it, over their distance
 * pp_band_between_without), kappa one factor for the model, nested: the
 * conformal 90 % quantile, over every fold a of the fits of the total's
 * energy, mean power and duration in every group (every fit when none of
 * them is fitted: the three every plan models, so that `plan` sizes its
 * bands as `model` does), of a's needs over the quantile the fit would
 * have without a (the other folds' needs, each predicted without a and
 * it). Fewer than 9 such ratios: the band as pp_choose made it
 * (band_kappa NaN), as for a fit with fewer than two fold groups. 0 or
 * -ENOMEM. */
int pp_model_calibrate_bands(pp_model *m);

/* The refusal of `powprof predict` (model.c): the first metric
 * from index `from` on whose prediction at pt is flagged beyond the
 * measured values (pp_prediction.beyond), with that prediction in *p;
 * -1 when none is. Past ten times what was measured, neither the value
 * nor its band is supported by the data (xz fitted on levels 1-6
 * predicted level 0 at 3.6e20 W): a flag on a printed number is too easy
 * to miss, so predict prints nothing unless asked to (--extrapolate).
 * The planner scores its own grids and keeps the flag. */
long pp_model_first_beyond(const pp_model *m, const pp_model_point *pt, size_t from,
                           pp_prediction *p);

/* The fit of metric in group g (NULL when out of range). */
const pp_model_fit *pp_model_fit_of(const pp_model *m, size_t g, size_t metric);

#endif
