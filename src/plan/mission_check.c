/* mission_check.c - a mission's phases against a profile's parameter space
 * (mission_check.h), before the sweep. Calls phase_load.c for the base
 * traces; nothing here is called back. */
#include "mission_check.h"
#include "phases.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The parameter of p named name: its index, or -1; known: every name. */
static int param_index(const pp_profile *p, const char *name, char *known, size_t cap)
{
    char pname[160];
    size_t len = 0;
    int found = -1;

    known[0] = '\0';
    for (size_t k = 0; k < pp_profile_n_params(p); k++) {
        pp_profile_param_name(p, k, pname, sizeof pname);
        if (len < cap)
            len += (size_t)snprintf(known + len, cap - len, "%s%s", k ? ", " : "", pname);
        if (strcmp(pname, name) == 0)
            found = (int)k;
    }
    return found;
}

/* The values of ps as text ("1, 2, 4" or "1 .. 64 (7 values)"). */
static void values_text(const pp_param_spec *ps, char *buf, size_t cap)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t len = 0;

    for (size_t i = 0; i < ps->n_values; i++) {
        lo = fmin(lo, ps->values[i]);
        hi = fmax(hi, ps->values[i]);
    }
    if (ps->n_values > 6) {
        pp_text(buf, cap, "%g .. %g (%zu values)", lo, hi, ps->n_values);
        return;
    }
    buf[0] = '\0';
    for (size_t i = 0; i < ps->n_values && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%g", i ? ", " : "", ps->values[i]);
}

/* A numeric bound [lo, hi] of ps: a fixed value is one of its values, a
 * range holds one. */
static int numeric_ok(const pp_param_spec *ps, double lo, double hi)
{
    for (size_t i = 0; i < ps->n_values; i++) {
        double v = ps->values[i], tol = 1e-9 * fmax(1, fabs(v));
        if (v >= lo - tol && v <= hi + tol)
            return 1;
    }
    return 0;
}

/* Bound b of phase ph against p. 0 or -EINVAL (logged). */
static int check_bound(const pp_mission_spec *mi, const pp_mission_phase *ph,
                       const pp_mission_bound *b, const pp_profile *p)
{
    char known[2048], vals[512];
    int k = param_index(p, b->param, known, sizeof known);
    const pp_param_spec *ps = k >= 0 ? pp_profile_param(p, (size_t)k) : NULL;
    int categorical = ps && ps->kind == PP_RANGE_CATEGORICAL;

    if (!ps) {
        pp_log_error("%s:%d: phase '%s': %s is no parameter of the profile (its parameters: %s)",
                     mi->path, b->line, ph->name, b->param, known[0] ? known : "none");
        return -EINVAL;
    }
    if (categorical && !b->label[0]) {
        pp_log_error("%s:%d: phase '%s': %s takes labels: fix it to one (fixed = { ... = "
                     "\"label\"; })", mi->path, b->line, ph->name, b->param);
        return -EINVAL;
    }
    if (categorical) {
        for (size_t i = 0; i < ps->n_values; i++)
            if (strcmp(ps->labels[i], b->label) == 0)
                return 0;
        pp_log_error("%s:%d: phase '%s': %s: '%s' is not one of its labels", mi->path, b->line,
                     ph->name, b->param, b->label);
        return -EINVAL;
    }
    values_text(ps, vals, sizeof vals);
    if (b->label[0]) {
        pp_log_error("%s:%d: phase '%s': %s: '%s' is not a value of it (a number: %s)", mi->path,
                     b->line, ph->name, b->param, b->label, vals);
        return -EINVAL;
    }
    if (!numeric_ok(ps, b->min, b->max)) {
        if (b->min == b->max)
            pp_log_error("%s:%d: phase '%s': %s = %g is not one of its values (%s)", mi->path,
                         b->line, ph->name, b->param, b->min, vals);
        else
            pp_log_error("%s:%d: phase '%s': no value of %s (%s) is within [%g, %g]", mi->path,
                         b->line, ph->name, b->param, vals, b->min, b->max);
        return -EINVAL;
    }
    return 0;
}

int pp_mission_check_profile(const pp_mission_spec *mi, const pp_profile *p)
{
    int rc = 0;

    for (size_t k = 0; k < mi->n_phases; k++) {
        const pp_mission_phase *ph = &mi->phase[k];
        for (size_t j = 0; j < ph->n_bounds; j++)
            if (check_bound(mi, ph, &ph->bound[j], p) < 0)
                rc = -EINVAL;
        if (ph->base_trace[0]) {
            pp_phase_load l;
            int lr = pp_phase_load_trace(ph->base_trace, ph->base_trace_from_s, ph->duration_s,
                                         &l);
            if (lr == 0 && l.repeats > PP_PHASE_REPEAT_WARN)
                pp_log_warn("%s:%d: phase '%s': base_trace %s (%.1f s) is repeated %.0f times to "
                            "fill the phase's %.1f min: its pattern, not a flight's, sets the "
                            "load; record a longer flight, or give base_power_w", mi->path,
                            ph->line, ph->name, ph->base_trace, l.period_s, l.repeats,
                            ph->duration_s / 60);
            else if (lr == 0 && l.repeats > 1)
                pp_log_info("%s:%d: phase '%s': base_trace %s (%.1f s) is repeated %.1f times to "
                            "fill the phase", mi->path, ph->line, ph->name, ph->base_trace,
                            l.period_s, l.repeats);
            pp_phase_load_free(&l);
            if (lr < 0) {
                pp_log_error("%s:%d: phase '%s': base_trace %s cannot be used (above)", mi->path,
                             ph->line, ph->name, ph->base_trace);
                rc = lr == -ENOMEM ? lr : -EINVAL;
            }
        }
    }
    return rc;
}
