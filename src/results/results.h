/* results.h - the rows of summary.csv, shared by `powprof profile` and
 * `powprof import` so that both write the same format (see sweep.h for the
 * columns). After reason come the CPU columns: cpu_s (the workload's CPU
 * seconds), cpu_share (cpu_s over the span it was measured in, about
 * duration_s: cores the workload kept busy, 1 = one whole core) and machine_cpu_share (the same for the whole
 * machine, from /proc/stat: what the procstat estimate sees); empty when
 * not measured. */
#ifndef PP_RESULTS_H
#define PP_RESULTS_H

#include "src/traces/trace.h"

#include "battery/battery.h"
#include "components/component.h"

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

/* What the CPUs did while a configuration ran. */
typedef struct pp_results_cpu {
    double cpu_s;          /* CPU time of the workload: the threads of its components
                              and the programs they ran (exec), in seconds */
    double machine_busy_s; /* busy CPU time of the whole machine over the same span,
                              summed over its cores (/proc/stat); NAN: unknown */
    double span_s;         /* that span (wall time), the shares' denominator */
} pp_results_cpu;

typedef struct pp_results_row {
    uint64_t id;
    const double *values;   /* n_params */
    const char *status;     /* ok, failed, timeout */
    double duration_s;
    long iterations, late_frames;
    const long *component_iterations, *component_late_frames; /* n_components, or NULL */
    const char *reason;
    const double *component_duration_s; /* n_components, or NULL (no achieved rates) */
    const pp_results_cpu *cpu; /* NULL: not measured (import): empty cells */
    const char *node;       /* the node that measured it (node.h); NULL: empty cell */
    unsigned repeat;        /* which measurement of this configuration: 0, 1, ... */
} pp_results_row;

/* 1 when trace t of a run of duration_s is short (see above): fewer than
 * PP_RESULTS_SHORT_SAMPLES samples, or a duration under that many of its
 * mean sampling periods. */
int pp_results_is_short(const pp_trace *t, double duration_s);

/* What a metric (a column of summary.csv) is, in words, with its unit
 * ("total mean power [W]", "battery drained by one run *": * marks the
 * battery group's load); "" for a column not described. */
void pp_results_describe(const char *metric, char *buf, size_t cap);

/* The header line, newline included. Columns: id, parameters, status,
 * duration_s, iterations, late_frames, per component (more than one)
 * iterations and late_frames, per paced component its achieved rate,
 * samples, short_run, per rail mean and energy, totals, energy per
 * iteration, battery columns, reason, cpu_s, cpu_share, machine_cpu_share,
 * node, repeat. */
void pp_results_header(const pp_results_layout *l, char *buf, size_t cap);

/* One row, newline included, for the samples t (already cut to what counts:
 * warm-up left out), with the battery model's columns from battery (NULL:
 * left empty). *total_mean_w gets the total mean power. Returns the length. */
size_t pp_results_format_row(const pp_results_layout *l, const pp_results_row *row,
                             const pp_trace *t, const pp_battery_params *battery, char *buf,
                             size_t cap, double *total_mean_w);
/* The same with a pack per rail (rail_packs, n_rails; cells 0: none),
 * each drained by its own rail's power alone (a flight log's battery
 * instances): the battery figures are the first to run out's (the lowest
 * end, the most drained, the shortest time to a cutoff). NULL: as above. */
size_t pp_results_format_row_packs(const pp_results_layout *l, const pp_results_row *row,
                                   const pp_trace *t, const pp_battery_params *battery,
                                   const pp_battery_params *rail_packs, char *buf, size_t cap,
                                   double *total_mean_w);

/* The file name of the trace of configuration id, measurement repeat, in
 * traces/: "<id>.csv" for repeat 0, "<id>.r<repeat>.csv" after it. 0 or
 * -ENAMETOOLONG. */
int pp_results_trace_name(uint64_t id, unsigned repeat, char *buf, size_t cap);

#endif
