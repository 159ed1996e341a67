/* powprof battery: what a trace does to a battery. */
#include "cli.h"
#include "opt.h"

#include "src/api/battery_answer.h"
#include "src/base/util.h"

#include <errno.h>
#include <string.h>

_Static_assert(PP_BATTERY_EXIT_USAGE == PP_EXIT_USAGE && PP_BATTERY_EXIT_FAILURE == PP_EXIT_FAILURE,
               "the library's exit statuses are the command's");

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
static int parse_args(int argc, char **argv, pp_battery_ask *a)
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

int pp_cmd_battery(int argc, char **argv)
{
    pp_battery_ask a;
    int rc;

    if (argc >= 2 && strcmp(argv[1], "fit") == 0)
        return pp_cli_battery_fit(argc - 1, argv + 1);
    if ((rc = parse_args(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    return pp_battery_answer(&a);
}
