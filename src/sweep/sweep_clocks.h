/* sweep_clocks.h - the clocks of a sweep (issue 44; the parameters in
 * src/config/profile_clocks.h, the kernel's files in devices/clocks.h).
 *
 * Before anything runs: every clock value is in the board's table, every
 * file that will be written can be written (else the file that needs root
 * is named), every mode is in nvpmodel.conf and the nvpmodel program runs.
 * When the sweep starts in its folder, a restore record left there by a
 * sweep that was killed is played back first; then the files the sweep
 * will write (and the mode) are read into a new record, saved before the
 * first change (devices/clocks_restore.h).
 *
 * Each configuration: the mode (nvpmodel -m) and then each clock are set,
 * read back at once ("before"), watched with the thermal zones every
 * 100 ms while it runs ("lowest", max temperature) and read at its end
 * ("after"). DIR/clocks.csv gets one row per measurement: id, repeat, per
 * clock <clock>_set_mhz, _before_mhz, _lowest_mhz, _after_mhz; nvpmodel;
 * clock_ok (1: every clock held its setting before, during and after);
 * throttled (1: a clock fell below its setting during the run); max_temp_c
 * and hottest_zone. A measurement whose clocks were not held is saved as
 * failed in summary.csv, the reason saying which clock read what: the
 * model and the plan do not rely on it, and --resume --retry-failed
 * measures it again. At the end, on an interruption and on an error the
 * record is played back and removed. */
#ifndef PP_SWEEP_CLOCKS_H
#define PP_SWEEP_CLOCKS_H

#include "scheduler.h"

#include "src/config/profile.h"

#include <stdint.h>

typedef struct pp_sweep_clocks pp_sweep_clocks;

/* The checks before any run (above); each problem logged, naming the file
 * or the value. 0 (also for a profile without clocks), or the first
 * problem's -errno. */
int pp_sweep_clocks_check(const pp_profile *p);

/* Start the clocks of a sweep into out_dir (its folder locked): a pending
 * record restored, the checks, the new record saved. *out is NULL for a
 * profile without clock parameters (every call below is then a no-op).
 * 0 or -errno (logged). */
int pp_sweep_clocks_open(const pp_profile *p, const char *out_dir, pp_sweep_clocks **out);

/* Set the clocks of the configuration values (all the profile's
 * parameters) and start watching them. 0 or -errno (logged, naming the
 * file). */
int pp_sweep_clocks_apply(pp_sweep_clocks *s, const double *values);

/* The configuration has run: stop watching, read the clocks, append its
 * row to clocks.csv; an ok res whose clocks were not held becomes failed
 * with the reason. 0 or -errno (clocks.csv not written: logged). */
int pp_sweep_clocks_end(pp_sweep_clocks *s, uint64_t id, unsigned repeat, pp_run_result *res);

/* Restore the clocks as they were and free s (NULL allowed). The
 * measurements whose clocks were not held are counted on stderr. 0, or
 * the restore's -errno (the record is kept for the next start). */
int pp_sweep_clocks_close(pp_sweep_clocks *s);

#endif
