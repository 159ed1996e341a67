/* powprof model / predict: layer 2 over a results folder (the library's
 * model.h decides; this file parses and prints). */
#include "cli.h"
#include "opt.h"

#include "src/api/pipeline.h"
#include "src/api/point_check.h"
#include "src/layer2/variability.h"
#include "src/plan/derived.h"
#include "src/results/results.h"
#include "src/results/run_json.h"
#include "src/results/summary_params.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char model_head[] =
    "usage: powprof model RESULTS [--method auto|nw|loclin|boxcox] [--sigma VALUE]\n"
    "                     [--values auto|linear|log] [--verbose] [--json]\n"
    "\n"
    "Build the layer-2 model of every metric of RESULTS/summary.csv (mean power\n"
    "and energy per rail, energy per iteration, achieved rates, battery drained,\n"
    "time to cutoff, ...) over the parameters (normalized to [0, 1]; log scale for\n"
    "exponential ranges), and say how far to trust it: each configuration is\n"
    "left out and predicted from the others, and the typical error of those\n"
    "predictions is printed, over all configurations and over the ones inside\n"
    "the measured range. Estimators:\n"
    "  nw       the paper's Gaussian-kernel weighted average\n"
    "  loclin   local-linear kernel regression (continues trends to the edges)\n"
    "  boxcox   a power law per parameter (exponent chosen from -2..3), with\n"
    "           interactions and a Gaussian-process mean on its residuals\n"
    "  auto     per metric, the estimator and the value space (linear or log)\n"
    "           with the least error over whole values left out (default)\n"
    "When anything is chosen on the data (auto, a bandwidth, the value space),\n"
    "the printed error is nested: the choice is made again without each left-out\n"
    "configuration (leave-one-out up to 20 configurations, 10 folds up to 64,\n"
    "5 above; between levels, a parameter with more than 6 inside values has\n"
    "every other one left out together), so the error is not flattered by the\n"
    "choice. Above 64 configurations the candidates are compared on 64 of them,\n"
    "spread over the design, and the winner fitted on all. Every prediction has\n"
    "a 90 % band from these\n"
    "errors. Short runs (fewer than 5 samples or sampling periods) weigh less\n"
    "in the fit. A categorical parameter splits the model: one per label.\n"
    "Writes RESULTS/model.json and the plotted grids under RESULTS/model/.\n";

static const char predict_head[] =
    "usage: powprof predict RESULTS NAME=VALUE... [--node NAME] [--extrapolate] [--json]\n"
    "\n"
    "Predict every metric at a configuration, measured or not, with its 90 %\n"
    "band, from the model of RESULTS (RESULTS/model.json when it was built for\n"
    "this summary.csv, else chosen now with the defaults of `powprof model`).\n"
    "NAME is a parameter as summary.csv names it (sleeper.t, darknet.fps, or\n"
    "plain names for imported data); a categorical one takes a label. Shows the\n"
    "nearest measured configuration and warns when the point lies outside the\n"
    "measured range (an extrapolation: its band is wider). A parameter the\n"
    "results measured at one value only is a constant: it may be left out, and\n"
    "any other value is flagged as outside the measured range. Outside the\n"
    "range the band holds both the estimator's extrapolation and the trend of\n"
    "the last measured levels. A metric predicted below a tenth of its least\n"
    "measured value or above ten times its largest is beyond the measured\n"
    "values: predict then refuses (exit status 3, nothing printed) unless\n"
    "--extrapolate is given.\n";

/* predict's exit status when it refuses a prediction beyond the measured
 * values */
#define EXIT_REFUSED 3

static void print_pct(const char *fmt_ok, double v)
{
    if (isnan(v))
        printf("%12s", "n/a");
    else
        printf(fmt_ok, v);
}

/* The parameters that vary, then the constants (one value in every row:
 * implied by predict, no dimension of the surface). */
static void print_params(const pp_summary *s)
{
    size_t n_const = 0, shown = 0;
    char text[PP_SUMMARY_LABEL_MAX + 32];
    double v;

    for (size_t k = 0; k < s->n_params; k++)
        n_const += (size_t)pp_summary_constant(s, k, NULL);
    printf(", %zu parameter%s", s->n_params - n_const, s->n_params - n_const == 1 ? "" : "s");
    for (size_t k = 0; k < s->n_params; k++)
        if (!pp_summary_constant(s, k, NULL))
            printf("%s %s (%s)", shown++ ? "," : ":", s->params[k],
                   s->param[k].kind == PP_PARAM_CATEGORICAL ? "categorical"
                   : s->log_scale[k]                         ? "log scale"
                                                             : "linear scale");
    for (size_t k = 0, c = 0; k < s->n_params; k++)
        if (pp_summary_constant(s, k, &v)) {
            pp_summary_value_text(s, k, v, text, sizeof text);
            printf("%s %s = %s", c++ ? "," : "; measured at one value (a constant):",
                   s->params[k], text);
        }
    printf("\n");
}

static void print_header(const pp_model *m, const char *dir)
{
    const pp_summary *s = &m->sum;
    size_t n_configs = 0;

    for (size_t g = 0; g < m->n_groups; g++)
        n_configs += m->groups[g].n_rows;
    printf("%s: %zu configuration%s", dir, n_configs, n_configs == 1 ? "" : "s");
    if (n_configs != s->n_rows)
        printf(" (%zu rows from %zu node%s, up to %ld measurement%s per node: each "
               "configuration's mean is modelled)", s->n_rows, s->n_nodes,
               s->n_nodes == 1 ? "" : "s", s->max_repeat + 1, s->max_repeat ? "s" : "");
    if (s->n_left_out)
        printf(" (%zu more left out: status not ok)", s->n_left_out);
    if (s->n_rows > n_configs * (size_t)(s->max_repeat + 1) * (s->n_nodes ? s->n_nodes : 1))
        fprintf(stderr, "powprof model: warning: %s holds %zu rows for %zu configurations, more "
                "than its repeats and nodes explain: rows of different profiles mixed (a resume "
                "after the profile changed?); each configuration's rows are averaged\n", dir,
                s->n_rows, n_configs);
    print_params(s);
    if (m->n_groups > 1)
        printf("one model per combination of labels: %zu\n", m->n_groups);
    if (s->n_short)
        printf("%zu short run%s (fewer than 5 samples or 5 sampling periods, their energy "
               "quantized): weighted down in the fit (weight (samples/5)^2, at least 0.2)\n",
               s->n_short, s->n_short == 1 ? "" : "s");
}

/* The row of metric k of group g. */
static void print_row(const pp_model *m, size_t g, size_t k, int verbose)
{
    const pp_model_fit *f = pp_model_fit_of(m, g, k);
    const pp_choice *c = &f->choice;
    char what[96];

    pp_results_describe(m->sum.metrics[k], what, sizeof what);
    printf("  %-26s %-30s", m->sum.metrics[k], what);
    if (f->n_values < 2) {
        printf(" %12s\n", f->n_values ? "one value" : "no values");
        return;
    }
    if (c->between.n == 0)
        printf("%12s", c->honest.n ? "(LOO only)" : "too few");
    else
        print_pct("%10.1f %%", c->between.mape);
    if (c->honest.n == 0)
        printf(" %12s", "too few");
    else
        print_pct(" %10.1f %%", c->honest.mape);
    if (verbose) {
        char setting[64];
        if (c->spec.method == PP_METHOD_BOXCOX) { /* the exponents, then the smoother's length */
            size_t used = (size_t)snprintf(setting, sizeof setting, "p=");
            for (size_t j = 0; j < m->n_num && used < sizeof setting; j++)
                used += (size_t)snprintf(setting + used, sizeof setting - used, "%s%g", j ? "," : "",
                                         c->spec.expo[j]);
            if (used < sizeof setting && c->spec.h > 0)
                snprintf(setting + used, sizeof setting - used, " gp=%g", c->spec.h);
        } else {
            snprintf(setting, sizeof setting, "sigma=%.3g", c->spec.h);
        }
        printf("  %-6s %-6s %-15s", pp_method_name(c->spec.method),
               c->spec.log_values ? "log" : "linear", setting);
        print_pct("%8.1f %%", c->loo.mape);
        printf(" %11.4g %4zu", c->honest.rmse, c->honest.n);
        if (c->positive)
            printf("  x/ %.3f", exp(c->band_q));
        else
            printf("  +- %.4g", c->band_q);
        if (isfinite(c->band_q_between) && c->band_q_between != c->band_q) /* a grid step off */
            printf(c->positive ? " (x/ %.3f a step off the levels)" : " (+- %.4g a step off the levels)",
                   c->positive ? exp(c->band_q_between) : c->band_q_between);
    }
    printf("\n");
}

/* Advice for the metrics whose typical error is high. */
static void advise(const pp_model *m, size_t g, const int *shown)
{
    pp_model_advice a;

    pp_model_advise(m, g, shown, &a);
    if (a.worst < 0)
        return;
    printf("\nadvice: %s is predicted to within %.0f %% only (typical error above 10 %%).\n",
           m->sum.metrics[a.worst], a.worst_pct);
    if (a.n_short)
        printf("  - %zu of the %zu configurations are short runs: make them last longer "
               "(duration_s, iterations) or sample faster (rate_hz).\n", a.n_short, a.n_rows);
    if (a.edges)
        printf("  - the errors are largest at the edges of the measured range: extend the sweep "
               "one step beyond the values you will use.\n");
    if (a.middle)
        printf("  - measure more configurations between the ones you have (a finer step).\n");
    if (a.n_rows < 10)
        printf("  - with %zu configurations the error estimate itself is rough.\n", a.n_rows);
}

static void print_table(const pp_model *m, const char *dir, int verbose)
{
    const pp_summary *s = &m->sum;
    int *shown = calloc(s->n_metrics + 1, sizeof *shown), any_na = 0, nested = 0, too_few = 0;
    size_t folds = 0;

    if (!shown)
        return;
    print_header(m, dir);
    for (size_t g = 0; g < m->n_groups; g++) {
        if (m->n_groups > 1) {
            printf("\n[%zu]", g + 1);
            for (size_t k = 0; k < s->n_params; k++)
                if (m->groups[g].label[k] >= 0)
                    printf(" %s=%s", s->params[k],
                           s->param[k].labels[(size_t)m->groups[g].label[k]]);
            printf(" (%zu configurations)\n", m->groups[g].n_rows);
        }
        printf("\n  %-26s %-30s %12s %12s%s\n", "metric", "", "between", "at measured",
               verbose ? "  method values setting     choice's    RMSE    n  90 % band" : "");
        printf("  %-26s %-30s %12s %12s%s\n", "", "", "levels", "levels",
               verbose ? "                           own LOO" : "");
        for (size_t k = 0; k < s->n_metrics; k++) {
            const pp_model_fit *f = pp_model_fit_of(m, g, k);
            size_t of;
            shown[k] = verbose || !pp_model_metric_repeats(s, k, &of);
            if (!shown[k])
                continue;
            print_row(m, g, k, verbose);
            any_na |= f->n_values >= 2 && f->choice.honest.n > 0 && isnan(f->choice.honest.mape_inner);
            too_few |= f->n_values >= 2 && f->choice.honest.n == 0;
            nested |= f->n_values >= 2 && f->choice.nested;
            folds = f->n_values >= 2 ? f->choice.folds : folds;
        }
        advise(m, g, shown);
    }
    printf("\nbetween levels: the mean absolute error, in %%, of every configuration at a value of a "
           "parameter predicted with that whole value left out (each value strictly inside the "
           "range of a parameter with 3 or more, in turn; of one with more than 6 inside, every "
           "other value left out together, each with its measured neighbours kept), the estimator "
           "chosen again without it; "
           "what a setting never measured can expect. (LOO only): no parameter has enough values; "
           "only the figure at measured levels.\n");
    printf("at measured levels: the same of each configuration predicted from the others%s.\n",
           nested ? (folds == s->n_rows || m->n_groups > 1
                         ? " (nested leave-one-out: the estimator chosen again each time)"
                         : folds == 5 ? " (nested 5-fold cross-validation: the estimator "
                                        "chosen again in each fold)"
                                      : " (nested 10-fold cross-validation: the estimator "
                                        "chosen again in each fold)")
                  : " (leave-one-out)");
    if (pp_summary_metric(s, "soc_drain") >= 0)
        printf("*: the battery under the computer + the battery group's base load (its "
               "base_power_w), not a mission's.\n");
    if (any_na)
        printf("n/a: no inner configurations (every configuration lies on an edge of the "
               "measured range).\n");
    if (too_few)
        printf("too few: fewer configurations than the estimator needs to be checked by leaving "
               "them out one at a time%s.\n", m->opts.method == PP_METHOD_AUTO ? "" : " (try --method auto or loclin)");
    for (size_t k = 0; !verbose && k < s->n_metrics; k++) {
        size_t of;
        if (pp_model_metric_repeats(s, k, &of))
            printf("%s is not shown: it repeats %s%s.\n", s->metrics[k], s->metrics[of],
                   strcmp(s->metrics[k], "soc_end") == 0 ? " (1 - soc_drain)" : "");
    }
    free(shown);
}

static int method_parse(const char *arg, void *method) { return pp_method_parse(arg, method); }

/* --sigma: auto or a bandwidth > 0. */
static int sigma_parse(const char *arg, void *value)
{
    double *h = value;

    return strcmp(arg, "auto") == 0 || (pp_parse_double(arg, h) == 0 && *h > 0) ? 0 : -1;
}

/* --values: auto (-1), linear (0) or log (1). */
static int values_parse(const char *arg, void *value)
{
    int *space = value;

    *space = strcmp(arg, "linear") == 0 ? 0 : strcmp(arg, "log") == 0 ? 1 : -1;
    return *space >= 0 || strcmp(arg, "auto") == 0 ? 0 : -1;
}

static int model_options(int argc, char **argv, pp_model_options *o, int *json, int *verbose)
{
    const pp_opt opts[] = {
        PP_OPT_PARSE(0, "method", &o->method, "NAME", "auto (default), nw, loclin or "
                     "boxcox", method_parse, "auto, nw, loclin or boxcox"),
        PP_OPT_PARSE(0, "sigma", &o->h, "VALUE", "nw, loclin: this bandwidth (normalized "
                     "units) instead\nof the cross-validated one", sigma_parse,
                     "auto or a number > 0"),
        PP_OPT_PARSE(0, "values", &o->value_space, "SPACE", "auto (default), linear or log "
                     "(log needs values > 0)", values_parse, "auto, linear or log"),
        PP_OPT_BOOL('v', "verbose", verbose, "the estimator of each metric, its settings, the\n"
                    "leave-one-out error of the choice on all the data,\nthe band"),
        PP_OPT_BOOL(0, "json", json, "the model (as in model.json) on stdout"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"model", model_head, NULL, opts, NULL, 0};
    int rc = pp_opt_parse(&c, argc, argv);

    if (rc != 0)
        return rc;
    if (o->h > 0 && o->method != PP_METHOD_NW && o->method != PP_METHOD_LOCLIN) {
        fputs("powprof model: --sigma needs --method nw or loclin\n", stderr);
        return PP_EXIT_USAGE;
    }
    if (optind != argc - 1) {
        fputs("powprof model: one results folder expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    return 0;
}

/* The board-to-board differences of the shown metrics. */
static void print_fleet_metrics(const pp_model *m, const pp_fleet *f)
{
    const pp_summary *s = &m->sum;

    printf("\n  %-26s %10s %10s %10s %12s\n", "metric", "mean", "largest", "pooled",
           "leave-one-");
    printf("  %-26s %10s %10s %10s %12s\n", "", "difference", "difference", "difference",
           "node-out err");
    for (size_t k = 0; k < s->n_metrics; k++) {
        const pp_fleet_metric *fm = &f->metric[k];
        size_t of;
        if (pp_model_metric_repeats(s, k, &of) || (isnan(fm->rel_mean) && isnan(fm->lono_mape)))
            continue;
        printf("  %-26s", s->metrics[k]);
        print_pct("%8.1f %%", 100 * fm->rel_mean);
        print_pct("%8.1f %%", 100 * fm->rel_max);
        print_pct("%8.1f %%", 100 * fm->pooled);
        print_pct("%10.1f %%", fm->lono_mape);
        printf("\n");
    }
}

/* Each node's factors of power and energy. */
static void print_factors(const pp_model *m, const pp_fleet *f)
{
    int w = pp_summary_metric(&m->sum, "total_mean_w"), e = pp_summary_metric(&m->sum, "total_energy_j");

    printf("\n  %-20s %12s %12s %8s %12s\n", "node", "power", "energy", "shared", "leave-out");
    printf("  %-20s %12s %12s %8s %12s\n", "", "factor", "factor", "configs", "power error");
    for (size_t i = 0; i < f->n_nodes; i++) {
        printf("  %-20s", m->sum.nodes[i]);
        printf(" %12.4f", w >= 0 ? f->metric[w].factor[i] : NAN);
        printf(" %12.4f", e >= 0 ? f->metric[e].factor[i] : NAN);
        printf(" %8zu", f->node_shared[i]);
        print_pct("%10.1f %%", w >= 0 ? f->metric[w].lono_node_mape[i] : NAN);
        printf("\n");
    }
}

/* Per configuration measured on several nodes: the difference of energy
 * and power (the first 10, all with verbose). */
static void print_shared(const pp_model *m, const pp_fleet *f, int verbose)
{
    size_t shown = verbose ? f->n_shared : (f->n_shared < 10 ? f->n_shared : 10);

    printf("\n  %-8s %6s %12s %12s\n", "id", "nodes", "energy", "power");
    for (size_t c = 0; c < shown; c++) {
        printf("  %-8ld %6zu", m->sum.ids[f->shared[c].row], f->shared[c].n_nodes);
        print_pct("%10.1f %%", 100 * f->shared[c].energy_rel);
        print_pct("%10.1f %%", 100 * f->shared[c].power_rel);
        printf("\n");
    }
    if (shown < f->n_shared)
        printf("  ... %zu more (--verbose, or --json)\n", f->n_shared - shown);
}

/* What the model measured of the fleet and the repeats. */
static void print_fleet(const pp_model *m, const pp_fleet *f, int verbose)
{
    int w = pp_summary_metric(&m->sum, "total_mean_w"), e = pp_summary_metric(&m->sum, "total_energy_j");

    if (f->n_nodes > 1) {
        printf("\nfleet: %zu nodes; %zu of %zu configurations measured on more than one node.\n",
               f->n_nodes, f->n_shared, f->n_configs);
        printf("difference: (max - min) / mean over the nodes of each configuration measured on "
               "several (a node's value: the mean of its repeats); pooled: the same of the node "
               "factors; leave-one-node-out error: each node predicted from the others' surface, "
               "the estimator chosen again without it.\n");
        if (f->n_shared)
            print_shared(m, f, verbose);
        print_fleet_metrics(m, f);
        printf("\nnode factor: the node's value over the configuration's mean across the nodes, "
               "averaged over the configurations it shares (plan --node NAME plans with it).\n");
        print_factors(m, f);
    }
    if (w >= 0 && e >= 0 && f->metric[w].repeat_n)
        printf("\nrepeats: %zu (configuration, node) measured more than once; spread (max - min) / "
               "mean between repeats: power %.2f %%, energy %.2f %%. The 90 %% band covers one new "
               "measurement: its residuals are every row's, repeats and nodes included.\n",
               f->metric[w].repeat_n, 100 * f->metric[w].repeat_rel, 100 * f->metric[e].repeat_rel);
}

void pp_cli_model_print(const pp_model *m, const char *dir, int verbose)
{
    print_table(m, dir, verbose);
    if (m->fleet)
        print_fleet(m, m->fleet, verbose);
    printf("\nmodel: %s/model.json, plotted grids in %s/model/\n", dir, dir);
}

int pp_cmd_model(int argc, char **argv)
{
    pp_model_options o;
    pp_model m;
    int json = 0, verbose = 0, rc;

    pp_model_options_init(&o);
    if ((rc = model_options(argc, argv, &o, &json, &verbose)) != 0)
        return rc == 1 ? 0 : rc;
    if ((rc = pp_model_open(argv[optind], &o, 0, &m)) < 0)
        return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    if (pp_pipeline_model_keep(&m, argv[optind]) < 0) {
        pp_model_free(&m);
        return PP_EXIT_FAILURE;
    }
    if (json)
        pp_model_dump(&m, stdout);
    else
        pp_cli_model_print(&m, argv[optind], verbose);
    pp_model_free(&m);
    return 0;
}

/* NAME=VALUE arguments into a point: 0, or PP_EXIT_USAGE (said why). */
static int parse_point(const pp_summary *s, int argc, char **argv, pp_model_point *pt)
{
    int given[PP_SUMMARY_MAX_PARAMS] = {0};

    for (int a = 0; a < argc; a++) {
        const char *eq = strchr(argv[a], '=');
        char name[PP_SUMMARY_NAME_MAX];
        int k;
        if (!eq) {
            fprintf(stderr, "powprof predict: '%s': NAME=VALUE expected\n", argv[a]);
            return PP_EXIT_USAGE;
        }
        if (pp_fmt(name, sizeof name, "%.*s", (int)(eq - argv[a]), argv[a]) < 0) {
            fprintf(stderr, "powprof predict: '%s': no parameter has a name that long\n", argv[a]);
            return PP_EXIT_USAGE;
        }
        if (pp_model_point_set(s, name, eq + 1, pt, &k) < 0)
            return PP_EXIT_USAGE;
        given[k] = 1;
    }
    pp_summary_imply_constants(s, pt->raw, given);
    for (size_t k = 0; k < s->n_params; k++)
        if (!given[k]) {
            fprintf(stderr, "powprof predict: no value for %s (give %s=VALUE)\n", s->params[k],
                    s->params[k]);
            return PP_EXIT_USAGE;
        }
    return 0;
}

static void print_prediction_json(const pp_model *m, const pp_model_point *pt,
                                  const pp_model_where *w)
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
    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(root);
}

static void print_prediction(const pp_model *m, const pp_model_point *pt, const pp_model_where *w)
{
    const pp_summary *s = &m->sum;
    char text[PP_SUMMARY_LABEL_MAX];

    printf("nearest measured configuration: id %ld (", s->ids[w->nearest_row]);
    for (size_t k = 0; k < s->n_params; k++) {
        pp_summary_value_text(s, k, s->x[w->nearest_row * s->n_params + k], text, sizeof text);
        printf("%s%s=%s", k ? " " : "", s->params[k], text);
    }
    printf(") at distance %.4f (normalized units)\n", w->distance);
    if (m->node_factor)
        printf("for node %s: the fleet's mean board times the node's factor of each metric\n",
               m->target_node);
    printf("%-28s %14s   %-31s %8s\n", "metric", "predicted", "90 % band", "typical");
    printf("%-28s %14s   %-31s %8s\n", "", "", "", "error");
    for (size_t k = 0; k < s->n_metrics; k++) {
        pp_prediction p;
        if (pp_model_predict_derived(m, k, pt, &p) < 0)
            continue;
        printf("%-28s %14.6g   ", s->metrics[k], p.value);
        if (isnan(p.lo))
            printf("%-31s", "n/a");
        else
            printf("%14.6g .. %-13.6g", p.lo, p.hi);
        print_pct("%6.1f %%", p.honest_mape);
        printf("%s\n", p.beyond ? "   beyond the measured values" : "");
    }
}

/* Metrics predicted beyond ten times their measured range: a warning,
 * or (refuse) a refusal, said by the library; how many refused. */
static size_t warn_beyond(const pp_model *m, const pp_model_point *pt, const pp_model_where *w,
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
static void say_battery(const char *dir, const pp_summary *s)
{
    char path[PP_PATH_MAX];
    pp_battery_params b;

    if (pp_summary_metric(s, "soc_drain") < 0 || pp_battery_preset("drone-4s-3200", &b) < 0 ||
        pp_fmt(path, sizeof path, "%s/run.json", dir) < 0)
        return;
    if (pp_run_json_battery_load(path, &b) == 1)
        printf("soc_end, soc_drain, time_to_cutoff_s: the results' battery (%s: %s, %d cells, "
               "%.4g Ah) under the computer + its base load of %.4g W, not a mission's; "
               "predicted through it from total_mean_w and its band\n", path,
               pp_battery_model_name(b.model), b.cells, b.capacity_ah, b.base_power_w);
}

int pp_cmd_predict(int argc, char **argv)
{
    const char *node = NULL;
    int json = 0, extrapolate = 0, status;
    const pp_opt opts[] = {
        PP_OPT_STRING(0, "node", &node, "NAME", "for one board of a merged folder: the fleet's "
                      "mean times\nthe node's factor (see powprof model)"),
        PP_OPT_BOOL(0, "extrapolate", &extrapolate, "print predictions beyond the measured "
                    "values too\n(flagged: beyond_measured_values in --json)"),
        PP_OPT_BOOL(0, "json", &json, "one JSON object on stdout: per metric value, lo, hi"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"predict", predict_head, NULL, opts, NULL, 0};
    pp_model_point pt;
    pp_model_where w;
    pp_model m;

    if ((status = pp_opt_parse(&c, argc, argv)) != 0)
        return status == 1 ? 0 : status;
    if (optind >= argc) {
        fputs("powprof predict: a results folder and NAME=VALUE for each parameter expected\n",
              stderr);
        return PP_EXIT_USAGE;
    }
    if (pp_model_open(argv[optind], NULL, 1, &m) < 0)
        return PP_EXIT_USAGE;
    if (pp_model_read_battery(&m, argv[optind]) < 0) {
        pp_model_free(&m);
        return PP_EXIT_USAGE;
    }
    if (node && pp_model_target_node(&m, node) < 0) {
        pp_model_free(&m);
        return PP_EXIT_USAGE;
    }
    if (m.stale || !m.from_file)
        fprintf(stderr, "powprof: %s/model.json %s: the estimators are chosen now (run `powprof "
                        "model %s` to keep them)\n", argv[optind],
                m.stale ? "was built for another summary.csv" : "is missing", argv[optind]);
    memset(&pt, 0, sizeof pt);
    status = parse_point(&m.sum, argc - optind - 1, argv + optind + 1, &pt);
    if (status == 0 && pp_model_locate(&m, &pt, &w) < 0) {
        fprintf(stderr, "powprof predict: no configuration with these labels was measured "
                        "together\n");
        status = PP_EXIT_USAGE;
    }
    if (status != 0) {
        pp_model_free(&m);
        return status;
    }
    pp_point_outside(&m, &pt, &w, NULL, 0);
    if (warn_beyond(&m, &pt, &w, !extrapolate) > 0 && !extrapolate) {
        pp_model_free(&m);
        return EXIT_REFUSED;
    }
    if (json) {
        print_prediction_json(&m, &pt, &w);
    } else {
        print_prediction(&m, &pt, &w);
        say_battery(argv[optind], &m.sum);
    }
    pp_model_free(&m);
    return 0;
}
