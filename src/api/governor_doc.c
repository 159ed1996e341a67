/* The governor's one decision document (governor_doc.h). */
#include "governor_doc.h"

#include "pipeline.h"
#include "src/plan/plan_measured.h"
#include "src/base/util.h"
#include "src/results/json_file.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static void set_charge(json_t *o, const pp_gov_decision *d)
{
    json_object_set_new(o, "soc_measured", pp_json_num(d->soc_measured_frac));
    json_object_set_new(o, "soc", pp_json_num(d->soc_frac));
    json_object_set_new(o, "soc_sd", pp_json_num(d->soc_sd_frac));
    json_object_set_new(o, "soc_source", json_string(d->soc_source));
    json_object_set_new(o, "soc_held", json_boolean(d->soc_held));
}

static void set_setting(json_t *o, const pp_model *m, const pp_phases_plan *r,
                        const pp_plan_choice *c)
{
    size_t k = r->head.maximize;

    json_object_set_new(o, "setting", pp_plan_setting_json(m, c));
    json_object_set_new(o, "maximized", json_string(m->sum.params[k]));
    json_object_set_new(o, "value", pp_json_num(c->point.raw[k]));
    json_object_set_new(o, "quality", pp_json_num(c->qos));
    json_object_set_new(o, "power_w", pp_json_num(c->power.value));
    json_object_set_new(o, "planned_w", pp_json_num(c->planned_w));
    json_object_set_new(o, "measured", json_boolean(pp_plan_is_measured(m, &c->point)));
}

static void set_outcome(json_t *o, const pp_gov_decision *d)
{
    json_object_set_new(o, "changed", json_boolean(d->changed));
    json_object_set_new(o, "replanned", json_boolean(d->replanned));
    json_object_set_new(o, "why", json_string(pp_gov_why_name(d->why)));
    json_object_set_new(o, "feasible", json_boolean(d->feasible));
    json_object_set_new(o, "soc_end", pp_json_num(d->soc_end_frac));
    json_object_set_new(o, "plan_quality", pp_json_num(d->quality));
    json_object_set_new(o, "new_soc_end", pp_json_num(d->new_soc_end_frac));
    json_object_set_new(o, "new_plan_quality", pp_json_num(d->new_quality));
    json_object_set_new(o, "reserve_t_s", pp_json_num(d->reserve_t_s));
    json_object_set_new(o, "base_factor", pp_json_num(d->base_factor));
}

json_t *pp_gov_decision_doc(const pp_model *m, const pp_phases_plan *r, const pp_mission_spec *mi,
                            const pp_gov_decision *d)
{
    json_t *o = json_object(), *plan = json_array();
    size_t k = r->head.maximize;

    if (!o || !plan) {
        json_decref(o);
        json_decref(plan);
        return NULL;
    }
    json_object_set_new(o, "t_s", json_real(d->t_s));
    json_object_set_new(o, "decided", json_boolean(d->decided));
    json_object_set_new(o, "phase", json_string(mi->phase[d->phase].name));
    json_object_set_new(o, "phase_index", json_integer((json_int_t)d->phase));
    json_object_set_new(o, "phase_left_s", pp_json_num(d->phase_left_s));
    json_object_set_new(o, "phase_overrun_s", pp_json_num(d->phase_overrun_s));
    json_object_set_new(o, "overrun_assumed_s", pp_json_num(d->overrun_assumed_s));
    set_charge(o, d);
    set_setting(o, m, r, &r->cand[d->choice]);
    set_outcome(o, d);
    for (size_t j = d->phase; j < mi->n_phases; j++)
        json_array_append_new(plan, json_pack("{s:s,s:o}", "phase", mi->phase[j].name,
                                              m->sum.params[k],
                                              pp_json_num(r->cand[d->plan[j]].point.raw[k])));
    json_object_set_new(o, "plan", plan);
    return o;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Why, in words. */
static const char *why_text(const char *why)
{
    static const char *const words[][2] = {
        {"first", "the first plan"},
        {"hold", "the plan held"},
        {"better", "a plan better by the margin"},
        {"reserve", "the held plan ends below the reserve"},
        {"cannot", "nothing keeps the reserve: the cheapest"},
        {"phase", "a new phase"},
        {"done", "the mission's time is over"},
    };

    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (why && strcmp(why, words[i][0]) == 0)
            return words[i][1];
    return why ? why : "?";
}

int pp_gov_state_save(const char *path, const json_t *state)
{
    return pp_json_save(path, state, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
}

void pp_gov_decision_text(const json_t *doc, double prev, char *buf, size_t cap)
{
    double value = num(doc, "value"), reserve_t = num(doc, "reserve_t_s");
    double assumed = num(doc, "overrun_assumed_s");
    char when[64], from[64] = "", tail[128] = "", longer[128] = "";

    pp_format_duration(num(doc, "t_s"), when, sizeof when);
    if (isfinite(assumed)) {
        char over[64], more[64];
        pp_format_duration(num(doc, "phase_overrun_s"), over, sizeof over);
        pp_format_duration(assumed, more, sizeof more);
        pp_text(longer, sizeof longer, " (%s past its planned end, %s more assumed)", over, more);
    }
    if (isfinite(prev) && prev != value)
        pp_text(from, sizeof from, "%.4g -> ", prev);
    if (!json_is_true(json_object_get(doc, "feasible")) && isfinite(reserve_t)) {
        char left[64];
        pp_format_duration(fmax(reserve_t - num(doc, "t_s"), 0), left, sizeof left);
        pp_text(tail, sizeof tail, "; the reserve in %s: tell the autopilot", left);
    } else if (isfinite(num(doc, "soc_end"))) {
        pp_text(tail, sizeof tail, ", ends %.1f %%", 100 * num(doc, "soc_end"));
    }
    pp_text(buf, cap, "%s, %s%s: %s %s%.4g (%s); charge %.1f %% (%s)%s", when,
            json_string_value(json_object_get(doc, "phase")), longer,
            json_string_value(json_object_get(doc, "maximized")), from, value,
            why_text(json_string_value(json_object_get(doc, "why"))), 100 * num(doc, "soc"),
            json_string_value(json_object_get(doc, "soc_source")), tail);
}

void pp_gov_fly(const pp_model *m, const pp_phases_plan *r, const pp_mission_spec *mi, pp_gov *g,
                pp_gov_source *src, const volatile sig_atomic_t *stop,
                int (*on_decision)(void *ctx, const json_t *doc, int first), void *ctx,
                pp_gov_flight *out)
{
    pp_gov_reading rd;
    pp_gov_decision d;
    json_t *doc;
    int rc;

    *out = (pp_gov_flight){.feasible = 1};
    while (!*stop && (rc = pp_gov_source_next(src, &rd)) != 1 && rc != -EINTR) {
        if (rc == 2 || (rc == 0 && pp_gov_update(g, &rd, &d) < 0)) {
            out->refused++; /* said on stderr */
            continue;
        }
        if ((out->failed = rc < 0))
            break; /* said */
        out->taken++;
        if (!d.decided)
            continue; /* between two decisions: the estimate fed (--every) */
        doc = pp_gov_decision_doc(m, r, mi, &d);
        out->failed = !doc || on_decision(ctx, doc, out->decisions == 0) < 0;
        json_decref(doc);
        if (out->failed)
            break;
        out->feasible = d.feasible;
        out->decisions++;
    }
}
