/* battery fit's document, its text and its pack file (flight_fit_doc.h):
 * the JSON that `battery fit --json`, the C API and Python's fit_battery
 * give, the report `battery fit` prints, and the battery group written,
 * refused as pp_flight_fit_refusal says. */
#include "flight_fit_doc.h"
#include "json_file.h"

#include "src/base/log.h"
#include "src/config/battery_config.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static json_t *check_json(const pp_flight_check *c)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:o}", "voltage_rms_v", pp_json_num(c->v_rms), "voltage_max_dev_v",
                     pp_json_num(c->v_max_dev), "charge_model_mah", pp_json_num(c->mah_model),
                     "charge_current_mah", pp_json_num(c->mah_current), "soc_start", pp_json_num(c->pack.soc_start_frac));
}

static json_t *flight_json(const pp_flight_fit_flight *fl)
{
    json_t *o = json_pack("{s:s,s:i,s:I,s:I,s:o,s:o}", "log", fl->path, "instance", fl->instance,
                          "samples", (json_int_t)fl->n, "samples_fitted", (json_int_t)fl->n_train,
                          "duration_s", pp_json_num(fl->duration_s), "fitted_to_s",
                          pp_json_num(fl->t_s[fl->n_train - 1]));

    json_object_set_new(o, "soc_start", pp_json_num(fl->soc_start_frac));
    json_object_set_new(o, "soc_start_sd", pp_json_num(fl->soc_start_sd_frac));
    json_object_set_new(o, "soc_end_fitted", pp_json_num(fl->soc_end_train_frac));
    json_object_set_new(o, "soc_log_start", pp_json_num(fl->soc_log_frac));
    json_object_set_new(o, "held_out_rms_v_fit_equations", pp_json_num(fl->held_rms_v));
    json_object_set_new(o, "held_out_fitted", check_json(&fl->fitted));
    json_object_set_new(o, "held_out_before", check_json(&fl->before));
    json_object_set_new(o, "charge_current_mah", pp_json_num(fl->charge_current_mah));
    json_object_set_new(o, "charge_logged_mah", pp_json_num(fl->charge_logged_mah));
    json_object_set_new(o, "left_out", json_string(fl->left_out));
    return o;
}

/* The parameters at a bound, by name ("start 1" for the first flight's). */
static json_t *at_bound_json(unsigned mask, size_t n_flights)
{
    static const char *const names[] = {"capacity_ah", "r_int_ohm", "r1_ohm", "tau_s",
                                        "ocv_scale", "ocv_offset_v"};
    json_t *a = json_array();
    char name[32];

    for (size_t j = 0; j < sizeof names / sizeof names[0]; j++)
        if (mask & (1u << j))
            json_array_append_new(a, json_string(names[j]));
    for (size_t f = 0; f < n_flights; f++)
        if (mask & (PP_FIT_P_START << f)) {
            snprintf(name, sizeof name, "soc_start %zu", f + 1);
            json_array_append_new(a, json_string(name));
        }
    return a;
}

/* The fitted pack: its parameters and their +- (null where held). */
static json_t *pack_json(const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;
    const pp_battery_params *p = &f->pack;
    json_t *pack = json_object();

    json_object_set_new(pack, "model", json_string(pp_battery_model_name(p->model)));
    json_object_set_new(pack, "cells", json_integer(p->cells));
    json_object_set_new(pack, "capacity_ah", pp_json_num(p->capacity_ah));
    json_object_set_new(pack, "capacity_sd_ah", f->capacity_fitted ? pp_json_num(f->capacity_sd_ah) : json_null());
    json_object_set_new(pack, "voltage_v", pp_json_num(p->voltage_v));
    json_object_set_new(pack, "r_int_ohm", pp_json_num(p->r_int_ohm));
    json_object_set_new(pack, "r_int_sd_ohm", r->r0_held ? json_null()
                                                         : pp_json_num(f->r_int_sd_ohm));
    json_object_set_new(pack, "r1_ohm", pp_json_num(p->r1_ohm));
    json_object_set_new(pack, "r1_sd_ohm", r->rc_held ? json_null() : pp_json_num(f->r1_sd_ohm));
    json_object_set_new(pack, "tau_s", pp_json_num(f->tau_s));
    json_object_set_new(pack, "tau_sd_s", r->rc_held ? json_null() : pp_json_num(f->tau_sd_s));
    json_object_set_new(pack, "c1_f", pp_json_num(p->c1_f));
    json_object_set_new(pack, "ocv_scale", pp_json_num(f->ocv_scale));
    json_object_set_new(pack, "ocv_offset_v", pp_json_num(f->ocv_offset_v));
    json_object_set_new(pack, "ocv_curve", json_string(r->ocv_curve ? r->ocv_curve : "?"));
    return pack;
}

json_t *pp_flight_fit_json(const pp_flight_fit *r, const char *replaces, const char *output)
{
    const pp_fit_result *f = &r->fit;
    json_t *root = json_object(), *fl = json_array();

    json_object_set_new(root, "ocv_other_train_rms_v", pp_json_num(r->ocv_other_rms_v));
    json_object_set_new(root, "pack", pack_json(r));
    json_object_set_new(root, "cells_from", json_string(r->cells_source));
    json_object_set_new(root, "capacity_fitted", json_boolean(f->capacity_fitted));
    json_object_set_new(root, "capacity_pinned", json_boolean(r->capacity_pinned));
    json_object_set_new(root, "curve_held", json_boolean(r->curve_held));
    json_object_set_new(root, "curve_kept", json_boolean(r->curve_kept));
    json_object_set_new(root, "free_curve_capacity_ah", pp_json_num(r->free_curve_capacity_ah));
    json_object_set_new(root, "capacity_held", json_boolean(r->capacity_held));
    json_object_set_new(root, "capacity_undetermined", json_boolean(r->capacity_undetermined));
    json_object_set_new(root, "rc_held", json_boolean(r->rc_held));
    json_object_set_new(root, "degenerate", json_boolean(r->degenerate));
    json_object_set_new(root, "follows_log", json_boolean(!r->off_log));
    json_object_set_new(root, "validation_fit_rms_v", pp_json_num(r->validation_fit_rms_v));
    json_object_set_new(root, "validation_prior_rms_v", pp_json_num(r->validation_prior_rms_v));
    json_object_set_new(root, "beats_prior", r->beats_prior < 0 ? json_null()
                                                                : json_boolean(r->beats_prior));
    json_object_set_new(root, "ahead_fit_rms_v", pp_json_num(r->ahead_fit_rms_v));
    json_object_set_new(root, "ahead_prior_rms_v", pp_json_num(r->ahead_prior_rms_v));
    json_object_set_new(root, "decisive", r->decisive < 0 ? json_null()
                                                          : json_boolean(r->decisive));
    json_object_set_new(root, "curves_told_apart", r->curves_apart < 0 ? json_null()
                                                                       : json_boolean(r->curves_apart));
    json_object_set_new(root, "curve_beaten", json_boolean(r->curve_beaten));
    json_object_set_new(root, "capacity_guessed", json_boolean(r->capacity_guessed));
    json_object_set_new(root, "refused", pp_flight_fit_refusal(r)
                                             ? json_string(pp_flight_fit_refusal(r)) : json_null());
    json_object_set_new(root, "charge_logged_over_current", pp_json_num(r->charge_ratio));
    json_object_set_new(root, "charge_disagrees", json_boolean(r->charge_disagrees));
    json_object_set_new(root, "r0_held", json_boolean(r->r0_held));
    json_object_set_new(root, "at_bound", at_bound_json(f->at_bound, r->n_flights));
    json_object_set_new(root, "soc_span", pp_json_num(f->soc_span_frac));
    json_object_set_new(root, "train_rms_v", pp_json_num(f->train_rms_v));
    json_object_set_new(root, "parameters", json_integer(f->n_params));
    json_object_set_new(root, "rank", json_integer(f->rank));
    json_object_set_new(root, "evaluations", json_integer(f->n_evaluations));
    json_object_set_new(root, "replaces", json_string(replaces));
    for (size_t i = 0; i < r->n_flights; i++)
        json_array_append_new(fl, flight_json(&r->fl[i]));
    json_object_set_new(root, "flights", fl);
    json_object_set_new(root, "output", output ? json_string(output) : json_null());
    return root;
}

/* The comment at the head of PACK.cfg: the logs, the date, the figures. */
static void header_text(const pp_flight_fit *r, const char *replaces, char *buf, size_t cap)
{
    char date[64];
    time_t now = time(NULL);
    size_t n;

    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    n = (size_t)snprintf(buf, cap, "A pack fitted by powprof battery fit (%s model) on %s, from:\n",
                         pp_battery_model_name(r->fit.pack.model), date);
    for (size_t i = 0; i < r->n_flights && n < cap; i++) {
        const pp_flight_fit_flight *fl = &r->fl[i];
        n += (size_t)snprintf(buf + n, cap - n, "  %s (battery %d): fitted on %.0f of %.0f s, "
                              "start %.1f %%; held out: voltage RMS %.3f V (%s: %.3f V), charge "
                              "%.0f mAh modelled, %.0f mAh logged\n", fl->path, fl->instance,
                              fl->t_s[fl->n_train - 1], fl->duration_s, 100 * fl->soc_start_frac,
                              fl->fitted.v_rms, replaces, fl->before.v_rms,
                              fl->fitted.mah_model, fl->fitted.mah_current);
    }
    if (n < cap)
        snprintf(buf + n, cap - n, "%s\nsoc_start is 1 (a full pack, for plans); each flight's "
                 "own start is above.\nUse: powprof battery TRACE -c THIS, powprof plan RESULTS "
                 "-c THIS", r->fit.capacity_fitted && !r->capacity_pinned
                     ? "The flights did not cover enough of the charge to pin the capacity: "
                       "fly to below 40 % and fit again." : r->capacity_held
                     ? "The flights covered too little of the charge: the capacity and the "
                       "open-circuit curve are not fitted (held). Fly to below 40 % and fit again."
                     : "");
}

const char *pp_flight_fit_replaces(const char *config, const char *preset)
{
    return config ? config : preset ? preset : "battery LOG's";
}

int pp_flight_fit_write(const pp_flight_fit *r, const char *replaces, const char *path, int force)
{
    pp_battery_params p = r->fit.pack;
    const char *why = pp_flight_fit_refusal(r);
    char *text;
    int rc;

    if (why && !force) {
        pp_log_error("%s not written: %s; --force (force=True) to write it anyway", path, why);
        return -EPERM;
    }
    if (!(text = malloc(16384)))
        return -ENOMEM;
    p.soc_start_frac = 1;
    header_text(r, replaces, text, 16384);
    rc = pp_battery_config_write(path, &p, text);
    free(text);
    return rc;
}

/* ---- the report as text: what `battery fit` prints (the C API and
 * Python's fit_battery give the document instead) ---- */

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

static void print_capacity(FILE *fp, const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;
    const pp_battery_params *p = &f->pack;
    char a[160];

    if (f->capacity_fitted && ((f->at_bound & PP_FIT_P_CAPACITY) || !isfinite(f->capacity_sd_ah) ||
                               f->capacity_sd_ah > PP_FIT_UNDETERMINED_REL * p->capacity_ah))
        fprintf(fp, "  capacity_ah    %s\n", pm(a, sizeof a, 'g', 4, p->capacity_ah, f->capacity_sd_ah,
                                           f->at_bound & PP_FIT_P_CAPACITY, "Ah"));
    else if (f->capacity_fitted)
        fprintf(fp, "  capacity_ah    %.4g +- %.2g (%.1f %%)\n", p->capacity_ah, f->capacity_sd_ah,
               100 * r->capacity_rel_sd);
    else if (r->capacity_held)
        fprintf(fp, "  capacity_ah    %.4g, held (%s) with the open-circuit curve (a first fit of "
               "everything gave %s)\n", p->capacity_ah, r->capacity_source,
               pm(a, sizeof a, 'g', 3, r->first_capacity_ah, r->first_capacity_sd_ah,
                  0, "Ah"));
    else
        fprintf(fp, "  capacity_ah    %.4g, kept (%s): rint's voltage says nothing of the charge\n",
               p->capacity_ah, r->capacity_source);
}

static void print_pack(FILE *fp, const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;
    const pp_battery_params *p = &f->pack;
    char a[160], b[160];

    print_capacity(fp, r);
    if (p->model == PP_BATTERY_RINT)
        fprintf(fp, "  voltage_v      %.4f +- %.2g\n", p->voltage_v, f->voltage_sd_v);
    if (r->r0_held)
        fprintf(fp, "  r_int_ohm      %.5f, held (the pack it replaces): no load step in the fitted "
               "parts\n", p->r_int_ohm);
    else
        fprintf(fp, "  r_int_ohm      %s\n", pm(a, sizeof a, 'f', 5, p->r_int_ohm, f->r_int_sd_ohm,
                                           f->at_bound & PP_FIT_P_R0, "ohm"));
    if (p->model != PP_BATTERY_THEVENIN)
        return;
    if (r->rc_held)
        fprintf(fp, "  r1_ohm         %.5f, time constant %.1f s: held (the pack it replaces), "
               "the flights do not determine the RC pair\n", p->r1_ohm, f->tau_s);
    else
        fprintf(fp, "  r1_ohm         %s, time constant %s (c1_f %.4g)\n",
               pm(a, sizeof a, 'f', 5, p->r1_ohm, f->r1_sd_ohm, f->at_bound & PP_FIT_P_R1, "ohm"),
               pm(b, sizeof b, 'f', 1, f->tau_s, f->tau_sd_s, f->at_bound & PP_FIT_P_TAU, "s"),
               p->c1_f);
    if (r->curve_held || r->capacity_held)
        fprintf(fp, "  open-circuit   %s table, held (the flights do not tell its scale and offset "
               "from the capacity): %.3f V full, %.3f V empty (pack)\n", r->ocv_curve,
               pp_battery_ocv_v(p, 1), pp_battery_ocv_v(p, 0));
    else if (r->curve_kept)
        fprintf(fp, "  open-circuit   %s table as it is (its scale and offset fitted came no 10 %% "
               "closer on the validation part; %.3g Ah with them): %.3f V full, %.3f V empty "
               "(pack); the +- with the table's own error (its shape let move where flown: "
               "%.3g Ah)\n", r->ocv_curve, r->free_curve_capacity_ah, pp_battery_ocv_v(p, 1),
               pp_battery_ocv_v(p, 0), r->shape_capacity_ah);
    else
        fprintf(fp, "  open-circuit   %s table's shape, scale %s, offset %s per cell: %.3f V full, "
               "%.3f V empty (pack)\n", r->ocv_curve,
               pm(a, sizeof a, 'f', 3, f->ocv_scale, f->ocv_scale_sd,
                  f->at_bound & PP_FIT_P_SCALE, ""),
               pm(b, sizeof b, '+', 3, f->ocv_offset_v, f->ocv_offset_sd_v,
                  f->at_bound & PP_FIT_P_OFFSET, "V"),
               pp_battery_ocv_v(p, 1), pp_battery_ocv_v(p, 0));
    if (isfinite(r->ocv_other_rms_v))
        fprintf(fp, "                 (--ocv auto: this curve's RMS %.4f V, the other's %.4f V, %s; "
               "kept: %s)\n", r->ocv_kept_rms_v, r->ocv_other_rms_v,
               r->validated ? "on the validation part, the last fifth of each fitted part, "
                              "fitted without it"
                            : "on the fitted part (too few samples for a validation part)",
               r->ocv_why);
}

/* One row of the held-out comparison: the fitted pack's figure and the
 * other's in fmt, each "none" when not known (a pack that browns out at
 * once compares nothing: never "nan"). */
static void figure_row(FILE *fp, const char *label, const char *fmt, double a, double b,
                       int width, const char *unit)
{
    char x[2][48];
    const double v[2] = {a, b};

    for (int k = 0; k < 2; k++) {
        if (isfinite(v[k]))
            snprintf(x[k], sizeof x[k], fmt, v[k]);
        else
            snprintf(x[k], sizeof x[k], "none");
    }
    fprintf(fp, "  %-44s %*s %s %*s %s\n", label, width, x[0], unit, width, x[1], unit);
}

static void print_flight(FILE *fp, const pp_flight_fit *r, const pp_flight_fit_flight *fl,
                         size_t i, const char *before)
{
    const pp_flight_check *a = &fl->fitted, *b = &fl->before;
    char start[160];

    fprintf(fp, "flight %zu: %s (battery %d), %zu samples over %.1f s, fitted on 0 to %.1f s\n", i + 1,
           fl->path, fl->instance, fl->n, fl->duration_s, fl->t_s[fl->n_train - 1]);
    if (fl->left_out[0])
        fprintf(fp, "  %s\n", fl->left_out);
    if (fl->bin > 1)
        fprintf(fp, "  %zu samples logged, fitted and checked as %zu averages of %zu (at most %d a "
               "flight)\n", fl->n_logged, fl->n, fl->bin, PP_FIT_SAMPLES_MAX);
    if (r->fit.capacity_fitted || r->capacity_held)
        fprintf(fp, "  start %s, at the end of the fitted part %.1f %%%s",
               pm(start, sizeof start, 'f', 1, 100 * fl->soc_start_frac, 100 * fl->soc_start_sd_frac,
                  r->fit.at_bound & (PP_FIT_P_START << i), "%"),
               100 * fl->soc_end_train_frac, isfinite(fl->soc_log_frac) ? "" : "\n");
    if ((r->fit.capacity_fitted || r->capacity_held) && isfinite(fl->soc_log_frac))
        fprintf(fp, " (the log's remaining at the start: %.1f %%)\n", 100 * fl->soc_log_frac);
    if (isfinite(fl->charge_logged_mah))
        fprintf(fp, "  charge over the flight: %.1f mAh by the logged current (what the fit counts), "
               "%.1f mAh by the log's discharged_mah\n", fl->charge_current_mah,
               fl->charge_logged_mah);
    if (fl->n_train == fl->n) {
        fprintf(fp, "  nothing held out (the whole flight fitted): the figures below are over the "
               "fitted part\n");
    }
    fprintf(fp, "  %-44s %14s %14s\n", fl->n_train < fl->n ? "held out (not fitted), battery FLIGHT's way"
                                                     : "whole flight, battery FLIGHT's way",
           "fitted pack", before);
    figure_row(fp, "terminal voltage RMS", "%.3f", a->v_rms, b->v_rms, 12, "V");
    for (int k = 0; k < 2; k++) {
        const pp_flight_check *c = k ? b : a;
        if (c->events && c->event_kind != PP_BATTERY_EVENT_BROWNOUT)
            fprintf(fp, "  (%s runs empty at %.1f s: nothing compared after it)\n",
                   k ? before : "the fitted pack", c->event_t_s);
        else if (c->events)
            fprintf(fp, "  (%s browns out at %.1f s)\n", k ? before : "the fitted pack", c->event_t_s);
    }
    figure_row(fp, "largest deviation (modelled - logged)", "%+.3f",
               isfinite(a->v_rms) ? a->v_max_dev : NAN, isfinite(b->v_rms) ? b->v_max_dev : NAN,
               12, "V");
    figure_row(fp, "charge the model draws", "%.1f", a->mah_model, b->mah_model, 10, "mAh");
    figure_row(fp, "charge by the logged current", "%.1f", a->mah_current, b->mah_current, 10, "mAh");
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

/* What the flights' coverage of the charge lets the fit determine. */
static void print_coverage_warning(FILE *fp, const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;
    const pp_battery_params *p = &f->pack;
    char cov[96], c[160];

    coverage(r, cov, sizeof cov);
    if (r->capacity_held && f->soc_span_frac >= PP_FIT_PINNED_SPAN_FRAC)
        fprintf(fp, "warning: the flights cover %s of the charge (with the capacity held, %.3g Ah) "
               "yet do not tell the capacity from the open-circuit curve (a first fit gave %s): "
               "both are the pack's (%s), only the resistances and each start fitted. Another "
               "flight of this pack, or its capacity (-c, BAT1_CAPACITY), would pin them.\n",
               cov, p->capacity_ah, pm(c, sizeof c, 'g', 3, r->first_capacity_ah,
                                       r->first_capacity_sd_ah, 0, "Ah"), r->capacity_source);
    else if (r->capacity_held)
        fprintf(fp, "warning: the flights cover too little of the charge (%s with the capacity "
               "held, %.3g Ah) to determine the capacity and the open-circuit curve: both are the "
               "pack's (%s), only the resistances and each start fitted. Fly to below 40 %% (a "
               "flight over half of the charge) and fit again.\n", cov, p->capacity_ah,
               r->capacity_source);
    else if (r->capacity_undetermined)
        fprintf(fp, "warning: the flights cover %s of the charge: too little to determine the "
               "capacity (%s, with the open-circuit curve held at the table's), and the log "
               "gives none: a plan with this pack is as uncertain. Give the capacity (-c FILE "
               "with capacity_ah, or a log with BAT1_CAPACITY) or fly to below 40 %% and fit "
               "again.\n", cov, pm(c, sizeof c, 'g', 3, p->capacity_ah, f->capacity_sd_ah,
                                   f->at_bound & PP_FIT_P_CAPACITY, "Ah"));
    else if (r->curve_held)
        fprintf(fp, "warning: the flights cover %s of the charge: too little to fit the open-circuit "
               "curve with the capacity (a first fit gave %s); the curve is held at the table's "
               "and the capacity read from its slope, known to %.0f %% (with the table's own "
               "error: its shape let move where flown, held near the table's elsewhere). "
               "Fly to below 40 %% and fit again.\n", cov,
               pm(c, sizeof c, 'g', 3, r->first_capacity_ah, r->first_capacity_sd_ah, 0, "Ah"),
               100 * r->capacity_rel_sd);
    else if (f->capacity_fitted && !r->capacity_pinned && !r->curve_held)
        fprintf(fp, "warning: the fitted parts cover %s of the charge at most and the capacity is "
               "known to %.0f %%: too little to pin the capacity and the open-circuit curve. Fly "
               "to below 40 %% (a flight over half of the charge) and fit again.\n", cov,
               100 * r->capacity_rel_sd);
}

/* Why the pack is not written, and what the fit itself says of its
 * quality. */
static void print_warnings(FILE *fp, const pp_flight_fit *r)
{
    const pp_fit_result *f = &r->fit;

    print_coverage_warning(fp, r);
    if (r->beats_prior == 0)
        fprintf(fp, "warning: on the validation part (the last fifth of each fitted part, fitted "
               "without it) the fit is no better than the pack it replaces (%.4f V against "
               "%.4f V): keep that pack; not written without --force\n",
               r->validation_fit_rms_v, r->validation_prior_rms_v);
    if (r->charge_disagrees)
        fprintf(fp, "warning: the log's discharged_mah counts %+.0f %% against the logged current "
               "integrated, which the fit counts: the autopilot integrates at its own rate (a "
               "current logged too seldom for its swings, or samples left out); if the log is "
               "right, %s %.3g Ah)\n", 100 * (r->charge_ratio - 1),
               r->fit.capacity_fitted ? "the capacity fitted is as far off (by its count"
                                      : "the charge drawn is as far off (the capacity is held at",
               r->fit.pack.capacity_ah * (r->fit.capacity_fitted ? r->charge_ratio : 1));
    if (r->decisive == 0)
        fprintf(fp, "warning: fitted on the first half of each fitted part, the fit misses the "
               "second half by %.4f V RMS, the pack it replaces by %.4f V: not under half of "
               "it, so not decisively better as far ahead as the part held out; keep that "
               "pack; not written without --force\n", r->ahead_fit_rms_v, r->ahead_prior_rms_v);
    if (r->curves_apart == 0)
        fprintf(fp, "warning: on the validation part the curve kept (%s) and the other fit alike "
               "(RMS %.4f V and %.4f V: not twice apart): the flights do not tell which "
               "table's shape the charge not flown follows, and the pack written would run on "
               "one; keep the pack it replaces (or fly deeper, or give --ocv); not written "
               "without --force\n", r->ocv_curve, r->ocv_kept_rms_v, r->ocv_other_rms_v);
    if (r->curve_beaten)
        fprintf(fp, "warning: on the validation part the other curve follows the log in %.4f V "
               "RMS, the curve kept (%s) in %.4f V: its fit ran a parameter to a bound, so it is "
               "not kept, yet the kept curve's shape is not this pack's either; keep the pack it "
               "replaces (or fly deeper); not written without --force\n", r->ocv_other_rms_v,
               r->ocv_curve, r->ocv_kept_rms_v);
    if (r->capacity_guessed)
        fprintf(fp, "warning: the flights do not determine the capacity and neither the log nor "
               "-c or --preset gives it: the pack written would run on %.3g Ah, %s, with its "
               "starts and resistances fitted to suit that guess; give the capacity (-c FILE "
               "with capacity_ah, or a log with BAT1_CAPACITY) or fly to below 40 %%; not "
               "written without --force\n", r->fit.pack.capacity_ah, r->fit.capacity_fitted
               ? "a value its 90 % interval does not bound to +-30 %" : "the preset's");
    if (r->off_log)
        fprintf(fp, "warning: the model does not follow the log: RMS %.4g V over the fitted part, "
               "more than the pack's whole open-circuit span (%.3f V): a current or a voltage "
               "the pack cannot give (check the log's units and cell count)\n",
               r->fit.train_rms_v, r->ocv_span_v);
    if (r->degenerate)
        fprintf(fp, "warning: the fit is degenerate: a parameter ran to a bound of its range (said "
               "\"at its bound\" above), so the flights do not determine it and the pack is no "
               "estimate of the one flown (a wrong cell count, a log of another pack, or too "
               "little of the flight); not written without --force\n");
    if (f->rank < f->n_params)
        fprintf(fp, "warning: the flights determine %d of the %d parameters only (the Jacobian's "
               "rank): the others are unknown, their +- meaningless\n", f->rank, f->n_params);
    if (f->minpack_info == 5)
        fprintf(fp, "warning: MINPACK stopped at its evaluation limit: the fit may not have "
               "converged\n");
}

void pp_flight_fit_print(FILE *fp, const pp_flight_fit *r, const char *before, int train_s)
{
    const pp_fit_result *f = &r->fit;

    fprintf(fp, "battery fit: %s model, %d cells (%s), %zu flight%s; least squares over the logged "
           "voltage of the first %s (MINPACK lmdif: %d parameters, %d samples, %d evaluations), "
           "RMS %.4f V there\n", pp_battery_model_name(f->pack.model), f->pack.cells,
           r->cells_source, r->n_flights, r->n_flights == 1 ? "" : "s",
           train_s ? "seconds given of each" : "part of each flight", f->n_params,
           f->n_residuals, f->n_evaluations, f->train_rms_v);
    if (r->cells_note[0])
        fprintf(fp, "  cells: %s: %d cells from the highest voltage instead\n", r->cells_note,
               f->pack.cells);
    fprintf(fp, "  the fitted parts draw %.2f to %.2f A and cover %.1f %% of the charge (with the pack "
           "reported)%s\n", r->train_i_lo_a, r->train_i_hi_a, 100 * f->soc_span_frac,
           r->r0_held ? ": no load step to tell the resistances from the curve, so R0 and the "
                        "RC pair are held at the pack it replaces" : "");
    if (r->validated)
        fprintf(fp, "  validation part (the last fifth of each fitted part, fitted without it): RMS "
               "%.4f V for the fit, %.4f V for the pack it replaces\n", r->validation_fit_rms_v,
               r->validation_prior_rms_v);
    print_pack(fp, r);
    for (size_t i = 0; i < r->n_flights; i++)
        print_flight(fp, r, &r->fl[i], i, before);
    print_warnings(fp, r);
}
