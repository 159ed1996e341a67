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

/* powprof battery fit (below), from pp_cmd_battery. */
static int battery_fit(int argc, char **argv);

int pp_cmd_battery(int argc, char **argv)
{
    pp_battery_ask a;
    int rc;

    if (argc >= 2 && strcmp(argv[1], "fit") == 0)
        return battery_fit(argc - 1, argv + 1);
    if ((rc = parse_args(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    return pp_battery_answer(&a);
}

/* ---- battery fit LOG...: the pack fitted to one's own flight logs
 * (src/flight/flight_fit.h), printed, written as a battery group, plotted ---- */

static const char fit_head[] =
    "usage: powprof battery fit LOG... [-o PACK.cfg] [--model thevenin|rint]\n"
    "                           [--train-frac F | --train-s S] [--instance N] [--cells N]\n"
    "                           [--ocv auto|pack|lipo|liion] [-c CONFIG | --preset NAME]\n"
    "                           [--plot DIR] [--json] [--force]\n"
    "\n"
    "Fit the battery model the rest of powprof drains with to recorded flights of\n"
    "one pack: PX4 logs (.ulg) or the CSV pyulog's ulog2csv writes for the\n"
    "battery_status topic (timestamp in us, voltage_v, current_a; discharged_mah,\n"
    "remaining, connected, cell_count, capacity used where present, other columns\n"
    "ignored, in any order).\n"
    "\n"
    "How: the logged current drives the model (state of charge by counting the\n"
    "charge over the capacity; thevenin: open-circuit voltage from the table,\n"
    "series resistance, one RC pair stepped exactly for a current linear between\n"
    "samples; rint: a constant voltage and a resistance), and MINPACK's\n"
    "Levenberg-Marquardt (cminpack lmdif) fits the modelled terminal voltage to\n"
    "the logged one over the first part of each flight. Fitted (thevenin): the\n"
    "capacity, R0, R1, the time constant, the open-circuit table's scale and\n"
    "offset per cell (its shape kept: the pack's or Li-ion's, --ocv; the table\n"
    "kept as it is unless its fitted scale and offset come 10 % closer on the\n"
    "validation part) and each flight's starting charge;\n"
    "several logs share the pack. rint's voltage says nothing of the charge: its\n"
    "capacity is kept (the log's, else the pack it replaces).\n"
    "\n"
    "The pack it replaces (its prior, and what it is compared with): -c's or\n"
    "--preset's as given, else the one `powprof battery LOG` uses (thevenin with\n"
    "the log's cell_count, capacity and BAT_* parameters). Choices are made on\n"
    "data the fit did not see: each open-circuit curve is fitted on the first\n"
    "four fifths of each fitted part and judged on the last fifth (the\n"
    "validation part); the pack replaced is judged there too, and a fit no\n"
    "better than it is said so and not written without --force; nor is one\n"
    "that, fitted on the first half of each fitted part, does not miss the\n"
    "second half by under half the pack replaced's RMS (decisively better as\n"
    "far ahead as the part held out); nor one whose capacity the flights do\n"
    "not determine (held, or its 90 % interval over +-30 %) where neither the\n"
    "log nor -c nor --preset gives it; nor one whose curve the other follows the validation\n"
    "part twice as closely (that one's fit at a bound). What the\n"
    "flights do not inform stays the pack replaced's: with no load step in the\n"
    "fitted parts (the current's range x R0 under 50 mV) R0 and the RC pair;\n"
    "over little of the charge (under 10 %, or the capacity unknown to worse\n"
    "than 25 %) the curve's scale and offset, then the capacity with that\n"
    "pack's curve; the RC pair when undetermined.\n"
    "\n"
    "Uncertainties (+-, one standard deviation): the larger of the Jacobian's\n"
    "(a lower bound: a real log's residuals are correlated in time) and the\n"
    "spread of refits with one of 6 time blocks left out in turn (a\n"
    "delete-a-block jackknife); the capacity's also covers the capacity fitted\n"
    "on the first four fifths alone and, with the curve held, the other\n"
    "curve's. A capacity whose 90 % interval (+- 1.645 sd) is wider than +-30 %\n"
    "is undetermined and held at the pack\n"
    "replaced's. A parameter at a bound of its range is \"at its bound\" (never\n"
    "+- 0) and the fit degenerate: not written without --force; nor is a fit\n"
    "whose RMS exceeds the pack's whole open-circuit span (the model does not\n"
    "follow the log: a current or voltage the pack cannot give). A fit over less\n"
    "than 30 % of the charge, or a capacity known to worse than 5 %, is said not\n"
    "to pin the capacity and the curve: fly to below 40 % and fit again.\n"
    "\n"
    "Checked on the part of each flight not fitted, the way `powprof battery\n"
    "FLIGHT` checks a pack (the logged power drives the model, CVODE): voltage\n"
    "RMS and largest deviation, the charge the model draws beside the logged\n"
    "current's, for the fitted pack and the one it replaces, side by side.\n"
    "\n"
    "The cells: --cells, else the log's cell_count or BAT_N_CELLS, else the\n"
    "highest voltage / 4.25 V; a count the voltage rules out (not 3.0 to 4.5 V a\n"
    "cell at its highest) is passed over and said, a --cells refused. A flight\n"
    "given twice (or a .ulg beside its CSV) is refused.\n"
    "\n"
    "Left out of every log, counted and said: samples with connected = 0, a NaN\n"
    "or empty voltage or current, a current of -1 (PX4: not measured), and a\n"
    "current of 0 while the voltage sags (a current sensor that dropped out).\n"
    "\n"
    "exit status: 0 fitted (and written with -o); 2 usage or a log refused; 125\n"
    "a log unreadable, or -o's pack not written: refused for a reason above (said\n"
    "on stderr, with what would fix it; --force writes it anyway).\n";

static int fit_model_parse(const char *arg, void *model)
{
    return pp_battery_model_parse(arg, model);
}

/* --ocv: auto, pack, or a curve of the library's. */
static int ocv_parse(const char *arg, void *name)
{
    *(const char **)name = arg;
    return strcmp(arg, "auto") == 0 || strcmp(arg, "pack") == 0
               ? 0 : pp_battery_ocv_curve(arg, &(pp_battery_params){0});
}

/* The options, as the table says them: 0, 1 (--help), PP_EXIT_USAGE. */
static int fit_options(int argc, char **argv, pp_battery_fit_ask *a)
{
    const pp_opt opts[] = {
        PP_OPT_STRING('o', "output", &a->out, "PACK.cfg", "write the fitted pack as a 'battery' "
                      "group (every command\ntakes it: battery -c, plan -c, a profile's battery "
                      "group)"),
        PP_OPT_PARSE(0, "model", &a->o.model, "NAME", "thevenin (default) or rint", fit_model_parse,
                     "thevenin or rint"),
        PP_OPT_RANGE(0, "train-frac", &a->o.train_frac, "F", "fit the first F of each flight "
                     "(default 0.5; 1: all, no check)", 0, 1, PP_OPT_LO_OPEN, "must be in (0, 1]"),
        PP_OPT_RANGE(0, "train-s", &a->o.train_s, "S", "fit the first S seconds of each flight "
                     "instead", 0, 1e8, PP_OPT_LO_OPEN, "must be in (0, 1e8] s"),
        PP_OPT_INT(0, "instance", &a->o.instance, "N", "the battery instance of each log "
                   "(default: the first)", 0, 255),
        PP_OPT_INT(0, "cells", &a->o.cells, "N", "the pack's cells (default: the log's, else "
                   "from the voltage)", 1, 1000),
        PP_OPT_PARSE(0, "ocv", &a->o.ocv, "CURVE", "the open-circuit curve's shape: pack (the "
                     "table of the pack\ngiven), lipo, liion (NMC), or auto (default: the "
                     "pack's and\nliion's fitted, the one closer on the validation part kept;\n"
                     "the pack's where the flights do not show the shape)",
                     ocv_parse, "auto, pack, lipo or liion"),
        PP_OPT_STRING('c', "config", &a->choice.file, "FILE", "start from (and compare with) "
                      "FILE's battery group"),
        PP_OPT_STRING(0, "preset", &a->choice.preset, "NAME", "start from (and compare with) a "
                      "preset (default drone-4s-3200)"),
        PP_OPT_STRING(0, "plot", &a->plot_dir, "DIR", "logged and modelled voltage per flight, "
                      "the fitted part\nshaded, and the residual: DIR/battery-fit.gp (and .png)"),
        PP_OPT_BOOL(0, "json", &a->json, "one JSON object on stdout"),
        PP_OPT_BOOL(0, "force", &a->force, "write -o's pack even when refused: degenerate (a "
                    "parameter\nat a bound), no better than the pack it replaces (on the "
                    "validation\npart, or ahead), curves not told apart or the kept one "
                    "beaten,\nthe capacity guessed, or not following the log"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"battery fit", fit_head, NULL, opts, NULL, 0};

    return pp_opt_parse(&c, argc, argv);
}

/* 0, 1 (--help, printed) or PP_EXIT_USAGE (said why). */
static int fit_args(int argc, char **argv, pp_battery_fit_ask *a)
{
    int rc;

    memset(a, 0, sizeof *a);
    pp_battery_choice_init(&a->choice);
    pp_flight_fit_options_init(&a->o);
    if ((rc = fit_options(argc, argv, a)) != 0)
        return rc;
    if (optind >= argc) {
        fputs("powprof battery fit: one flight log or more expected (powprof battery fit "
              "FLIGHT.ulg ...)\n", stderr);
        return PP_EXIT_USAGE;
    }
    a->logs = (const char *const *)argv + optind;
    a->n_logs = (size_t)(argc - optind);
    return 0;
}

static int battery_fit(int argc, char **argv)
{
    pp_battery_fit_ask a;
    int rc;

    if ((rc = fit_args(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    return pp_battery_fit_answer(&a);
}
