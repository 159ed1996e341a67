/* powprof model / predict: layer 2 over a results folder. */
#include "cli.h"

#include "log.h"
#include "summary.h"
#include "surface.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char model_help[] =
    "usage: powprof model RESULTS [--sigma auto|VALUE] [--json]\n"
    "\n"
    "Build the layer-2 surface of every metric of RESULTS/summary.csv (mean power\n"
    "and energy per rail, energy per iteration, battery drained, time to cutoff,\n"
    "...): the Gaussian-kernel weighted average over the parameters normalized to\n"
    "[0, 1] (log scale for exponential ranges). The bandwidth sigma is chosen per\n"
    "metric by leave-one-out cross-validation unless given; each metric's\n"
    "leave-one-out error tells how far to trust a prediction. Writes\n"
    "RESULTS/model.json and grid files under RESULTS/model/ for plotting. Rows\n"
    "whose status is not ok are left out, and said so.\n"
    "\n"
    "options:\n"
    "  --sigma auto|VALUE     bandwidth in normalized units (default auto)\n"
    "  --json                 one JSON object on stdout\n"
    "  -h, --help             this help\n";

static const char predict_help[] =
    "usage: powprof predict RESULTS NAME=VALUE... [--json]\n"
    "\n"
    "Predict every metric at a configuration, measured or not, from the surface\n"
    "of RESULTS (the bandwidths of RESULTS/model.json when `powprof model` was\n"
    "run, else chosen now). NAME is a parameter as summary.csv names it\n"
    "(sleeper.t, darknet.fps, or plain names for imported data). Shows the\n"
    "nearest measured configuration and its distance, and warns when the point\n"
    "lies outside the measured range.\n"
    "\n"
    "options:\n"
    "  --json                 one JSON object on stdout\n"
    "  -h, --help             this help\n";

enum { OPT_SIGMA = 5000 };

/* The metric's column of values. */
static double *metric_column(const pp_summary *s, size_t m)
{
    double *y = malloc(s->n_rows * sizeof *y);
    if (!y)
        return NULL;
    for (size_t i = 0; i < s->n_rows; i++)
        y[i] = s->y[i * s->n_metrics + m];
    return y;
}

static int count_values(const double *y, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += !isnan(y[i]);
    return k;
}

static int load(const char *dir, pp_summary *sum, pp_surface *surf)
{
    if (pp_summary_read(dir, sum) < 0)
        return -EINVAL;
    if (sum->n_params == 0) {
        pp_log_error("%s/summary.csv has no parameter columns: nothing to model", dir);
        pp_summary_free(sum);
        return -EINVAL;
    }
    if (pp_surface_init(surf, sum->x, sum->n_rows, sum->n_params, sum->log_scale) < 0) {
        pp_summary_free(sum);
        return -EINVAL;
    }
    return 0;
}

/* Grid files: a line for one parameter, a surface for two, every pair with
 * the others at their middle for more. */
static void write_grids(const char *dir, const pp_summary *sum, const pp_surface *surf,
                        size_t m, const double *y_in, double sigma, int log_values)
{
    enum { LINE = 200, SIDE = 60 };
    const double *y = y_in;
    double *logs = NULL;
    double g[LINE], fixed[PP_SURFACE_MAX_DIMS], *out = malloc(LINE * SIDE * sizeof *out);
    char path[4400];
    FILE *fp;

    if (!out)
        return;
    if (log_values) {
        logs = malloc(surf->n * sizeof *logs);
        if (!logs) {
            free(out);
            return;
        }
        for (size_t i = 0; i < surf->n; i++)
            logs[i] = y_in[i] > 0 ? log(y_in[i]) : NAN;
        y = logs;
    }
    size_t n_vary = 0;

    for (size_t j = 0; j < surf->d; j++) {
        fixed[j] = 0.5;
        n_vary += surf->k[j] > 1;
    }
    for (size_t a = 0; a < surf->d; a++) {
        if (surf->k[a] < 2)
            continue;
        if (n_vary == 1) {
            for (int i = 0; i < LINE; i++)
                g[i] = i / (LINE - 1.0);
            pp_surface_grid(surf, y, sigma, a, g, LINE, a, NULL, 1, fixed, out);
            if (pp_path_fmt(path, sizeof path, dir, "model/%s.dat", sum->metrics[m]) == 0 &&
                (fp = fopen(path, "w"))) {
                fprintf(fp, "# %s %s (predicted; sigma %g)\n", sum->params[a], sum->metrics[m], sigma);
                for (int i = 0; i < LINE; i++)
                    fprintf(fp, "%.10g %.10g\n", pp_surface_denormalize(surf, a, g[i]),
                            log_values ? exp(out[i]) : out[i]);
                fclose(fp);
            }
            continue;
        }
        for (size_t b = a + 1; b < surf->d; b++) {
            double gb[SIDE];
            if (surf->k[b] < 2)
                continue;
            for (int i = 0; i < SIDE; i++)
                g[i] = gb[i] = i / (SIDE - 1.0);
            pp_surface_grid(surf, y, sigma, a, g, SIDE, b, gb, SIDE, fixed, out);
            if (pp_path_fmt(path, sizeof path, dir, "model/%s__%s__%s.dat", sum->metrics[m],
                            sum->params[a], sum->params[b]) == 0 &&
                (fp = fopen(path, "w"))) {
                fprintf(fp, "# %s %s %s (predicted; sigma %g; other parameters at their middle)\n",
                        sum->params[a], sum->params[b], sum->metrics[m], sigma);
                for (int i = 0; i < SIDE; i++) {
                    for (int j = 0; j < SIDE; j++)
                        fprintf(fp, "%.10g %.10g %.10g\n", pp_surface_denormalize(surf, a, g[i]),
                                pp_surface_denormalize(surf, b, gb[j]),
                                log_values ? exp(out[i * SIDE + j]) : out[i * SIDE + j]);
                    fputc('\n', fp);
                }
                fclose(fp);
            }
        }
    }
    free(out);
    free(logs);
}

int pp_model_build(const char *dir, double fixed_sigma, int json, int quiet)
{
    int status = PP_EXIT_USAGE, first = 1;
    pp_summary sum;
    pp_surface surf;
    pp_atomic_file af;
    char path[4400];

    if (load(dir, &sum, &surf) < 0)
        return PP_EXIT_USAGE;
    pp_fmt(path, sizeof path, "%s/model", dir);
    mkdir(path, 0755);
    pp_fmt(path, sizeof path, "%s/model.json", dir);
    if (pp_atomic_file_open(&af, path) < 0) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    fprintf(af.fp, "{\"rows\":%zu,\"left_out\":%zu,\"params\":[", sum.n_rows, sum.n_left_out);
    for (size_t k = 0; k < sum.n_params; k++)
        fprintf(af.fp, "%s{\"name\":\"%s\",\"scale\":\"%s\",\"lo\":%.10g,\"hi\":%.10g}", k ? "," : "",
                sum.params[k], sum.log_scale[k] ? "log" : "linear",
                pp_surface_denormalize(&surf, k, 0), pp_surface_denormalize(&surf, k, 1));
    fprintf(af.fp, "],\"metrics\":[");
    if (quiet) {
    } else if (!json) {
        printf("%zu configurations (%zu left out: status not ok), %zu parameters\n", sum.n_rows,
               sum.n_left_out, sum.n_params);
        printf("leave-one-out errors: MAPE over all configurations, and over the inner ones "
               "(interpolation)\n");
        printf("%-28s %-6s %9s %11s %13s %13s %5s\n", "metric", "values", "sigma", "MAPE %",
               "inner MAPE %", "RMSE", "n");
    } else {
        printf("{\"rows\":%zu,\"left_out\":%zu,\"metrics\":[", sum.n_rows, sum.n_left_out);
    }
    for (size_t m = 0; m < sum.n_metrics; m++) {
        double *y = metric_column(&sum, m);
        pp_surface_fit fit;
        int rc, log_values;

        if (!y)
            goto out_abort;
        if (count_values(y, sum.n_rows) < 2) {
            free(y);
            continue;
        }
        log_values = pp_surface_wants_log(y, sum.n_rows);
        rc = fixed_sigma > 0 ? pp_surface_cv(&surf, y, fixed_sigma, log_values, &fit)
                             : pp_surface_choose_sigma(&surf, y, log_values, &fit);
        if (rc < 0) {
            free(y);
            continue;
        }
        fprintf(af.fp, "%s{\"name\":\"%s\",\"sigma\":%.10g,\"scale\":\"%s\",\"mape\":",
                first ? "" : ",", sum.metrics[m], fit.sigma, fit.log_values ? "log" : "linear");
        pp_json_number(af.fp, fit.mape);
        pp_json_field(af.fp, "mape_interior", fit.mape_interior);
        pp_json_field(af.fp, "rmse", fit.rmse);
        fprintf(af.fp, ",\"n\":%zu}", fit.n_used);
        if (json) {
            printf("%s{\"name\":", first ? "" : ",");
            pp_json_string(stdout, sum.metrics[m]);
            pp_json_field(stdout, "sigma", fit.sigma);
            pp_json_field(stdout, "loo_mape_pct", fit.mape);
            pp_json_field(stdout, "loo_mape_interior_pct", fit.mape_interior);
            printf(",\"scale\":\"%s\"", fit.log_values ? "log" : "linear");
            pp_json_field(stdout, "loo_rmse", fit.rmse);
            printf(",\"n\":%zu}", fit.n_used);
        } else if (!quiet) {
            printf("%-28s %-6s %9.4g %11.3f %13.3f %13.6g %5zu\n", sum.metrics[m],
                   fit.log_values ? "log" : "linear", fit.sigma, fit.mape, fit.mape_interior,
                   fit.rmse, fit.n_used);
        }
        first = 0;
        write_grids(dir, &sum, &surf, m, y, fit.sigma, fit.log_values);
        free(y);
    }
    fprintf(af.fp, "]}\n");
    if (json)
        printf("]}\n");
    if (pp_atomic_file_commit(&af) < 0) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    if (!json && !quiet)
        printf("model: %s/model.json, grids in %s/model/\n", dir, dir);
    status = 0;
    goto out;
out_abort:
    pp_atomic_file_abort(&af);
    status = PP_EXIT_FAILURE;
out:
    pp_surface_free(&surf);
    pp_summary_free(&sum);
    return status;
}

int pp_cmd_model(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"sigma", required_argument, NULL, OPT_SIGMA},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    double fixed_sigma = 0;
    int json = 0, opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(model_help, stdout);
            return 0;
        case OPT_SIGMA:
            if (strcmp(optarg, "auto") != 0 &&
                (pp_parse_double(optarg, &fixed_sigma) < 0 || !(fixed_sigma > 0))) {
                fprintf(stderr, "powprof model: --sigma %s: auto or a number > 0\n", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case PP_OPT_JSON:
            json = 1;
            break;
        default:
            fputs("Try 'powprof model --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs("powprof model: one results folder expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    return pp_model_build(argv[optind], fixed_sigma, json, 0);
}

/* sigma of metric name in dir/model.json, or 0. */
static double model_sigma(const char *dir, const char *name)
{
    char path[4400], key[256], *text;
    const char *at;
    double v = 0;

    pp_fmt(path, sizeof path, "%s/model.json", dir);
    text = pp_read_file(path);
    pp_fmt(key, sizeof key, "{\"name\":\"%s\",\"sigma\":", name);
    if (text && (at = strstr(text, key)))
        v = strtod(at + strlen(key), NULL);
    free(text);
    return v > 0 ? v : 0;
}

int pp_cmd_predict(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    double raw[PP_SURFACE_MAX_DIMS], xn[PP_SURFACE_MAX_DIMS], best = INFINITY;
    int given[PP_SURFACE_MAX_DIMS] = {0}, json = 0, opt, status = PP_EXIT_USAGE, outside = 0;
    size_t nearest = 0;
    const char *dir;
    pp_summary sum;
    pp_surface surf;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(predict_help, stdout);
            return 0;
        }
        if (opt == PP_OPT_JSON) {
            json = 1;
            continue;
        }
        fputs("Try 'powprof predict --help'.\n", stderr);
        return PP_EXIT_USAGE;
    }
    if (optind >= argc) {
        fputs("powprof predict: a results folder and NAME=VALUE for each parameter expected\n",
              stderr);
        return PP_EXIT_USAGE;
    }
    dir = argv[optind];
    if (load(dir, &sum, &surf) < 0)
        return PP_EXIT_USAGE;
    for (int a = optind + 1; a < argc; a++) {
        const char *eq = strchr(argv[a], '=');
        char name[PP_SUMMARY_NAME_MAX];
        int k;
        if (!eq) {
            fprintf(stderr, "powprof predict: '%s': NAME=VALUE expected\n", argv[a]);
            goto out;
        }
        pp_fmt(name, sizeof name, "%.*s", (int)(eq - argv[a]), argv[a]);
        k = pp_summary_param(&sum, name);
        if (k < 0) {
            fprintf(stderr, "powprof predict: no parameter '%s' in %s/summary.csv (its parameters:",
                    name, dir);
            for (size_t j = 0; j < sum.n_params; j++)
                fprintf(stderr, " %s", sum.params[j]);
            fprintf(stderr, ")\n");
            goto out;
        }
        if (pp_parse_double(eq + 1, &raw[k]) < 0 || (sum.log_scale[k] && !(raw[k] > 0))) {
            fprintf(stderr, "powprof predict: %s: '%s' is not a %snumber\n", name, eq + 1,
                    sum.log_scale[k] ? "positive " : "");
            goto out;
        }
        given[k] = 1;
    }
    for (size_t k = 0; k < sum.n_params; k++)
        if (!given[k]) {
            fprintf(stderr, "powprof predict: no value for %s (give %s=VALUE)\n", sum.params[k],
                    sum.params[k]);
            goto out;
        }
    pp_surface_normalize(&surf, raw, xn);
    for (size_t k = 0; k < sum.n_params; k++)
        if (xn[k] < -1e-9 || xn[k] > 1 + 1e-9) {
            outside = 1;
            fprintf(stderr, "powprof: warning: %s = %g lies outside the measured range [%g, %g]: "
                            "an extrapolation\n", sum.params[k], raw[k],
                    pp_surface_denormalize(&surf, k, 0), pp_surface_denormalize(&surf, k, 1));
        }
    for (size_t i = 0; i < sum.n_rows; i++) {
        double g = 0;
        for (size_t k = 0; k < sum.n_params; k++)
            g += (xn[k] - surf.x[i * surf.d + k]) * (xn[k] - surf.x[i * surf.d + k]);
        if (g < best) {
            best = g;
            nearest = i;
        }
    }
    if (json) {
        printf("{\"point\":{");
        for (size_t k = 0; k < sum.n_params; k++) {
            printf("%s", k ? "," : "");
            pp_json_string(stdout, sum.params[k]);
            printf(":");
            pp_json_number(stdout, raw[k]);
        }
        printf("},\"outside_measured_range\":%s,\"nearest\":{\"id\":%ld,\"distance\":",
               outside ? "true" : "false", sum.ids[nearest]);
        pp_json_number(stdout, sqrt(best));
        printf("},\"metrics\":{");
    } else {
        printf("nearest measured configuration: id %ld at distance %.4f (normalized units)\n",
               sum.ids[nearest], sqrt(best));
        printf("%-32s %16s %12s\n", "metric", "predicted", "sigma");
    }
    {
        int first = 1;
        for (size_t m = 0; m < sum.n_metrics; m++) {
            double *y = metric_column(&sum, m), sigma, v;
            pp_surface_fit fit;
            if (!y)
                break;
            if (count_values(y, sum.n_rows) < 1) {
                free(y);
                continue;
            }
            {
                int log_values = pp_surface_wants_log(y, sum.n_rows);
                sigma = model_sigma(dir, sum.metrics[m]);
                if (sigma <= 0)
                    sigma = pp_surface_choose_sigma(&surf, y, log_values, &fit) == 0 ? fit.sigma
                                                                                   : 0.1;
                if (log_values)
                    for (size_t i = 0; i < sum.n_rows; i++)
                        y[i] = y[i] > 0 ? log(y[i]) : NAN;
                v = pp_surface_predict(&surf, y, sigma, xn);
                if (log_values)
                    v = exp(v);
            }
            if (json) {
                printf("%s", first ? "" : ",");
                pp_json_string(stdout, sum.metrics[m]);
                printf(":");
                pp_json_number(stdout, v);
            } else {
                printf("%-32s %16.6g %12.4g\n", sum.metrics[m], v, sigma);
            }
            first = 0;
            free(y);
        }
    }
    if (json)
        printf("}}\n");
    status = 0;
out:
    pp_surface_free(&surf);
    pp_summary_free(&sum);
    return status;
}
