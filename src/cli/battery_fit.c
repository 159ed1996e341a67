/* powprof battery fit LOG...: the pack fitted to one's own flight logs
 * (src/flight/flight_fit.h), printed, written as a battery group, plotted. */
#include "cli.h"
#include "opt.h"

#include "src/api/battery_answer.h"
#include "src/base/util.h"

#include <string.h>

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
    "far ahead as the part held out). What the\n"
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
    "current of 0 while the voltage sags (a current sensor that dropped out).\n";

static int model_parse(const char *arg, void *model) { return pp_battery_model_parse(arg, model); }

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
        PP_OPT_PARSE(0, "model", &a->o.model, "NAME", "thevenin (default) or rint", model_parse,
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
                     "pack's and\nliion's fitted, the one closer on the fitted part kept)",
                     ocv_parse, "auto, pack, lipo or liion"),
        PP_OPT_STRING('c', "config", &a->choice.file, "FILE", "start from (and compare with) "
                      "FILE's battery group"),
        PP_OPT_STRING(0, "preset", &a->choice.preset, "NAME", "start from (and compare with) a "
                      "preset (default drone-4s-3200)"),
        PP_OPT_STRING(0, "plot", &a->plot_dir, "DIR", "logged and modelled voltage per flight, "
                      "the fitted part\nshaded, and the residual: DIR/battery-fit.gp (and .png)"),
        PP_OPT_BOOL(0, "json", &a->json, "one JSON object on stdout"),
        PP_OPT_BOOL(0, "force", &a->force, "write -o's pack even when the fit is degenerate (a "
                    "parameter at\na bound of its range: undetermined) or does not beat the "
                    "pack\nit replaces on the validation part, or does not follow the log"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"battery fit", fit_head, NULL, opts, NULL, 0};

    return pp_opt_parse(&c, argc, argv);
}

/* 0, 1 (--help, printed) or PP_EXIT_USAGE (said why). */
static int parse_args(int argc, char **argv, pp_battery_fit_ask *a)
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

int pp_cli_battery_fit(int argc, char **argv)
{
    pp_battery_fit_ask a;
    int rc;

    if ((rc = parse_args(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    return pp_battery_fit_answer(&a);
}
