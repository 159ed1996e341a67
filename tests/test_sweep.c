#include "harness.h"

#include "src/config/profile.h"
#include "src/sweep/sweep.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_cfg[512], g_out[512];

static pp_profile *write_profile(const char *components)
{
    char text[4096];
    pp_profile *p = malloc(sizeof *p);

    snprintf(g_cfg, sizeof g_cfg, "%s/sweep.cfg", test_tmpdir());
    snprintf(g_out, sizeof g_out, "%s/out", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"t\"; device = \"jetson\"; rate_hz = 100; sysfs_root = \"%s\"; };\n"
             "components = (%s);\n",
             fixture("jetson-tx2-iio"), components);
    write_file(g_cfg, text);
    CHECK_INT(pp_profile_load(g_cfg, p), 0);
    return p;
}

/* ids of the rows of summary.csv, in order; returns the row count */
static int summary_ids(int *ids, int cap)
{
    char path[600];
    char *text, *line, *save = NULL;
    int n = 0, first = 1;

    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    text = slurp(path);
    if (!text)
        return -1;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (first) {
            first = 0;
            continue;
        }
        if (n < cap)
            ids[n] = atoi(line);
        n++;
    }
    free(text);
    return n;
}

static atomic_int g_stop;

static void stop_after_3(void *ctx, const pp_sweep_progress *pr)
{
    (void)ctx;
    if (pr->done == 3)
        atomic_store(&g_stop, 1);
}

void test_sweep_rows_traces_and_resume(void);
void test_sweep_rows_traces_and_resume(void)
{
    pp_profile *p = write_profile("{ type = \"idle\"; duration_s = 0.05;\n"
                                  "  params = { k = [1, 2, 3, 4, 5, 6]; }; }");
    pp_sweep_options o = {0};
    pp_sweep_stats st;
    int ids[16], n, seen[6] = {0};
    char path[700], *text;

    o.out_dir = g_out;
    o.interrupt = &g_stop;
    o.progress = stop_after_3;
    CHECK_INT(pp_sweep_run(p, &o, &st), -EINTR);
    CHECK(st.interrupted);
    CHECK_INT(st.ran, 3);
    CHECK_INT(summary_ids(ids, 16), 3);
    /* a crash in the middle of a row: a torn last line */
    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    {
        FILE *fp = fopen(path, "a");
        fputs("3,4,ok,0.05", fp);
        fclose(fp);
    }
    /* without --resume an existing summary is never overwritten */
    atomic_store(&g_stop, 0);
    o.progress = NULL;
    CHECK_INT(pp_sweep_run(p, &o, &st), -EEXIST);
    CHECK_CONTAINS(test_log(), "--resume");
    o.resume = 1;
    CHECK_INT(pp_sweep_run(p, &o, &st), 0);
    CHECK_INT(st.skipped, 3);
    CHECK_INT(st.ran, 3);
    n = summary_ids(ids, 16);
    CHECK_INT(n, 6);
    for (int i = 0; i < n && i < 16; i++)
        if (ids[i] >= 0 && ids[i] < 6)
            seen[ids[i]]++;
    for (int i = 0; i < 6; i++)
        CHECK_INT(seen[i], 1); /* none lost, none doubled */
    text = slurp(path);
    CHECK_CONTAINS(text, "id,idle.k,status,duration_s,iterations,late_frames,samples,short_run,"
                         "VDD_SYS_GPU_mean_w,");
    /* the board input alone is the total: 5.263 W */
    CHECK_CONTAINS(text, ",5.263000,");
    CHECK(strstr(text, "3,4,ok,0.05\n") == NULL);
    free(text);
    snprintf(path, sizeof path, "%s/traces/5.csv", g_out);
    text = slurp(path);
    CHECK(text && strncmp(text, "t_s,VDD_SYS_GPU_w,", 18) == 0);
    free(text);
    snprintf(path, sizeof path, "%s/run.json", g_out);
    text = slurp(path);
    CHECK_CONTAINS(text, "\"name\":\"VDD_IN\",\"estimated\":false,\"board_input\":true");
    CHECK_CONTAINS(text, "\"params\":{\"idle.k\":{\"scale\":\"list\",\"kind\":\"list\",\"values\":[1,2,3,4,5,6]}}");
    CHECK_CONTAINS(text, "\"battery\":{\"model\":\"rint\",\"cells\":4,\"capacity_ah\":3.2,");
    free(text);
    free(p);
}

void test_sweep_failed_configuration_goes_on(void);
void test_sweep_failed_configuration_goes_on(void)
{
    /* 0, 7, 0 (a list gives each value once: issue 32) */
    pp_profile *p = write_profile("{ type = \"exec\"; command = [\"sh\", \"-c\", \"exit $(($0 % 14))\", "
                                  "\"{code}\"];\n  params = { code = [0, 7, 14]; }; }");
    pp_sweep_options o = {0};
    pp_sweep_stats st;
    char path[700], *text;

    o.out_dir = g_out;
    CHECK_INT(pp_sweep_run(p, &o, &st), 0);
    CHECK_INT(st.ok, 2);
    CHECK_INT(st.failed, 1);
    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    text = slurp(path);
    CHECK_CONTAINS(text, "\n1,7,failed,");
    CHECK_CONTAINS(text, "exited with status 7");
    CHECK_CONTAINS(text, "\n2,14,ok,");
    free(text);
    free(p);
}

/* Ctrl-C on the command line: the configurations finished are kept, the
 * exit status is 130, and --resume completes the rest without doubles. */
void test_cli_profile_interrupt_and_resume(void);
void test_cli_profile_interrupt_and_resume(void)
{
    /* 0.21 .. 0.28 s: eight configurations of about 0.2 s */
    pp_profile *p = write_profile("{ type = \"exec\"; command = [\"sleep\", \"0.2{i}\"];\n"
                                  "  params = { i = [1, 2, 3, 4, 5, 6, 7, 8]; }; }");
    const char *bin = getenv("POWPROF_BIN");
    int ids[32], n, st, seen[8] = {0};
    pid_t pid;
    char *err = NULL;

    free(p);
    pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(bin, bin, "profile", g_cfg, "-o", g_out, (char *)NULL);
        _exit(127);
    }
    {
        /* from the start of the sweep (summary.csv made: the handler is in
         * place), however long powprof took to load (ASan: ~2 s) */
        char summary[600];
        snprintf(summary, sizeof summary, "%s/summary.csv", g_out);
        for (int i = 0; i < 3000 && access(summary, F_OK) != 0; i++)
            usleep(10000);
    }
    usleep(900000);
    kill(pid, SIGINT);
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 130);
    n = summary_ids(ids, 32);
    CHECK(n >= 1 && n < 8);
    CHECK_INT(run_powprof(NULL, &err, "profile", g_cfg, "-o", g_out, "--resume", NULL), 0);
    free(err);
    n = summary_ids(ids, 32);
    CHECK_INT(n, 8);
    for (int i = 0; i < n && i < 32; i++)
        if (ids[i] >= 0 && ids[i] < 8)
            seen[ids[i]]++;
    for (int i = 0; i < 8; i++)
        CHECK_INT(seen[i], 1);
}

void test_cli_profile_dry_run(void);
void test_cli_profile_dry_run(void)
{
    pp_profile *p = write_profile("{ name = \"m\"; type = \"matrix-cpu\"; iterations = 4; fps = 2;\n"
                                  "  params = { size = { from = 64; to = 256; factor = 2; }; }; }");
    char *out = NULL;

    free(p);
    CHECK_INT(run_powprof(&out, NULL, "profile", g_cfg, "--dry-run", NULL), 0);
    CHECK_CONTAINS(out, "m.size");
    CHECK_CONTAINS(out, "3 configurations of profile 't'");
    CHECK_CONTAINS(out, "at least 6 s");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "profile", g_cfg, "--dry-run", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"params\":[\"m.size\"]");
    CHECK_CONTAINS(out, "{\"id\":2,\"values\":[256],\"estimate_s\":2}");
    free(out);
    CHECK_INT(run_powprof(NULL, &out, "profile", "/nonexistent.cfg", NULL), 2);
    CHECK_CONTAINS(out, "/nonexistent.cfg");
    free(out);
}

/* Every shipped profile parses (or, where a module was not built here,
 * says what to install), and the quickstart fits its two minutes. */
void test_shipped_profiles(void);
void test_shipped_profiles(void)
{
    static const char *const files[] = {"configs/quickstart.cfg", "configs/drone-tx2.cfg",
                                        "configs/matrix-exponentiation.cfg",
                                        "configs/exec-example.cfg"};
    pp_profile *p = malloc(sizeof *p);
    double v[64];

    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        test_log_clear();
        if (pp_profile_load(files[i], p) < 0) {
            CHECK_CONTAINS(test_log(), "type: component type '");
            CHECK_CONTAINS(test_log(), "needs the module powprof-");
            CHECK_CONTAINS(test_log(), "; it needs ");
            fprintf(stderr, "    (%s: a module not built here)\n", files[i]);
            continue;
        }
        if (strstr(files[i], "quickstart")) {
            double total = 0;
            for (uint64_t id = 0; id < pp_profile_count(p); id++) {
                pp_profile_values(p, id, v);
                total += pp_profile_estimate_s(p, v);
            }
            CHECK(total > 10 && total <= 90);
        }
    }
    free(p);
}
