/* limited.h - powprof run under a time limit, for the tests of hostile
 * input (test_merge.c, test_results.c, test_ulog.c, test_import.c,
 * test_trace.c, test_mission.c, test_adaptive.c and others): a command that
 * hangs is killed, never waited for; and what those tests share. */
#ifndef PP_TESTS_LIMITED_H
#define PP_TESTS_LIMITED_H

#include "harness.h"

/* The longest a command may take here (each takes well under a second;
 * the shared test machine is slow): past it the command is killed (124). */
#define LIMIT_S "20"

/* powprof under the limit: its exit status (124: killed at the limit). */
#define pp(out, err, ...) run_powprof_within(LIMIT_S, out, err, __VA_ARGS__)
#define tmp_path test_path

/* The rows of DIR/summary.csv, its header not counted (0 when absent);
 * in harness.c (declared here: test_meter.c has a rows_of of its own). */
size_t rows_of(const char *dir);

/* The monotonic clock, s. */
double test_now_s(void);
/* A whole run of tests/fixtures/issue23/tiny.cfg with its model in dir. */
void tiny_profile_and_model(const char *dir);
/* The entries of dir whose name holds part. */
int entries_with(const char *dir, const char *part);
/* plot RESULTS with gnuplot out of PATH (the scripts and data only): its
 * exit status, its stderr into *err. */
int plot_without_gnuplot(const char *res, char **err, const char *json);

#endif
