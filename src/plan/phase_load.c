/* The loads of a mission's phases (phase_load.h): a phase's base load, cut or
 * repeated from a trace, and the load of the whole mission. */
#include "phase_load.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/traces/trace.h"
#include "src/flight/flight_log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void pp_phase_load_free(pp_phase_load *l)
{
    free(l->t_s);
    memset(l, 0, sizeof *l);
}

static int load_alloc(pp_phase_load *l, size_t n)
{
    memset(l, 0, sizeof *l);
    l->t_s = malloc(2 * (n ? n : 1) * sizeof *l->t_s);
    l->p_w = l->t_s ? l->t_s + (n ? n : 1) : NULL;
    return l->t_s ? 0 : -ENOMEM;
}

/* The mean of l over its span (trapezoids). */
static void load_mean(pp_phase_load *l)
{
    double e = 0, span = l->t_s[l->n - 1] - l->t_s[0];

    for (size_t i = 1; i < l->n; i++)
        e += 0.5 * (l->p_w[i] + l->p_w[i - 1]) * (l->t_s[i] - l->t_s[i - 1]);
    l->mean_w = span > 0 ? e / span : l->p_w[0];
}

int pp_phase_load_constant(double w, double duration_s, pp_phase_load *l)
{
    if (load_alloc(l, 2) < 0)
        return -ENOMEM;
    l->n = 2;
    l->t_s[0] = 0;
    l->t_s[1] = duration_s;
    l->p_w[0] = l->p_w[1] = w;
    l->mean_w = w;
    return 0;
}

double pp_phase_load_at(const pp_phase_load *l, double t_s)
{
    size_t lo = 0, hi = l->n - 1;

    if (t_s <= l->t_s[0])
        return l->p_w[0];
    if (t_s >= l->t_s[hi])
        return l->p_w[hi];
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (l->t_s[mid] <= t_s)
            lo = mid;
        else
            hi = mid;
    }
    return l->p_w[lo] + (l->p_w[hi] - l->p_w[lo]) * (t_s - l->t_s[lo]) /
                            (l->t_s[hi] - l->t_s[lo]);
}

/* The trace's value at source time s in [0, period): linear between
 * samples, from the last back to the first over the period's end. */
static double trace_at(const pp_trace_load *tr, double period, double s)
{
    pp_phase_load l = {tr->t_s, tr->p_w, tr->n, 0, 0, 0, 0};
    double last = tr->t_s[tr->n - 1];

    if (s <= last || tr->n == 1)
        return pp_phase_load_at(&l, s);
    return tr->p_w[tr->n - 1] + (tr->p_w[0] - tr->p_w[tr->n - 1]) * (s - last) / (period - last);
}

/* The samples of tr from source time a to b (a < b, within
 * consecutive periods from base), after l's last one, into l: to n_max. */
static void copy_span(const pp_trace_load *tr, double period, double from_s, double a, double b,
                      pp_phase_load *l, size_t n_max)
{
    for (double base = floor(a / period) * period; base < b && l->n < n_max; base += period)
        for (size_t i = 0; i < tr->n && l->n < n_max; i++) {
            double src = base + tr->t_s[i], tau = src - from_s;
            if (src < a || tau <= l->t_s[l->n - 1] + 2 * PP_BATTERY_STEP_S_MIN)
                continue;
            if (src >= b)
                return;
            l->t_s[l->n] = tau;
            l->p_w[l->n++] = tr->p_w[i];
        }
}

/* The mean power of one period of tr (trapezoids, the wrap included). */
static double period_mean_w(const pp_trace_load *tr, double period)
{
    double e = 0, last = tr->t_s[tr->n - 1];

    for (size_t i = 1; i < tr->n; i++)
        e += 0.5 * (tr->p_w[i] + tr->p_w[i - 1]) * (tr->t_s[i] - tr->t_s[i - 1]);
    e += 0.5 * (tr->p_w[tr->n - 1] + tr->p_w[0]) * (period - last);
    return e / period;
}

/* A point at tau with power w, when after l's last one. */
static void put(pp_phase_load *l, double tau, double w)
{
    if (tau > l->t_s[l->n - 1] + 2 * PP_BATTERY_STEP_S_MIN) {
        l->t_s[l->n] = tau;
        l->p_w[l->n++] = w;
    }
}

/* Cut or repeat tr (times from 0) from from_s over duration_s into l, in
 * time and memory bounded by the trace's length: when the repetitions
 * would take more than PP_PHASE_LOAD_MAX_SAMPLES samples, the whole
 * periods between the first and the last are one stretch at a period's
 * mean power (the energy kept; l->n_periods_averaged says how many). */
static int repeat_trace(const pp_trace_load *tr, double from_s, double duration_s,
                        pp_phase_load *l)
{
    double span = tr->t_s[tr->n - 1], period = tr->n > 1 ? span * (double)tr->n / (tr->n - 1.0) : 0;
    double reps = period > 0 ? duration_s / period + 2 : 0, end = from_s + duration_s;
    size_t cap = period > 0 ? (size_t)fmin(reps * (double)tr->n, PP_PHASE_LOAD_MAX_SAMPLES) : 0;
    int average = period > 0 && reps * (double)tr->n > PP_PHASE_LOAD_MAX_SAMPLES;

    if (average)
        cap = 2 * tr->n + 8;
    if (load_alloc(l, cap + 4) < 0)
        return -ENOMEM;
    l->t_s[0] = 0;
    l->p_w[0] = period > 0 ? trace_at(tr, period, fmod(from_s, period)) : tr->p_w[0];
    l->n = 1;
    if (period > 0 && !average) {
        copy_span(tr, period, from_s, from_s, end - 2 * PP_BATTERY_STEP_S_MIN, l, cap + 2);
    } else if (average) {
        double head_end = (floor(from_s / period) + 1) * period;
        double tail_start = floor(end / period) * period, mean = period_mean_w(tr, period);
        copy_span(tr, period, from_s, from_s, head_end, l, cap + 2);
        put(l, head_end - from_s, trace_at(tr, period, 0));
        put(l, head_end - from_s + 4 * PP_BATTERY_STEP_S_MIN, mean);
        put(l, tail_start - from_s - 4 * PP_BATTERY_STEP_S_MIN, mean);
        put(l, tail_start - from_s, tr->p_w[0]);
        copy_span(tr, period, from_s, tail_start, end - 2 * PP_BATTERY_STEP_S_MIN, l, cap + 2);
        l->n_periods_averaged = (tail_start - head_end) / period;
    }
    if (l->t_s[l->n - 1] >= duration_s - 2 * PP_BATTERY_STEP_S_MIN && l->n > 1)
        l->n--;
    l->t_s[l->n] = duration_s;
    l->p_w[l->n++] = period > 0 ? trace_at(tr, period, fmod(end, period)) : tr->p_w[0];
    l->period_s = period;
    l->repeats = period > 0 ? duration_s / period : 0;
    load_mean(l);
    return 0;
}

int pp_phase_load_trace(const char *path, double from_s, double duration_s, pp_phase_load *l)
{
    char file[PP_PATH_MAX];
    struct stat st;
    pp_trace_load tr = {0};
    int rc;

    memset(l, 0, sizeof *l);
    if ((stat(path, &st) == 0 && S_ISDIR(st.st_mode)
             ? pp_fmt(file, sizeof file, "%s/traces/0.csv", path)
             : pp_strlcpy(file, path, sizeof file)) < 0) {
        pp_log_error("%.80s...: a path too long (at most %d characters)", path, PP_PATH_MAX - 16);
        return -EINVAL;
    }
    rc = pp_flight_log_is(file) ? pp_flight_log_load(file, &tr) /* a .ulg or ulog2csv CSV */
                                : pp_trace_read_load(file, NULL, 0, &tr);
    if (rc < 0)
        return rc == -ENOMEM ? rc : -EINVAL;
    for (size_t i = 0; i < tr.n; i++)
        if (!(tr.p_w[i] >= 0 && tr.p_w[i] <= PP_BATTERY_POWER_W_MAX)) {
            pp_log_error("%s: sample %zu (at %g s): a total power of %g W is no base load (from "
                         "0 to %g W)", file, i + 1, tr.t_s[i], tr.p_w[i], PP_BATTERY_POWER_W_MAX);
            pp_trace_load_free(&tr);
            return -EINVAL;
        }
    for (size_t i = tr.n; i-- > 0;)
        tr.t_s[i] -= tr.t_s[0];
    if (from_s > 0 && !(from_s < tr.t_s[tr.n - 1])) {
        pp_log_error("%s: base_trace_from_s %g s is past the trace's end (%g s)", file, from_s,
                     tr.t_s[tr.n - 1]);
        pp_trace_load_free(&tr);
        return -EINVAL;
    }
    rc = repeat_trace(&tr, from_s, duration_s, l);
    if (rc == 0 && l->n_periods_averaged > 0)
        pp_log_warn("%s: repeated %.0f times over a phase of %g s (%zu samples a period): "
                    "the %.0f whole periods between the first and the last are taken at a "
                    "period's mean power (the energy kept; the charge differs by the load's "
                    "variance within a period, small for a load well under the pack's limit)",
                    file, duration_s / (tr.t_s[tr.n - 1] * (double)tr.n / (tr.n - 1.0)),
                    duration_s, tr.n, l->n_periods_averaged);
    pp_trace_load_free(&tr);
    return rc;
}

int pp_phases_mission_load(const pp_phases_problem *p, const double *computer_w, double **t,
                           double **w, size_t *n)
{
    size_t cap = 0, k = 0;
    double start = 0, eff = p->battery.efficiency > 0 ? p->battery.efficiency : 1;

    for (size_t ph = 0; ph < p->n_phases; ph++)
        cap += p->base[ph].n + 1;
    if (!(*t = malloc(2 * cap * sizeof **t)))
        return -ENOMEM;
    *w = *t + cap;
    for (size_t ph = 0; ph < p->n_phases; ph++) {
        const pp_phase_load *b = &p->base[ph];
        double d = p->duration_s[ph], last = ph + 1 < p->n_phases ? d - PP_PHASES_SWITCH_S : d;
        for (size_t i = 0; i < b->n && b->t_s[i] < last - 2 * PP_BATTERY_STEP_S_MIN; i++) {
            (*t)[k] = start + b->t_s[i];
            (*w)[k++] = computer_w[ph] / eff + b->p_w[i];
        }
        (*t)[k] = start + last;
        (*w)[k++] = computer_w[ph] / eff + pp_phase_load_at(b, last);
        start += d;
    }
    *n = k;
    return 0;
}

int pp_phases_run(const pp_phases_problem *p, const double *computer_w, double *soc_end,
                  int *event)
{
    pp_battery_params b = p->battery;
    pp_battery_options o;
    pp_battery_result r;
    double *t, *w;
    size_t n;
    int rc;

    if ((rc = pp_phases_mission_load(p, computer_w, &t, &w, &n)) < 0)
        return rc;
    b.base_power_w = 0;
    b.efficiency = 1;
    b.soc_cutoff_frac = 0;
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0; /* the run on past the trace to a cutoff: neither read nor recorded */
    if (p->quick)
        o.rtol = PP_PHASES_QUICK_RTOL;
    rc = pp_battery_run(&b, &(pp_battery_load){t, w, n, 0}, &o, &r);
    free(t);
    if (rc < 0)
        return rc;
    *soc_end = r.soc_end_frac;
    *event = r.n_events > 0;
    return 0;
}
