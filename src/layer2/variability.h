/* variability.h - how much the boards of a fleet, and the repeats of a
 * configuration, differ: what `powprof model` reports on a merged folder
 * (merge.h) with rows from several nodes, and the node factors that aim a
 * model, and so a plan, at one board.
 *
 * Per configuration measured on more than one node ("shared"): each node's
 * value is the mean of its repeats; the relative difference is
 * (max - min) / mean over the nodes. Per metric: its mean and largest over
 * the shared configurations.
 *
 * A node's factor for a metric: the mean, over the shared configurations it
 * measured, of its value over the configuration's mean (the mean over the
 * nodes). NaN for a node that shares no configuration with another: how it
 * differs from the others is then unknown. The pooled relative difference
 * is (max - min) / mean of the factors: the board-to-board difference over
 * every shared configuration at once.
 *
 * Repeats: per (configuration, node) measured more than once, the relative
 * difference (max - min) / mean of its repeats, averaged.
 *
 * Leave-one-node-out error, per metric: every node in turn is left out, the
 * estimator chosen again (pp_choose, auto or the model's method) on the
 * means of the other nodes' rows, and the node's value (the mean of its
 * repeats) at each configuration it measured is predicted; the mean
 * absolute percentage error over all of them, and per node. This is what a
 * surface measured on other boards is worth for a board not yet measured.
 */
#ifndef PP_VARIABILITY_H
#define PP_VARIABILITY_H

#include "model.h"

#include <jansson.h>
#include <stddef.h>

typedef struct pp_fleet_metric {
    double rel_mean, rel_max; /* (max - min) / mean over the nodes, over the shared
                                 configurations (NaN: none) */
    size_t rel_max_row;       /* a summary row of the configuration with rel_max */
    double pooled;            /* (max - min) / mean of the node factors */
    double *factor;           /* per node (NaN: shares nothing) */
    double repeat_rel;        /* mean spread between repeats (NaN: no repeats) */
    size_t repeat_n;          /* (configuration, node) pairs measured more than once */
    double lono_mape;         /* leave-one-node-out error, % (NaN: not measured) */
    size_t lono_n;
    double *lono_node_mape;   /* per node (NaN: nothing predicted) */
} pp_fleet_metric;

/* One configuration measured on more than one node. */
typedef struct pp_fleet_config {
    size_t row;               /* a summary row of it */
    size_t n_nodes;
    double energy_rel, power_rel; /* of total_energy_j and total_mean_w (NaN: no column) */
} pp_fleet_config;

typedef struct pp_fleet {
    size_t n_nodes;           /* those of the summary (m->sum.nodes) */
    size_t n_configs;         /* configurations (over every group) */
    size_t n_shared;
    pp_fleet_config *shared;
    size_t *node_shared;      /* per node: the shared configurations it measured */
    int lono;                 /* the leave-one-node-out errors were measured */
    size_t n_metrics;
    pp_fleet_metric *metric;  /* one per metric of the summary */
} pp_fleet;

/* Measure the fleet of m's summary (with the leave-one-node-out errors
 * when lono; they need the metrics' fits, and cost a choice per node and
 * metric). 0 or -ENOMEM. */
int pp_fleet_measure(const pp_model *m, int lono, pp_fleet *f);
void pp_fleet_free(pp_fleet *f);

/* The fleet as model.json records it ("fleet"): nodes, shared
 * configurations, per metric its figures. A new reference, NULL on error. */
json_t *pp_fleet_json(const pp_model *m, const pp_fleet *f);

/* Aim m's predictions at node name (every metric times the node's factor).
 * With one node in the summary, its name aims at it unchanged. 0, or
 * -ENOENT (no such node: logged with the nodes there), -ESRCH (a node
 * that shares no configuration with another: logged), -ENOMEM. */
int pp_model_target_node(pp_model *m, const char *name);

/* Aim m at the most power-hungry node measured: the highest factor of
 * total_mean_w. 0 (m->target_node names it), -ESRCH (no node shares a
 * configuration with another, or no total_mean_w: logged), -ENOMEM. */
int pp_model_target_worst(pp_model *m);

#endif
