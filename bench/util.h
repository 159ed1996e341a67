/* util.h - what the benchmarks share (linked into each bench_*). */
#ifndef PP_BENCH_UTIL_H
#define PP_BENCH_UTIL_H

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

#endif
