/* powprof meter through the command line: signals, kill -9, gaps, --repeat. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *bin(void)
{
    const char *b = getenv("POWPROF_BIN");
    return b ? b : "./powprof";
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Start argv with stdout and stderr to err_path, in a process group of its
 * own when own_group (so that a test can end what it leaves behind). */
static pid_t start(char *const argv[], const char *err_path, int own_group)
{
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null_fd = open("/dev/null", O_RDONLY);
        if (own_group)
            setpgid(0, 0);
        dup2(null_fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (own_group && pid > 0)
        setpgid(pid, pid);
    return pid;
}

static int wait_status(pid_t pid)
{
    int st;

    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static size_t rows_of(const char *path)
{
    char *text = slurp(path);
    size_t n = 0;

    for (const char *c = text; c && *c; c++)
        n += *c == '\n';
    free(text);
    return n > 0 ? n - 1 : 0; /* the header is no row */
}

static const char *jetson_root(void) { return fixture("jetson-tx2-iio"); }

/* Wait (up to 30 s) until the trace at path has at least n rows: powprof
 * has started and is sampling, however long it took to load. */
static int wait_rows(const char *path, size_t n)
{
    double t0 = now_s();

    while (rows_of(path) < n) {
        if (now_s() - t0 > 30.0)
            return -1;
        sleep_s(0.02);
    }
    return 0;
}

/* `timeout 2 powprof meter -o t.csv -- sleep 5` leaves the trace and the
 * report (timeout signals powprof and the command's group). */
void test_cli_meter_sigterm_from_timeout(void);
void test_cli_meter_sigterm_from_timeout(void)
{
    char trace[512], report[512], root[512];
    char *err = NULL, *text;
    double t0 = now_s();

    snprintf(root, sizeof root, "%s", jetson_root());
    snprintf(trace, sizeof trace, "%s/t.csv", test_tmpdir());
    snprintf(report, sizeof report, "%s/report.txt", test_tmpdir());
    {
        char *argv[] = {"timeout", "2", (char *)bin(), "meter", "-d", "jetson", "--sysfs-root",
                        root, "-r", "100", "-o", trace, "--report", report, "--", "sleep", "5",
                        NULL};
        CHECK_INT(run_argv(argv, NULL, &err), 124);
    }
    CHECK(now_s() - t0 < 4.0);
    CHECK(rows_of(trace) >= 10); /* up to 200 in 2 s, less the time powprof takes to start */
    text = slurp(report);
    CHECK_CONTAINS(text, "exit status  143");
    CHECK_CONTAINS(text, "signal       SIGTERM");
    CHECK_CONTAINS(text, "VDD_IN");
    free(text);
    free(err);
}

/* SIGTERM or SIGHUP to powprof alone reaches the command through powprof,
 * which then writes the trace and the report and exits with its status. */
static void signal_meter_only(int sig, int expected)
{
    char trace[512], report[512], err_path[512], root[512];
    char *text;
    pid_t pid;
    double t0 = now_s();

    snprintf(root, sizeof root, "%s", jetson_root());
    snprintf(trace, sizeof trace, "%s/s%d.csv", test_tmpdir(), sig);
    snprintf(report, sizeof report, "%s/s%d.json", test_tmpdir(), sig);
    snprintf(err_path, sizeof err_path, "%s/s%d.err", test_tmpdir(), sig);
    {
        char *argv[] = {(char *)bin(), "meter", "-d", "jetson", "--sysfs-root", root, "-r", "100",
                        "-o", trace, "--json", "--report", report, "--", "sleep", "10", NULL};
        pid = start(argv, err_path, 1);
    }
    CHECK(pid > 0);
    CHECK_INT(wait_rows(trace, 50), 0);
    t0 = now_s();
    kill(pid, sig); /* to powprof only, not to its group */
    CHECK_INT(wait_status(pid), expected);
    kill(-pid, SIGKILL); /* in case the command was not reached */
    CHECK(now_s() - t0 < 5.0); /* the command ended when told, not after its 10 s */
    CHECK(rows_of(trace) >= 50);
    text = slurp(report);
    CHECK_CONTAINS(text, "\"exit_status\":");
    CHECK_CONTAINS(text, sig == SIGTERM ? "\"signal\":\"SIGTERM\"" : "\"signal\":\"SIGHUP\"");
    free(text);
}

void test_cli_meter_forwards_term_and_hup(void);
void test_cli_meter_forwards_term_and_hup(void)
{
    signal_meter_only(SIGTERM, 128 + SIGTERM);
    signal_meter_only(SIGHUP, 128 + SIGHUP);
}

/* kill -9 of powprof 2 s after its first row at 1 kHz: the trace keeps what
 * was flushed (every 0.1 s), at least a second's worth, and `powprof
 * battery` reads it. The bench does the same with 10 s and 9,000 rows. */
void test_cli_meter_kill9_keeps_trace(void);
void test_cli_meter_kill9_keeps_trace(void)
{
    char trace[512], err_path[512], root[512];
    char *out = NULL, *err = NULL;
    pid_t pid;
    size_t rows;

    snprintf(root, sizeof root, "%s", jetson_root());
    snprintf(trace, sizeof trace, "%s/k.csv", test_tmpdir());
    snprintf(err_path, sizeof err_path, "%s/k.err", test_tmpdir());
    {
        char *argv[] = {(char *)bin(), "meter", "-d", "jetson", "--sysfs-root", root, "-r", "1000",
                        "-o", trace, "--", "sleep", "30", NULL};
        pid = start(argv, err_path, 1);
    }
    CHECK(pid > 0);
    CHECK_INT(wait_rows(trace, 1), 0); /* sampling has started */
    sleep_s(2.0);
    kill(pid, SIGKILL);
    CHECK_INT(wait_status(pid), 128 + SIGKILL);
    kill(-pid, SIGKILL); /* the orphaned sleep */
    rows = rows_of(trace);
    CHECK(rows >= 1000);
    CHECK_INT(run_powprof(&out, &err, "battery", trace, "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"soc_end\":");
    free(out);
    free(err);
}

/* A sensor file emptied while the command runs and then restored: a gap in
 * the trace, counted in the report; the run is complete (exit 0), and
 * `powprof battery` reads the trace, saying where the gap is. */
void test_cli_meter_sensor_gap(void);
void test_cli_meter_sensor_gap(void)
{
    const char *root = fixture_copy("jetson-tx2-iio");
    char path[1024], trace[512], script[512];
    char *err = NULL, *text;

    snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/ina3221x/0-0041/iio:device1/in_power0_input",
             root);
    snprintf(trace, sizeof trace, "%s/gap.csv", test_tmpdir());
    snprintf(script, sizeof script,
             "sleep 0.3; v=$(cat \"$1\"); : > \"$1\"; sleep 0.2; echo \"$v\" > \"$1\"; sleep 0.3");
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "jetson", "--sysfs-root", root, "-r", "100",
                          "-o", trace, "--", "sh", "-c", script, "sh", path, NULL),
              0);
    CHECK_CONTAINS(err, path);
    CHECK_CONTAINS(err, "readings back at");
    CHECK_CONTAINS(err, "gaps         1:");
    text = slurp(trace);
    CHECK_CONTAINS(text, ",,,,,,\n"); /* the gap row: a time, six empty rails */
    free(text);
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "battery", trace, NULL), 0);
    CHECK_CONTAINS(err, "a gap in the readings");
    free(err);
}

/* A trace cut in the middle of a line is read up to its last whole line. */
void test_cli_battery_reads_cut_trace(void);
void test_cli_battery_reads_cut_trace(void)
{
    char trace[512];
    char *out = NULL, *err = NULL;

    snprintf(trace, sizeof trace, "%s/cut.csv", test_tmpdir());
    write_file(trace, "t_s,VDD_IN_w\n0,5\n1,5\n2,5\n3,5");
    CHECK_INT(run_powprof(&out, &err, "battery", trace, "--json", NULL), 0);
    CHECK_CONTAINS(err, ":5: the last line has no newline");
    CHECK_CONTAINS(out, "\"duration_s\":3");
    free(out);
    free(err);
    write_file(trace, "t_s,VDD_IN_w,VDD_CPU_w\n0,5,1\n1,5,1\n2,5,1\n3,5");
    CHECK_INT(run_powprof(&out, &err, "battery", trace, "--json", NULL), 0);
    CHECK_CONTAINS(err, ":5: the file ends with an incomplete line");
    CHECK_CONTAINS(out, "\"duration_s\":2");
    free(out);
    free(err);
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *j = text ? json_loads(text, 0, &e) : NULL;
    if (!j)
        pp_test_fail(__FILE__, __LINE__, "not JSON: %s", text ? e.text : "(no text)");
    return j;
}

void test_cli_meter_repeat(void);
void test_cli_meter_repeat(void)
{
    char trace[512], path[600], root[512];
    char *out = NULL, *err = NULL;
    json_t *j, *stats;
    double mean, sd, lo, hi;

    snprintf(root, sizeof root, "%s", jetson_root());
    snprintf(trace, sizeof trace, "%s/rep.csv", test_tmpdir());
    CHECK_INT(run_powprof(&out, &err, "meter", "-d", "jetson", "--sysfs-root", root, "-r", "200",
                          "--repeat", "3", "--json", "--report", "/dev/stdout", "-o", trace, "--",
                          "sleep", "0.2", NULL),
              0);
    j = parse(out);
    CHECK_INT(json_integer_value(json_object_get(j, "repeat")), 3);
    CHECK_INT(json_array_size(json_object_get(j, "runs")), 3);
    stats = json_object_get(j, "statistics");
    CHECK_INT(json_integer_value(json_object_get(stats, "runs")), 3);
    if (json_unpack(json_object_get(stats, "duration_s"), "{s:F, s:F, s:F, s:F}", "mean", &mean,
                    "sd", &sd, "min", &lo, "max", &hi) == 0) {
        CHECK(mean > 0.19 && mean < 1.0);
        CHECK(sd >= 0 && sd < 0.5);
        CHECK(lo <= mean && mean <= hi);
    } else {
        CHECK(!"statistics.duration_s has mean, sd, min, max");
    }
    /* the Jetson fixture is constant: 5.263 W on the input, no spread */
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(stats, "total_mean_w"), "mean")),
               5.263, 1e-9);
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(stats, "total_mean_w"), "sd")), 0,
               1e-9);
    for (int k = 1; k <= 3; k++) {
        snprintf(path, sizeof path, "%s/rep.%d.csv", test_tmpdir(), k);
        CHECK(rows_of(path) >= 20);
        CHECK_STR(json_string_value(json_object_get(
                      json_array_get(json_object_get(j, "runs"), (size_t)k - 1), "trace")),
                  path);
    }
    json_decref(j);
    free(out);
    free(err);
    /* text: the runs and the spread */
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "jetson", "--sysfs-root", root, "--repeat",
                          "2", "--", "true", NULL),
              0);
    CHECK_CONTAINS(err, "(2 of 2 runs)");
    CHECK_CONTAINS(err, "over 2 runs: mean +- standard deviation");
    free(err);
}

void test_cli_meter_repeat_stops_on_failure(void);
void test_cli_meter_repeat_stops_on_failure(void)
{
    char *out = NULL, *err = NULL;
    json_t *j;

    CHECK_INT(run_powprof(&out, &err, "meter", "--repeat", "4", "--json", "--report",
                          "/dev/stdout", "--", "sh", "-c", "exit 3", NULL),
              3);
    j = parse(out);
    CHECK_INT(json_array_size(json_object_get(j, "runs")), 1);
    CHECK_INT(json_integer_value(json_object_get(j, "exit_status")), 3);
    CHECK_CONTAINS(err, "run 1 of 4 exited with status 3");
    json_decref(j);
    free(out);
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "meter", "--repeat", "0", "--", "true", NULL), 2);
    CHECK_CONTAINS(err, "--repeat 0");
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "meter", "--help", NULL), 0);
    CHECK_CONTAINS(out, "--repeat N");
    CHECK_CONTAINS(out, "not perf\n                         stat's -r");
    free(out);
}

/* A trace that cannot be written stops powprof before the command runs,
 * naming the file; a device file given as -o is never removed. */
void test_cli_meter_trace_write_error(void);
void test_cli_meter_trace_write_error(void)
{
    char *out = NULL, *err = NULL;
    struct stat st;

    CHECK_INT(run_powprof(&out, &err, "meter", "-o", "/dev/full", "--", "echo", "ran", NULL), 125);
    CHECK_CONTAINS(err, "/dev/full: cannot write the trace: No space left on device");
    CHECK(out && strstr(out, "ran") == NULL);
    free(out);
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "meter", "-o", "/nonexistent/t.csv", "--", "true", NULL),
              125);
    CHECK_CONTAINS(err, "/nonexistent/t.csv: cannot create the trace");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "meter", "-o", "/dev/null", "--", "/nonexistent/cmd", NULL),
              127);
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    free(err);
}

/* Issue 22, item 6: meter says what profile says of a run too short to
 * measure (fewer than 5 samples or 5 sampling periods). */
void test_meter_warns_short_run(void);
void test_meter_warns_short_run(void)
{
    const char *root = fixture("jetson-tx2-iio");
    char *out = NULL, *err = NULL;

    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "jetson", "--sysfs-root", root, "-r", "10",
                          "--", "true", NULL), 0);
    CHECK_CONTAINS(err, "too short to measure");
    free(err);
    CHECK_INT(run_powprof(NULL, &out, "meter", "-d", "jetson", "--sysfs-root", root, "-r", "10",
                          "--json", "--", "true", NULL), 0); /* the report is on stderr */
    CHECK_CONTAINS(out, "\"short_run\":true");
    CHECK_CONTAINS(out, "\"saturated\":false");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "jetson", "--sysfs-root", root, "-r", "100",
                          "--", "sleep", "0.3", NULL), 0);
    CHECK(err && !strstr(err, "too short"));
    free(err);
}

/* Issue 22, item 6: a procstat estimate at its ceiling (every core busy
 * throughout: the script moves the busy counters of /proc/stat while
 * meter samples) is said, as profile says it. */
void test_meter_warns_procstat_ceiling(void);
void test_meter_warns_procstat_ceiling(void)
{
    const char *root = fixture_copy("procstat");
    const char *script = "f=$1; u=20000; while [ $u -lt 23000 ]; do u=$((u+100)); printf "
                         "\"cpu  %d 0 0 17000 0 0 0 0 0 0\\ncpu0 %d 0 0 8500 0 0 0 0 0 0\\n"
                         "cpu1 %d 0 0 8500 0 0 0 0 0 0\\n\" $((2*u)) $u $u > \"$f\"; "
                         "sleep 0.02; done";
    char path[1024], *err = NULL;

    snprintf(path, sizeof path, "%s/proc/stat", root);
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "procstat", "--sysfs-root", root, "-r", "50",
                          "--", "sh", "-c", script, "sh", path, NULL), 0);
    CHECK_CONTAINS(err, "the estimate sat at its ceiling (2.700 W, every core busy)");
    free(err);
}
