/* The command line, run as a user would: the binary under test, argv only. */
#include "harness.h"

#include "src/base/proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void test_cli_help_and_version(void);
void test_cli_help_and_version(void)
{
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "--help", NULL), 0);
    CHECK_CONTAINS(out, "usage: powprof");
    CHECK_CONTAINS(out, "meter");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "--version", NULL), 0);
    CHECK_CONTAINS(out, "powprof 0.");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "devices", "--help", NULL), 0);
    CHECK_CONTAINS(out, "usage: powprof devices");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "meter", "--help", NULL), 0);
    CHECK_CONTAINS(out, "usage: powprof meter");
    free(out);
    CHECK_INT(run_powprof(NULL, &out, "frobnicate", NULL), 2);
    CHECK_CONTAINS(out, "unknown command 'frobnicate'");
    free(out);
}

void test_cli_devices_on_fixtures(void);
void test_cli_devices_on_fixtures(void)
{
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "devices", "--sysfs-root", fixture("jetson-tx2-iio"),
                          "--nvml-lib", "/nonexistent.so", NULL), 0);
    CHECK_CONTAINS(out, "jetson    present");
    CHECK_CONTAINS(out, "VDD_IN                    5.263 W  board input");
    CHECK_CONTAINS(out, "VDD_SYS_GPU               1.234 W  (inside VDD_IN)");
    CHECK_CONTAINS(out, "total                     5.263 W");
    CHECK_CONTAINS(out, "procstat  absent");
    CHECK_CONTAINS(out, "auto      jetson");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "devices", "--json", "--sysfs-root",
                          fixture("jetson-orin-hwmon"), "--nvml-lib", "/nonexistent.so", NULL), 0);
    CHECK_CONTAINS(out, "{\"name\":\"VDD_IN\",\"power_w\":7.730944,\"estimated\":false,"
                        "\"board_input\":true,\"inside\":null}");
    CHECK_CONTAINS(out, "\"auto\":\"jetson\"}");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "devices", "--sysfs-root", fixture("rapl"), NULL), 0);
    CHECK_CONTAINS(out, "rapl      present");
    CHECK_CONTAINS(out, "package-0-core");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "devices", "--sysfs-root", fixture("procstat"), NULL), 0);
    CHECK_CONTAINS(out, "procstat_est");
    CHECK_CONTAINS(out, "estimated");
    CHECK_CONTAINS(out, "auto      procstat");
    free(out);
}

void test_cli_devices_this_machine(void);
void test_cli_devices_this_machine(void)
{
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "devices", NULL), 0);
    CHECK_CONTAINS(out, "procstat  present");
    free(out);
}

void test_cli_devices_bad_input(void);
void test_cli_devices_bad_input(void)
{
    const char *root = fixture_copy("jetson-tx2-iio");
    char path[1024];
    char *out = NULL, *err = NULL;

    CHECK_INT(run_powprof(NULL, &err, "devices", "--sysfs-root", "/nonexistent/dir", NULL), 2);
    CHECK_CONTAINS(err, "/nonexistent/dir");
    free(err);
    snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/ina3221x/0-0041/iio:device1/in_power0_input",
             root);
    write_file(path, "garbage\n");
    CHECK_INT(run_powprof(&out, &err, "devices", "--sysfs-root", root, NULL), 0);
    CHECK_CONTAINS(out, "jetson    error");
    CHECK_CONTAINS(err, path);
    CHECK_CONTAINS(err, "'garbage' is not an integer");
    free(out);
    free(err);
}

void test_cli_meter_sleep(void);
void test_cli_meter_sleep(void)
{
    char trace[512], report[512];
    char *err = NULL, *text = NULL;
    double duration = 0, energy = 0;

    snprintf(trace, sizeof trace, "%s/sleep.csv", test_tmpdir());
    snprintf(report, sizeof report, "%s/report.json", test_tmpdir());
    CHECK_INT(run_powprof(NULL, &err, "meter", "-r", "20", "-o", trace, "--json", "--report", report,
                          "--", "sleep", "1", NULL), 0);
    text = slurp(report);
    CHECK(text != NULL);
    if (text) {
        const char *d = strstr(text, "\"duration_s\":");
        const char *e = strstr(text, "\"total_energy_j\":");
        if (d)
            duration = atof(d + 13);
        if (e)
            energy = atof(e + 17);
        CHECK_CONTAINS(text, "\"device\":\"procstat\",\"estimated\":true,\"exit_status\":0");
    }
    CHECK(duration > 0.95 && duration < 2.0);
    /* procstat default: at least the 1.5 W idle power, for about a second */
    CHECK(energy > 1.3 && energy < 20.0);
    free(text);
    text = slurp(trace);
    CHECK(text && strncmp(text, "t_s,procstat_est_w\n", 19) == 0);
    free(text);
    free(err);
}

void test_cli_meter_exit_status(void);
void test_cli_meter_exit_status(void)
{
    char *err = NULL;

    CHECK_INT(run_powprof(NULL, &err, "meter", "--", "sh", "-c", "exit 7", NULL), 7);
    CHECK_CONTAINS(err, "exit status  7");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "meter", "--", "sh", "-c", "kill -TERM $$", NULL), 128 + 15);
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "meter", "--", "/nonexistent/program", NULL), 127);
    CHECK_CONTAINS(err, "cannot run '/nonexistent/program'");
    free(err);
}

/* A parameter that looks like shell code stays one argument. */
void test_cli_meter_argv_not_shell(void);
void test_cli_meter_argv_not_shell(void)
{
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "meter", "--", "printf", "[%s]", "1; echo injected", NULL), 0);
    CHECK_STR(out, "[1; echo injected]");
    free(out);
}

void test_cli_meter_bad_input(void);
void test_cli_meter_bad_input(void)
{
    static const char *const rates[] = {"0", "-5", "1e9", "abc", "nan"};
    char *err = NULL;

    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        CHECK_INT(run_powprof(NULL, &err, "meter", "-r", rates[i], "--", "true", NULL), 2);
        CHECK_CONTAINS(err, rates[i]);
        free(err);
    }
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "nosuch", "--", "true", NULL), 2);
    CHECK_CONTAINS(err, "unknown device 'nosuch'");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "meter", NULL), 2);
    CHECK_CONTAINS(err, "no command given");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "jetson", "--", "true", NULL), 125);
    CHECK_CONTAINS(err, "no rails");
    free(err);
}

/* A sensor whose value empties while the command runs and stays empty:
 * sampling goes on through the gap, but the run ends without readings, so
 * it is incomplete: the trace recorded so far is written, the error names
 * the file, the exit status is 125. */
void test_cli_meter_sensor_vanishes(void);
void test_cli_meter_sensor_vanishes(void)
{
    const char *root = fixture_copy("jetson-tx2-iio");
    char path[1024], trace[512];
    char *err = NULL, *text = NULL;
    size_t lines = 0;

    snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/ina3221x/0-0041/iio:device1/in_power0_input",
             root);
    snprintf(trace, sizeof trace, "%s/partial.csv", test_tmpdir());
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "jetson", "--sysfs-root", root, "-r", "100",
                          "-o", trace, "--", "sh", "-c", "sleep 0.3; : > \"$1\"; sleep 0.3", "sh",
                          path, NULL),
              125);
    CHECK_CONTAINS(err, path);
    CHECK_CONTAINS(err, "empty value");
    CHECK_CONTAINS(err, "readings were failing when the run ended");
    CHECK_CONTAINS(err, "sampling incomplete");
    text = slurp(trace);
    CHECK(text != NULL);
    for (const char *c = text; c && *c; c++)
        lines += *c == '\n';
    CHECK(lines > 10); /* ~30 samples before the file emptied */
    CHECK(text && strstr(text, ",5.263000,") != NULL);
    free(text);
    free(err);
}

void test_cli_meter_replay(void);
void test_cli_meter_replay(void)
{
    char src[512], trace[512];
    char *err = NULL;

    snprintf(src, sizeof src, "%s/in.csv", test_tmpdir());
    snprintf(trace, sizeof trace, "%s/out.csv", test_tmpdir());
    write_file(src, "t_s,VDD_IN_w,VDD_GPU_w\n0,10,4\n5,10,4\n");
    CHECK_INT(run_powprof(NULL, &err, "meter", "-d", "replay", "--replay", src, "-r", "50", "--",
                          "sleep", "0.5", NULL), 0);
    /* 10 W on the input, 4 W inside it: the total is 10 W, not 14 W */
    CHECK_CONTAINS(err, "VDD_IN                       10.000 W");
    CHECK_CONTAINS(err, "board input");
    CHECK_CONTAINS(err, "total                        10.000 W");
    free(err);
}

void test_proc_spawn_errors(void);
void test_proc_spawn_errors(void)
{
    char *argv_missing[] = {"/nonexistent/x", NULL};
    char *argv_dir[] = {"/", NULL};
    char *argv_ok[] = {"true", NULL};
    pid_t pid;
    int st = -1;

    CHECK_INT(pp_proc_spawn(argv_missing, 0, &pid), -ENOENT);
    CHECK_INT(pp_proc_spawn_status(-ENOENT), 127);
    CHECK_INT(pp_proc_spawn(argv_dir, 0, &pid), -EACCES);
    CHECK_INT(pp_proc_spawn_status(-EACCES), 126);
    CHECK_INT(pp_proc_spawn(argv_ok, 1, &pid), 0);
    CHECK_INT(pp_proc_wait(pid, &st), 0);
    CHECK_INT(st, 0);
}

/* Issue 40: every command's options are one table (src/cli/opt.h) that
 * parses them and prints --help: an option a command takes is listed, a
 * refused value is named with its option, exit statuses stay. */
void test_cli_option_table(void);
void test_cli_option_table(void)
{
    static const char *const commands[] = {"devices", "meter", "battery", "profile", "import",
                                           "merge", "model", "predict", "plot", "run", "plan",
                                           "govern", "ulog"};
    static const struct {
        const char *argv[6], *said;
    } refused[] = {
        {{"plan", "r", "--tolerance", "2"}, "powprof plan: --tolerance 2: a fraction in [0, 1)"},
        {{"plan", "r", "--min-rate", "x"}, "powprof plan: --min-rate 'x' is not a number"},
        {{"battery", "fit", "f.ulg", "--cells", "2.5"},
         "powprof battery fit: --cells 2.5: a whole number in [1, 1000]"},
        {{"meter", "--repeat", "0", "--", "true"}, "powprof meter: --repeat 0: a whole number in "
                                                   "[1, 1000]"},
        {{"layers", "predict", "--zz"}, "Try 'powprof layers predict --help'."},
        {{"plan", "r", "--bogus"}, "Try 'powprof plan --help'."},
        {{"govern", "r", "--measure", "q"}, "powprof govern: --measure q: soc or vi"},
        {{"model", "r", "--method", "q"}, "powprof model: --method q: auto, nw, loclin or "
                                          "boxcox"},
        {{"profile", "/nonexistent/p.cfg"}, "/nonexistent/p.cfg"},
    };
    char *out, *err;

    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        CHECK_INT(run_powprof(&out, NULL, commands[i], "--help", NULL), 0);
        CHECK_CONTAINS(out, "\noptions:\n");
        CHECK_CONTAINS(out, "  -h, --help ");
        CHECK_CONTAINS(out, " this help\n");
        free(out);
    }
    /* taken before, listed now */
    CHECK_INT(run_powprof(&out, NULL, "govern", "--help", NULL), 0);
    CHECK_CONTAINS(out, "  --simulate ACTUAL    ");
    CHECK_CONTAINS(out, "  --source SRC         ");
    free(out);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *const *a = refused[i].argv;
        CHECK_INT(run_powprof(NULL, &err, a[0], a[1], a[2], a[3], a[4], a[5], NULL), 2);
        CHECK_CONTAINS(err, refused[i].said);
        free(err);
    }
}

/* Issue 45, defect 8: the README's examples run as written from a clone (the
 * governor's needed a tx2 folder only a figure caption told how to make),
 * and the README stays within 250 lines. */
void test_readme_examples_run(void);
void test_readme_examples_run(void)
{
    char dir[700], *out = NULL, *text = slurp("README.md");
    char *argv[] = {"scripts/readme-examples", "README.md", dir, (char *)powprof_bin(), NULL};
    size_t lines = 0;

    for (const char *c = text; c && *c; c++)
        lines += *c == '\n';
    CHECK(text && lines <= 250);
    free(text);
    snprintf(dir, sizeof dir, "%s/clone", test_tmpdir());
    CHECK_INT(run_argv(argv, &out, NULL), 0);
    CHECK_CONTAINS(out, "$ ./powprof import powprofiler data/tx2/darknet/");
    CHECK_CONTAINS(out, "$ ./powprof govern tx2 --mission tests/fixtures/governor/");
    CHECK_CONTAINS(out, "$ ./powprof plan results/mine --mission-s 1200 -c mypack.cfg");
    CHECK(out && !strstr(out, "readme-examples: exit"));
    free(out);
}
