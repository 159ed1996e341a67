/* variability.h - how much the boards of a fleet and the repeats of a
 * configuration differ (`powprof model` on a merged folder), and the node
 * factors that aim a model, and so a plan, at one board.
 *
 * A configuration measured on more than one node is shared; its relative
 * difference is (max - min) / mean over the nodes (each node's value the
 * mean of its repeats). A node's factor: the mean over the shared
 * configurations it measured of its value over their mean (NaN: it shares
 * none); pooled: (max - min) / mean of the factors. Repeats: the relative
 * difference of each (configuration, node)'s repeats, averaged.
 * Leave-one-node-out: each node left out, the estimator chosen again on
 * the others' means, its values predicted: what a surface measured on
 * other boards is worth for a new one.
 */
#ifndef PP_VARIABILITY_H
#define PP_VARIABILITY_H

#include "model.h"

#include <jansson.h>
#include <stddef.h>

typedef struct pp_fleet_metric {
    double rel_mean, rel_max; /* (max - min) / mean over the nodes, over the shared
                                 configurations (NaN: none) */
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

/* Measure the fleet of m's summary (lono: with the leave-one-node-out
 * errors, a choice per node and metric). 0 or -ENOMEM. */
int pp_fleet_measure(const pp_model *m, int lono, pp_fleet *f);
void pp_fleet_free(pp_fleet *f);

/* The fleet as model.json records it ("fleet"): nodes, shared
 * configurations, per metric its figures. A new reference, NULL on error. */
json_t *pp_fleet_json(const pp_model *m, const pp_fleet *f);

/* Aim m's predictions at node name (times its factors; the only node:
 * unchanged). 0, -ENOENT (no such node), -ESRCH (it shares nothing; both
 * logged) or -ENOMEM. */
int pp_model_target_node(pp_model *m, const char *name);

/* Aim m at the node with the highest factor of total_mean_w (named in
 * m->target_node). 0, -ESRCH (none shared, or no total_mean_w: logged) or
 * -ENOMEM. */
int pp_model_target_worst(pp_model *m);

#endif
