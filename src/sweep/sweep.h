/* sweep.h - run every configuration of a profile and keep what was
 * measured: DIR/traces/<id>.csv and one row per configuration appended to
 * DIR/summary.csv (one write, then fsync: a row is whole or absent; a torn
 * last line left by a crash is dropped on --resume). DIR/run.json records
 * the device, its rails (estimated or not), the parameters and their kinds,
 * the host and the start time (src/results/run_json.h); DIR/profile.cfg is a copy
 * of the configuration file.
 *
 * summary.csv columns: id, one per parameter (<component>.<param>; a
 * categorical parameter's cell is its label), status
 * (ok, failed, timeout), duration_s, iterations, late_frames (over all
 * components; with several, <component>.iterations and
 * <component>.late_frames of each follow), then per rail
 * <rail>_mean_w and <rail>_energy_j, total_mean_w, total_energy_j (rails
 * inside another are not added), energy_per_iteration_j, soc_end,
 * soc_drain, time_to_cutoff_s (battery model of the profile), reason,
 * cpu_s, cpu_share, machine_cpu_share, node, repeat (src/results/results.h).
 * Samples before warmup_s are left out of the means and energies.
 *
 * Fleets (node.h, shard.h): a shard runs only its configurations (id % N
 * == K); every row names the node that measured it; with repeats each
 * configuration is measured R times, interleaved (every configuration
 * once, then every one again: drift over the sweep shows as spread between
 * repeats, not as a difference between configurations), repeat r of id in
 * traces/<id>.r<r>.csv (repeat 0 in traces/<id>.csv). --resume knows
 * (id, repeat) and refuses rows of another shard or node.
 *
 * CPU time: the workload's is this process's CPU time while the
 * configuration is sampled, less the sampler thread's, plus that of the
 * programs exec ran (children waited for: getrusage); the machine's comes
 * from /proc/stat under the profile's root. A procstat estimate whose
 * samples sit at its ceiling (every core busy) measured the machine, not
 * the workload: such configurations are counted and flagged.
 */
#ifndef PP_SWEEP_H
#define PP_SWEEP_H

#include "progress.h"

#include "src/config/profile.h"
#include "src/config/shard.h"

#include <stdatomic.h>
#include <stdint.h>

/* A procstat sample with this share of every core busy is at the
 * estimate's ceiling: it measured the whole machine, not the workload
 * (sweep.c warns of configurations at it for half their samples; meter.c
 * of a run whose mean is at it). */
#define PP_SWEEP_BUSY_FRAC 0.97

typedef struct pp_sweep_options {
    const char *out_dir;
    int resume;               /* run only the ids missing from summary.csv */
    int retry_failed;         /* with resume: rows not ok are dropped and run again */
    unsigned max_failures;    /* stop after this many configurations in a row failed
                                 with the same reason (numbers and labels aside); 0: never */
    double tick_s;            /* progress every tick_s while a configuration runs
                                 (0: only when one ends) */
    const atomic_int *interrupt; /* set (by a signal handler) to stop after saving */
    void (*progress)(void *ctx, const pp_sweep_progress *p);
    void *progress_ctx;
    pp_shard shard;           /* the part to run; all zero: the whole sweep */
    unsigned repeats;         /* measurements of each configuration (0: 1) */
    const char *node;         /* the node's name (NULL: the host name of the profile's
                                 root; node.h) */
    const uint8_t *only;      /* NULL: every configuration; else only the ids with
                                 only[id] != 0 (an adaptive run's round: adaptive.h) */
} pp_sweep_options;

#define PP_SWEEP_MAX_REPEATS 1000

typedef struct pp_sweep_stats {
    uint64_t total, skipped, ran, ok, failed; /* measurements: this shard's configurations
                                                 times the repeats */
    uint64_t saturated;       /* configurations whose procstat estimate sat at its ceiling */
    int interrupted;
    int stopped;              /* max_failures reached: stop_reason says why */
    char stop_reason[512];
} pp_sweep_stats;

/* The checks before a run: the device opens, and every component's
 * preflight check passes (files, libraries, modules, GPU: see
 * pp_scheduled_check). Every problem is logged with the file and the
 * component. 0, or the first problem's -errno. */
int pp_sweep_check(const pp_profile *p);

/* Run the sweep, after the checks of pp_sweep_check (a failed one stops
 * it before anything runs). Returns 0 when every configuration was run or
 * skipped (failed ones included: they are rows with their status), -EINTR
 * when interrupted, -ENOTRECOVERABLE when max_failures configurations in a
 * row failed with the same reason (st->stop_reason; everything finished is
 * saved in both cases), another -errno on errors that stop the sweep
 * (checks, device, folder, an existing summary without --resume, a node
 * name that does not pass the rule, rows of another shard or node on
 * --resume). */
int pp_sweep_run(const pp_profile *p, const pp_sweep_options *o, pp_sweep_stats *st);

#endif
