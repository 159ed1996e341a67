/* powprof import: recorded power data into a results folder, in the same
 * layout as `powprof profile` writes. */
#include "cli.h"

#include "src/api/results_doc.h"

#include <errno.h>
#include <stdlib.h>

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

/* What the command line asked for. */
typedef struct import_args {
    const char *config_path;
    pp_import_request rq;
    int json;
} import_args;

/* A --param NAME=NUMBER. */
static int add_param(const pp_opt *row, const char *arg, const char *cmd)
{
    char why[300];
    int rc = pp_import_param_add(row->value, arg, why, sizeof why);

    if (rc < 0 && why[0])
        fprintf(stderr, "powprof %s: %s\n", cmd, why);
    return rc;
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
                     "name none", pp_import_unit_parse, "W, mW or uW"),
        PP_OPT_STRING(0, "time-col", &io->time_col, "NAME", "csv: the time column"),
        PP_OPT_PARSE(0, "time-unit", &io->time_scale, "s|ms|us|ns", "csv: the time column's "
                     "unit (default: its name's\nsuffix, else found from the steps)",
                     pp_import_time_unit_parse, "s, ms, us or ns"),
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

int pp_cmd_import(int argc, char **argv)
{
    import_args *a = calloc(1, sizeof *a);
    int rc;

    if (!a)
        return PP_EXIT_FAILURE;
    pp_import_options_init(&a->rq.io);
    if ((rc = parse_args(argc, argv, a)) == 0)
        rc = pp_import_answer(&a->rq, a->config_path, a->json);
    else
        rc = rc > 0 ? 0 : -EINVAL;
    free(a);
    return rc == 0 ? 0 : rc == -EINVAL ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
}
