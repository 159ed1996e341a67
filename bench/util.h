/* util.h - what the benchmarks share (linked into each bench_*). */
#ifndef PP_BENCH_UTIL_H
#define PP_BENCH_UTIL_H

#include "src/adaptive/adaptive_model.h"
#include "src/adaptive/adaptive.h"
#include "tests/replay_oracle.h"
#include "src/plan/phases.h"

#include <stddef.h>
#include <stdint.h>

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

struct rusage;
/* Run argv in dir (NULL: here) with every output on /dev/null; its
 * rusage and wait status. 0 or -1. _limited: killed by SIGALRM past
 * limit_s seconds (0: no limit). */
int pp_bench_run_rusage(char *const argv[], const char *dir, struct rusage *ru, int *status);
int pp_bench_run_limited(char *const argv[], const char *dir, unsigned limit_s, struct rusage *ru,
                         int *status);

/* The powprof binary of git revision rev, built once into dir/powprof
 * (git archive, make), for a benchmark's baseline in the same run; NULL
 * when it cannot be built (not in this clone). */
const char *pp_bench_baseline(const char *rev, const char *dir);

/* A deterministic uniform deviate in (0, 1) and a normal one (Box-Muller)
 * over a 64-bit LCG state s. */
double pp_bench_uniform(uint64_t *s);
double pp_bench_gauss(uint64_t *s);

/* rm -rf dir (argv, no shell). */
void pp_bench_remove_tree(const char *dir);

/* A grid measured whole, replayed as an adaptive run's oracle: its
 * candidates, the measured energy and duration of each. */
typedef struct pp_bench_grid {
    const char *name, *dir;
    pp_adaptive_space s;
    pp_replay rp;
    double *energy_j, *duration_s, total_s, full_error_pct;
} pp_bench_grid;

/* The grid of dir: candidates, measured energy and duration (the mean of
 * a configuration's rows), the full grid's seconds and (full_error) its
 * nested energy error. 0 or -errno. */
int pp_bench_grid_open(pp_bench_grid *g, const char *name, const char *dir, int full_error);
void pp_bench_grid_free(pp_bench_grid *g);

/* An adaptive run with options o replayed on g into dir (removed first),
 * the layer-2 model as its predictor (am, pr: set here; the caller frees
 * am with pp_adaptive_model_free). pp_adaptive_run's return. */
int pp_bench_replay(pp_bench_grid *g, const char *dir, const pp_adaptive_options *o,
                    pp_adaptive_model *am, pp_adaptive_predictor *pr, pp_adaptive_result *res);

/* The ids of dir/summary.csv as flags over g's candidates. */
void pp_bench_measured_flags(const pp_bench_grid *g, const char *dir, uint8_t *in);
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
