/* battery fit's document and pack file (flight_fit_doc.h): the JSON that
 * `battery fit --json`, the C API and Python's fit_battery give, and the
 * battery group written, refused as pp_flight_fit_refusal says. */
#include "flight_fit_doc.h"
#include "json_file.h"

#include "src/base/log.h"
#include "src/config/battery_config.h"

#include <errno.h>
#include <stdlib.h>
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
