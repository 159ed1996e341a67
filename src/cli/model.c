/* powprof model / predict: layer 2 over a results folder (the library's
 * model.h decides; this file parses and prints). */
#include "cli.h"
#include "opt.h"

#include "src/api/answer.h"
#include "src/api/pipeline.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

static const char model_head[] =
    "usage: powprof model RESULTS [--method auto|nw|loclin|boxcox] [--smoothing-length H]\n"
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
    "  auto     per metric boxcox, in the value space (linear or log) with the\n"
    "           least error over whole values left out; loclin only where boxcox\n"
    "           cannot be fitted without them (one parameter, 2 configurations)\n"
    "           (default)\n"
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

static int method_parse(const char *arg, void *method) { return pp_method_parse(arg, method); }

/* --smoothing-length: auto or a length > 0. */
static int smoothing_parse(const char *arg, void *value)
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
        PP_OPT_PARSE(0, "smoothing-length", &o->h, "H", "nw, loclin: this smoothing length "
                     "(the kernel's bandwidth,\nnormalized units) instead of the "
                     "cross-validated one", smoothing_parse, "auto or a number > 0"),
        PP_OPT_PARSE(0, "sigma", &o->h, "H", "--smoothing-length's old name", smoothing_parse,
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
        fputs("powprof model: --smoothing-length needs --method nw or loclin\n", stderr);
        return PP_EXIT_USAGE;
    }
    return pp_opt_one_operand("model", "results folder", argc);
}

int pp_cmd_model(int argc, char **argv)
{
    pp_model_options o;
    pp_model m;
    int json = 0, verbose = 0, rc;

    pp_model_options_init(&o);
    if ((rc = model_options(argc, argv, &o, &json, &verbose)) != 0)
        return rc == 1 ? 0 : rc;
    if ((rc = pp_model_read(argv[optind], &o, 0, &m)) < 0)
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
    char why[8192]; /* the argument said whole, but for one of several kilobytes */

    if ((status = pp_opt_parse(&c, argc, argv)) != 0)
        return status == 1 ? 0 : status;
    if (optind >= argc) {
        fputs("powprof predict: a results folder and NAME=VALUE for each parameter expected\n",
              stderr);
        return PP_EXIT_USAGE;
    }
    if (pp_prediction_open(argv[optind], node, &m) < 0)
        return PP_EXIT_USAGE;
    if (m.stale || !m.from_file)
        fprintf(stderr, "powprof: %s/model.json %s: the estimators are chosen now (run `powprof "
                        "model %s` to keep them)\n", argv[optind],
                m.stale ? "was built for another summary.csv" : "is missing", argv[optind]);
    if (pp_prediction_point(&m, argc - optind - 1, argv + optind + 1, &pt, &w, why,
                            sizeof why) < 0) {
        if (why[0])
            fprintf(stderr, "powprof predict: %s\n", why);
        pp_model_free(&m);
        return PP_EXIT_USAGE;
    }
    if (pp_prediction_beyond(&m, &pt, &w, !extrapolate) > 0 && !extrapolate) {
        pp_model_free(&m);
        return EXIT_REFUSED;
    }
    if (json) {
        json_t *doc = pp_prediction_json(&m, &pt, &w);
        json_dumpf(doc, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
        printf("\n");
        json_decref(doc);
    } else {
        pp_prediction_text(stdout, &m, &pt, &w);
        pp_prediction_battery_text(stdout, argv[optind], &m.sum);
    }
    pp_model_free(&m);
    return 0;
}

