#include "results.h"

#include "src/base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADD(...) len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__)

int pp_results_is_short(const pp_trace *t, double duration_s)
{
    size_t n = t->n_samples;
    double period;

    if (n < PP_RESULTS_SHORT_SAMPLES)
        return 1;
    period = t->interval_average ? t->t_s[n - 1] / (double)n
                                 : (t->t_s[n - 1] - t->t_s[0]) / (double)(n - 1);
    return duration_s < PP_RESULTS_SHORT_SAMPLES * period * (1 - 1e-9);
}

void pp_results_header(const pp_results_layout *l, char *buf, size_t cap)
{
    size_t len = 0;

    ADD("id");
    for (size_t k = 0; k < l->n_params; k++)
        ADD(",%s", l->param_names[k]);
    ADD(",status,duration_s,iterations,late_frames");
    if (l->n_components > 1)
        for (size_t c = 0; c < l->n_components; c++)
            ADD(",%s.iterations,%s.late_frames", l->component_names[c], l->component_names[c]);
    for (size_t c = 0; c < l->n_components; c++)
        if (l->component_pacing[c] != PP_PACING_NONE)
            ADD(",%s.achieved_%s", l->component_names[c],
                l->component_pacing[c] == PP_PACING_FPS ? "fps" : "hz");
    ADD(",samples,short_run");
    for (size_t r = 0; r < l->n_rails; r++)
        ADD(",%s_mean_w,%s_energy_j", l->rail_names[r], l->rail_names[r]);
    ADD(",total_mean_w,total_energy_j,energy_per_iteration_j,soc_end,soc_drain,time_to_cutoff_s,"
        "reason,cpu_s,cpu_share,machine_cpu_share,node,repeat\n");
}

void pp_results_describe(const char *metric, char *buf, size_t cap)
{
    static const struct {
        const char *end, *what;
    } ends[] = {{"_mean_w", "mean power [W]"},
                {"_energy_j", "energy [J]"},
                {".achieved_fps", "achieved frames/s"},
                {".achieved_hz", "achieved steps/s"}};
    static const struct {
        const char *name, *what;
    } whole[] = {{"energy_per_iteration_j", "energy per iteration [J]"},
                 {"soc_drain", "battery drained by one run *"},
                 {"soc_end", "battery left after one run *"},
                 {"time_to_cutoff_s", "time to battery cutoff [s] *"},
                 {"duration_s", "duration [s]"},
                 {"cpu_s", "workload CPU time [s]"},
                 {"cpu_share", "workload CPU [cores]"},
                 {"machine_cpu_share", "machine CPU [cores]"}};
    size_t n = strlen(metric);

    for (size_t i = 0; i < PP_ARRAY_SIZE(whole); i++)
        if (strcmp(metric, whole[i].name) == 0) {
            pp_text(buf, cap, "%s", whole[i].what);
            return;
        }
    for (size_t i = 0; i < PP_ARRAY_SIZE(ends); i++) {
        size_t e = strlen(ends[i].end);
        if (n > e && strcmp(metric + n - e, ends[i].end) == 0) {
            pp_text(buf, cap, "%.*s %s", (int)(n - e), metric, ends[i].what);
            return;
        }
    }
    pp_text(buf, cap, "%s", "");
}

/* ",cpu_s,cpu_share,machine_cpu_share" at buf + len, cells empty when not
 * measured. The new length. */
static size_t add_cpu(const pp_results_cpu *c, char *buf, size_t len, size_t cap)
{
    ADD(",");
    if (c)
        ADD("%.6f", c->cpu_s);
    ADD(",");
    if (c && c->span_s > 0)
        ADD("%.6f", c->cpu_s / c->span_s);
    ADD(",");
    if (c && c->span_s > 0 && !isnan(c->machine_busy_s))
        ADD("%.6f", c->machine_busy_s / c->span_s);
    return len;
}

/* pack drained by the power of rail (-1: the rails in the total). 0, or -1. */
static int drain_one(const pp_results_layout *l, const pp_trace *t, const pp_battery_params *pack,
                     int rail, pp_battery_result *br)
{
    /* interval means are steps: each holds over (t[i-1], t[i]] */
    double *series = malloc(t->n_samples * sizeof *series);
    pp_battery_load load = {t->t_s, series, t->n_samples, t->interval_average};
    pp_battery_options bo;
    int rc;

    if (!series)
        return -1;
    for (size_t i = 0; i < t->n_samples; i++) {
        double p = 0.0;
        for (size_t r = 0; r < l->n_rails; r++)
            if (rail < 0 ? l->rail_in_total[r] : (int)r == rail)
                p += pp_trace_at(t, i, r);
        series[i] = p;
    }
    pp_battery_options_init(&bo);
    rc = pp_battery_run(pack, &load, &bo, br);
    free(series);
    return rc == 0 ? 0 : -1;
}

/* A run's battery figures: battery drained by the total power, or, with
 * rail_packs (a pack per rail, cells 0: none), each pack by its own rail's
 * power and the figures of the first to run out (the lowest end, the most
 * drained, the shortest time to its cutoff). NaN where not drained. */
static void drain(const pp_results_layout *l, const pp_trace *t, const pp_battery_params *battery,
                  const pp_battery_params *rail_packs, double *soc_end, double *soc_drain,
                  double *ttc)
{
    pp_battery_result br;

    if (!rail_packs) {
        if (drain_one(l, t, battery, -1, &br) == 0)
            *soc_end = br.soc_end_frac, *soc_drain = br.soc_drained_frac,
            *ttc = br.time_to_cutoff_s;
        return;
    }
    for (size_t r = 0; r < l->n_rails; r++) {
        if (rail_packs[r].cells <= 0 || drain_one(l, t, &rail_packs[r], (int)r, &br) < 0)
            continue;
        *soc_end = isnan(*soc_end) ? br.soc_end_frac : fmin(*soc_end, br.soc_end_frac);
        *soc_drain = isnan(*soc_drain) ? br.soc_drained_frac
                                       : fmax(*soc_drain, br.soc_drained_frac);
        if (!isnan(br.time_to_cutoff_s))
            *ttc = isnan(*ttc) ? br.time_to_cutoff_s : fmin(*ttc, br.time_to_cutoff_s);
    }
}

size_t pp_results_format_row(const pp_results_layout *l, const pp_results_row *row,
                             const pp_trace *t, const pp_battery_params *battery, char *buf,
                             size_t cap, double *total_mean_w)
{
    return pp_results_format_row_packs(l, row, t, battery, NULL, buf, cap, total_mean_w);
}

size_t pp_results_format_row_packs(const pp_results_layout *l, const pp_results_row *row,
                                   const pp_trace *t, const pp_battery_params *battery,
                                   const pp_battery_params *rail_packs, char *buf, size_t cap,
                                   double *total_mean_w)
{
    size_t len = 0;
    double total_j = 0, span = pp_trace_duration_s(t), soc_end = NAN, soc_drain = NAN, ttc = NAN;

    ADD("%llu", (unsigned long long)row->id);
    for (size_t k = 0; k < l->n_params; k++) {
        const pp_param_spec *ps = l->categorical[k];
        size_t i = (size_t)row->values[k];
        if (ps && row->values[k] >= 0 && i < ps->n_values)
            ADD(",%s", ps->labels[i]);
        else
            ADD(",%.10g", row->values[k]);
    }
    ADD(",%s,%.6f,%ld,%ld", row->status, row->duration_s, row->iterations, row->late_frames);
    if (l->n_components > 1)
        for (size_t c = 0; c < l->n_components; c++)
            ADD(",%ld,%ld", row->component_iterations ? row->component_iterations[c] : 0,
                row->component_late_frames ? row->component_late_frames[c] : 0);
    for (size_t c = 0; c < l->n_components; c++) {
        double it = row->component_iterations ? (double)row->component_iterations[c] : 0;
        double d = row->component_duration_s ? row->component_duration_s[c] : 0;
        if (l->component_pacing[c] == PP_PACING_NONE)
            continue;
        ADD(",");
        if (it > 0 && d > 0)
            ADD("%.6g", it / d);
    }
    ADD(",%zu,%d", t->n_samples, pp_results_is_short(t, row->duration_s));
    for (size_t r = 0; r < l->n_rails; r++) {
        double e = pp_trace_energy_j(t, r);
        if (l->rail_in_total[r])
            total_j += e;
        ADD(",%.6f,%.6f", pp_trace_mean_w(t, r), e);
    }
    *total_mean_w = span > 0 ? total_j / span : 0.0;
    if (battery && t->n_samples > 0)
        drain(l, t, battery, rail_packs, &soc_end, &soc_drain, &ttc);
    ADD(",%.6f,%.6f,", *total_mean_w, total_j);
    if (row->iterations > 0 && l->n_components == 1) /* not a sum of different components' steps */
        ADD("%.6f", total_j / (double)row->iterations);
    ADD(",");
    if (!isnan(soc_end))
        ADD("%.9f", soc_end);
    ADD(",");
    if (!isnan(soc_drain))
        ADD("%.9f", soc_drain);
    ADD(",");
    if (!isnan(ttc))
        ADD("%.3f", ttc);
    ADD(",");
    for (const char *c = row->reason ? row->reason : ""; *c && len + 2 < cap; c++)
        buf[len++] = (*c == ',' || *c == '\n' || *c == '\r' || *c == '"') ? ' ' : *c;
    len = add_cpu(row->cpu, buf, len, cap);
    ADD(",%s,%u\n", row->node ? row->node : "", row->repeat);
    return len < cap ? len : cap - 1;
}

int pp_results_trace_name(uint64_t id, unsigned repeat, char *buf, size_t cap)
{
    if (repeat == 0)
        return pp_fmt(buf, cap, "%llu.csv", (unsigned long long)id);
    return pp_fmt(buf, cap, "%llu.r%u.csv", (unsigned long long)id, repeat);
}
