/* harness.h - the test harness: each test runs in its own process, so a
 * crash is one failed test, not a dead suite. A test fails when any CHECK
 * in it fails; checks print file:line and what was compared. */
#ifndef PP_TEST_HARNESS_H
#define PP_TEST_HARNESS_H

#include <math.h>
#include <stddef.h>
#include <string.h>

extern int pp_test_failures;

void pp_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond))                                                                           \
            pp_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                              \
    } while (0)

#define CHECK_INT(a, b)                                                                        \
    do {                                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                                    \
        if (a_ != b_)                                                                          \
            pp_test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, a_, #b,    \
                         b_);                                                                  \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                  \
    do {                                                                                       \
        double a_ = (double)(a), b_ = (double)(b);                                             \
        if (!(fabs(a_ - b_) <= (tol)))                                                         \
            pp_test_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g +- %g", #a, a_, b_,    \
                         (double)(tol));                                                       \
    } while (0)

#define CHECK_STR(a, b)                                                                        \
    do {                                                                                       \
        const char *a_ = (a), *b_ = (b);                                                       \
        if (!a_ || strcmp(a_, b_) != 0)                                                        \
            pp_test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a,              \
                         a_ ? a_ : "(null)", b_);                                              \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                            \
    do {                                                                                       \
        const char *h_ = (hay), *n_ = (needle);                                                \
        if (!h_ || !strstr(h_, n_))                                                            \
            pp_test_fail(__FILE__, __LINE__, "%s does not contain \"%s\":\n---\n%s\n---", #hay, \
                         n_, h_ ? h_ : "(null)");                                              \
    } while (0)

/* Messages logged through pp_log since the test started (all levels). */
const char *test_log(void);
void test_log_clear(void);

/* Path of a fixture under $POWPROF_FIXTURES (tests/fixtures). Static buffer. */
const char *fixture(const char *name);

/* A fresh scratch directory for this test (removed after it). */
const char *test_tmpdir(void);

/* Copy fixture tree name into a fresh scratch directory; returns its path
 * (static buffer), so the test may change files. */
const char *fixture_copy(const char *name);

/* Write text to path (creating or truncating it). 0 or -1. */
int write_file(const char *path, const char *text);
/* Whole file into a malloc'd string (NULL when unreadable). */
char *slurp(const char *path);

/* The value, lo and hi of metric in `powprof predict --json` output json
 * (NULL allowed): 1 when the metric and all three are there, else 0 (the
 * three NaN). */
/* The number after key in text (NULL allowed): NaN without it. */
double number_after(const char *text, const char *key);

int predicted_band(const char *json, const char *metric, double *v, double *lo, double *hi);

/* A results folder name under the test's scratch folder with this
 * summary.csv and, unless NULL, this run.json. Its path (static buffer). */
const char *results_folder_with(const char *name, const char *summary, const char *run_json);

/* data/tx2/darknet at 10, 25 and 32 fps imported with their rates (powprof
 * import powprofiler --pattern), into the scratch folder tx2-darknet: its path
 * (static buffer). Checks the import succeeded. */
const char *tx2_darknet(void);

/* Run argv (argv[0] is a path or a name searched in PATH); stdout and
 * stderr are captured (malloc'd, NUL-terminated) when out/err are not NULL.
 * Returns the exit status (128 + signal when killed), -1 if not run. */
int run_argv(char *const argv[], char **out, char **err);

/* The powprof binary under test: $POWPROF_BIN, else ./powprof. */
const char *powprof_bin(void);

/* Run the powprof binary under test ($POWPROF_BIN) with the given
 * arguments (NULL-terminated list). */
int run_powprof(char **out, char **err, ...) __attribute__((sentinel));

/* The same under /usr/bin/timeout limit_s (seconds, as text): killed past
 * it, with status 124. For commands that hung on hostile input. */
int run_powprof_within(const char *limit_s, char **out, char **err, ...)
    __attribute__((sentinel));

/* name under the test's scratch folder, in one of 512 buffers (a test's
 * paths live as long as the test). */
const char *test_path(const char *name);

#endif
