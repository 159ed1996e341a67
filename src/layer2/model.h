/* model.h - the layer-2 model of a results folder: for every metric of
 * summary.csv, an estimator chosen and fitted over the parameters
 * (estimator.h), its honest error and its 90 % band; predictions at any
 * configuration (the one path of model, predict, plan, run and the
 * plots); RESULTS/model.json and the grid files of the plots.
 *
 * Categorical parameters split the model: one surface per combination of
 * labels measured, over the numeric parameters. Short runs are weighted
 * down, never left out. Rows with the same parameters (repeats, nodes of
 * a fleet) are one sample, their mean over each node's repeats, then over
 * the nodes: the surface is the fleet's mean board; the band covers one
 * new measurement (choose.h, replicates). A model aimed at one node
 * (variability.h) multiplies by that node's factor. Nothing here prints;
 * errors are logged and returned as -errno.
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
    int derivation;    /* -1 (default): the derivations blended (model_held.h); 0, 1,
                          2: energy, mean power or the total's duration derived alone
                          from the two others (what bench_accuracy compares with; 2
                          on a rail other than the total's: neither derived, weights 0,
                          as its duration is the total's); else refused (-EINVAL) */
} pp_model_options;

void pp_model_options_init(pp_model_options *o);

/* One metric in one group. */
typedef struct pp_model_fit {
    size_t n_values;   /* samples with a value: 0 no model, 1 that value, no band */
    double constant;   /* the value when n_values == 1 */
    pp_choice choice;  /* when n_values >= 2 */
    pp_est est;
    /* Blended with its derivation from two other metrics (E = P x T,
     * model_held.c): its own estimator's value to the power 1 - weight
     * times from[0] x from[1] (divide: /) to the power weight; choice's
     * errors and band are the blend's. A from metric blended with this one
     * enters with its own estimator's value. */
    int derived, divide;
    double weight;
    size_t from[2];
    /* edge_weighted: outside the range along dimension j (the farthest
     * outside) the weight is weight_edge[j], judged on its two edges held
     * out (NaN: weight) */
    int edge_weighted;
    double weight_edge[PP_SURFACE_MAX_DIMS];
    /* the least and the largest configuration value measured (pp_model_fit_column) */
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

/* A configuration: one value per parameter of the summary (a categorical
 * one: its label's index). */
typedef struct pp_model_point {
    double raw[PP_SUMMARY_MAX_PARAMS];
} pp_model_point;

/* Parameter name at value as a user writes it (a number, or a label)
 * into pt; *k (may be NULL) its index. 0, -ENOENT (no such parameter) or
 * -EINVAL (logged with what is accepted). */
int pp_model_point_set(const pp_summary *s, const char *name, const char *value,
                       pp_model_point *pt, int *k);

/* Where a point lies: its group, the nearest measured configuration
 * (summary row, normalized distance), per parameter outside the range. */
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
    int beyond;           /* 1: outside PP_MODEL_BEYOND_FACTOR times the measured values
                             (below a tenth of the least or above ten times the largest;
                             a metric not positive: its span widened so) */
} pp_prediction;

#define PP_MODEL_BEYOND_FACTOR 10.0

/* Metric (index into m->sum.metrics) at pt with its band. 0, -ENOENT
 * (labels never measured together) or -EINVAL (no model: value NaN). */
int pp_model_predict(const pp_model *m, size_t metric, const pp_model_point *pt,
                     pp_prediction *p);

/* The refusal of `powprof predict`: the first metric from `from` on
 * whose prediction at pt is beyond the measured values, that prediction
 * in *p; -1 when none (xz fitted on levels 1-6 predicted level 0 at
 * 3.6e20 W: a flag on a printed number is too easy to miss). */
long pp_model_first_beyond(const pp_model *m, const pp_model_point *pt, size_t from,
                           pp_prediction *p);

/* The fit of metric in group g (NULL when out of range). */
const pp_model_fit *pp_model_fit_of(const pp_model *m, size_t g, size_t metric);

/* ---- for the model's own files (model_file.c, model_held.c, model_pool.c,
 * variability.c): its groups and fits ---- */

/* Metric k's mean at each configuration of group g (malloc'd; NULL). */
double *pp_model_column(const pp_model *m, const pp_model_group *g, size_t k);

/* Metric k of configuration r of group g: the mean over each node's rows,
 * then over the nodes but skip (SIZE_MAX: none); NaN without a value. */
double pp_model_config_mean(const pp_model *m, const pp_model_group *g, size_t r, size_t k,
                            size_t skip);

/* pp_choose's options for metric k of group g: the model's (an achieved
 * rate interpolated), each configuration's rows its replicates (*rep
 * malloc'd, NULL unreplicated; free it). 0 or -ENOMEM. */
int pp_model_choose_options(const pp_model *m, const pp_model_group *g, size_t k,
                            pp_choose_options *co, double **rep);

/* Fit f of metric k's column y with f->choice (chosen) or one made now.
 * 0 or -ENOMEM (no fit possible: n_values 0). */
int pp_model_fit_column(const pp_model *m, pp_model_group *g, pp_model_fit *f, size_t k,
                        const double *y, int chosen);

/* Free group g's fits (NULL after); group g whole. */
void pp_model_drop_fits(pp_model_group *g, size_t n_metrics);
void pp_model_free_group(pp_model_group *g, size_t n_metrics);

/* own^(1 - weight) x derived^weight (linear when either is not > 0). */
double pp_model_blend(double own, double derived, double weight);

/* m's groups from m->sum (model.c): 0 or -ENOMEM. */
int pp_model_build_groups(pp_model *m);

/* Choose and fit every metric of every group. 0 or -ENOMEM. */
int pp_model_build_fits(pp_model *m);
/* Release the nested predictions the fits kept (the choices stay). */
void pp_model_fits_release(pp_model *m);

/* opened, saved, dumped: every user of a model opens one */
#include "model_file.h"

#endif
