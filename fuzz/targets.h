/* targets.h - the fuzz targets: one per parser of powprof, each fed one
 * mutated input. Built into libFuzzer binaries by `make fuzz` (clang,
 * ASan + UBSan, see fuzz/README.md) and into the test suite, which replays
 * every file of fuzz/corpus/<target>/ through them (`make check`, any
 * compiler). A target returns 0; a broken invariant of what a parser
 * accepted (a name that could reach a path or a script unchecked, a time
 * going backwards, a non-finite value) calls abort(), so the fuzzer
 * reports it like a crash. */
#ifndef PP_FUZZ_TARGETS_H
#define PP_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

/* A scratch folder for the input files (under /dev/shm when it exists)
 * and a logger that drops every message. 0 or -errno. */
int pp_fuzz_init(void);

int pp_fuzz_profile(const uint8_t *data, size_t size);     /* pp_profile_load */
int pp_fuzz_battery(const uint8_t *data, size_t size);     /* pp_battery_params_load */
int pp_fuzz_trace(const uint8_t *data, size_t size);       /* pp_trace_read_csv */
int pp_fuzz_powprofiler(const uint8_t *data, size_t size); /* pp_import_powprofiler */
int pp_fuzz_tegrastats(const uint8_t *data, size_t size);  /* pp_import_tegrastats */
int pp_fuzz_csv(const uint8_t *data, size_t size);         /* pp_import_csv */
/* pp_summary_read: the input is summary.csv, and run.json after a line
 * "@@run.json@@" when it has one. */
int pp_fuzz_summary(const uint8_t *data, size_t size);
/* pp_merge of one folder: summary.csv, and run.json after "@@run.json@@". */
int pp_fuzz_merge(const uint8_t *data, size_t size);
/* pp_plot_plan_load (the plan of plot --plan) and pp_plot_plan_soc. */
int pp_fuzz_plotplan(const uint8_t *data, size_t size);
/* pp_dncfg_parse and its accessors (darknet cfgs). */
int pp_fuzz_darknet(const uint8_t *data, size_t size);

/* pp_layer_model_read, then a prediction of a small network with what it
 * accepted (every value finite, or a logged error). */
int pp_fuzz_layer_model(const uint8_t *data, size_t size);

int pp_fuzz_ulog(const uint8_t *data, size_t size);        /* pp_ulog_parse_battery */
/* pp_flight_log_read of a ulog2csv battery_status CSV, and pp_flight_fit_run
 * on it when it holds at most 400 samples. */
int pp_fuzz_flightcsv(const uint8_t *data, size_t size);
/* pp_gov_parse_line per line, then pp_gov_update (src/governor/governor.h) */
int pp_fuzz_govern(const uint8_t *data, size_t size);

/* A mission file with phases (pp_mission_load), and after a line
 * "@@trace@@" the base trace its phases name as "t.csv"
 * (pp_phase_load_trace). */
int pp_fuzz_mission(const uint8_t *data, size_t size);
/* adaptive.json (pp_adaptive_state_read) against a grid of 36. */
int pp_fuzz_adaptive(const uint8_t *data, size_t size);
int pp_fuzz_model(const uint8_t *data, size_t size);
/* The public API's entry points given handles of every kind, closed ones,
 * NULL and a stray pointer (target_api.c). */
int pp_fuzz_api(const uint8_t *data, size_t size);

typedef struct pp_fuzz_target {
    const char *name;
    int (*fn)(const uint8_t *data, size_t size);
} pp_fuzz_target;

/* Every target, NULL-terminated. */
extern const pp_fuzz_target pp_fuzz_targets[];

#endif
