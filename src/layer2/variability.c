#include "variability.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/results/json_file.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One node's rows of one configuration, for one metric. */
typedef struct node_stat {
    size_t node, n;
    double mean, lo, hi;
} node_stat;

/* The nodes that measured configuration r of group g, with metric k's
 * mean, lowest and highest over each one's repeats (rows without a value
 * left out; a node without any is not listed). The count. */
static size_t node_stats(const pp_model *m, const pp_model_group *g, size_t r, size_t k,
                         node_stat *out)
{
    const pp_summary *s = &m->sum;
    size_t n = 0;

    for (size_t j = g->member_start[r]; j < g->member_start[r + 1]; j++) {
        size_t row = g->members[j];
        double v = s->y[row * s->n_metrics + k];
        if (isnan(v))
            continue;
        if (n == 0 || out[n - 1].node != s->node[row])
            out[n++] = (node_stat){s->node[row], 0, 0, v, v};
        out[n - 1].n++;
        out[n - 1].mean += v;
        out[n - 1].lo = fmin(out[n - 1].lo, v);
        out[n - 1].hi = fmax(out[n - 1].hi, v);
    }
    for (size_t i = 0; i < n; i++)
        out[i].mean /= (double)out[i].n;
    return n;
}

/* (max - min) / mean of the nodes' means; NaN when the mean is 0. */
static double relative_difference(const node_stat *ns, size_t n, double *mean)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;

    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, ns[i].mean);
        hi = fmax(hi, ns[i].mean);
        sum += ns[i].mean;
    }
    *mean = sum / (double)n;
    return *mean != 0 ? (hi - lo) / fabs(*mean) : NAN;
}

/* Metric k over every configuration: differences between nodes and
 * between repeats, and the node factors. ns, ratio (n_nodes each) and
 * count are scratch. */
static void measure_metric(const pp_model *m, size_t k, node_stat *ns, double *ratio,
                           size_t *count, pp_fleet_metric *fm)
{
    double rel_sum = 0, rep_sum = 0, lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t rel_n = 0, n_f = 0;

    memset(ratio, 0, m->sum.n_nodes * sizeof *ratio);
    memset(count, 0, m->sum.n_nodes * sizeof *count);
    fm->rel_max = -INFINITY;
    for (size_t g = 0; g < m->n_groups; g++)
        for (size_t r = 0; r < m->groups[g].n_rows; r++) {
            size_t n = node_stats(m, &m->groups[g], r, k, ns);
            double mean, rel;
            for (size_t i = 0; i < n; i++)
                if (ns[i].n > 1 && ns[i].mean != 0) {
                    rep_sum += (ns[i].hi - ns[i].lo) / fabs(ns[i].mean);
                    fm->repeat_n++;
                }
            if (n < 2 || isnan(rel = relative_difference(ns, n, &mean)))
                continue;
            rel_sum += rel;
            rel_n++;
            fm->rel_max = fmax(fm->rel_max, rel);
            for (size_t i = 0; i < n; i++) {
                ratio[ns[i].node] += ns[i].mean / mean;
                count[ns[i].node]++;
            }
        }
    fm->rel_mean = rel_n ? rel_sum / (double)rel_n : NAN;
    fm->rel_max = rel_n ? fm->rel_max : NAN;
    fm->repeat_rel = fm->repeat_n ? rep_sum / (double)fm->repeat_n : NAN;
    for (size_t i = 0; i < m->sum.n_nodes; i++) {
        fm->factor[i] = count[i] ? ratio[i] / (double)count[i] : NAN;
        if (count[i]) {
            lo = fmin(lo, fm->factor[i]);
            hi = fmax(hi, fm->factor[i]);
            sum += fm->factor[i];
            n_f++;
        }
    }
    fm->pooled = n_f > 1 && sum != 0 ? (hi - lo) / (sum / (double)n_f) : NAN;
}

/* The configurations measured on more than one node, with their
 * differences of energy and power. */
static int find_shared(const pp_model *m, pp_fleet *f, node_stat *ns)
{
    int e = pp_summary_metric(&m->sum, "total_energy_j"), w = pp_summary_metric(&m->sum, "total_mean_w");

    for (size_t g = 0; g < m->n_groups; g++)
        f->n_configs += m->groups[g].n_rows;
    f->shared = calloc(f->n_configs + 1, sizeof *f->shared);
    if (!f->shared)
        return -ENOMEM;
    for (size_t g = 0; g < m->n_groups; g++) {
        const pp_model_group *gr = &m->groups[g];
        for (size_t r = 0; r < gr->n_rows; r++) {
            size_t n = 0, first = gr->members[gr->member_start[r]];
            double mean;
            pp_fleet_config *c = &f->shared[f->n_shared];
            for (size_t j = gr->member_start[r]; j < gr->member_start[r + 1]; j++)
                n += j == gr->member_start[r] || m->sum.node[gr->members[j]] !=
                                                     m->sum.node[gr->members[j - 1]];
            if (n < 2)
                continue;
            *c = (pp_fleet_config){first, n, NAN, NAN};
            if (e >= 0 && (n = node_stats(m, gr, r, (size_t)e, ns)) > 1)
                c->energy_rel = relative_difference(ns, n, &mean);
            if (w >= 0 && (n = node_stats(m, gr, r, (size_t)w, ns)) > 1)
                c->power_rel = relative_difference(ns, n, &mean);
            for (size_t j = gr->member_start[r]; j < gr->member_start[r + 1]; j++)
                if (j == gr->member_start[r] ||
                    m->sum.node[gr->members[j]] != m->sum.node[gr->members[j - 1]])
                    f->node_shared[m->sum.node[gr->members[j]]]++;
            f->n_shared++;
        }
    }
    return 0;
}

/* Leave node out of group g's metric k: choose and fit on the others'
 * means, predict node's mean at each configuration it measured; the
 * absolute percentage errors summed into *err, counted in *n. 0 or
 * -ENOMEM. */
static int lono_one(const pp_model *m, const pp_model_group *g, size_t k, size_t node,
                    node_stat *ns, double *y, double *err, size_t *n)
{
    pp_choose_options co;
    pp_choice c;
    pp_est e;
    double *rep;
    size_t n_values = 0;
    int rc;

    for (size_t r = 0; r < g->n_rows; r++)
        n_values += !isnan(y[r] = pp_model_config_mean(m, g, r, k, node));
    if (n_values < 2)
        return 0;
    if ((rc = pp_model_choose_options(m, g, k, &co, &rep)) < 0)
        return rc;
    co.choice_only = 1;
    rc = pp_choose(&g->surf, y, &co, &c);
    free(rep);
    if (rc == 0)
        rc = pp_est_fit(&e, &g->surf, y, &c.spec);
    if (rc < 0)
        return rc == -ENOMEM ? rc : 0;
    for (size_t r = 0; r < g->n_rows; r++) {
        size_t nn = node_stats(m, g, r, k, ns);
        for (size_t i = 0; i < nn; i++)
            if (ns[i].node == node && ns[i].mean != 0) {
                double pred = pp_est_predict(&e, g->surf.x + r * g->surf.d);
                *err += 100 * fabs(pred - ns[i].mean) / fabs(ns[i].mean);
                ++*n;
            }
    }
    pp_est_free(&e);
    return 0;
}

/* The leave-one-node-out errors of metric k. */
static int lono_metric(const pp_model *m, size_t k, node_stat *ns, pp_fleet_metric *fm)
{
    double total = 0;
    int rc = 0;

    fm->lono_n = 0;
    for (size_t node = 0; node < m->sum.n_nodes && rc == 0; node++) {
        double err = 0;
        size_t n = 0;
        for (size_t g = 0; g < m->n_groups && rc == 0; g++) {
            const pp_model_fit *fit = pp_model_fit_of(m, g, k);
            double *y = malloc((m->groups[g].n_rows + 1) * sizeof *y);
            if (!y)
                return -ENOMEM;
            if (fit && fit->n_values >= 2)
                rc = lono_one(m, &m->groups[g], k, node, ns, y, &err, &n);
            free(y);
        }
        fm->lono_node_mape[node] = n ? err / (double)n : NAN;
        total += err;
        fm->lono_n += n;
    }
    fm->lono_mape = fm->lono_n ? total / (double)fm->lono_n : NAN;
    return rc;
}

static int alloc_fleet(const pp_model *m, pp_fleet *f)
{
    size_t nn = m->sum.n_nodes ? m->sum.n_nodes : 1, nm = m->sum.n_metrics;

    memset(f, 0, sizeof *f);
    f->n_nodes = m->sum.n_nodes;
    f->node_shared = calloc(nn, sizeof *f->node_shared);
    f->metric = calloc(nm + 1, sizeof *f->metric);
    if (!f->node_shared || !f->metric)
        return -ENOMEM;
    f->n_metrics = nm;
    for (size_t k = 0; k < nm; k++) {
        pp_fleet_metric *fm = &f->metric[k];
        fm->factor = calloc(nn, sizeof *fm->factor);
        fm->lono_node_mape = calloc(nn, sizeof *fm->lono_node_mape);
        if (!fm->factor || !fm->lono_node_mape)
            return -ENOMEM;
        fm->lono_mape = NAN;
        for (size_t i = 0; i < nn; i++)
            fm->lono_node_mape[i] = NAN;
    }
    return 0;
}

int pp_fleet_measure(const pp_model *m, int lono, pp_fleet *f)
{
    size_t nn = m->sum.n_nodes ? m->sum.n_nodes : 1;
    node_stat *ns = malloc(nn * sizeof *ns);
    double *ratio = malloc(nn * sizeof *ratio);
    size_t *count = malloc(nn * sizeof *count);
    int rc = ns && ratio && count ? alloc_fleet(m, f) : -ENOMEM;

    if (rc == 0)
        rc = find_shared(m, f, ns);
    for (size_t k = 0; rc == 0 && k < m->sum.n_metrics; k++) {
        measure_metric(m, k, ns, ratio, count, &f->metric[k]);
        if (lono && m->sum.n_nodes > 1)
            rc = lono_metric(m, k, ns, &f->metric[k]);
    }
    f->lono = lono && m->sum.n_nodes > 1;
    free(ns);
    free(ratio);
    free(count);
    return rc;
}

void pp_fleet_free(pp_fleet *f)
{
    if (!f)
        return;
    for (size_t k = 0; f->metric && k < f->n_metrics; k++) {
        free(f->metric[k].factor);
        free(f->metric[k].lono_node_mape);
    }
    free(f->metric);
    free(f->shared);
    free(f->node_shared);
    memset(f, 0, sizeof *f);
}


static json_t *metric_json(const pp_model *m, const pp_fleet *f, const pp_fleet_metric *fm)
{
    json_t *factors = json_object(), *per_node = json_object();

    for (size_t i = 0; i < f->n_nodes; i++) {
        json_object_set_new(factors, m->sum.nodes[i], pp_json_num(fm->factor[i]));
        json_object_set_new(per_node, m->sum.nodes[i], pp_json_num(fm->lono_node_mape[i]));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:{s:o, s:I, s:o}}", "node_difference_mean_frac",
                     pp_json_num(fm->rel_mean), "node_difference_max_frac", pp_json_num(fm->rel_max),
                     "pooled_difference_frac", pp_json_num(fm->pooled), "factor", factors,
                     "repeat_spread_frac", pp_json_num(fm->repeat_rel), "repeat_pairs",
                     (json_int_t)fm->repeat_n, "leave_one_node_out", "mape_pct",
                     pp_json_num(fm->lono_mape), "n", (json_int_t)fm->lono_n, "per_node",
                     f->lono ? per_node : (json_decref(per_node), json_null()));
}

json_t *pp_fleet_json(const pp_model *m, const pp_fleet *f)
{
    json_t *nodes = json_array(), *shared = json_array(), *metrics = json_object();

    for (size_t i = 0; i < f->n_nodes; i++)
        json_array_append_new(nodes, json_pack("{s:s, s:I}", "name", m->sum.nodes[i],
                                               "shared_configurations",
                                               (json_int_t)f->node_shared[i]));
    for (size_t c = 0; c < f->n_shared; c++)
        json_array_append_new(shared, json_pack("{s:I, s:I, s:o, s:o}", "id",
                                                (json_int_t)m->sum.ids[f->shared[c].row],
                                                "nodes", (json_int_t)f->shared[c].n_nodes,
                                                "energy_difference_frac",
                                                pp_json_num(f->shared[c].energy_rel),
                                                "power_difference_frac",
                                                pp_json_num(f->shared[c].power_rel)));
    for (size_t k = 0; k < f->n_metrics; k++)
        json_object_set_new(metrics, m->sum.metrics[k], metric_json(m, f, &f->metric[k]));
    return json_pack("{s:o, s:I, s:I, s:I, s:o, s:o}", "nodes", nodes, "configurations",
                     (json_int_t)f->n_configs, "shared", (json_int_t)f->n_shared, "max_repeat",
                     (json_int_t)m->sum.max_repeat, "shared_configurations", shared, "metrics",
                     metrics);
}

/* Aim m at node i with the factors of f. 0 or -ENOMEM. */
static int aim(pp_model *m, const pp_fleet *f, size_t i)
{
    free(m->node_factor);
    if (!(m->node_factor = malloc((m->sum.n_metrics + 1) * sizeof *m->node_factor)))
        return -ENOMEM;
    for (size_t k = 0; k < m->sum.n_metrics; k++)
        m->node_factor[k] = m->sum.n_nodes == 1 ? 1.0 : f->metric[k].factor[i];
    _Static_assert(sizeof m->target_node == sizeof m->sum.nodes[i], "a node's name fits");
    memcpy(m->target_node, m->sum.nodes[i], sizeof m->target_node);
    return 0;
}

int pp_model_target_node(pp_model *m, const char *name)
{
    int i = pp_summary_node(&m->sum, name);
    pp_fleet f;
    int rc;

    if (i < 0) {
        char list[2048] = ""; /* for a person: cut visibly */
        for (size_t j = 0; j < m->sum.n_nodes; j++)
            pp_text(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "",
                    m->sum.nodes[j][0] ? m->sum.nodes[j] : "(unnamed)");
        pp_log_error("no node '%s' in the results (their nodes: %s)", name, list);
        return -ENOENT;
    }
    if ((rc = pp_fleet_measure(m, 0, &f)) == 0 && m->sum.n_nodes > 1 && f.node_shared[i] == 0) {
        pp_log_error("node '%s' measured no configuration that another node measured too: how "
                     "it differs from the others is unknown (measure a few configurations on "
                     "every board)", name);
        rc = -ESRCH;
    }
    if (rc == 0)
        rc = aim(m, &f, (size_t)i);
    pp_fleet_free(&f);
    return rc;
}

int pp_model_target_worst(pp_model *m)
{
    int w = pp_summary_metric(&m->sum, "total_mean_w");
    size_t worst = SIZE_MAX;
    pp_fleet f;
    int rc;

    if (w < 0) {
        pp_log_error("no total_mean_w column: the most power-hungry node is unknown");
        return -ESRCH;
    }
    if ((rc = pp_fleet_measure(m, 0, &f)) < 0)
        return rc;
    for (size_t i = 0; i < m->sum.n_nodes; i++)
        if (!isnan(f.metric[w].factor[i]) &&
            (worst == SIZE_MAX || f.metric[w].factor[i] > f.metric[w].factor[worst]))
            worst = i;
    if (m->sum.n_nodes == 1)
        worst = 0;
    if (worst == SIZE_MAX) {
        pp_log_error("no node measured a configuration that another node measured too: which "
                     "board is the most power-hungry is unknown");
        rc = -ESRCH;
    } else {
        rc = aim(m, &f, worst);
    }
    pp_fleet_free(&f);
    return rc;
}
