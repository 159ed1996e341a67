/* results.h - the rows of summary.csv, shared by `powprof profile` and
 * `powprof import` so that both write the same format (see sweep.h for the
 * columns). */
#ifndef PP_RESULTS_H
#define PP_RESULTS_H

#include "trace.h"

#include "../battery/battery.h"
#include "../components/component.h"

#include <stddef.h>
#include <stdint.h>

#define PP_RESULTS_MAX_COLUMNS 64

/* A run is short when it has fewer than this many samples or lasts fewer
 * sampling periods: its energy is quantized by the period (flagged in the
 * short_run column; layer 2 weighs it less). */
#define PP_RESULTS_SHORT_SAMPLES 5

typedef enum pp_results_pacing {
    PP_PACING_NONE = 0,
    PP_PACING_FPS,
    PP_PACING_SLEEP,
} pp_results_pacing;

typedef struct pp_results_layout {
    size_t n_params;
    char param_names[PP_RESULTS_MAX_COLUMNS][160];
    /* a categorical parameter's spec (its cells are its labels), else NULL */
    const pp_param_spec *categorical[PP_RESULTS_MAX_COLUMNS];
    size_t n_components;   /* per-component columns when more than one */
    char component_names[8][64];
    /* per component: how its steps are paced, for its achieved rate
     * (<component>.achieved_fps: iterations per second of an fps-paced
     * component; .achieved_hz of a sleep_s-paced one), with one or more */
    pp_results_pacing component_pacing[8];
    size_t n_rails;
    char rail_names[PP_TRACE_MAX_RAILS][PP_TRACE_NAME_MAX];
    int rail_in_total[PP_TRACE_MAX_RAILS]; /* 0 for a rail inside another */
} pp_results_layout;

typedef struct pp_results_row {
    uint64_t id;
    const double *values;   /* n_params */
    const char *status;     /* ok, failed, timeout */
    double duration_s;
    long iterations, late_frames;
    const long *component_iterations, *component_late_frames; /* n_components, or NULL */
    const char *reason;
    const double *component_duration_s; /* n_components, or NULL (no achieved rates) */
} pp_results_row;

/* 1 when trace t of a run of duration_s is short (see above): fewer than
 * PP_RESULTS_SHORT_SAMPLES samples, or a duration under that many of its
 * mean sampling periods. */
int pp_results_is_short(const pp_trace *t, double duration_s);

/* The header line, newline included. Columns: id, parameters, status,
 * duration_s, iterations, late_frames, per component (more than one)
 * iterations and late_frames, per paced component its achieved rate,
 * samples, short_run, per rail mean and energy, totals, energy per
 * iteration, battery columns, reason. */
void pp_results_header(const pp_results_layout *l, char *buf, size_t cap);

/* One row, newline included, for the samples t (already cut to what counts:
 * warm-up left out), with the battery model's columns from battery (NULL:
 * left empty). *total_mean_w gets the total mean power. Returns the length. */
size_t pp_results_format_row(const pp_results_layout *l, const pp_results_row *row,
                             const pp_trace *t, const pp_battery_params *battery, char *buf,
                             size_t cap, double *total_mean_w);

#endif
