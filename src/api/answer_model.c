/* answer_model.c - the answers of `powprof model` and `powprof predict`:
 * the model's table (and its fleet) in words, a prediction as its one
 * JSON document and in words (answer.h). */
#include "answer_model.h"
#include "answer.h"

#include "pipeline.h"
#include "point_check.h"

#include "src/layer2/variability.h"
#include "src/plan/derived.h"
#include "src/results/json_file.h"
#include "src/results/results.h"
#include "src/results/run_json.h"
#include "src/results/summary_params.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void print_pct(FILE *fp, const char *fmt_ok, double v)
{
    if (isnan(v))
        fprintf(fp, "%12s", "n/a");
    else
        fprintf(fp, fmt_ok, v);
}

/* The parameters that vary, then the constants (one value in every row:
 * implied by predict, no dimension of the surface). */
static void print_params(FILE *fp, const pp_summary *s)
{
    size_t n_const = 0, shown = 0;
    char text[PP_SUMMARY_LABEL_MAX + 32];
    double v;

    for (size_t k = 0; k < s->n_params; k++)
        n_const += (size_t)pp_summary_constant(s, k, NULL);
    fprintf(fp, ", %zu parameter%s", s->n_params - n_const, s->n_params - n_const == 1 ? "" : "s");
    for (size_t k = 0; k < s->n_params; k++)
        if (!pp_summary_constant(s, k, NULL))
            fprintf(fp, "%s %s (%s)", shown++ ? "," : ":", s->params[k],
                   s->param[k].kind == PP_PARAM_CATEGORICAL ? "categorical"
                   : s->log_scale[k]                         ? "log scale"
                                                             : "linear scale");
    for (size_t k = 0, c = 0; k < s->n_params; k++)
        if (pp_summary_constant(s, k, &v)) {
            pp_summary_value_text(s, k, v, text, sizeof text);
            fprintf(fp, "%s %s = %s", c++ ? "," : "; measured at one value (a constant):",
                   s->params[k], text);
        }
    fprintf(fp, "\n");
}

size_t pp_model_n_configs(const pp_model *m)
{
    size_t n = 0;

    for (size_t g = 0; g < m->n_groups; g++)
        n += m->groups[g].n_rows;
    return n;
}

int pp_model_rows_mixed(const pp_model *m)
{
    const pp_summary *s = &m->sum;

    return s->n_rows > pp_model_n_configs(m) * (size_t)(s->max_repeat + 1) *
                           (s->n_nodes ? s->n_nodes : 1);
}

static void print_header(FILE *fp, const pp_model *m, const char *dir)
{
    const pp_summary *s = &m->sum;
    size_t n_configs = pp_model_n_configs(m);

    fprintf(fp, "%s: %zu configuration%s", dir, n_configs, n_configs == 1 ? "" : "s");
    if (n_configs != s->n_rows)
        fprintf(fp, " (%zu rows from %zu node%s, up to %ld measurement%s per node: each "
               "configuration's mean is modelled)", s->n_rows, s->n_nodes,
               s->n_nodes == 1 ? "" : "s", s->max_repeat + 1, s->max_repeat ? "s" : "");
    if (s->n_left_out)
        fprintf(fp, " (%zu more left out: status not ok)", s->n_left_out);
    print_params(fp, s);
    if (m->n_groups > 1)
        fprintf(fp, "one model per combination of labels: %zu\n", m->n_groups);
    if (s->n_short)
        fprintf(fp, "%zu short run%s (fewer than 5 samples or 5 sampling periods, their energy "
               "quantized): weighted down in the fit (weight (samples/5)^2, at least 0.2)\n",
               s->n_short, s->n_short == 1 ? "" : "s");
}

/* The row of metric k of group g. */
static void print_row(FILE *fp, const pp_model *m, size_t g, size_t k, int verbose)
{
    const pp_model_fit *f = pp_model_fit_of(m, g, k);
    const pp_choice *c = &f->choice;
    char what[96];

    pp_results_describe(m->sum.metrics[k], what, sizeof what);
    fprintf(fp, "  %-26s %-30s", m->sum.metrics[k], what);
    if (f->n_values < 2) {
        fprintf(fp, " %12s\n", f->n_values ? "one value" : "no values");
        return;
    }
    if (c->between.n == 0)
        fprintf(fp, "%12s", c->honest.n ? "(LOO only)" : "too few");
    else
        print_pct(fp, "%10.1f %%", c->between.mape);
    if (c->honest.n == 0)
        fprintf(fp, " %12s", "too few");
    else
        print_pct(fp, " %10.1f %%", c->honest.mape);
    if (verbose) {
        char setting[64];
        if (c->spec.method == PP_METHOD_BOXCOX) { /* the exponents, then the smoother's length */
            size_t used = (size_t)snprintf(setting, sizeof setting, "p=");
            for (size_t j = 0; j < m->n_num && used < sizeof setting; j++)
                used += (size_t)snprintf(setting + used, sizeof setting - used, "%s%g", j ? "," : "",
                                         c->spec.expo[j]);
            if (used < sizeof setting && c->spec.h > 0)
                snprintf(setting + used, sizeof setting - used, " h=%g", c->spec.h);
        } else {
            snprintf(setting, sizeof setting, "h=%.3g", c->spec.h);
        }
        fprintf(fp, "  %-6s %-6s %-15s", pp_method_name(c->spec.method),
               c->spec.log_values ? "log" : "linear", setting);
        print_pct(fp, "%8.1f %%", c->loo.mape);
        fprintf(fp, " %11.4g %4zu", c->honest.rmse, c->honest.n);
        if (c->positive)
            fprintf(fp, "  x/ %.3f", exp(c->band_q));
        else
            fprintf(fp, "  +- %.4g", c->band_q);
        if (isfinite(c->band_q_between) && c->band_q_between != c->band_q) /* a grid step off */
            fprintf(fp, c->positive ? " (x/ %.3f a step off the levels)" : " (+- %.4g a step off the levels)",
                   c->positive ? exp(c->band_q_between) : c->band_q_between);
    }
    fprintf(fp, "\n");
}

/* Advice for the metrics whose typical error is high. */
static void advise(FILE *fp, const pp_model *m, size_t g, const int *shown)
{
    pp_model_advice a;

    pp_model_advise(m, g, shown, &a);
    if (a.worst < 0)
        return;
    fprintf(fp, "\nadvice: %s is predicted to within %.0f %% only (typical error above 10 %%).\n",
           m->sum.metrics[a.worst], a.worst_pct);
    if (a.n_short)
        fprintf(fp, "  - %zu of the %zu configurations are short runs: make them last longer "
               "(duration_s, iterations) or sample faster (rate_hz).\n", a.n_short, a.n_rows);
    if (a.edges)
        fprintf(fp, "  - the errors are largest at the edges of the measured range: extend the sweep "
               "one step beyond the values you will use.\n");
    if (a.middle)
        fprintf(fp, "  - measure more configurations between the ones you have (a finer step).\n");
    if (a.n_rows < 10)
        fprintf(fp, "  - with %zu configurations the error estimate itself is rough.\n", a.n_rows);
}

static void print_table(FILE *fp, const pp_model *m, const char *dir, int verbose)
{
    const pp_summary *s = &m->sum;
    int *shown = calloc(s->n_metrics + 1, sizeof *shown), any_na = 0, nested = 0, too_few = 0;
    size_t folds = 0;

    if (!shown)
        return;
    print_header(fp, m, dir);
    for (size_t g = 0; g < m->n_groups; g++) {
        if (m->n_groups > 1) {
            fprintf(fp, "\n[%zu]", g + 1);
            for (size_t k = 0; k < s->n_params; k++)
                if (m->groups[g].label[k] >= 0)
                    fprintf(fp, " %s=%s", s->params[k],
                           s->param[k].labels[(size_t)m->groups[g].label[k]]);
            fprintf(fp, " (%zu configurations)\n", m->groups[g].n_rows);
        }
        fprintf(fp, "\n  %-26s %-30s %12s %12s%s\n", "metric", "", "between", "at measured",
               verbose ? "  method values setting     choice's    RMSE    n  90 % band" : "");
        fprintf(fp, "  %-26s %-30s %12s %12s%s\n", "", "", "levels", "levels",
               verbose ? "                           own LOO" : "");
        for (size_t k = 0; k < s->n_metrics; k++) {
            const pp_model_fit *f = pp_model_fit_of(m, g, k);
            size_t of;
            shown[k] = verbose || !pp_model_metric_repeats(s, k, &of);
            if (!shown[k])
                continue;
            print_row(fp, m, g, k, verbose);
            any_na |= f->n_values >= 2 && f->choice.honest.n > 0 && isnan(f->choice.honest.mape_inner);
            too_few |= f->n_values >= 2 && f->choice.honest.n == 0;
            nested |= f->n_values >= 2 && f->choice.nested;
            folds = f->n_values >= 2 ? f->choice.folds : folds;
        }
        advise(fp, m, g, shown);
    }
    fprintf(fp, "\nbetween levels: the mean absolute error, in %%, of every configuration at a value of a "
           "parameter predicted with that whole value left out (each value strictly inside the "
           "range of a parameter with 3 or more, in turn; of one with more than 6 inside, every "
           "other value left out together, each with its measured neighbours kept), the estimator "
           "chosen again without it; "
           "what a setting never measured can expect. (LOO only): no parameter has enough values; "
           "only the figure at measured levels.\n");
    fprintf(fp, "at measured levels: the same of each configuration predicted from the others%s.\n",
           nested ? (folds == s->n_rows || m->n_groups > 1
                         ? " (nested leave-one-out: the estimator chosen again each time)"
                         : folds == 5 ? " (nested 5-fold cross-validation: the estimator "
                                        "chosen again in each fold)"
                                      : " (nested 10-fold cross-validation: the estimator "
                                        "chosen again in each fold)")
                  : " (leave-one-out)");
    if (pp_summary_metric(s, "soc_drain") >= 0)
        fprintf(fp, "*: the battery under the computer + the battery group's base load (its "
               "base_power_w), not a mission's.\n");
    if (any_na)
        fprintf(fp, "n/a: no inner configurations (every configuration lies on an edge of the "
               "measured range).\n");
    if (too_few)
        fprintf(fp, "too few: fewer configurations than the estimator needs to be checked by leaving "
               "them out one at a time%s.\n", m->opts.method == PP_METHOD_AUTO ? "" : " (try --method auto or loclin)");
    for (size_t k = 0; !verbose && k < s->n_metrics; k++) {
        size_t of;
        if (pp_model_metric_repeats(s, k, &of))
            fprintf(fp, "%s is not shown: it repeats %s%s.\n", s->metrics[k], s->metrics[of],
                   strcmp(s->metrics[k], "soc_end") == 0 ? " (1 - soc_drain)" : "");
    }
    free(shown);
}

/* The board-to-board differences of the shown metrics. */
static void print_fleet_metrics(FILE *fp, const pp_model *m, const pp_fleet *f)
{
    const pp_summary *s = &m->sum;

    fprintf(fp, "\n  %-26s %10s %10s %10s %12s\n", "metric", "mean", "largest", "pooled",
           "leave-one-");
    fprintf(fp, "  %-26s %10s %10s %10s %12s\n", "", "difference", "difference", "difference",
           "node-out err");
    for (size_t k = 0; k < s->n_metrics; k++) {
        const pp_fleet_metric *fm = &f->metric[k];
        size_t of;
        if (pp_model_metric_repeats(s, k, &of) || (isnan(fm->rel_mean) && isnan(fm->lono_mape)))
            continue;
        fprintf(fp, "  %-26s", s->metrics[k]);
        print_pct(fp, "%8.1f %%", 100 * fm->rel_mean);
        print_pct(fp, "%8.1f %%", 100 * fm->rel_max);
        print_pct(fp, "%8.1f %%", 100 * fm->pooled);
        print_pct(fp, "%10.1f %%", fm->lono_mape);
        fprintf(fp, "\n");
    }
}

/* Each node's factors of power and energy. */
static void print_factors(FILE *fp, const pp_model *m, const pp_fleet *f)
{
    int w = pp_summary_metric(&m->sum, "total_mean_w"), e = pp_summary_metric(&m->sum, "total_energy_j");

    fprintf(fp, "\n  %-20s %12s %12s %8s %12s\n", "node", "power", "energy", "shared", "leave-out");
    fprintf(fp, "  %-20s %12s %12s %8s %12s\n", "", "factor", "factor", "configs", "power error");
    for (size_t i = 0; i < f->n_nodes; i++) {
        fprintf(fp, "  %-20s", m->sum.nodes[i]);
        fprintf(fp, " %12.4f", w >= 0 ? f->metric[w].factor[i] : NAN);
        fprintf(fp, " %12.4f", e >= 0 ? f->metric[e].factor[i] : NAN);
        fprintf(fp, " %8zu", f->node_shared[i]);
        print_pct(fp, "%10.1f %%", w >= 0 ? f->metric[w].lono_node_mape[i] : NAN);
        fprintf(fp, "\n");
    }
}

/* Per configuration measured on several nodes: the difference of energy
 * and power (the first 10, all with verbose). */
static void print_shared(FILE *fp, const pp_model *m, const pp_fleet *f, int verbose)
{
    size_t shown = verbose ? f->n_shared : (f->n_shared < 10 ? f->n_shared : 10);

    fprintf(fp, "\n  %-8s %6s %12s %12s\n", "id", "nodes", "energy", "power");
    for (size_t c = 0; c < shown; c++) {
        fprintf(fp, "  %-8ld %6zu", m->sum.ids[f->shared[c].row], f->shared[c].n_nodes);
        print_pct(fp, "%10.1f %%", 100 * f->shared[c].energy_rel);
        print_pct(fp, "%10.1f %%", 100 * f->shared[c].power_rel);
        fprintf(fp, "\n");
    }
    if (shown < f->n_shared)
        fprintf(fp, "  ... %zu more (--verbose, or --json)\n", f->n_shared - shown);
}

/* What the model measured of the fleet and the repeats. */
static void print_fleet(FILE *fp, const pp_model *m, const pp_fleet *f, int verbose)
{
    int w = pp_summary_metric(&m->sum, "total_mean_w"), e = pp_summary_metric(&m->sum, "total_energy_j");

    if (f->n_nodes > 1) {
        fprintf(fp, "\nfleet: %zu nodes; %zu of %zu configurations measured on more than one node.\n",
               f->n_nodes, f->n_shared, f->n_configs);
        fprintf(fp, "difference: (max - min) / mean over the nodes of each configuration measured on "
               "several (a node's value: the mean of its repeats); pooled: the same of the node "
               "factors; leave-one-node-out error: each node predicted from the others' surface, "
               "the estimator chosen again without it.\n");
        if (f->n_shared)
            print_shared(fp, m, f, verbose);
        print_fleet_metrics(fp, m, f);
        fprintf(fp, "\nnode factor: the node's value over the configuration's mean across the nodes, "
               "averaged over the configurations it shares (plan --node NAME plans with it).\n");
        print_factors(fp, m, f);
    }
    if (w >= 0 && e >= 0 && f->metric[w].repeat_n)
        fprintf(fp, "\nrepeats: %zu (configuration, node) measured more than once; spread (max - min) / "
               "mean between repeats: power %.2f %%, energy %.2f %%. The 90 %% band covers one new "
               "measurement: its residuals are every row's, repeats and nodes included.\n",
               f->metric[w].repeat_n, 100 * f->metric[w].repeat_rel, 100 * f->metric[e].repeat_rel);
}

void pp_model_text(FILE *fp, const pp_model *m, const char *dir, int verbose)
{
    print_table(fp, m, dir, verbose);
    if (m->fleet)
        print_fleet(fp, m, m->fleet, verbose);
    fprintf(fp, "\nmodel: %s/model.json, plotted grids in %s/model/\n", dir, dir);
}

int pp_prediction_open(const char *dir, const char *node, pp_model *m)
{
    int rc = pp_model_read(dir, NULL, 1, m);

    if (rc < 0)
        return rc;
    if ((rc = pp_model_read_battery(m, dir)) < 0 || (node && (rc = pp_model_target_node(m, node)) < 0))
        pp_model_free(m);
    return rc < 0 ? rc : 0;
}

/* NAME=VALUE arguments into pt: 0, or -EINVAL (why said into why, or
 * logged by pp_model_point_set with why left empty). */
static int point_of(const pp_summary *s, int n, char *const *args, pp_model_point *pt, char *why,
                    size_t cap)
{
    int given[PP_SUMMARY_MAX_PARAMS] = {0};

    for (int a = 0; a < n; a++) {
        const char *eq = strchr(args[a], '=');
        char name[PP_SUMMARY_NAME_MAX];
        int k;
        if (!eq)
            return pp_text(why, cap, "'%s': NAME=VALUE expected", args[a]), -EINVAL;
        if (pp_fmt(name, sizeof name, "%.*s", (int)(eq - args[a]), args[a]) < 0)
            return pp_text(why, cap, "'%s': no parameter has a name that long", args[a]), -EINVAL;
        if (pp_model_point_set(s, name, eq + 1, pt, &k) < 0)
            return -EINVAL;
        given[k] = 1;
    }
    pp_summary_imply_constants(s, pt->raw, given);
    for (size_t k = 0; k < s->n_params; k++)
        if (!given[k])
            return pp_text(why, cap, "no value for %s (give %s=VALUE)", s->params[k],
                           s->params[k]), -EINVAL;
    return 0;
}

int pp_prediction_point(const pp_model *m, int n, char *const *args, pp_model_point *pt,
                        pp_model_where *w, char *why, size_t cap)
{
    int rc;

    why[0] = '\0';
    memset(pt, 0, sizeof *pt);
    if ((rc = point_of(&m->sum, n, args, pt, why, cap)) < 0)
        return rc;
    if (pp_model_locate(m, pt, w) < 0)
        return pp_text(why, cap, "no configuration with these labels was measured together"),
               -EINVAL;
    pp_point_outside(m, pt, w, NULL, 0);
    return 0;
}

json_t *pp_prediction_json(const pp_model *m, const pp_model_point *pt, const pp_model_where *w)
{
    const pp_summary *s = &m->sum;
    json_t *point = json_object(), *metrics = json_object(), *root;
    char text[PP_SUMMARY_LABEL_MAX];

    for (size_t k = 0; k < s->n_params; k++) {
        pp_summary_value_text(s, k, pt->raw[k], text, sizeof text);
        json_object_set_new(point, s->params[k], s->param[k].kind == PP_PARAM_CATEGORICAL
                                                     ? json_string(text) : pp_json_num(pt->raw[k]));
    }
    for (size_t k = 0; k < s->n_metrics; k++) {
        pp_prediction p;
        if (pp_model_predict_derived(m, k, pt, &p) < 0)
            continue;
        json_object_set_new(metrics, s->metrics[k],
                            json_pack("{s:o,s:o,s:o,s:o,s:b}", "value", pp_json_num(p.value),
                                      "lo", pp_json_num(p.lo), "hi", pp_json_num(p.hi),
                                      "typical_error_pct", pp_json_num(p.honest_mape),
                                      "beyond_measured_values", p.beyond));
    }
    root = json_pack("{s:o,s:b,s:{s:I,s:o},s:f,s:o}", "point", point, "outside_measured_range",
                     w->any_outside, "nearest", "id", (json_int_t)s->ids[w->nearest_row],
                     "distance", pp_json_num(w->distance), "band_level", PP_BAND_LEVEL, "metrics", metrics);
    return root;
}

void pp_prediction_text(FILE *fp, const pp_model *m, const pp_model_point *pt,
                        const pp_model_where *w)
{
    const pp_summary *s = &m->sum;
    char text[PP_SUMMARY_LABEL_MAX];

    fprintf(fp, "nearest measured configuration: id %ld (", s->ids[w->nearest_row]);
    for (size_t k = 0; k < s->n_params; k++) {
        pp_summary_value_text(s, k, s->x[w->nearest_row * s->n_params + k], text, sizeof text);
        fprintf(fp, "%s%s=%s", k ? " " : "", s->params[k], text);
    }
    fprintf(fp, ") at distance %.4f (normalized units)\n", w->distance);
    if (m->node_factor)
        fprintf(fp, "for node %s: the fleet's mean board times the node's factor of each metric\n",
               m->target_node);
    fprintf(fp, "%-28s %14s   %-31s %8s\n", "metric", "predicted", "90 % band", "typical");
    fprintf(fp, "%-28s %14s   %-31s %8s\n", "", "", "", "error");
    for (size_t k = 0; k < s->n_metrics; k++) {
        pp_prediction p;
        if (pp_model_predict_derived(m, k, pt, &p) < 0)
            continue;
        fprintf(fp, "%-28s %14.6g   ", s->metrics[k], p.value);
        if (isnan(p.lo))
            fprintf(fp, "%-31s", "n/a");
        else
            fprintf(fp, "%14.6g .. %-13.6g", p.lo, p.hi);
        print_pct(fp, "%6.1f %%", p.honest_mape);
        fprintf(fp, "%s\n", p.beyond ? "   beyond the measured values" : "");
    }
}

/* Metrics predicted beyond ten times their measured range: a warning,
 * or (refuse) a refusal, said by the library; how many refused. */
size_t pp_prediction_beyond(const pp_model *m, const pp_model_point *pt, const pp_model_where *w,
                            int refuse)
{
    pp_prediction p;
    size_t n = 0;

    for (long k = pp_model_first_beyond(m, pt, 0, &p); k >= 0;
         k = pp_model_first_beyond(m, pt, (size_t)k + 1, &p))
        n += pp_point_beyond(m, w, (size_t)k, &p, !refuse, SIZE_MAX) < 0;
    return n;
}

/* Which battery and load the battery metrics of dir were computed with
 * (run.json's battery: the computer + its base load), when there. */
void pp_prediction_battery_text(FILE *fp, const char *dir, const pp_summary *s)
{
    char path[PP_PATH_MAX];
    pp_battery_params b;

    if (pp_summary_metric(s, "soc_drain") < 0 || pp_battery_preset("drone-4s-3200", &b) < 0 ||
        pp_fmt(path, sizeof path, "%s/run.json", dir) < 0)
        return;
    if (pp_run_json_battery_load(path, &b) == 1)
        fprintf(fp, "soc_end, soc_drain, time_to_cutoff_s: the results' battery (%s: %s, %d cells, "
               "%.4g Ah) under the computer + its base load of %.4g W, not a mission's; "
               "predicted through it from total_mean_w and its band\n", path,
               pp_battery_model_name(b.model), b.cells, b.capacity_ah, b.base_power_w);
}

