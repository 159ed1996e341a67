/* powprof import: recorded power data into a results folder, in the same
 * layout as `powprof profile` writes. */
#include "cli.h"
#include "opt.h"

#include "src/config/battery_config.h"
#include "src/results/folder.h"
#include "src/results/import_ulog.h"
#include "src/base/util.h"

#include "src/flight/flight_log.h"
#include "src/flight/flight.h"
#include "src/flight/ulog_trace.h"

#include <math.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char import_head[] =
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
    "                copies (voltage_filtered_v) left out with a note\n";


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
static int add_param(const pp_opt *row, const char *arg, const char *cmd)
{
    pp_import_request *rq = row->value;

    const char *eq = strchr(arg, '=');
    char *name = rq->fixed_names[rq->n_fixed];

    (void)cmd;
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

/* One of names (NULL-ended): its scale into *out (watts or seconds). */
static int scale_of(const char *arg, const char *const *names, double *out)
{
    static const double scale[4] = {1.0, 1e-3, 1e-6, 1e-9};

    for (int i = 0; i < 4 && names[i]; i++)
        if (strcmp(arg, names[i]) == 0)
            return *out = scale[i], 0;
    return -1;
}

static int unit_parse(const char *arg, void *out)
{
    return scale_of(arg, (const char *const[]){"W", "mW", "uW", NULL}, out);
}

static int time_unit_parse(const char *arg, void *out)
{
    return scale_of(arg, (const char *const[]){"s", "ms", "us", "ns"}, out);
}

/* 0, 1 (--help, printed), -EINVAL (said why). */
static int parse_args(int argc, char **argv, import_args *a)
{
    pp_import_options *io = &a->rq.io;
    const pp_opt rows[] = {
        PP_OPT_STRING('o', "output", &a->rq.out, "DIR", "the results folder to create"),
        PP_OPT_CALLBACK(0, "param", &a->rq, "NAME=VALUE", "a parameter value for every file "
                        "(repeatable)", add_param),
        PP_OPT_STRING(0, "pattern", &a->rq.pattern, "PATTERN", "parameters from file names, "
                      "e.g.\n'matrix-exponentiation_{size}-{exponent}_1layer.csv';\n{NAME:C} "
                      "when C is the value's decimal point\n('1layer_yolo-{fps:-}fps.csv': 5-8 "
                      "is 5.8)"),
        PP_OPT_RANGE(0, "rate-hz", &io->rate_hz, "HZ", "powprofiler: sampling rate (default 10)",
                     0, 1e6, PP_OPT_LO_OPEN, "a rate in (0, 1e6] Hz"),
        PP_OPT_RANGE(0, "interval-ms", &io->interval_ms, "MS", "tegrastats: time between records "
                     "(default: the\ntimestamps, else 1000)", 0, 86400e3, PP_OPT_LO_OPEN,
                     "in (0, 86400000] ms"),
        PP_OPT_PARSE(0, "unit", &io->unit_scale, "W|mW|uW", "csv: unit of the columns that "
                     "name none", unit_parse, "W, mW or uW"),
        PP_OPT_STRING(0, "time-col", &io->time_col, "NAME", "csv: the time column"),
        PP_OPT_PARSE(0, "time-unit", &io->time_scale, "s|ms|us|ns", "csv: the time column's "
                     "unit (default: its name's\nsuffix, else found from the steps)",
                     time_unit_parse, "s, ms, us or ns"),
        PP_OPT_STRING('c', "config", &a->config_path, "FILE", "battery parameters (its 'battery' "
                      "group; ulog without\nit: the first log's BAT_* parameters where it has "
                      "them)"),
        PP_OPT_BOOL(0, "json", &a->json, "what was imported, as one JSON object on stdout"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"import", import_head, NULL, rows, NULL, 0};
    int rc;

    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 1 : -EINVAL;
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
