/* Sweeps a user can act on, through the command line: idle sleeps, failures
 * on screen and not endless, pacing checked, the progress line, the
 * workload's CPU time beside the machine's. */
#include "harness.h"

#include "devices/procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_cfg[512], g_out[512];
static double g_rate_hz = 20;

/* A profile on device (sampling the fake tree root) with the given
 * components, written to g_cfg; g_out is its results folder. */
static void write_cfg(const char *device, const char *root, const char *components)
{
    char text[4096];

    snprintf(g_cfg, sizeof g_cfg, "%s/p.cfg", test_tmpdir());
    snprintf(g_out, sizeof g_out, "%s/out", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"t\"; device = \"%s\"; rate_hz = %g;\n"
             "  sysfs_root = \"%s\"; };\ncomponents = (%s);\n",
             device, g_rate_hz, root, components);
    write_file(g_cfg, text);
}

/* Field name of summary.csv row `row` (0: the first after the header), as
 * text in buf; 0 when found. */
static int summary_field(int row, const char *name, char *buf, size_t cap)
{
    char path[600], *text, *save = NULL, *line;
    int col = -1, r = -1, rc = -1;

    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    if (!(text = slurp(path)))
        return -1;
    for (line = strtok_r(text, "\n", &save); line && rc < 0; line = strtok_r(NULL, "\n", &save), r++) {
        char *f = line;
        for (int c = 0; f; c++) {
            char *comma = strchr(f, ',');
            size_t len = comma ? (size_t)(comma - f) : strlen(f);
            if (r < 0 && len == strlen(name) && strncmp(f, name, len) == 0)
                col = c;
            if (r == row && c == col) {
                snprintf(buf, cap, "%.*s", (int)len, f);
                rc = 0;
            }
            f = comma ? comma + 1 : NULL;
        }
    }
    free(text);
    return rc;
}

static double summary_number(int row, const char *name)
{
    char cell[128];

    if (summary_field(row, name, cell, sizeof cell) < 0 || !cell[0])
        return NAN;
    return atof(cell);
}

static int summary_rows(void)
{
    char path[600], *text;
    int n = -1;

    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    if (!(text = slurp(path)))
        return -1;
    for (char *s = text; *s; s++)
        n += *s == '\n';
    free(text);
    return n;
}

static double children_cpu_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* idle sleeps through its duration: the whole run (powprof, its sampler,
 * its checks) uses under 5 % of a core, and the row's cpu_s says so. */
void test_cli_idle_sleeps(void);
void test_cli_idle_sleeps(void)
{
    double before, used, duration;
    char *err = NULL;

    write_cfg("procstat", fixture("procstat"), "{ type = \"idle\"; duration_s = 2.0; }");
    before = children_cpu_s();
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, NULL), 0);
    used = children_cpu_s() - before;
    duration = summary_number(0, "duration_s");
    CHECK_NEAR(duration, 2.0, 0.2);
    CHECK(used < 0.05 * duration);
    CHECK(summary_number(0, "cpu_s") < 0.05 * duration);
    CHECK(summary_number(0, "cpu_share") < 0.05);
    CHECK_NEAR(summary_number(0, "iterations"), 1, 0); /* one step, then sleep */
    /* the fake /proc/stat does not move: the machine was idle too */
    CHECK_NEAR(summary_number(0, "machine_cpu_share"), 0, 0);
    /* and the sampler sampled all along: 20 Hz for 2 s */
    {
        char path[700], *trace;
        int lines = 0;
        snprintf(path, sizeof path, "%s/traces/0.csv", g_out);
        trace = slurp(path);
        for (char *s = trace; s && *s; s++)
            lines += *s == '\n';
        CHECK(lines >= 35);
        free(trace);
    }
    free(err);
}

/* A program that fails while flag does not exist, with the same message. */
static void failing_profile(const char *flag, const char *params)
{
    char comps[1024];

    snprintf(comps, sizeof comps,
             "{ name = \"det\"; type = \"exec\";\n"
             "  command = [\"sh\", \"-c\", \"test -e \\\"$0\\\" && exit 0; echo no CUDA driver in $1 "
             ">&2; exit 3\", \"%s\", \"{k}\"];\n"
             "  params = { k = %s; }; }",
             flag, params);
    write_cfg("procstat", fixture("procstat"), comps);
}

/* Three identical failures stop the sweep: exit status 4, the reason on
 * the progress line, the resume command; with the cause fixed, the resume
 * command runs the failed ones again and the rest, nothing doubled. */
void test_cli_sweep_stops_after_identical_failures(void);
void test_cli_sweep_stops_after_identical_failures(void)
{
    char flag[600], expect[1400], *err = NULL, *out = NULL;
    int seen[6] = {0};

    snprintf(flag, sizeof flag, "%s/driver", test_tmpdir());
    /* labels differ from one configuration to the next, and so do numbers:
     * the reason is the same all the same */
    failing_profile(flag, "[\"a1\", \"b2\", \"c3\", \"d4\", \"e5\", \"f6\"]");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, NULL), 4);
    CHECK_CONTAINS(err, "[1/6] id 0 failed");
    CHECK_CONTAINS(err, "exited with status 3: no CUDA driver in a1");
    CHECK_CONTAINS(err, "(3 in a row)");
    CHECK_CONTAINS(err, "stopped: 3 configurations in a row failed with the same reason");
    snprintf(expect, sizeof expect, "powprof profile %s -o %s --resume --retry-failed", g_cfg,
             g_out);
    CHECK_CONTAINS(err, expect);
    CHECK(!strstr(err, "[4/6]"));
    CHECK_INT(summary_rows(), 3);
    free(err);
    /* the same as JSON, with the command as argv */
    CHECK_INT(run_powprof(&out, &err, "profile", g_cfg, "-o", g_out, "--resume",
                          "--retry-failed", "--json", NULL), 4);
    CHECK_CONTAINS(out, "\"stopped\":true");
    CHECK_CONTAINS(out, "\"resume\":[\"powprof\",\"profile\",");
    CHECK_CONTAINS(out, "\"exit_status\":4");
    CHECK_INT(summary_rows(), 3); /* the failed rows were replaced, not added */
    free(out);
    free(err);
    /* the cause fixed: the resume command completes the sweep */
    write_file(flag, "");
    CHECK_INT(run_powprof(&out, &err, "profile", g_cfg, "-o", g_out, "--resume",
                          "--retry-failed", NULL), 0);
    CHECK_CONTAINS(out, "6 configurations: 6 run (6 ok");
    CHECK_INT(summary_rows(), 6);
    for (int r = 0; r < 6; r++) {
        char status[32] = "";
        int id = (int)summary_number(r, "id");
        summary_field(r, "status", status, sizeof status);
        CHECK_STR(status, "ok");
        if (id >= 0 && id < 6)
            seen[id]++;
    }
    for (int i = 0; i < 6; i++)
        CHECK_INT(seen[i], 1);
    free(out);
    free(err);
}

/* --keep-going runs every configuration; failures whose reasons differ,
 * or that do not come in a row, never stop a sweep. */
void test_cli_sweep_failures_that_differ_go_on(void);
void test_cli_sweep_failures_that_differ_go_on(void)
{
    char flag[600], *err = NULL;

    snprintf(flag, sizeof flag, "%s/never", test_tmpdir());
    failing_profile(flag, "[1, 2, 3, 4]");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, "--keep-going", NULL), 1);
    CHECK_CONTAINS(err, "[4/4] id 3 failed");
    CHECK_CONTAINS(err, "(4 in a row)");
    CHECK_INT(summary_rows(), 4);
    free(err);
    write_cfg("procstat", fixture("procstat"),
              "{ type = \"exec\"; command = [\"sh\", \"-c\", \"[ $(($0 % 2)) = 0 ] || exit $0\", "
              "\"{k}\"];\n  params = { k = [1, 2, 3, 4, 5, 6, 7]; }; }");
    strcat(g_out, "2");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, "--max-failures", "2",
                          NULL), 1);
    CHECK_INT(summary_rows(), 7);
    CHECK(!strstr(err, "in a row"));
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "--max-failures", "0", NULL), 2);
    CHECK_CONTAINS(err, "--max-failures 0: a whole number >= 1");
    free(err);
}

/* fps and sleep_s together, or pacing a run to completion, are errors
 * with the file and line; late frames and the achieved rate are shown. */
void test_cli_pacing_conflicts_and_late_frames(void);
void test_cli_pacing_conflicts_and_late_frames(void)
{
    static const struct {
        const char *component, *message;
    } bad[] = {
        {"{ type = \"idle\"; duration_s = 1;\n fps = 10;\n sleep_s = 0.1; }",
         "p.cfg:5: sleep_s: fps and sleep_s both pace the steps: give one"},
        {"{ type = \"idle\"; duration_s = 1; sleep_s = 0.1;\n params = { fps = [1, 2]; }; }",
         "p.cfg:3: sleep_s: fps and sleep_s both pace the steps"},
        {"{ type = \"idle\"; duration_s = 1; fps = 2;\n params = { fps = [1, 2]; }; }",
         "p.cfg:4: fps: given both as a key and as a parameter"},
        {"{ type = \"exec\"; command = [\"true\"];\n fps = 5; }",
         "p.cfg:4: fps: paces repeated steps, but exec runs one step to completion"},
        {"{ type = \"exec\"; command = [\"true\"]; until = \"completion\";\n iterations = 2; }",
         "\"completion\" contradicts duration_s / iterations"},
    };
    char *err = NULL;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_cfg("procstat", fixture("procstat"), bad[i].component);
        CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "--dry-run", NULL), 2);
        CHECK_CONTAINS(err, bad[i].message);
        free(err);
    }
    /* steps of 0.15 s cannot keep 10 fps */
    write_cfg("procstat", fixture("procstat"),
              "{ name = \"slow\"; type = \"exec\"; command = [\"sleep\", \"0.15\"];\n"
              "  fps = 10; duration_s = 0.8; }");
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, NULL), 0);
    CHECK_CONTAINS(err, "/10 fps");
    CHECK_CONTAINS(err, " late");
    CHECK(summary_number(0, "late_frames") >= 3);
    {
        const char *s = strstr(err, "slow ");
        double achieved = s ? atof(s + 5) : 0;
        CHECK(achieved > 3 && achieved < 8.5);
    }
    free(err);
}

/* Run powprof with stderr on a terminal of cols columns; its output. */
static char *run_on_terminal(int cols, char *const argv[])
{
    struct winsize ws = {.ws_row = 24, .ws_col = (unsigned short)cols};
    int master, slave, st;
    char *buf = calloc(1, 65536);
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    if (!buf || openpty(&master, &slave, NULL, NULL, &ws) < 0) {
        free(buf);
        return NULL;
    }
    pid = fork();
    if (pid == 0) {
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 1);
        dup2(slave, 2);
        close(master);
        execv(getenv("POWPROF_BIN"), argv);
        _exit(127);
    }
    close(slave);
    while (len < 65535 && (n = read(master, buf + len, 65535 - len)) > 0)
        len += (size_t)n;
    close(master);
    waitpid(pid, &st, 0);
    return buf;
}

/* On a terminal the progress is one line redrawn in place (a bar, the
 * configuration running, the time left), never wider than the terminal;
 * failures get a line of their own with the reason. */
void test_cli_progress_on_a_terminal(void);
void test_cli_progress_on_a_terminal(void)
{
    char *argv[] = {"powprof", "profile", g_cfg, "-o", g_out, "--keep-going", NULL};
    char *out;
    int newlines = 0, redraws = 0;

    write_cfg("procstat", fixture("procstat"),
              "{ type = \"idle\"; duration_s = 0.7; params = { k = [1, 2, 3]; }; },\n"
              "{ name = \"x\"; type = \"exec\"; command = [\"sh\", \"-c\", \"exit $0\", \"{c}\"];"
              " params = { c = [0, 5]; }; }");
    out = run_on_terminal(72, argv);
    CHECK(out != NULL);
    if (!out)
        return;
    CHECK_CONTAINS(out, "running");
    CHECK_CONTAINS(out, ", ~");
    CHECK_CONTAINS(out, " left  id ");
    CHECK_CONTAINS(out, "\033[K");
    CHECK_CONTAINS(out, "powprof: id 1 failed");
    CHECK_CONTAINS(out, "'sh' exited with status 5");
    CHECK_CONTAINS(out, "[############] 6/6");
    for (char *s = out, *seg = out; *s; s++) {
        if (*s == '\r' || *s == '\n') {
            /* a redrawn bar never wraps: at most 71 columns and the escape */
            if (*seg == '[')
                CHECK(s - seg <= 71 + 3);
            seg = s + 1;
        }
        newlines += *s == '\n';
        redraws += *s == '\r' && s[1] == '[';
    }
    /* one line for the start, one per failure (3), the end: the rest is
     * redrawn in place */
    CHECK(newlines <= 6);
    CHECK(redraws >= 9);
    free(out);
}

/* The procstat helpers on the fake tree: the machine's busy time and cores,
 * the estimate's ceiling. */
void test_procstat_ceiling_and_machine_cpu(void);
void test_procstat_ceiling_and_machine_cpu(void)
{
    const char *root = fixture_copy("procstat");
    pp_device_options o;
    pp_device *dev = NULL;
    double busy_s = 0, ceiling = 0, p[1];
    size_t n = 0;
    long hz = sysconf(_SC_CLK_TCK);
    char path[1024];

    CHECK_INT(pp_procstat_machine(root, &busy_s, &n), 0);
    CHECK_INT(n, 2);
    CHECK_NEAR(busy_s, 3000.0 / (double)hz, 1e-9); /* user + system of both cores */
    CHECK_INT(pp_procstat_machine("/nonexistent", &busy_s, &n), -ENOENT);
    pp_device_options_init(&o);
    o.sysfs_root = root;
    CHECK_INT(pp_device_open_with("procstat", &o, &dev), 0);
    if (!dev)
        return;
    CHECK_INT(pp_procstat_ceiling_w(dev, &ceiling), 0);
    CHECK_NEAR(ceiling, 1.5 + 0.6 * 2, 1e-12);
    snprintf(path, sizeof path, "%s/proc/stat", root);
    write_file(path, "cpu0 1100 0 500 8500 0 0 0 0 0 0\ncpu1 1000 0 600 8500 0 0 0 0 0 0\n");
    CHECK_INT(pp_device_read(dev, 1, p), 0);
    CHECK_NEAR(p[0], ceiling, 1e-12); /* every core busy: the ceiling, whoever is busy */
    pp_device_close(dev);
    dev = NULL;
    CHECK_INT(pp_device_open_with("jetson", &o, &dev), -ENODEV);
    o.sysfs_root = fixture("jetson-tx2-iio");
    CHECK_INT(pp_device_open_with("jetson", &o, &dev), 0);
    if (dev)
        CHECK_INT(pp_procstat_ceiling_w(dev, &ceiling), -EINVAL);
    pp_device_close(dev);
}

/* On the fake tree, a component that makes every core look busy (it
 * rewrites /proc/stat) sets the estimate at its ceiling: the sweep warns,
 * counts it, and machine_cpu_share says every core was busy while the
 * workload's own cpu_share stays small. */
void test_cli_sweep_estimate_at_its_ceiling(void);
void test_cli_sweep_estimate_at_its_ceiling(void)
{
    const char *root = fixture_copy("procstat");
    char busy[700], stat[700], comps[2048], *out = NULL, *err = NULL;

    /* configuration 0 makes both cores busy, configuration 1 both idle since */
    snprintf(busy, sizeof busy, "%s/busy-stat-1", root);
    write_file(busy, "cpu0 9000 0 500 8500 0 0 0 0 0 0\ncpu1 9000 0 500 8500 0 0 0 0 0 0\n");
    snprintf(busy, sizeof busy, "%s/busy-stat-2", root);
    write_file(busy, "cpu0 9000 0 500 9500 0 0 0 0 0 0\ncpu1 9000 0 500 9500 0 0 0 0 0 0\n");
    snprintf(busy, sizeof busy, "%s/busy-stat-{k}", root);
    snprintf(stat, sizeof stat, "%s/proc/stat", root);
    /* the sleep keeps the copy away from the sampler's first reading */
    snprintf(comps, sizeof comps,
             "{ type = \"exec\"; command = [\"sh\", \"-c\", \"sleep 0.3; cp \\\"$0\\\" "
             "\\\"$1\\\"\", \"%s\", \"%s\"];\n params = { k = [1, 2]; }; }",
             busy, stat);
    g_rate_hz = 1; /* the first reading after the copy is the last one */
    write_cfg("procstat", root, comps);
    CHECK_INT(run_powprof(&out, &err, "profile", g_cfg, "-o", g_out, "--json", NULL), 0);
    CHECK_CONTAINS(err, "warning: id 0: the procstat estimate sat at its ceiling");
    CHECK_CONTAINS(err, "in 1 of 2 configurations the procstat estimate sat at its ceiling");
    CHECK_CONTAINS(out, "\"saturated\":1");
    CHECK_NEAR(summary_number(0, "machine_cpu_share"), 2.0, 1e-6); /* both cores, clamped */
    CHECK(summary_number(0, "cpu_share") < 0.5);
    CHECK_NEAR(summary_number(1, "machine_cpu_share"), 0.0, 0); /* only idle moved */
    CHECK_NEAR(summary_number(1, "procstat_est_mean_w"), 1.5, 1e-6);
    CHECK_NEAR(summary_number(0, "procstat_est_mean_w"), 2.7, 1e-6);
    free(out);
    free(err);
}

/* A real exec run: the workload's cpu_s is the CPU time its program used,
 * as the program itself counts it (the shell's `times`). */
void test_cli_exec_cpu_time(void);
void test_cli_exec_cpu_time(void)
{
    char times_path[600], comps[1024], *err = NULL, *text;
    int um = 0, sm = 0;
    double us = 0, ss = 0, cpu_s;

    snprintf(times_path, sizeof times_path, "%s/times", test_tmpdir());
    snprintf(comps, sizeof comps,
             "{ type = \"exec\"; command = [\"sh\", \"-c\", \"i=0; while [ $i -lt 60000 ]; do "
             "i=$((i+1)); done; times > \\\"$0\\\"\", \"%s\"]; }",
             times_path);
    write_cfg("procstat", "/", comps);
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, NULL), 0);
    text = slurp(times_path);
    CHECK(text && sscanf(text, "%dm%lfs %dm%lfs", &um, &us, &sm, &ss) == 4);
    cpu_s = summary_number(0, "cpu_s");
    CHECK(um * 60 + us + sm * 60 + ss > 0.02);
    CHECK_NEAR(cpu_s, um * 60 + us + sm * 60 + ss, 0.02 + 0.1 * cpu_s);
    CHECK(summary_number(0, "cpu_share") > 0);
    /* the real /proc/stat: the machine's share is known, within its cores */
    CHECK(summary_number(0, "machine_cpu_share") >= 0);
    CHECK(summary_number(0, "machine_cpu_share") <= (double)sysconf(_SC_NPROCESSORS_CONF) + 1e-9);
    free(text);
    free(err);
}

/* `powprof devices` changes nothing under the roots it reads, except an
 * ODROID's enable files of sensors that are off, and says so; sensors
 * already on are not written again. */
void test_cli_devices_reads_only(void);
void test_cli_devices_reads_only(void)
{
    static const char *const trees[] = {"jetson-tx2-iio", "jetson-orin-hwmon", "battery",
                                        "hwmon", "rapl", "procstat", "odroid-xu3"};
    char *out = NULL, *err = NULL;

    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        const char *root = fixture_copy(trees[i]);
        char *diff[] = {"diff", "-r", (char *)fixture(trees[i]), (char *)root, NULL};
        int odroid = strcmp(trees[i], "odroid-xu3") == 0;
        CHECK_INT(run_powprof(&out, &err, "devices", "--sysfs-root", root, "--nvml-lib",
                              "/nonexistent.so", NULL), 0);
        free(out);
        out = NULL;
        CHECK_INT(run_argv(diff, &out, NULL), odroid ? 1 : 0);
        if (odroid) {
            CHECK_CONTAINS(out, "3-0040/enable");
            CHECK(!strstr(out, "sensor_W"));
            CHECK_CONTAINS(err, "odroid: switched the INA231 sensor on: wrote 1 to ");
            CHECK_CONTAINS(err, "3-0045/enable (it was off; it stays on)");
            free(err);
            CHECK_INT(run_powprof(NULL, &err, "devices", "--sysfs-root", root, NULL), 0);
            CHECK(!strstr(err, "switched"));
        } else {
            CHECK(!strstr(err, "switched"));
        }
        free(out);
        free(err);
        out = err = NULL;
    }
}

/* Every key a profile group accepts, as its "unknown key" error lists
 * them, is in docs/CONFIG.md as `key`. */
static void check_keys_documented(const char *doc, const char *cfg_text)
{
    char path[600], *err = NULL, *known, *end;

    snprintf(path, sizeof path, "%s/keys.cfg", test_tmpdir());
    write_file(path, cfg_text);
    CHECK_INT(run_powprof(NULL, &err, "profile", path, "--dry-run", NULL), 2);
    known = err ? strstr(err, "(known: ") : NULL;
    CHECK(known != NULL);
    end = known ? strchr(known, ')') : NULL;
    if (known && end) {
        *end = '\0';
        for (char *save = NULL, *k = strtok_r(known + 8, ", ", &save); k;
             k = strtok_r(NULL, ", ", &save)) {
            char quoted[80];
            snprintf(quoted, sizeof quoted, "`%s`", k);
            CHECK_CONTAINS(doc, quoted);
        }
    }
    free(err);
}

/* docs/CONFIG.md is up to date: each type built here has its section as
 * `powprof profile --types --markdown` writes it (make config-doc), and
 * every key of every group is documented. */
void test_config_reference_up_to_date(void);
void test_config_reference_up_to_date(void)
{
    char *doc = slurp("docs/CONFIG.md"), *out = NULL;
    int n_types = 0;

    CHECK(doc != NULL);
    CHECK_INT(run_powprof(&out, NULL, "profile", "--types", "--markdown", NULL), 0);
    for (char *block = out ? strstr(out, "### `") : NULL, *next; block; block = next) {
        next = strstr(block + 1, "### `");
        if (next)
            next[-1] = '\0'; /* the blank line before the next heading */
        if (!strstr(block, "Not available here")) {
            CHECK_CONTAINS(doc, block);
            n_types++;
        }
        if (next)
            next[-1] = '\n';
    }
    CHECK(n_types >= 2); /* idle and exec at least */
    check_keys_documented(doc, "bogus = 1;\n");
    check_keys_documented(doc, "profile = { bogus = 1; };\n");
    check_keys_documented(doc, "battery = { bogus = 1; };\n");
    check_keys_documented(doc, "mission = { duration_s = 1; bogus = 1; };\n");
    check_keys_documented(doc, "components = ({ type = \"idle\"; bogus = 1; });\n");
    check_keys_documented(doc, "components = ({ type = \"idle\"; params = { t = { bogus = 1; }; }; });\n");
    free(out);
    free(doc);
}

/* Every command of `powprof --help` is in the man page's synopsis and the
 * README's command list, and answers --help. */
void test_docs_list_every_command(void);
void test_docs_list_every_command(void)
{
    char *help = NULL, *man = slurp("man/powprof.1"), *readme = slurp("README.md");
    const char *list;
    int n = 0;

    CHECK_INT(run_powprof(&help, NULL, "--help", NULL), 0);
    list = help ? strstr(help, "commands:\n") : NULL;
    CHECK(list && man && readme);
    if (!list || !man || !readme)
        return;
    for (const char *line = strchr(list, '\n') + 1; strncmp(line, "  ", 2) == 0;
         line = strchr(line, '\n') + 1) {
        char name[32], want[64], *out = NULL;
        if (sscanf(line, " %31s", name) != 1)
            break;
        snprintf(want, sizeof want, ".B powprof %s\n", name);
        CHECK_CONTAINS(man, want);
        snprintf(want, sizeof want, "\n    powprof %s ", name);
        CHECK_CONTAINS(readme, want);
        snprintf(want, sizeof want, "usage: powprof %s", name);
        CHECK_INT(run_powprof(&out, NULL, name, "--help", NULL), 0);
        CHECK_CONTAINS(out, want);
        free(out);
        n++;
    }
    CHECK(n >= 10);
    free(help);
    free(man);
    free(readme);
}

/* import --json says what was imported. */
void test_cli_import_json(void);
void test_cli_import_json(void)
{
    char out_dir[600], *out = NULL;

    snprintf(out_dir, sizeof out_dir, "%s/imported", test_tmpdir());
    CHECK_INT(run_powprof(&out, NULL, "import", "powprofiler",
                          "data/tx2/darknet/1layer_yolo-10fps.csv", "--param", "fps=10", "-o",
                          out_dir, "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"files\":1,\"rails\":[\"VDD_IN\",");
    CHECK_CONTAINS(out, "\"params\":[\"fps\"]");
    free(out);
}
