/* util.h - what the benchmarks share (linked into each bench_*). */
#ifndef PP_BENCH_UTIL_H
#define PP_BENCH_UTIL_H

#include "src/plan/phases.h"

#include <stddef.h>

/* Seconds on the monotonic clock. */
double pp_bench_now_s(void);

/* Run argv (no shell) with stdout and stderr on /dev/null: 0 when it
 * exited 0, else -1. */
int pp_bench_run_quiet(char *const argv[]);

/* `powprof import powprofiler` of the TX2 matrix-exponentiation traces of
 * data/tx2 at the sizes given (exponents 20 to 60) into dir, with the
 * powprof binary bin: 0, or -1 when it failed. */
int pp_bench_import_tx2_matrix(const char *bin, const char *dir, const int *sizes,
                               size_t n_sizes);

/* The TX2 darknet traces of data/tx2/darknet (5.8, 10, 25 and 32 fps),
 * each imported with its fps, their rows in one results folder dir: 0, or
 * -1 when it failed. */
int pp_bench_import_tx2_darknet(const char *bin, const char *dir);

/* The plan per phase's speed problem (bench_phases, bench_governor): 5
 * phases (60, 120, 720, 300, 120 s; base loads 150, 100, a 1 Hz trace of
 * 90 +- 30 W, 80, 120 W), PP_BENCH_CANDS candidates of quality 0.1 to 30
 * drawing 2 + 0.9 q^1.1 W, the last phase at 15 or more; the battery
 * model given, a 20 % reserve. cand, allowed and load are the caller's
 * (load freed with pp_phase_load_free). */
#define PP_BENCH_PHASES 5
#define PP_BENCH_CANDS 1000
void pp_bench_phases_problem(pp_battery_model model, pp_plan_choice *cand, unsigned char *allowed,
                             pp_phase_load *load, pp_phases_problem *p);

#endif
