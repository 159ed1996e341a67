/* Clocks in a sweep (issue 44) on a fake AGX Xavier: every frequency set
 * and read back, rows flagged when a clock is not held, and the clocks put
 * back on every exit: the end, an interruption, a stop, SIGTERM, kill -9
 * (on the next start). */
#include "harness.h"

#include "devices/clocks_restore.h"
#include "src/config/profile.h"
#include "src/sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GV11B "/sys/class/devfreq/17000000.gv11b/"

static char g_root[1024], g_cfg[1200], g_out[1200];
static int g_runs;

/* The test's copy of the fake AGX (made once per test). */
static const char *agx_root(void)
{
    if (!g_root[0])
        snprintf(g_root, sizeof g_root, "%s", fixture_copy("clocks-agx"));
    return g_root;
}

const char *fake_nvpmodel(const char *dir);

/* A profile on the test's copy of the fake AGX, components and clocks as
 * given, its results into a new folder g_out. */
static pp_profile *agx_profile(const char *components, const char *clocks)
{
    char text[8192];
    pp_profile *p = malloc(sizeof *p);

    agx_root();
    snprintf(g_cfg, sizeof g_cfg, "%s/clocks.cfg", test_tmpdir());
    snprintf(g_out, sizeof g_out, "%s/out%d", test_tmpdir(), ++g_runs);
    snprintf(text, sizeof text,
             "profile = { name = \"t\"; device = \"jetson\"; rate_hz = 100; sysfs_root = \"%s\"; };\n"
             "components = (%s);\nclocks = { %s };\n",
             g_root, components, clocks);
    write_file(g_cfg, text);
    CHECK_INT(pp_profile_load(g_cfg, p), 0);
    return p;
}

const char *at(const char *root, const char *rel);

/* The text of a file of the fake root, without its newline. */
static const char *sys(const char *rel)
{
    return at(g_root, rel);
}

/* Every clock file as the fixture has it, and no record left. */
static void check_restored(void)
{
    char path[2048];

    CHECK_STR(sys(GV11B "min_freq"), "114750000");
    CHECK_STR(sys(GV11B "max_freq"), "1377000000");
    CHECK_STR(sys("/sys/devices/system/cpu/cpufreq/policy0/scaling_governor"), "schedutil");
    CHECK_STR(sys("/sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"), "0");
    CHECK_STR(sys("/sys/kernel/debug/bpmp/debug/clk/emc/rate"), "2133000000");
    snprintf(path, sizeof path, "%s/%s", g_out, PP_CLOCKS_RECORD);
    CHECK(access(path, F_OK) != 0);
}

static char *out_file(const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", g_out, name);
    return slurp(path);
}

/* Run p into g_out: its return; summary.csv and clocks.csv read. */
static int run_and_read(const pp_profile *p, pp_sweep_options *o, pp_sweep_stats *st, char **sum,
                        char **clk)
{
    int rc;

    o->out_dir = g_out;
    rc = pp_sweep_run(p, o, st);
    *sum = out_file("summary.csv");
    *clk = out_file("clocks.csv");
    return rc;
}

static int count_lines(const char *text, const char *needle)
{
    int n = 0;
    for (const char *s = text; s && (s = strstr(s, needle)); s++)
        n++;
    return n;
}

void test_sweep_clocks_gpu_x_fps_on_agx(void);
void test_sweep_clocks_gpu_x_fps_on_agx(void)
{
    pp_profile *p = agx_profile("{ type = \"idle\"; duration_s = 0.05; params = { fps = [5, 10, 20, "
                                "40]; }; }", "gpu_mhz = [1377.0, 828.75, 420.75];");
    pp_sweep_options o = {0};
    pp_sweep_stats st;
    char *sum, *clk;

    CHECK_INT(pp_profile_count(p), 12);
    CHECK_INT(run_and_read(p, &o, &st, &sum, &clk), 0);
    CHECK_INT(st.ok, 12);
    CHECK_CONTAINS(sum, "id,idle.fps,clocks.gpu_mhz,status,");
    CHECK_CONTAINS(sum, "\n11,40,420.75,ok,");
    CHECK_CONTAINS(clk, "id,repeat,gpu_set_mhz,gpu_before_mhz,gpu_lowest_mhz,gpu_after_mhz,"
                        "clock_ok,throttled,max_temp_c,hottest_zone\n");
    /* every frequency set and read back, before, during and after each run */
    CHECK_INT(count_lines(clk, ",1377,1377,1377,1377,1,0,45.5,CPU-therm\n"), 4);
    CHECK_INT(count_lines(clk, ",828.75,828.75,828.75,828.75,1,0,45.5,CPU-therm\n"), 4);
    CHECK_INT(count_lines(clk, ",420.75,420.75,420.75,420.75,1,0,45.5,CPU-therm\n"), 4);
    CHECK_CONTAINS(clk, "\n5,0,420.75,");
    /* the last one set 420.75: the limits are the fixture's again */
    check_restored();
    free(sum);
    free(clk);
    free(p);
}

/* A kernel holding another frequency (a fixed cur_freq), and a clock that
 * drops while a run goes on, the board hot meanwhile. */
void test_sweep_clocks_clamp_and_throttle_flagged(void);
void test_sweep_clocks_clamp_and_throttle_flagged(void)
{
    char comp[4096], cur[1200], script[1300], text[8192];
    pp_profile *p;
    pp_sweep_options o = {0};
    pp_sweep_stats st;
    char *sum, *clk;

    snprintf(cur, sizeof cur, "%s", agx_root());
    snprintf(script, sizeof script, "%s/drop.sh", test_tmpdir());
    snprintf(text, sizeof text,
             "[ \"$1\" = 2 ] || exit 0\nsleep 0.3\nrm %s" GV11B "cur_freq\n"
             "echo 522750000 > %s" GV11B "cur_freq\n"
             "echo 91000 > %s/sys/class/thermal/thermal_zone1/temp\nsleep 0.3\n",
             cur, cur, cur);
    CHECK_INT(write_file(script, text), 0);
    snprintf(comp, sizeof comp, "{ type = \"exec\"; command = [\"/bin/sh\", \"%s\", \"{k}\"]; "
             "params = { k = [1, 2]; }; }", script);
    p = agx_profile(comp, "gpu_mhz = [1377];");
    CHECK_STR(g_root, cur);
    CHECK_INT(run_and_read(p, &o, &st, &sum, &clk), 0);
    CHECK_INT(st.ok, 1);
    CHECK_INT(st.failed, 1);
    CHECK_CONTAINS(clk, "\n0,0,1377,1377,1377,1377,1,0,45.5,CPU-therm\n");
    CHECK_CONTAINS(clk, "\n1,0,1377,1377,522.75,522.75,0,1,91,GPU-therm\n");
    CHECK_CONTAINS(sum, "clock not held: gpu_mhz set 1377 MHz; read 1377 before; 522.75 lowest; "
                        "522.75 after,");
    CHECK_CONTAINS(test_log(), "1 measurements did not hold their clocks (1 throttled");
    free(sum);
    free(clk);
    /* a clamp before the run: the kernel holds 905.25 */
    free(p);
    p = agx_profile("{ type = \"idle\"; duration_s = 0.05; }", "gpu_mhz = [1377];");
    o.out_dir = g_out;
    snprintf(cur, sizeof cur, "%s" GV11B "cur_freq", g_root);
    unlink(cur);
    write_file(cur, "905250000\n");
    CHECK_INT(pp_sweep_run(p, &o, &st), 0);
    CHECK_INT(st.failed, 1);
    clk = out_file("clocks.csv");
    CHECK_CONTAINS(clk, "\n0,0,1377,905.25,905.25,905.25,0,1,");
    free(clk);
    free(p);
}

static atomic_int g_stop;

static void stop_after_1(void *ctx, const pp_sweep_progress *pr)
{
    (void)ctx;
    if (pr->done == 1)
        atomic_store(&g_stop, 1);
}

/* The end of the sweep by an interruption (what SIGINT/SIGTERM set) and
 * by max_failures: the clocks are back either way. */
void test_sweep_clocks_restored_on_interrupt_and_stop(void);
void test_sweep_clocks_restored_on_interrupt_and_stop(void)
{
    pp_profile *p = agx_profile("{ type = \"idle\"; duration_s = 0.05; }",
                                "gpu_mhz = [420.75, 828.75, 1377.0]; cpu_mhz = [1190.4]; "
                                "emc_mhz = [1600];");
    pp_sweep_options o = {0};
    pp_sweep_stats st;

    o.out_dir = g_out;
    o.interrupt = &g_stop;
    o.progress = stop_after_1;
    CHECK_INT(pp_sweep_run(p, &o, &st), -EINTR);
    CHECK_INT(st.ran, 1);
    check_restored();
    free(p);
    p = agx_profile("{ type = \"exec\"; command = [\"sh\", \"-c\", \"exit 3\"]; }",
                    "gpu_mhz = [420.75, 828.75, 1377.0];");
    memset(&o, 0, sizeof o);
    o.out_dir = g_out;
    o.max_failures = 2;
    CHECK_INT(pp_sweep_run(p, &o, &st), -ENOTRECOVERABLE);
    CHECK_INT(st.ran, 2);
    check_restored();
    free(p);
}

/* Wait until the fake GPU's max_freq reads want (10 s at most). */
static int wait_for_max(const char *want)
{
    for (int i = 0; i < 1000; i++) {
        if (strcmp(sys(GV11B "max_freq"), want) == 0)
            return 1;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return 0;
}

/* A workload that says it started (the file go.started: it runs, past
 * its exec) and waits for the file go (so that it is killed in the
 * middle), as an exec component. */
static void waiting_component(char *buf, size_t cap, const char *go)
{
    snprintf(buf, cap, "{ type = \"exec\"; command = [\"sh\", \"-c\", \"touch %s.started; while "
             "[ ! -e %s ]; do sleep 0.02; done\"]; }", go, go);
}

/* Wait until the workload has started (10 s at most). */
static int wait_started(const char *go)
{
    char path[1300];

    snprintf(path, sizeof path, "%s.started", go);
    for (int i = 0; i < 1000; i++) {
        if (access(path, F_OK) == 0)
            return 1;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return 0;
}

void test_sweep_clocks_restored_after_kill_9(void);
void test_sweep_clocks_restored_after_kill_9(void)
{
    char comp[4096], go[600], record[2048];
    pp_profile *p;
    pp_sweep_options o = {0};
    pp_sweep_stats st;
    pid_t pid;
    int status = 0;

    snprintf(go, sizeof go, "%s/go", test_tmpdir());
    waiting_component(comp, sizeof comp, go);
    p = agx_profile(comp, "gpu_mhz = [420.75]; emc_mhz = [1600];");
    o.out_dir = g_out;
    pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        pp_sweep_run(p, &o, &st);
        _exit(0);
    }
    CHECK(wait_started(go));
    CHECK(wait_for_max("420750000"));
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    /* left changed, with the record of what it was */
    CHECK_STR(sys(GV11B "min_freq"), "420750000");
    CHECK_STR(sys("/sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"), "1");
    snprintf(record, sizeof record, "%s/%s", g_out, PP_CLOCKS_RECORD);
    CHECK(access(record, F_OK) == 0);
    /* the next start puts it back before anything, then runs and restores */
    write_file(go, "");
    o.resume = 1;
    CHECK_INT(pp_sweep_run(p, &o, &st), 0);
    CHECK_INT(st.ok, 1);
    CHECK_CONTAINS(test_log(), "a sweep ended without restoring the clocks (killed?): 4 clock files");
    check_restored();
    free(p);
}

/* A signal to `powprof profile` while a clock is changed: exit 130 (the
 * rows kept), the clocks back. */
static void signal_cli(int sig)
{
    char comp[4096], go[600];
    const char *bin = getenv("POWPROF_BIN");
    pp_profile *p;
    pid_t pid;
    int status = 0;

    snprintf(go, sizeof go, "%s/go%d", test_tmpdir(), sig);
    waiting_component(comp, sizeof comp, go);
    p = agx_profile(comp, "gpu_mhz = [828.75, 420.75];");
    free(p);
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        execl(bin, bin, "profile", g_cfg, "-o", g_out, "--yes", (char *)NULL);
        _exit(127);
    }
    CHECK(wait_started(go));
    CHECK(wait_for_max("828750000"));
    kill(pid, sig);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 130);
    check_restored();
}

void test_sweep_clocks_restored_on_sigterm_sigint_cli(void);
void test_sweep_clocks_restored_on_sigterm_sigint_cli(void)
{
    signal_cli(SIGTERM);
    signal_cli(SIGINT);
}

/* An error in the middle (nvpmodel refuses the second mode): the sweep
 * stops with it, and the mode and the clocks are back. */
void test_sweep_clocks_restored_on_error(void);
void test_sweep_clocks_restored_on_error(void)
{
    char script[1200], text[4096], clocks[2048], *mode;
    pp_profile *p;
    pp_sweep_options o = {0};
    pp_sweep_stats st;

    snprintf(script, sizeof script, "%s/nvpmodel-3-refused", test_tmpdir());
    snprintf(text, sizeof text,
             "#!/bin/sh\nf='%s/mode'\n[ -f \"$f\" ] || echo 2 > \"$f\"\n"
             "case \"$1\" in -q) cat \"$f\";; -m) [ \"$2\" != 3 ] || exit 1; echo \"$2\" > \"$f\";;"
             "esac\n", test_tmpdir());
    CHECK_INT(write_file(script, text), 0);
    CHECK_INT(chmod(script, 0755), 0);
    snprintf(clocks, sizeof clocks, "nvpmodel = [0, 3]; gpu_mhz = [420.75]; nvpmodel_command = "
             "\"%s\";", script);
    p = agx_profile("{ type = \"idle\"; duration_s = 0.05; }", clocks);
    o.out_dir = g_out;
    CHECK_INT(pp_sweep_run(p, &o, &st), -EIO);
    CHECK_INT(st.ok, 1);
    CHECK_CONTAINS(test_log(), "nvpmodel-3-refused -m 3: exit status 1");
    snprintf(text, sizeof text, "%s/mode", test_tmpdir());
    mode = slurp(text);
    CHECK_STR(mode, "2\n");
    check_restored();
    free(mode);
    free(p);
}

int as_nobody(int (*fn)(void *ctx, char *buf, size_t cap), void *ctx, char *out, size_t cap);

/* As nobody: the checks fail, their messages into buf. */
static int check_fails(void *ctx, char *buf, size_t cap)
{
    test_log_clear();
    if (pp_sweep_check(ctx) == 0)
        return 1;
    snprintf(buf, cap, "%s", test_log());
    return 0;
}

/* Without root the checks (and --dry-run) name the file before any run. */
void test_sweep_clocks_check_names_file_needing_root(void);
void test_sweep_clocks_check_names_file_needing_root(void)
{
    pp_profile *p = agx_profile("{ type = \"idle\"; duration_s = 0.05; }",
                                "gpu_mhz = [420.75, 700.0];");
    char log[8192] = "";

    CHECK_INT(as_nobody(check_fails, p, log, sizeof log), 0);
    CHECK_CONTAINS(log, "clocks.gpu_mhz = 700: not a frequency of 17000000.gv11b");
    CHECK_CONTAINS(log, "clocks.gpu_mhz: ");
    CHECK_CONTAINS(log, GV11B "min_freq: cannot be written: permission denied");
    free(p);
}

void test_sweep_clocks_nvpmodel_modes_and_back(void);
void test_sweep_clocks_nvpmodel_modes_and_back(void)
{
    char clocks[2048], path[2048], *clk, *mode;
    const char *cmd = fake_nvpmodel(test_tmpdir());
    pp_profile *p;
    pp_sweep_options o = {0};
    pp_sweep_stats st;

    snprintf(clocks, sizeof clocks, "nvpmodel = [0, 3]; gpu_mhz = [420.75]; nvpmodel_command = "
             "\"%s\";", cmd);
    p = agx_profile("{ type = \"idle\"; duration_s = 0.05; }", clocks);
    o.out_dir = g_out;
    CHECK_INT(pp_sweep_run(p, &o, &st), 0);
    CHECK_INT(st.ok, 2);
    clk = out_file("clocks.csv");
    CHECK_CONTAINS(clk, "id,repeat,gpu_set_mhz,gpu_before_mhz,gpu_lowest_mhz,gpu_after_mhz,"
                        "nvpmodel,clock_ok,");
    CHECK_CONTAINS(clk, "\n1,0,420.75,420.75,420.75,420.75,3,1,0,");
    snprintf(path, sizeof path, "%s/mode", test_tmpdir());
    mode = slurp(path);
    CHECK_STR(mode, "2\n"); /* the fake's mode before the sweep */
    check_restored();
    free(mode);
    free(clk);
    free(p);
    /* a mode the board's nvpmodel.conf does not list */
    snprintf(clocks, sizeof clocks, "nvpmodel = [7]; nvpmodel_command = \"%s\";", cmd);
    p = agx_profile("{ type = \"idle\"; duration_s = 0.05; }", clocks);
    CHECK(pp_sweep_check(p) < 0);
    CHECK_CONTAINS(test_log(), "clocks.nvpmodel = 7: no such mode in ");
    free(p);
}

/* The profile text is refused, saying why. */
static void refused(pp_profile *p, const char *text, const char *why)
{
    write_file(g_cfg, text);
    test_log_clear();
    CHECK_INT(pp_profile_load(g_cfg, p), -EINVAL);
    CHECK_CONTAINS(test_log(), why);
}

void test_profile_clocks_parameters(void);
void test_profile_clocks_parameters(void)
{
    pp_profile *p = agx_profile("{ type = \"idle\"; duration_s = 0.05; params = { k = [1, 2]; }; }",
                                "gpu_mhz = \"available\"; cpu_mhz = { from = 1000; to = 2000; "
                                "step = 500; };");
    char name[160], bad[600];
    double v[4];

    CHECK_INT(pp_profile_n_params(p), 3);
    CHECK_INT(pp_profile_count(p), 2 * 3 * 14);
    pp_profile_param_name(p, 1, name, sizeof name);
    CHECK_STR(name, "clocks.cpu_mhz");
    pp_profile_param_name(p, 2, name, sizeof name);
    CHECK_STR(name, "clocks.gpu_mhz");
    pp_profile_values(p, 2 * 3 * 14 - 1, v);
    CHECK_NEAR(v[0], 2, 0);
    CHECK_NEAR(v[1], 2000, 0);
    CHECK_NEAR(v[2], 1377, 1e-9);
    free(p);
    const char *cases[][2] = {
        {"gpu_mhz = [\"fast\"];", "gpu_mhz: a number, a list of numbers, a range"},
        {"nvpmodel = [1.5];", "1.5 is not a power mode"},
        {"gpu_mhz = [-3];", "-3 MHz is not a frequency"},
        {"gpu_hz = [3];", "gpu_hz"},
        {"nvpmodel_command = \"nvpmodel\";", "'nvpmodel': an absolute path"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p = malloc(sizeof *p);
        snprintf(bad, sizeof bad, "components = ({ type = \"idle\"; duration_s = 0.05; });\n"
                 "clocks = { %s };\n", cases[i][0]);
        refused(p, bad, cases[i][1]);
        CHECK_CONTAINS(test_log(), "clocks.cfg:2");
        free(p);
    }
    p = malloc(sizeof *p);
    write_file(g_cfg, "components = ({ type = \"idle\"; duration_s = 0.05; });\n"
                      "nvpmodel = [0, 2];\n");
    CHECK_INT(pp_profile_load(g_cfg, p), 0);
    pp_profile_param_name(p, 0, name, sizeof name);
    CHECK_STR(name, "clocks.nvpmodel");
    CHECK_INT(pp_profile_count(p), 2);
    refused(p, "components = ({ name = \"clocks\"; type = \"idle\"; duration_s = 0.05; });\n"
               "clocks = { gpu_mhz = 420.75; };\n", "a component is called 'clocks' too");
    refused(p, "components = ({ type = \"idle\"; duration_s = 0.05; });\n"
               "nvpmodel = [0, 2];\nclocks = { nvpmodel = 1; };\n",
            "clocks.cfg:2: nvpmodel: given twice");
    /* this machine: no GPU table under / */
    refused(p, "components = ({ type = \"idle\"; duration_s = 0.05; });\n"
               "clocks = { gpu_mhz = \"available\"; };\n",
            "\"available\": this machine (root /) has no table of gpu");
    free(p);
}
