/* powprof import: recorded power data into a results folder, in the same
 * layout as `powprof profile` writes. */
#include "cli.h"

#include "src/config/battery_config.h"
#include "src/results/folder.h"
#include "src/base/util.h"

#include "src/traces/flight_log.h"
#include "src/results/flight.h"

#include <math.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

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
    "  jtop          jetson-stats' jtop logger CSV (DictWriter over jetson.stats):\n"
    "                its time column, each 'Power <rail>' column (mW) a rail,\n"
    "                'Power TOT' the board input TOT_IN; CPU, RAM, temperatures\n"
    "                left out\n"
    "  ulog          PX4 flight logs (.ulg, or the battery_status CSV of pyulog's\n"
    "                ulog2csv): the battery_status topic's voltage_v x\n"
    "                current_a, one rail per battery instance (the total their\n"
    "                sum), time from the first sample; the charge drawn beside the\n"
    "                log's own discharged_mah is printed; the log's voltage,\n"
    "                current, discharged_mah and remaining kept in RESULTS/flight.csv\n"
    "  csv           a time column and power columns with units in their names\n"
    "                (x_w, x_mw, x_uw, 'x [W]'), or current and voltage (x_a, x_v;\n"
    "                PX4 ulog2csv's voltage_v x current_a is the rail 'battery');\n"
    "                time from the first sample; a time without a unit (time,\n"
    "                timestamp) read in s, ms, us or ns by its steps (ulog2csv:\n"
    "                microseconds), said in a note; columns that are not power,\n"
    "                current or voltage (_mah, remaining, ...) and smoothed\n"
    "                copies (voltage_filtered_v) left out with a note\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       the results folder to create\n"
    "  --param NAME=VALUE     a parameter value for every file (repeatable)\n"
    "  --pattern PATTERN      parameters from file names, e.g.\n"
    "                         'matrix-exponentiation_{size}-{exponent}_1layer.csv';\n"
    "                         {NAME:C} when C is the value's decimal point\n"
    "                         ('1layer_yolo-{fps:-}fps.csv': 5-8 is 5.8)\n"
    "  --rate-hz HZ           powprofiler: sampling rate (default 10)\n"
    "  --interval-ms MS       tegrastats: time between records (default: the\n"
    "                         timestamps, else 1000)\n"
    "  --unit W|mW|uW         csv: unit of the columns that name none\n"
    "  --time-col NAME        csv: the time column\n"
    "  --time-unit s|ms|us|ns csv: the time column's unit (default: its name's\n"
    "                         suffix, else found from the steps)\n"
    "  -c, --config FILE      battery parameters (its 'battery' group; ulog without\n"
    "                         it: the first log's BAT_* parameters where it has them)\n"
    "  --json                 what was imported, as one JSON object on stdout\n"
    "  -h, --help             this help\n";

enum { OPT_PARAM = 4000, OPT_PATTERN, OPT_RATE, OPT_INTERVAL, OPT_UNIT, OPT_TIME_COL, OPT_TIME_UNIT };

/* After an import of logs: per battery, its samples and the charge drawn
 * from the logged current beside the log's own discharged_mah. */
static void ulog_report(char **files, int n_files)
{
    for (int i = 0; i < n_files; i++) {
        const pp_ulog_flight *f = pp_import_ulog_flight(files[i]); /* read by the import */
        char left[512];
        if (!f)
            continue;
        pp_flight_log_left_out(f, left, sizeof left);
        if (left[0])
            printf("%s: %s\n", files[i], left);
        for (size_t b = 0; b < f->n_batteries; b++) {
            const pp_ulog_battery *bat = &f->bat[b];
            double q, logged;
            pp_ulog_charge_mah(bat, &q, &logged);
            printf("%s: battery %d: %zu samples over %.1f s (one every %.2f s); charge drawn "
                   "from the logged current %.2f mAh, by the log's discharged_mah %.2f mAh",
                   files[i], bat->instance, bat->n, bat->t_s[bat->n - 1] - bat->t_s[0],
                   pp_ulog_interval_s(bat), q, logged);
            if (isfinite(logged) && logged > 0 && fabs(q / logged - 1) > 0.02)
                printf(" (%+.0f %%: the topic is logged at a lower rate than the autopilot "
                       "integrates the current)", 100 * (q / logged - 1));
            printf("\n");
        }
    }
}

/* What the command line asked for. */
typedef struct import_args {
    const char *config_path;
    pp_import_request rq;
    int json;
} import_args;

/* Ctrl-C (or TERM, HUP) removes the import's temporary folder before
 * powprof dies of the signal. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    pp_results_import_abandon();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered on return: powprof dies of it, as without handler */
}

/* A --param NAME=NUMBER. */
static int add_param(pp_import_request *rq, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *name = rq->fixed_names[rq->n_fixed];

    if (rq->n_fixed == PP_IMPORT_MAX_PARAMS) {
        fprintf(stderr, "powprof import: more than %d --param\n", PP_IMPORT_MAX_PARAMS);
        return -EINVAL;
    }
    if (!eq || pp_parse_double(eq + 1, &rq->fixed_values[rq->n_fixed]) < 0) {
        fprintf(stderr, "powprof import: --param %s: NAME=NUMBER expected\n", arg);
        return -EINVAL;
    }
    if (pp_fmt(name, 64, "%.*s", (int)(eq - arg), arg) < 0) {
        fprintf(stderr, "powprof import: --param %s: NAME is at most 63 characters\n", arg);
        return -EINVAL;
    }
    if (pp_name_check(name, "--param") < 0)
        return -EINVAL;
    rq->n_fixed++;
    return 0;
}

/* The options of one format: --rate-hz, --interval-ms, --unit, --time-col.
 * 0, or -EINVAL (said why). */
static int format_option(int opt, const char *arg, pp_import_options *io)
{
    if (opt == OPT_RATE) {
        if (pp_cli_parse_double("import", "--rate-hz", arg, &io->rate_hz) < 0 ||
            !(io->rate_hz > 0 && io->rate_hz <= 1e6)) {
            fprintf(stderr, "powprof import: --rate-hz %s: a rate in (0, 1e6] Hz\n", arg);
            return -EINVAL;
        }
    } else if (opt == OPT_INTERVAL) {
        if (pp_cli_parse_double("import", "--interval-ms", arg, &io->interval_ms) < 0 ||
            !(io->interval_ms > 0 && io->interval_ms <= 86400e3)) {
            fprintf(stderr, "powprof import: --interval-ms %s: in (0, 86400000] ms\n", arg);
            return -EINVAL;
        }
    } else if (opt == OPT_UNIT || opt == OPT_TIME_UNIT) {
        static const char *const names[2][4] = {{"W", "mW", "uW", NULL}, {"s", "ms", "us", "ns"}};
        static const double scale[4] = {1.0, 1e-3, 1e-6, 1e-9};
        int t = opt == OPT_TIME_UNIT;
        double *out = t ? &io->time_scale : &io->unit_scale;
        *out = 0;
        for (int i = 0; i < 4 && names[t][i]; i++)
            if (strcmp(arg, names[t][i]) == 0)
                *out = scale[i];
        if (*out == 0) {
            fprintf(stderr, "powprof import: %s %s: %s\n", t ? "--time-unit" : "--unit", arg,
                    t ? "s, ms, us or ns" : "W, mW or uW");
            return -EINVAL;
        }
    } else {
        io->time_col = arg;
    }
    return 0;
}

/* One option into a: 0, 1 (--help, printed), -EINVAL (said why). */
static int import_option(int opt, const char *arg, import_args *a)
{
    switch (opt) {
    case 'h':
        fputs(import_help, stdout);
        return 1;
    case 'o':
        a->rq.out = arg;
        return 0;
    case 'c':
        a->config_path = arg;
        return 0;
    case OPT_PARAM:
        return add_param(&a->rq, arg);
    case OPT_PATTERN:
        a->rq.pattern = arg;
        return 0;
    case OPT_RATE:
    case OPT_INTERVAL:
    case OPT_UNIT:
    case OPT_TIME_COL:
    case OPT_TIME_UNIT:
        return format_option(opt, arg, &a->rq.io);
    case PP_OPT_JSON:
        a->json = 1;
        return 0;
    default:
        fputs("Try 'powprof import --help'.\n", stderr);
        return -EINVAL;
    }
}

static int parse_args(int argc, char **argv, import_args *a)
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
        {"time-unit", required_argument, NULL, OPT_TIME_UNIT},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    int opt, rc;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:c:", longopts, NULL)) != -1)
        if ((rc = import_option(opt, optarg, a)) != 0)
            return rc;
    if (argc - optind < 2 || !a->rq.out) {
        fputs("powprof import: FORMAT, at least one FILE and -o RESULTS are needed\n", stderr);
        return -EINVAL;
    }
    a->rq.format = argv[optind];
    a->rq.files = (const char *const *)(argv + optind + 1);
    a->rq.n_files = (size_t)(argc - optind - 1);
    if (!pp_import_reader_of(a->rq.format)) {
        fprintf(stderr, "powprof import: unknown format '%s' (powprofiler, tegrastats, jtop, csv, "
                "ulog)\n",
                a->rq.format);
        return -EINVAL;
    }
    return 0;
}

/* --json: what was imported, as one object on stdout. */
static void print_json(const char *out, size_t n_files, const pp_results_layout *layout)
{
    json_t *rails = json_array(), *params = json_array(), *root;

    for (size_t r = 0; r < layout->n_rails; r++)
        json_array_append_new(rails, json_string(layout->rail_names[r]));
    for (size_t k = 0; k < layout->n_params; k++)
        json_array_append_new(params, json_string(layout->param_names[k]));
    root = json_pack("{s:s, s:i, s:o, s:o}", "output", out, "files", (int)n_files, "rails",
                     rails, "params", params);
    json_dumpf(root, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(root);
}

/* import ulog without -c: the pack of the first log's BAT_* parameters
 * when it has them (issue 32, item 8), said. */
static void log_pack(import_args *a)
{
    const pp_ulog_flight *f;
    pp_battery_params pk;

    if (a->config_path || strcmp(a->rq.format, "ulog") != 0 || a->rq.n_files == 0)
        return;
    f = pp_import_ulog_flight(a->rq.files[0]); /* read once for the import */
    if (f && f->n_batteries && pp_flight_pack_for(f, &f->bat[0], &pk)) {
        a->rq.battery = pk;
        fprintf(stderr, "powprof import: the summary's battery: the autopilot's BAT_* parameters "
                "of %s (thevenin, %d cells, %.3g Ah, R0 %.4g ohm; %s); -c for another\n",
                a->rq.files[0], pk.cells, pk.capacity_ah, pk.r_int_ohm, f->n_batteries > 1
                    ? "battery 0's: each battery instance drains its own pack" : "");
    }
}

int pp_cmd_import(int argc, char **argv)
{
    import_args *a = calloc(1, sizeof *a);
    pp_results_layout *layout = calloc(1, sizeof *layout);
    pp_battery_choice bc;
    int rc, status = PP_EXIT_USAGE;

    if (!a || !layout) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    pp_import_options_init(&a->rq.io);
    if ((rc = parse_args(argc, argv, a)) != 0) {
        status = rc > 0 ? 0 : PP_EXIT_USAGE;
        goto out;
    }
    pp_battery_choice_init(&bc);
    bc.file = a->config_path;
    if (pp_battery_choose(&bc, &a->rq.battery) < 0)
        goto out;
    a->rq.battery_given = a->config_path != NULL;
    log_pack(a);
    for (size_t i = 0; i < PP_ARRAY_SIZE(cleanup_signals); i++)
        signal(cleanup_signals[i], on_signal);
    rc = pp_results_import(&a->rq, layout);
    for (size_t i = 0; i < PP_ARRAY_SIZE(cleanup_signals); i++)
        signal(cleanup_signals[i], SIG_DFL);
    status = rc == 0 ? 0 : rc == -EINVAL ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    if (status == 0 && a->json)
        print_json(a->rq.out, a->rq.n_files, layout);
    else if (status == 0)
        printf("%zu files imported into %s (%zu rails, %zu parameters)\n", a->rq.n_files,
               a->rq.out, layout->n_rails, layout->n_params);
    if (status == 0 && !a->json && strcmp(a->rq.format, "ulog") == 0)
        ulog_report((char **)a->rq.files, (int)a->rq.n_files);
out:
    pp_import_ulog_forget();
    free(a);
    free(layout);
    return status;
}
