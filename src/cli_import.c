/* powprof import: recorded power data into a results folder, in the same
 * layout as `powprof profile` writes. */
#include "cli.h"

#include "config.h"
#include "import.h"
#include "log.h"
#include "results.h"
#include "util.h"

#include "../battery/battery.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char import_help[] =
    "usage: powprof import FORMAT FILE... -o RESULTS [options] [--json]\n"
    "\n"
    "Read recorded power data into RESULTS (traces/<id>.csv, summary.csv with the\n"
    "battery columns, run.json naming the source of each row), as `powprof\n"
    "profile` writes them, so that battery, model, predict, plot and plan work on\n"
    "it. Nothing is written unless every file imports; RESULTS must not exist.\n"
    "\n"
    "formats:\n"
    "  powprofiler   the original tool's CSV: header 100,101,102 (total, CPU, GPU\n"
    "                in W), one row per sample, no time (see --rate-hz)\n"
    "  tegrastats    Jetson tegrastats logs (POM_5V_IN 3410/3410 or VDD_IN\n"
    "                5263mW/5263mW), timestamped or not (see --interval-ms)\n"
    "  csv           a time column and power columns with units in their names\n"
    "                (x_w, x_mw, x_uw, 'x [W]'), or current and voltage (x_a, x_v)\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       the results folder to create\n"
    "  --param NAME=VALUE     a parameter value for every file (repeatable)\n"
    "  --pattern PATTERN      parameters from file names, e.g.\n"
    "                         'matrix-exponentiation_{size}-{exponent}_1layer.csv'\n"
    "  --rate-hz HZ           powprofiler: sampling rate (default 10)\n"
    "  --interval-ms MS       tegrastats: time between records (default: the\n"
    "                         timestamps, else 1000)\n"
    "  --unit W|mW|uW         csv: unit of the columns that name none\n"
    "  --time-col NAME        csv: the time column\n"
    "  -c, --config FILE      battery parameters (its 'battery' group)\n"
    "  --json                 what was imported, as one JSON object on stdout\n"
    "  -h, --help             this help\n";

enum { OPT_PARAM = 4000, OPT_PATTERN, OPT_RATE, OPT_INTERVAL, OPT_UNIT, OPT_TIME_COL };

#define MAX_PARAMS 16

/* Remove what an import wrote into dir, and dir. */
static void remove_tree(const char *dir)
{
    char path[4096];
    DIR *d;
    struct dirent *e;

    pp_fmt(path, sizeof path, "%s/traces", dir);
    if ((d = opendir(path))) {
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                char f[4400];
                pp_fmt(f, sizeof f, "%s/%s", path, e->d_name);
                unlink(f);
            }
        closedir(d);
        rmdir(path);
    }
    pp_fmt(path, sizeof path, "%s/summary.csv", dir);
    unlink(path);
    pp_fmt(path, sizeof path, "%s/run.json", dir);
    unlink(path);
    rmdir(dir);
}

/* --json: what was imported, as one object on stdout. */
static void print_json(const char *out, int n_files, const pp_results_layout *layout)
{
    json_t *rails = json_array(), *params = json_array(), *root;

    for (size_t r = 0; r < layout->n_rails; r++)
        json_array_append_new(rails, json_string(layout->rail_names[r]));
    for (size_t k = 0; k < layout->n_params; k++)
        json_array_append_new(params, json_string(layout->param_names[k]));
    root = json_pack("{s:s, s:i, s:o, s:o}", "output", out, "files", n_files, "rails", rails,
                     "params", params);
    json_dumpf(root, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(root);
}

int pp_cmd_import(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"config", required_argument, NULL, 'c'},
        {"param", required_argument, NULL, OPT_PARAM},
        {"pattern", required_argument, NULL, OPT_PATTERN},
        {"rate-hz", required_argument, NULL, OPT_RATE},
        {"interval-ms", required_argument, NULL, OPT_INTERVAL},
        {"unit", required_argument, NULL, OPT_UNIT},
        {"time-col", required_argument, NULL, OPT_TIME_COL},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *pattern = NULL, *config_path = NULL, *format;
    char fixed_names[MAX_PARAMS][64], pat_names[MAX_PARAMS][64], tmp[4096], path[4400];
    double fixed_values[MAX_PARAMS], values[MAX_PARAMS];
    size_t n_fixed = 0;
    int n_pat = 0, opt, status = PP_EXIT_USAGE, made = 0, json = 0;
    int (*reader)(const char *, const pp_import_options *, pp_trace *);
    pp_import_options io;
    pp_battery_params battery;
    pp_results_layout *layout = NULL;
    char *row = NULL;
    FILE *summary = NULL, *run = NULL;

    pp_import_options_init(&io);
    pp_battery_params_default(&battery);
    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:c:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(import_help, stdout);
            return 0;
        case 'o':
            out = optarg;
            break;
        case 'c':
            config_path = optarg;
            break;
        case OPT_PARAM: {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || n_fixed == MAX_PARAMS ||
                pp_parse_double(eq + 1, &fixed_values[n_fixed]) < 0) {
                fprintf(stderr, "powprof import: --param %s: NAME=NUMBER expected\n", optarg);
                return PP_EXIT_USAGE;
            }
            pp_fmt(fixed_names[n_fixed++], 64, "%.*s", (int)(eq - optarg), optarg);
            break;
        }
        case OPT_PATTERN:
            pattern = optarg;
            break;
        case OPT_RATE:
            if (pp_cli_parse_double("import", "--rate-hz", optarg, &io.rate_hz) < 0 ||
                !(io.rate_hz > 0 && io.rate_hz <= 1e6)) {
                fprintf(stderr, "powprof import: --rate-hz %s: a rate in (0, 1e6] Hz\n", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case OPT_INTERVAL:
            if (pp_cli_parse_double("import", "--interval-ms", optarg, &io.interval_ms) < 0 ||
                !(io.interval_ms > 0)) {
                fprintf(stderr, "powprof import: --interval-ms %s: must be > 0\n", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case OPT_UNIT:
            io.unit_scale = strcmp(optarg, "W") == 0    ? 1.0
                            : strcmp(optarg, "mW") == 0 ? 1e-3
                            : strcmp(optarg, "uW") == 0 ? 1e-6
                                                        : 0;
            if (io.unit_scale == 0) {
                fprintf(stderr, "powprof import: --unit %s: W, mW or uW\n", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case OPT_TIME_COL:
            io.time_col = optarg;
            break;
        case PP_OPT_JSON:
            json = 1;
            break;
        default:
            fputs("Try 'powprof import --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (argc - optind < 2 || !out) {
        fputs("powprof import: FORMAT, at least one FILE and -o RESULTS are needed\n", stderr);
        return PP_EXIT_USAGE;
    }
    format = argv[optind];
    reader = strcmp(format, "powprofiler") == 0  ? pp_import_powprofiler
             : strcmp(format, "tegrastats") == 0 ? pp_import_tegrastats
             : strcmp(format, "csv") == 0        ? pp_import_csv
                                                 : NULL;
    if (!reader) {
        fprintf(stderr, "powprof import: unknown format '%s' (powprofiler, tegrastats, csv)\n",
                format);
        return PP_EXIT_USAGE;
    }
    if (config_path && pp_battery_params_load(config_path, &battery) < 0)
        return PP_EXIT_USAGE;
    if (access(out, F_OK) == 0) {
        fprintf(stderr, "powprof import: %s exists: give a new folder\n", out);
        return PP_EXIT_USAGE;
    }
    /* the names of the pattern's parameters, from the first file */
    if (pattern && (n_pat = pp_import_match_pattern(pattern, argv[optind + 1], pat_names, values,
                                                    MAX_PARAMS - n_fixed)) < 0)
        return PP_EXIT_USAGE;
    layout = calloc(1, sizeof *layout);
    row = malloc(16384);
    if (!layout || !row) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    pp_fmt(tmp, sizeof tmp, "%s.import.XXXXXX", out);
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "powprof import: cannot create %s: %s\n", tmp, strerror(errno));
        status = PP_EXIT_FAILURE;
        goto out;
    }
    made = 1;
    pp_fmt(path, sizeof path, "%s/traces", tmp);
    mkdir(path, 0755);
    for (int i = 0; i < n_pat; i++)
        pp_strlcpy(layout->param_names[layout->n_params++], pat_names[i], 160);
    for (size_t i = 0; i < n_fixed; i++)
        pp_strlcpy(layout->param_names[layout->n_params++], fixed_names[i], 160);
    for (int f = optind + 1; f < argc; f++) {
        uint64_t id = (uint64_t)(f - optind - 1);
        pp_trace t;
        double mean_w;
        size_t len;
        char names[MAX_PARAMS][64];

        if (pattern) {
            int k = pp_import_match_pattern(pattern, argv[f], names, values, MAX_PARAMS);
            if (k < 0)
                goto out;
        }
        for (size_t i = 0; i < n_fixed; i++)
            values[n_pat + i] = fixed_values[i];
        if (reader(argv[f], &io, &t) < 0)
            goto out;
        if (id == 0) {
            layout->n_rails = t.n_rails;
            for (size_t r = 0; r < t.n_rails; r++) {
                pp_strlcpy(layout->rail_names[r], t.names[r], sizeof layout->rail_names[r]);
                layout->rail_in_total[r] = !pp_trace_rail_is_inside(&t, r);
            }
            pp_fmt(path, sizeof path, "%s/summary.csv", tmp);
            summary = fopen(path, "w");
            if (!summary) {
                pp_trace_free(&t);
                status = PP_EXIT_FAILURE;
                goto out;
            }
            pp_results_header(layout, row, 16384);
            fputs(row, summary);
        } else {
            int same = t.n_rails == layout->n_rails;
            for (size_t r = 0; same && r < t.n_rails; r++)
                same = strcmp(t.names[r], layout->rail_names[r]) == 0;
            if (!same) {
                fprintf(stderr, "powprof import: %s: its rails differ from %s's\n", argv[f],
                        argv[optind + 1]);
                pp_trace_free(&t);
                goto out;
            }
        }
        pp_fmt(path, sizeof path, "%s/traces/%llu.csv", tmp, (unsigned long long)id);
        if (pp_trace_write_csv(&t, path) < 0) {
            pp_trace_free(&t);
            status = PP_EXIT_FAILURE;
            goto out;
        }
        {
            pp_results_row rr = {id, values, "ok", pp_trace_duration_s(&t), 0, 0, NULL, NULL, "", NULL, NULL, NULL, 0};
            len = pp_results_format_row(layout, &rr, &t, &battery, row, 16384, &mean_w);
        }
        fwrite(row, 1, len, summary);
        pp_trace_free(&t);
    }
    if (fflush(summary) != 0 || fsync(fileno(summary)) != 0) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    pp_fmt(path, sizeof path, "%s/run.json", tmp);
    run = fopen(path, "w");
    if (!run) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    fprintf(run, "{\"import\":\"%s\",\"device\":\"import\",\"sources\":[", format);
    for (int f = optind + 1; f < argc; f++) {
        if (f > optind + 1)
            fputc(',', run);
        pp_json_string(run, argv[f]);
    }
    fprintf(run, "],\"rails\":[");
    for (size_t r = 0; r < layout->n_rails; r++)
        fprintf(run, "%s{\"name\":\"%s\",\"estimated\":false,\"in_total\":%s}", r ? "," : "",
                layout->rail_names[r], layout->rail_in_total[r] ? "true" : "false");
    fprintf(run, "],\"battery\":{\"model\":\"%s\",\"cells\":%d,\"capacity_ah\":%g}}\n",
            pp_battery_model_name(battery.model), battery.cells, battery.capacity_ah);
    if (fclose(run) != 0) {
        run = NULL;
        status = PP_EXIT_FAILURE;
        goto out;
    }
    run = NULL;
    fclose(summary);
    summary = NULL;
    if (rename(tmp, out) != 0) {
        fprintf(stderr, "powprof import: cannot move %s to %s: %s\n", tmp, out, strerror(errno));
        status = PP_EXIT_FAILURE;
        goto out;
    }
    made = 0;
    if (json)
        print_json(out, argc - optind - 1, layout);
    else
        printf("%d files imported into %s (%zu rails, %zu parameters)\n", argc - optind - 1, out,
               layout->n_rails, layout->n_params);
    status = 0;
out:
    if (summary)
        fclose(summary);
    if (run)
        fclose(run);
    if (made)
        remove_tree(tmp);
    free(layout);
    free(row);
    return status;
}
