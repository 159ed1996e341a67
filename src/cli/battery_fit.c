/* powprof battery fit LOG...: the pack fitted to one's own flight logs
 * (src/flight/flight_fit.h), printed, written as a battery group, plotted. */
#include "cli.h"
#include "opt.h"

#include "src/base/util.h"
#include "src/config/battery_config.h"
#include "src/results/flight_fit_doc.h"
#include "src/results/json_file.h"
#include "plots/plot_fit.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

typedef struct fit_args {
    const char *out, *plot_dir;
    const char *const *logs;
    size_t n_logs;
    int json, force;
    pp_battery_choice choice;
    pp_flight_fit_options o;
} fit_args;

static int model_parse(const char *arg, void *model) { return pp_battery_model_parse(arg, model); }

/* --ocv: auto, pack, or a curve of the library's. */
static int ocv_parse(const char *arg, void *name)
{
    *(const char **)name = arg;
    return strcmp(arg, "auto") == 0 || strcmp(arg, "pack") == 0
               ? 0 : pp_battery_ocv_curve(arg, &(pp_battery_params){0});
}

/* The options, as the table says them: 0, 1 (--help), PP_EXIT_USAGE. */
static int fit_options(int argc, char **argv, fit_args *a)
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
static int parse_args(int argc, char **argv, fit_args *a)
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

/* The name of the pack the fit replaces. */
static const char *before_name(const fit_args *a)
{
    return pp_flight_fit_replaces(a->choice.file, a->choice.preset);
}

/* "V +- SD UNIT" (V with prec digits: after the point for style 'f', '+'
 * with a sign, significant for 'g'), or "V UNIT, at its bound" or
 * "undetermined" (no finite SD: the flights do not inform it; a capacity
 * whose SD is over PP_FIT_UNDETERMINED_REL of it). */
static const char *pm(char *buf, size_t cap, char style, int prec, double v, double sd, int bound,
                      const char *unit)
{
    int n = style == 'g' ? snprintf(buf, cap, "%.*g", prec, v)
            : style == '+' ? snprintf(buf, cap, "%+.*f", prec, v)
                           : snprintf(buf, cap, "%.*f", prec, v);

    if (n < 0 || (size_t)n >= cap)
        return buf;
    if (!bound && isfinite(sd) && strcmp(unit, "Ah") == 0 && sd > PP_FIT_UNDETERMINED_REL * v)
        snprintf(buf + n, cap - (size_t)n, " Ah, undetermined (+- %.2g: its 90 %% interval "
                 "over +-30 %%)", sd);
    else if (bound || !isfinite(sd))
        snprintf(buf + n, cap - (size_t)n, "%s%s, %s", unit[0] ? " " : "", unit,
                 bound ? "at its bound: undetermined" : "undetermined (the flights do not "
                                                       "inform it)");
    else
        snprintf(buf + n, cap - (size_t)n, " +- %.2g%s%s", sd, unit[0] ? " " : "", unit);
    return buf;
}

static void print_capacity(const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;
    const pp_battery_params *p = &f->pack;
    char a[160];

    if (f->capacity_fitted && ((f->at_bound & PP_FIT_P_CAPACITY) || !isfinite(f->capacity_sd_ah) ||
                               f->capacity_sd_ah > PP_FIT_UNDETERMINED_REL * p->capacity_ah))
        printf("  capacity_ah    %s\n", pm(a, sizeof a, 'g', 4, p->capacity_ah, f->capacity_sd_ah,
                                           f->at_bound & PP_FIT_P_CAPACITY, "Ah"));
    else if (f->capacity_fitted)
        printf("  capacity_ah    %.4g +- %.2g (%.1f %%)\n", p->capacity_ah, f->capacity_sd_ah,
               100 * r->capacity_rel_sd);
    else if (r->capacity_held)
        printf("  capacity_ah    %.4g, held (%s) with the open-circuit curve (a first fit of "
               "everything gave %s)\n", p->capacity_ah, r->capacity_source,
               pm(a, sizeof a, 'g', 3, r->first_capacity_ah, r->first_capacity_sd_ah,
                  0, "Ah"));
    else
        printf("  capacity_ah    %.4g, kept (%s): rint's voltage says nothing of the charge\n",
               p->capacity_ah, r->capacity_source);
}

static void print_pack(const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;
    const pp_battery_params *p = &f->pack;
    char a[160], b[160];

    print_capacity(r);
    if (p->model == PP_BATTERY_RINT)
        printf("  voltage_v      %.4f +- %.2g\n", p->voltage_v, f->voltage_sd_v);
    if (r->r0_held)
        printf("  r_int_ohm      %.5f, held (the pack it replaces): no load step in the fitted "
               "parts\n", p->r_int_ohm);
    else
        printf("  r_int_ohm      %s\n", pm(a, sizeof a, 'f', 5, p->r_int_ohm, f->r_int_sd_ohm,
                                           f->at_bound & PP_FIT_P_R0, "ohm"));
    if (p->model != PP_BATTERY_THEVENIN)
        return;
    if (r->rc_held)
        printf("  r1_ohm         %.5f, time constant %.1f s: held (the pack it replaces), "
               "the flights do not determine the RC pair\n", p->r1_ohm, f->tau_s);
    else
        printf("  r1_ohm         %s, time constant %s (c1_f %.4g)\n",
               pm(a, sizeof a, 'f', 5, p->r1_ohm, f->r1_sd_ohm, f->at_bound & PP_FIT_P_R1, "ohm"),
               pm(b, sizeof b, 'f', 1, f->tau_s, f->tau_sd_s, f->at_bound & PP_FIT_P_TAU, "s"),
               p->c1_f);
    if (r->curve_held || r->capacity_held)
        printf("  open-circuit   %s table, held (the flights do not tell its scale and offset "
               "from the capacity): %.3f V full, %.3f V empty (pack)\n", r->ocv_curve,
               pp_battery_ocv_v(p, 1), pp_battery_ocv_v(p, 0));
    else if (r->curve_kept)
        printf("  open-circuit   %s table as it is (its scale and offset fitted came no 10 %% "
               "closer on the validation part; %.3g Ah with them): %.3f V full, %.3f V empty "
               "(pack); the +- leave out the table's own error\n", r->ocv_curve,
               r->free_curve_capacity_ah, pp_battery_ocv_v(p, 1), pp_battery_ocv_v(p, 0));
    else
        printf("  open-circuit   %s table's shape, scale %s, offset %s per cell: %.3f V full, "
               "%.3f V empty (pack)\n", r->ocv_curve,
               pm(a, sizeof a, 'f', 3, f->ocv_scale, f->ocv_scale_sd,
                  f->at_bound & PP_FIT_P_SCALE, ""),
               pm(b, sizeof b, '+', 3, f->ocv_offset_v, f->ocv_offset_sd_v,
                  f->at_bound & PP_FIT_P_OFFSET, "V"),
               pp_battery_ocv_v(p, 1), pp_battery_ocv_v(p, 0));
    if (isfinite(r->ocv_other_rms_v))
        printf("                 (--ocv auto: this curve's RMS %.4f V, the other's %.4f V, %s; "
               "kept: %s)\n", r->ocv_kept_rms_v, r->ocv_other_rms_v,
               r->validated ? "on the validation part, the last fifth of each fitted part, "
                              "fitted without it"
                            : "on the fitted part (too few samples for a validation part)",
               r->ocv_why);
}

/* One row of the held-out comparison: the fitted pack's figure and the
 * other's in fmt, each "none" when not known (a pack that browns out at
 * once compares nothing: never "nan"). */
static void figure_row(const char *label, const char *fmt, double a, double b, int width,
                       const char *unit)
{
    char x[2][48];
    const double v[2] = {a, b};

    for (int k = 0; k < 2; k++) {
        if (isfinite(v[k]))
            snprintf(x[k], sizeof x[k], fmt, v[k]);
        else
            snprintf(x[k], sizeof x[k], "none");
    }
    printf("  %-44s %*s %s %*s %s\n", label, width, x[0], unit, width, x[1], unit);
}

static void print_flight(const pp_flight_fit *r, const pp_flight_fit_flight *fl, size_t i,
                         const char *before)
{
    const pp_flight_check *a = &fl->fitted, *b = &fl->before;
    char start[160];

    printf("flight %zu: %s (battery %d), %zu samples over %.1f s, fitted on 0 to %.1f s\n", i + 1,
           fl->path, fl->instance, fl->n, fl->duration_s, fl->t_s[fl->n_train - 1]);
    if (fl->left_out[0])
        printf("  %s\n", fl->left_out);
    if (fl->bin > 1)
        printf("  %zu samples logged, fitted and checked as %zu averages of %zu (at most %d a "
               "flight)\n", fl->n_logged, fl->n, fl->bin, PP_FIT_SAMPLES_MAX);
    if (r->fit.capacity_fitted || r->capacity_held)
        printf("  start %s, at the end of the fitted part %.1f %%%s",
               pm(start, sizeof start, 'f', 1, 100 * fl->soc_start_frac, 100 * fl->soc_start_sd_frac,
                  r->fit.at_bound & (PP_FIT_P_START << i), "%"),
               100 * fl->soc_end_train_frac, isfinite(fl->soc_log_frac) ? "" : "\n");
    if ((r->fit.capacity_fitted || r->capacity_held) && isfinite(fl->soc_log_frac))
        printf(" (the log's remaining at the start: %.1f %%)\n", 100 * fl->soc_log_frac);
    if (isfinite(fl->charge_logged_mah))
        printf("  charge over the flight: %.1f mAh by the logged current (what the fit counts), "
               "%.1f mAh by the log's discharged_mah\n", fl->charge_current_mah,
               fl->charge_logged_mah);
    if (fl->n_train == fl->n) {
        printf("  nothing held out (the whole flight fitted): the figures below are over the "
               "fitted part\n");
    }
    printf("  %-44s %14s %14s\n", fl->n_train < fl->n ? "held out (not fitted), battery FLIGHT's way"
                                                     : "whole flight, battery FLIGHT's way",
           "fitted pack", before);
    figure_row("terminal voltage RMS", "%.3f", a->v_rms, b->v_rms, 12, "V");
    for (int k = 0; k < 2; k++) {
        const pp_flight_check *c = k ? b : a;
        if (c->events && c->event_kind != PP_BATTERY_EVENT_BROWNOUT)
            printf("  (%s runs empty at %.1f s: nothing compared after it)\n",
                   k ? before : "the fitted pack", c->event_t_s);
        else if (c->events)
            printf("  (%s browns out at %.1f s)\n", k ? before : "the fitted pack", c->event_t_s);
    }
    figure_row("largest deviation (modelled - logged)", "%+.3f",
               isfinite(a->v_rms) ? a->v_max_dev : NAN, isfinite(b->v_rms) ? b->v_max_dev : NAN,
               12, "V");
    figure_row("charge the model draws", "%.1f", a->mah_model, b->mah_model, 10, "mAh");
    figure_row("charge by the logged current", "%.1f", a->mah_current, b->mah_current, 10, "mAh");
}

/* The charge the fitted parts cover, with the pack reported (its capacity):
 * "12.3 %", or why it is not known. */
static const char *coverage(const pp_flight_fit *r, char *buf, size_t cap)
{
    const pp_fit_result *f = &r->fit;

    if (f->at_bound & PP_FIT_P_CAPACITY)
        return "an unknown part (the capacity is at its bound)";
    return pp_text(buf, cap, "%.1f %%", 100 * f->soc_span_frac);
}

static void print_warnings(const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;
    const pp_battery_params *p = &f->pack;
    char cov[96], c[160];

    coverage(r, cov, sizeof cov);
    if (r->capacity_held && f->soc_span_frac >= PP_FIT_PINNED_SPAN_FRAC)
        printf("warning: the flights cover %s of the charge (with the capacity held, %.3g Ah) "
               "yet do not tell the capacity from the open-circuit curve (a first fit gave %s): "
               "both are the pack's (%s), only the resistances and each start fitted. Another "
               "flight of this pack, or its capacity (-c, BAT1_CAPACITY), would pin them.\n",
               cov, p->capacity_ah, pm(c, sizeof c, 'g', 3, r->first_capacity_ah,
                                       r->first_capacity_sd_ah, 0, "Ah"), r->capacity_source);
    else if (r->capacity_held)
        printf("warning: the flights cover too little of the charge (%s with the capacity "
               "held, %.3g Ah) to determine the capacity and the open-circuit curve: both are the "
               "pack's (%s), only the resistances and each start fitted. Fly to below 40 %% (a "
               "flight over half of the charge) and fit again.\n", cov, p->capacity_ah,
               r->capacity_source);
    else if (r->capacity_undetermined)
        printf("warning: the flights cover %s of the charge: too little to determine the "
               "capacity (%s, with the open-circuit curve held at the table's), and the log "
               "gives none: a plan with this pack is as uncertain. Give the capacity (-c FILE "
               "with capacity_ah, or a log with BAT1_CAPACITY) or fly to below 40 %% and fit "
               "again.\n", cov, pm(c, sizeof c, 'g', 3, p->capacity_ah, f->capacity_sd_ah,
                                   f->at_bound & PP_FIT_P_CAPACITY, "Ah"));
    else if (r->curve_held)
        printf("warning: the flights cover %s of the charge: too little to fit the open-circuit "
               "curve with the capacity (a first fit gave %s); the curve is held at the table's "
               "and the capacity read from its slope, known to %.0f %% (with the table's own "
               "error: its shape let move where flown, held near the table's elsewhere). "
               "Fly to below 40 %% and fit again.\n", cov,
               pm(c, sizeof c, 'g', 3, r->first_capacity_ah, r->first_capacity_sd_ah, 0, "Ah"),
               100 * r->capacity_rel_sd);
    else if (f->capacity_fitted && !r->capacity_pinned && !r->curve_held)
        printf("warning: the fitted parts cover %s of the charge at most and the capacity is "
               "known to %.0f %%: too little to pin the capacity and the open-circuit curve. Fly "
               "to below 40 %% (a flight over half of the charge) and fit again.\n", cov,
               100 * r->capacity_rel_sd);
    if (r->beats_prior == 0)
        printf("warning: on the validation part (the last fifth of each fitted part, fitted "
               "without it) the fit is no better than the pack it replaces (%.4f V against "
               "%.4f V): keep that pack; not written without --force\n",
               r->validation_fit_rms_v, r->validation_prior_rms_v);
    if (r->charge_disagrees)
        printf("warning: the log's discharged_mah counts %+.0f %% against the logged current "
               "integrated, which the fit counts: the autopilot integrates at its own rate (a "
               "current logged too seldom for its swings, or samples left out); if the log is "
               "right, %s %.3g Ah)\n", 100 * (r->charge_ratio - 1),
               r->fit.capacity_fitted ? "the capacity fitted is as far off (by its count"
                                      : "the charge drawn is as far off (the capacity is held at",
               r->fit.pack.capacity_ah * (r->fit.capacity_fitted ? r->charge_ratio : 1));
    if (r->decisive == 0)
        printf("warning: fitted on the first half of each fitted part, the fit misses the "
               "second half by %.4f V RMS, the pack it replaces by %.4f V: not under half of "
               "it, so not decisively better as far ahead as the part held out; keep that "
               "pack; not written without --force\n", r->ahead_fit_rms_v, r->ahead_prior_rms_v);
    if (r->curves_apart == 0)
        printf("warning: on the validation part the curve kept (%s) and the other fit alike "
               "(RMS %.4f V and %.4f V: not twice apart): the flights do not tell which "
               "table's shape the charge not flown follows, and the pack written would run on "
               "one; keep the pack it replaces (or fly deeper, or give --ocv); not written "
               "without --force\n", r->ocv_curve, r->ocv_kept_rms_v, r->ocv_other_rms_v);
    if (r->off_log)
        printf("warning: the model does not follow the log: RMS %.4g V over the fitted part, "
               "more than the pack's whole open-circuit span (%.3f V): a current or a voltage "
               "the pack cannot give (check the log's units and cell count)\n",
               r->fit.train_rms_v, r->ocv_span_v);
    if (r->degenerate)
        printf("warning: the fit is degenerate: a parameter ran to a bound of its range (said "
               "\"at its bound\" above), so the flights do not determine it and the pack is no "
               "estimate of the one flown (a wrong cell count, a log of another pack, or too "
               "little of the flight); not written without --force\n");
    if (f->rank < f->n_params)
        printf("warning: the flights determine %d of the %d parameters only (the Jacobian's "
               "rank): the others are unknown, their +- meaningless\n", f->rank, f->n_params);
    if (f->minpack_info == 5)
        printf("warning: MINPACK stopped at its evaluation limit: the fit may not have "
               "converged\n");
}

static void print_text(const pp_flight_fit *r, const fit_args *a)
{
    const pp_fit_result *f = &r->fit;

    printf("battery fit: %s model, %d cells (%s), %zu flight%s; least squares over the logged "
           "voltage of the first %s (MINPACK lmdif: %d parameters, %d samples, %d evaluations), "
           "RMS %.4f V there\n", pp_battery_model_name(f->pack.model), f->pack.cells,
           r->cells_source, r->n_flights, r->n_flights == 1 ? "" : "s",
           a->o.train_s > 0 ? "seconds given of each" : "part of each flight", f->n_params,
           f->n_residuals, f->n_evaluations, f->train_rms_v);
    if (r->cells_note[0])
        printf("  cells: %s: %d cells from the highest voltage instead\n", r->cells_note,
               f->pack.cells);
    printf("  the fitted parts draw %.2f to %.2f A and cover %.1f %% of the charge (with the pack "
           "reported)%s\n", r->train_i_lo_a, r->train_i_hi_a, 100 * f->soc_span_frac,
           r->r0_held ? ": no load step to tell the resistances from the curve, so R0 and the "
                        "RC pair are held at the pack it replaces" : "");
    if (r->validated)
        printf("  validation part (the last fifth of each fitted part, fitted without it): RMS "
               "%.4f V for the fit, %.4f V for the pack it replaces\n", r->validation_fit_rms_v,
               r->validation_prior_rms_v);
    print_pack(r);
    for (size_t i = 0; i < r->n_flights; i++)
        print_flight(r, &r->fl[i], i, before_name(a));
    print_warnings(r);
}

/* --plot DIR: written and rendered, said on stderr (stdout may be JSON). */
static int plot(const fit_args *a, const pp_flight_fit *r)
{
    pp_plot_result pr;
    int rc = pp_plot_fit(a->plot_dir, r, &pr);

    return pp_cli_plot_said("battery fit", a->plot_dir, "battery-fit", rc, &pr);
}

int pp_cli_battery_fit(int argc, char **argv)
{
    fit_args a;
    pp_flight_fit r;
    int rc;

    if ((rc = parse_args(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    if (pp_battery_choose(&a.choice, &a.o.start) < 0)
        return PP_EXIT_USAGE;
    a.o.start_given = a.choice.file || a.choice.preset;
    rc = pp_flight_fit_run(a.logs, a.n_logs, &a.o, &r);
    if (rc < 0) {
        pp_flight_fit_free(&r);
        return rc == -EINVAL ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    }
    if (a.json) {
        json_t *doc = pp_flight_fit_json(&r, before_name(&a), a.out);
        json_dumpf(doc, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
        fputc('\n', stdout);
        json_decref(doc);
    } else
        print_text(&r, &a);
    if (a.out && pp_flight_fit_write(&r, before_name(&a), a.out, a.force) < 0)
        rc = -1;
    if (rc == 0 && a.out && !a.json)
        printf("wrote %s: the fitted pack as a battery group (battery -c, plan -c)\n", a.out);
    if (rc == 0 && a.plot_dir)
        rc = plot(&a, &r);
    pp_flight_fit_free(&r);
    return rc < 0 ? PP_EXIT_FAILURE : 0;
}
