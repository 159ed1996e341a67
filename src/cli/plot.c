/* powprof plot: parse the options, write and render the plots with the
 * library (plot.h), print the outcome. */
#include "cli.h"

#include "src/api/pipeline.h"
#include "src/api/results_doc.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

static const char plot_head[] =
    "usage: powprof plot RESULTS [--format png|svg|both] [--plan PLAN.json [-c CONFIG]]\n"
    "                    [--metric NAME] [--json]\n"
    "\n"
    "Write gnuplot scripts and their data under RESULTS/plots/ and render them\n"
    "(when gnuplot is installed; what gnuplot says is captured, its errors\n"
    "reported). Layer 1: every rail of each configuration over time (the first\n"
    "24), and the total power of up to 8 configurations spread over the range\n"
    "of mean power. Layer 2 (the model of `powprof model`, built first when\n"
    "missing): with one varying parameter, the prediction of the total mean\n"
    "power and energy with its 90 % band and the measured points, the state of\n"
    "charge after one run on a second axis, and the same for every rail (CPU,\n"
    "GPU, ...); with two or more, surfaces over each pair (the others held at a\n"
    "measured value near their middle) of the total mean power, energy, battery\n"
    "drained and each rail's mean power, with the measured configurations and\n"
    "the band of the prediction at each, and beside each surface the same seen\n"
    "from above (<name>-map): a heat map with contour lines, easier to read\n"
    "values from; one per combination of labels of categorical parameters.\n"
    "--metric NAME: the layer-2 plots of that metric alone (any column of the\n"
    "model: soc_drain, a rail's mean power, energy_per_iteration_j, ...).\n"
    "With --plan, the state of charge over the mission\n"
    "time of a plan (`powprof plan --json > PLAN.json`; `powprof run` writes\n"
    "RESULTS/plan.json): the best configuration at its planned power with its\n"
    "band, the schedule, the reserve and the end of the mission.\n";

static const char plot_tail[] =
    "exit status: 0 when every plot rendered (or gnuplot is not installed: the\n"
    "scripts are there), 125 when gnuplot failed on some, 2 for bad input.\n";

/* The plots of dir with o; the outcome printed, or, when json is not
 * NULL, *json set to the object `plot --json` prints (the caller frees
 * it). Returns an exit status. */
static int plot_dir(const char *dir, const pp_plot_options *o, json_t **json)
{
    pp_plot_result r;
    int rc = pp_pipeline_plots(dir, o, &r);

    if (rc == 0)
        rc = pp_cli_plot_show(dir, o, &r, json);
    else
        rc = rc == -EINVAL ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    pp_plot_result_free(&r);
    return rc;
}

static int parse(int argc, char **argv, pp_plot_options *o, const char **plan, const char **config,
                 int *json)
{
    const pp_opt rows[] = {
        PP_OPT_PARSE(0, "format", o, "FMT", "png (default), svg or both", pp_plot_format_parse,
                     "png, svg or both"),
        PP_OPT_STRING(0, "plan", plan, "PLAN.json", "also plot this plan's state of charge over "
                      "time"),
        PP_OPT_STRING(0, "metric", &o->metric, "NAME", "layer 2 of this metric only (its curve, "
                      "or its surfaces\nand heat maps)"),
        PP_OPT_STRING('c', "config", config, "FILE", "the battery the plan was made with (its "
                      "'battery'\ngroup; default the drone-4s-3200 preset); a plan\nwhose figures "
                      "this battery does not give is an error"),
        PP_OPT_BOOL(0, "json", json, "one JSON object on stdout: the scripts, data and\nimages "
                    "written, and gnuplot's errors and warnings"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"plot", plot_head, plot_tail, rows, NULL, 0};
    int rc;

    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc;
    return pp_opt_one_operand("plot", "results folder", argc);
}

int pp_cmd_plot(int argc, char **argv)
{
    const char *plan_path = NULL, *config = NULL;
    char why[160];
    pp_plot_options o;
    pp_plot_plan plan;
    json_t *out = NULL;
    int json = 0, rc;

    pp_plot_options_init(&o);
    if ((rc = parse(argc, argv, &o, &plan_path, &config, &json)) != 0)
        return rc == 1 ? 0 : rc;
    if (pp_plot_request(&o, plan_path, config, &plan, why, sizeof why) < 0) {
        if (why[0])
            fprintf(stderr, "powprof plot: %s\n", why);
        return PP_EXIT_USAGE;
    }
    rc = plot_dir(argv[optind], &o, json ? &out : NULL);
    if (out) {
        json_dumpf(out, stdout, JSON_COMPACT);
        printf("\n");
        json_decref(out);
    }
    return rc;
}
