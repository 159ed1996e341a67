/* powprof battery: what a trace does to a battery. */
#include "cli.h"
#include "opt.h"

#include "src/traces/trace.h"
#include "src/flight/flight_log.h"
#include "src/base/util.h"

#include "src/config/battery_config.h"
#include "src/results/battery_doc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char battery_head[] =
    "usage: powprof battery TRACE.csv [-c CONFIG] [--preset NAME] [--model rint|thevenin]\n"
    "                       [--base-power-w W] [--rail NAME] [--until-cutoff]\n"
    "                       [-o SOC.csv] [--json]\n"
    "       powprof battery FLIGHT.ulg|FLIGHT.csv [-c CONFIG | --preset NAME | --model M]\n"
    "                       [--plot DIR]\n"
    "       powprof battery fit LOG... [-o PACK.cfg]   (powprof battery fit --help)\n"
    "\n"
    "Drain a modelled battery with a power trace (solved with SUNDIALS CVODE) and\n"
    "report the energy drawn, the state of charge at the end and drained, the\n"
    "lowest terminal voltage, the events (state of charge or voltage cutoff,\n"
    "brown-out) and the time to cutoff: the trace repeated until a cutoff event,\n"
    "as if the configuration ran for the rest of the flight (whole periods are\n"
    "skipped: exactly with rint, within a stated bound with thevenin).\n"
    "\n"
    "Sample times must increase by at least 1 us and span at most 1e8 s;\n"
    "parameters outside their physical ranges are errors naming the key and\n"
    "the range.\n"
    "\n"
    "A flight log in the place of TRACE (a PX4 .ulg, or the battery_status CSV\n"
    "of pyulog's ulog2csv): each battery's logged power (voltage_v x current_a)\n"
    "drives the model, with the log's cell count and capacity where it has\n"
    "them; the modelled terminal voltage beside the logged one (RMS, mean,\n"
    "largest deviation, at the end), the charge drawn beside the logged\n"
    "current's and the log's discharged_mah, and which gap is the voltage\n"
    "model's and which the log's sampling. Asked for no pack: thevenin (rint's\n"
    "constant voltage cannot follow a discharge) with the autopilot's BATn_*\n"
    "parameters of a ULog (cells, capacity, R_INTERNAL, its V_EMPTY..V_CHARGED\n"
    "line) where present; the start read off the pack's curve at the first\n"
    "voltage (the log's 'remaining' shown beside). Samples with connected = 0,\n"
    "no measured voltage or current, or a current of 0 while the voltage sags\n"
    "are left out and counted. -o writes, per battery and logged sample, the\n"
    "model's state of charge and voltage beside the logged voltage and current;\n"
    "-c keeps the pack's capacity (a pack fitted by battery fit reproduces its\n"
    "flight); --until-cutoff and --rail are refused there.\n"
    "\n"
    "The load is the total of the trace (rails inside the board input are not\n"
    "added to it) unless --rail names one column.\n";

typedef struct soc_writer {
    FILE *fp;
} soc_writer;

static void write_row(void *ctx, double t_s, double soc, double v, double i)
{
    soc_writer *w = ctx;
    fprintf(w->fp, "%.6f,%.9f,%.6f,%.6f\n", t_s, soc, v, i);
}

/* A bad sample (a time not after the one before, ...): -EINVAL, printed
 * with the file's line (the header is line 1; gap rows, skipped, would
 * shift it: then the sample's number). */
static int load_error(const char *path, const pp_battery_load *load, size_t n_gaps)
{
    size_t bad;
    char why[256];

    if (pp_battery_load_check(load, &bad, why, sizeof why) == 0)
        return 0;
    if (n_gaps == 0)
        fprintf(stderr, "powprof battery: %s:%zu: %s\n", path, bad + 2, why);
    else
        fprintf(stderr, "powprof battery: %s: sample %zu: %s\n", path, bad + 1, why);
    return -EINVAL;
}

/* What the command line asked. */
typedef struct battery_args {
    const char *trace, *out_path, *rail, *plot_dir;
    double rtol;
    int json, until;
    pp_battery_choice choice;
} battery_args;

/* --preset, --model: the name kept, once known. */
static int preset_parse(const char *arg, void *name)
{
    *(const char **)name = arg;
    return pp_battery_preset(arg, &(pp_battery_params){0});
}

static int model_parse(const char *arg, void *name)
{
    *(const char **)name = arg;
    return pp_battery_model_parse(arg, &(pp_battery_model){0});
}

/* --base-power-w: replaces the pack's (checked with the other parameters). */
static int base_option(const pp_opt *row, const char *arg, const char *cmd)
{
    pp_battery_choice *c = row->value;

    c->base_given = 1;
    return pp_cli_parse_double(cmd, "--base-power-w", arg, &c->base_power_w);
}

/* 0, 1 (--help, printed) or PP_EXIT_USAGE (said why). */
static int parse_args(int argc, char **argv, battery_args *a)
{
    pp_battery_choice *b = &a->choice;
    const pp_opt opts[] = {
        PP_OPT_STRING('c', "config", &b->file, "FILE", "battery parameters from FILE's "
                      "'battery' group"),
        PP_OPT_PARSE(0, "preset", &b->preset, "NAME", "drone-4s-3200 (default), "
                     "drone-3s-2200, drone-6s-10000", preset_parse, "unknown (known: "
                     "drone-4s-3200, drone-3s-2200, drone-6s-10000)"),
        PP_OPT_PARSE(0, "model", &b->model, "NAME", "rint (the paper's; default) or thevenin "
                     "(OCV table + RC)", model_parse, "rint or thevenin"),
        PP_OPT_CALLBACK(0, "base-power-w", b, "W", "constant load beside the trace (motors, ...)",
                        base_option),
        PP_OPT_STRING(0, "rail", &a->rail, "NAME", "drive the battery with rail NAME only"),
        PP_OPT_BOOL(0, "until-cutoff", &a->until, "report (and write) the run until cutoff, not "
                    "one pass\n(-o then has no rows for whole periods skipped)"),
        PP_OPT_RANGE(0, "rtol", &a->rtol, "R", "CVODE relative tolerance (default 1e-10)", 1e-14,
                     1e-2, 0, "must be in [1e-14, 1e-2]"),
        PP_OPT_STRING('o', "output", &a->out_path, "FILE", "write t_s,soc_frac,voltage_v,"
                      "current_a at each sample"),
        PP_OPT_STRING(0, "plot", &a->plot_dir, "DIR", "a flight log: voltage, current and charge "
                      "left over\ntime, logged beside modelled (DIR/battery-flight.png)"),
        PP_OPT_BOOL(0, "json", &a->json, "one JSON object on stdout"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"battery", battery_head, NULL, opts, NULL, 0};
    int rc;

    memset(a, 0, sizeof *a);
    pp_battery_choice_init(&a->choice);
    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc;
    if (optind != argc - 1) {
        fputs("powprof battery: one trace file expected (powprof battery TRACE.csv)\n", stderr);
        return PP_EXIT_USAGE;
    }
    a->trace = argv[optind];
    return 0;
}

/* Drain battery p with the load of a->trace; the result into *res, the
 * state of charge at each sample into -o's file. An exit status. */
static int drain(const battery_args *a, const pp_battery_params *p, pp_battery_result *res)
{
    pp_trace_load trace = {0};
    pp_atomic_file af = {0};
    pp_battery_options bo;
    pp_battery_load load;
    soc_writer w;
    int rc, status = PP_EXIT_FAILURE;

    /* Time and load only (16 bytes a sample); a trace that will not fit in
     * memory is refused with its size before anything is allocated. */
    if ((rc = pp_trace_read_load(a->trace, a->rail, 0, &trace)) < 0)
        return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    load = (pp_battery_load){.t_s = trace.t_s, .p_w = trace.p_w, .n = trace.n};
    if (load_error(a->trace, &load, trace.n_gaps) < 0) {
        status = PP_EXIT_USAGE;
        goto out;
    }
    pp_battery_options_init(&bo);
    bo.until_cutoff = a->until;
    if (a->rtol > 0)
        bo.rtol = a->rtol;
    if (a->out_path) {
        if (pp_atomic_file_open(&af, a->out_path) < 0)
            goto out;
        fputs("t_s,soc_frac,voltage_v,current_a\n", af.fp);
        w.fp = af.fp;
        bo.output = write_row;
        bo.output_ctx = &w;
    }
    if ((rc = pp_battery_run(p, &load, &bo, res)) < 0)
        status = rc == -EINVAL ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    else if (!a->out_path || pp_atomic_file_commit(&af) == 0)
        status = 0;
out:
    pp_atomic_file_abort(&af);
    pp_trace_load_free(&trace);
    return status;
}

/* A trace of a results folder (DIR/traces/ID.csv) with no battery asked
 * for flies the folder's own (DIR/profile.cfg, copied there by the sweep):
 * its path into buf, said on stderr. */
static void folder_battery(battery_args *a, char *buf, size_t cap)
{
    const char *slash = strrchr(a->trace, '/');
    pp_battery_choice *c = &a->choice;
    size_t len;

    if (c->file || c->preset || c->preset_or_file || !slash)
        return;
    len = (size_t)(slash - a->trace);
    if (len < 6 || strncmp(slash - 6, "traces", 6) != 0 || (len > 6 && slash[-7] != '/'))
        return;
    if (pp_fmt(buf, cap, "%.*sprofile.cfg", (int)(len - 6), a->trace) < 0 ||
        access(buf, F_OK) != 0)
        return;
    c->file = buf;
    fprintf(stderr, "powprof battery: the results folder's battery: %s's battery group (-c or "
            "--preset for another)\n", buf);
}

int pp_cmd_battery(int argc, char **argv)
{
    battery_args a;
    pp_battery_params params;
    pp_battery_result res;
    char folder_cfg[PP_PATH_MAX];
    int rc;

    if (argc >= 2 && strcmp(argv[1], "fit") == 0)
        return pp_cli_battery_fit(argc - 1, argv + 1);
    if ((rc = parse_args(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    folder_battery(&a, folder_cfg, sizeof folder_cfg);
    if (pp_battery_choose(&a.choice, &params) < 0)
        return PP_EXIT_USAGE;
    if (pp_flight_log_is(a.trace) && (a.until || a.rail)) {
        fprintf(stderr, "powprof battery: %s: %s on a flight log: %s\n", a.trace,
                a.until ? "--until-cutoff" : "--rail", a.until
                    ? "the model follows the flight to its end, it does not repeat it to a "
                      "cutoff (powprof import ulog, then plan, for how long a pack lasts)"
                    : "battery_status is the pack's own power, it has no rails to choose");
        return PP_EXIT_USAGE;
    }
    if (pp_flight_log_is(a.trace)) /* a recorded flight: the model against it */
        return pp_cli_battery_flight(a.trace, &params,
                                     a.choice.file || a.choice.preset || a.choice.model, a.json,
                                     a.out_path, a.plot_dir);
    if (a.plot_dir) {
        fputs("powprof battery: --plot draws a flight log beside the model; a trace's run is "
              "written with -o\n", stderr);
        return PP_EXIT_USAGE;
    }
    if ((rc = drain(&a, &params, &res)) != 0)
        return rc;
    if (a.json) {
        json_t *doc = pp_battery_drain_json(a.trace, &params, &res);
        json_dumpf(doc, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
        fputc('\n', stdout);
        json_decref(doc);
    } else
        pp_battery_drain_print(stdout, a.trace, &params, &res);
    return 0;
}
