/* sweep.h - run every configuration of a profile and keep what was
 * measured: DIR/traces/<id>.csv and one row per configuration appended to
 * DIR/summary.csv (one write, then fsync: a row is whole or absent; a torn
 * last line left by a crash is dropped on --resume). DIR/run.json records
 * the device, its rails (estimated or not), the parameters and their kinds,
 * the host and the start time (src/run_json.h); DIR/profile.cfg is a copy
 * of the configuration file.
 *
 * summary.csv columns: id, one per parameter (<component>.<param>; a
 * categorical parameter's cell is its label), status
 * (ok, failed, timeout), duration_s, iterations, late_frames (over all
 * components; with several, <component>.iterations and
 * <component>.late_frames of each follow), then per rail
 * <rail>_mean_w and <rail>_energy_j, total_mean_w, total_energy_j (rails
 * inside another are not added), energy_per_iteration_j, soc_end,
 * soc_drain, time_to_cutoff_s (battery model of the profile), reason.
 * Samples before warmup_s are left out of the means and energies.
 */
#ifndef PP_SWEEP_H
#define PP_SWEEP_H

#include "profile.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct pp_sweep_progress {
    uint64_t done, total;    /* configurations finished (this run) / to run */
    uint64_t id;             /* the one that just finished */
    const char *status;
    double duration_s, total_mean_w;
    double elapsed_s, left_s; /* time since the start, estimate of what is left */
} pp_sweep_progress;

typedef struct pp_sweep_options {
    const char *out_dir;
    int resume;               /* run only the ids missing from summary.csv */
    const atomic_int *interrupt; /* set (by a signal handler) to stop after saving */
    void (*progress)(void *ctx, const pp_sweep_progress *p);
    void *progress_ctx;
} pp_sweep_options;

typedef struct pp_sweep_stats {
    uint64_t total, skipped, ran, ok, failed;
    int interrupted;
} pp_sweep_stats;

/* The checks before a run: the device opens, and every component's
 * preflight check passes (files, libraries, modules, GPU: see
 * pp_scheduled_check). Every problem is logged with the file and the
 * component. 0, or the first problem's -errno. */
int pp_sweep_check(const pp_profile *p);

/* Run the sweep, after the checks of pp_sweep_check (a failed one stops
 * it before anything runs). Returns 0 when every configuration was run or
 * skipped (failed ones included: they are rows with their status), -EINTR
 * when interrupted (everything finished is saved), another -errno on errors
 * that stop the sweep (checks, device, folder, an existing summary without
 * --resume). */
int pp_sweep_run(const pp_profile *p, const pp_sweep_options *o, pp_sweep_stats *st);

#endif
