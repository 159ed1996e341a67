/* Issue 23: merge, plan, plot --plan, model.json and full disks against
 * hostile or broken input. Each test is a reproducer of the issue
 * (tests/fixtures/issue23/README): a clear error naming the file and the
 * line or key, a non-zero exit, nothing read through a link, nothing left
 * behind, nothing cut short left under its name. */
#include "harness.h"
#include "limited.h"

#include "src/base/util.h"
#include "src/results/summary.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* DIR/s0 and DIR/s1: two shards of tiny.cfg (nodes vm and other). */
static void make_shards(const char *dir)
{
    char s0[600], s1[600];

    mkdir(dir, 0755);
    snprintf(s0, sizeof s0, "%s/s0", dir);
    snprintf(s1, sizeof s1, "%s/s1", dir);
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue23/tiny.cfg"), "-o", s0, "--shard", "1/2",
                 "--yes", "--node", "vm", NULL), 0);
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue23/tiny.cfg"), "-o", s1, "--shard", "2/2",
                 "--yes", "--node", "other", NULL), 0);
}

/* A whole run of tiny.cfg with its model in dir. */
static void make_results(const char *dir)
{
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue23/tiny.cfg"), "-o", dir, "--yes", NULL), 0);
    CHECK_INT(pp(NULL, NULL, "model", dir, NULL), 0);
}

/* The entries of dir whose name holds part. */
static int entries_with(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}

static void copy_tree(const char *from, const char *to)
{
    char *cp[] = {"cp", "-a", (char *)from, (char *)to, NULL};
    CHECK_INT(run_argv(cp, NULL, NULL), 0);
}

/* Line line_no (1 = the header) of dir/summary.csv with its cell col
 * (0-based) replaced by value. */
static void edit_cell(const char *dir, int line_no, int col, const char *value)
{
    char path[700], *text, *out, *p;
    size_t len = 0;
    int line = 1, c = 0;

    snprintf(path, sizeof path, "%s/summary.csv", dir);
    text = slurp(path);
    CHECK(text != NULL);
    if (!text)
        return;
    out = malloc(strlen(text) + strlen(value) + 1);
    for (p = text; *p; p++) {
        int here = line == line_no && c == col;
        if (here && *p != ',' && *p != '\n')
            continue;
        if (here && (*p == ',' || *p == '\n'))
            len += (size_t)sprintf(out + len, "%s", value), c++;
        else if (line == line_no && *p == ',')
            c++;
        out[len++] = *p;
        if (*p == '\n')
            line++, c = 0;
    }
    out[len] = '\0';
    write_file(path, out);
    free(out);
    free(text);
}

/* ---- merge ---------------------------------------------------------------- */

/* Items 1 and 13: nothing read through a link (a trace, profile.cfg,
 * traces/ itself, summary.csv); a trace that is a folder named as the
 * source it is. Nothing written. */
void test_merge_links_refused(void);
void test_merge_links_refused(void)
{
    const char *base = tmp_path("links");
    char path[700], *err = NULL, *out = NULL, s0[600], s1[600];
    static const char *const cases[] = {"traces/0.csv", "profile.cfg", "traces", "summary.csv"};

    make_shards(base);
    snprintf(s1, sizeof s1, "%s/s1", base);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(s0, sizeof s0, "%s/case%zu", base, i);
        copy_tree(tmp_path("links/s0"), s0);
        snprintf(path, sizeof path, "%s/%s", s0, cases[i]);
        if (strcmp(cases[i], "traces") == 0) {
            char moved[700];
            snprintf(moved, sizeof moved, "%s/real-traces", base);
            CHECK_INT(rename(path, moved), 0);
            CHECK_INT(symlink(moved, path), 0);
        } else {
            char copy[700];
            snprintf(copy, sizeof copy, "%s/outside-%zu", base, i);
            CHECK_INT(rename(path, copy), 0);
            CHECK_INT(symlink(strcmp(cases[i], "profile.cfg") == 0 ? "/etc/passwd" : copy, path), 0);
        }
        CHECK_INT(pp(&out, &err, "merge", s0, s1, "-o", tmp_path("links/out"), NULL), 2);
        CHECK_CONTAINS(err, "a symbolic link: refused");
        CHECK_CONTAINS(err, cases[i]);
        CHECK(access(tmp_path("links/out"), F_OK) != 0);
        CHECK_INT(entries_with(base, ".merge."), 0);
        free(out);
        free(err);
    }
    /* a trace that is a folder: the source named, not the output */
    snprintf(s0, sizeof s0, "%s/dirtrace", base);
    copy_tree(tmp_path("links/s0"), s0);
    snprintf(path, sizeof path, "%s/traces/2.csv", s0);
    unlink(path);
    mkdir(path, 0755);
    CHECK_INT(pp(NULL, &err, "merge", s0, s1, "-o", tmp_path("links/out"), NULL), 2);
    CHECK_CONTAINS(err, "dirtrace/traces/2.csv: not a regular file");
    CHECK_INT(entries_with(base, ".merge."), 0);
    free(err);
}

/* Items 5 and 11: merge reads rows with the one row reader: what model
 * refuses, merge refuses, with the file and line; a header-only
 * summary.csv adds no row (and alone is no merge). */
void test_merge_rows_read_as_model_reads(void);
void test_merge_rows_read_as_model_reads(void)
{
    const char *base = tmp_path("rows");
    static const struct {
        int col_from_end; /* 0: id (the first cell); else counted from the end */
        const char *value, *says;
    } bad[] = {
        {0, "-1", "summary.csv:2: id '-1' is not a whole number >= 0"},
        {1, "-1", "summary.csv:2: repeat '-1' is not a count"},
        {1, "1e95", "summary.csv:2: repeat '1e95' is not a count"},
        {0, "0x1", "summary.csv:2: id '0x1' is not a whole number"},
    };
    char dir[700], s1[700], path[700], *err = NULL, *text;
    int n_cols = 0;

    make_shards(base);
    snprintf(s1, sizeof s1, "%s/s1", base);
    snprintf(path, sizeof path, "%s/s0/summary.csv", base);
    text = slurp(path);
    for (const char *c = text; c && *c != '\n'; c++)
        n_cols += *c == ',';
    n_cols++;
    free(text);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(dir, sizeof dir, "%s/bad%zu", base, i);
        copy_tree(tmp_path("rows/s0"), dir);
        edit_cell(dir, 2, bad[i].col_from_end ? n_cols - bad[i].col_from_end : 0, bad[i].value);
        CHECK_INT(pp(NULL, &err, "merge", dir, s1, "-o", tmp_path("rows/out"), NULL), 2);
        CHECK_CONTAINS(err, bad[i].says);
        CHECK(access(tmp_path("rows/out"), F_OK) != 0);
        free(err);
    }
    /* a metric cell that is no number: model's message, from merge */
    snprintf(dir, sizeof dir, "%s/abc", base);
    copy_tree(tmp_path("rows/s0"), dir);
    edit_cell(dir, 2, 11, "abc");
    CHECK_INT(pp(NULL, &err, "merge", dir, s1, "-o", tmp_path("rows/out"), NULL), 2);
    CHECK_CONTAINS(err, "abc/summary.csv:2:");
    CHECK_CONTAINS(err, "'abc' is not a number");
    free(err);
    /* the header alone: no row; with another shard, that shard's rows */
    snprintf(dir, sizeof dir, "%s/head", base);
    copy_tree(tmp_path("rows/s1"), dir);
    text = slurp(path);
    CHECK(text != NULL);
    if (!text)
        return;
    strchr(text, '\n')[1] = '\0';
    snprintf(path, sizeof path, "%s/head/summary.csv", base);
    write_file(path, text);
    free(text);
    CHECK_INT(pp(NULL, &err, "merge", dir, "-o", tmp_path("rows/out"), NULL), 2);
    CHECK_CONTAINS(err, "head/summary.csv: no rows: nothing to merge");
    free(err);
    CHECK_INT(pp(&text, NULL, "merge", tmp_path("rows/s0"), dir, "-o", tmp_path("rows/out"),
                 "--json", NULL), 0);
    CHECK_CONTAINS(text, "\"rows\":4,");
    free(text);
}

/* A big source (2 x 800 rows with traces) for a merge that lasts long
 * enough to be interrupted. */
static void big_source(const char *dir, int parity)
{
    char path[700], body[200 * 16 + 1];
    FILE *fp;
    size_t len = 0;

    for (int i = 0; i < 200; i++)
        len += (size_t)snprintf(body + len, sizeof body - len, "%.3f,1.5\n", i * 0.02);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/traces", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    fp = fopen(path, "w");
    fputs("id,p,status,total_mean_w,node,repeat\n", fp);
    for (int i = parity; i < 1600; i += 2) {
        FILE *t;
        fprintf(fp, "%d,%d,ok,1.5,n%d,0\n", i, i, parity);
        snprintf(path, sizeof path, "%s/traces/%d.csv", dir, i);
        if ((t = fopen(path, "w"))) {
            fprintf(t, "t_s,x_w\n%s", body);
            fclose(t);
        }
    }
    fclose(fp);
}

/* powprof merge b0 b1 -o out started; its pid. */
static pid_t start_merge(const char *b0, const char *b1, const char *out)
{
    pid_t pid;

    fflush(NULL);
    if ((pid = fork()) == 0) {
        int null_fd = open("/dev/null", O_RDWR);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        execl(powprof_bin(), powprof_bin(), "merge", b0, b1, "-o", out, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Item 13: merge interrupted by SIGINT or SIGTERM leaves nothing; killed
 * with SIGKILL, its folder is removed by the next merge beside it; OUT/ is
 * OUT; the merged folder is 0755 less the umask. */
void test_merge_leftovers(void);
void test_merge_leftovers(void)
{
    const char *base = tmp_path("left");
    static const int sigs[] = {SIGINT, SIGTERM, SIGKILL};
    char b0[700], b1[700], out[700], *err = NULL;
    struct stat st;
    int caught = 0;

    mkdir(base, 0755);
    snprintf(b0, sizeof b0, "%s/b0", base);
    snprintf(b1, sizeof b1, "%s/b1", base);
    snprintf(out, sizeof out, "%s/out", base);
    big_source(b0, 0);
    big_source(b1, 1);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        pid_t pid = start_merge(b0, b1, out);
        double t0 = now_s();
        int status;
        while (entries_with(base, ".merge.") == 0 && now_s() - t0 < 10)
            usleep(200);
        kill(pid, sigs[i]);
        waitpid(pid, &status, 0);
        if (access(out, F_OK) == 0) { /* done before the signal: try again */
            char *rm[] = {"rm", "-rf", out, NULL};
            run_argv(rm, NULL, NULL);
            continue;
        }
        caught++;
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i]);
        CHECK_INT(entries_with(base, ".merge."), sigs[i] == SIGKILL ? 1 : 0);
    }
    CHECK(caught >= 1);
    /* the next merge removes what the killed one left, and OUT/ is OUT */
    snprintf(out, sizeof out, "%s/new/", base);
    umask(022);
    CHECK_INT(pp(NULL, &err, "merge", b0, b1, "-o", out, NULL), 0);
    CHECK_INT(entries_with(base, ".merge."), 0);
    snprintf(out, sizeof out, "%s/new", base);
    CHECK_INT(stat(out, &st), 0);
    CHECK_INT(st.st_mode & 0777, 0755);
    free(err);
}

/* ---- full disks (a tmpfs: root only) ------------------------------------------ */

/* A tmpfs of size at dir: 0, or -1 (said why: the test is skipped). */
static int small_disk(const char *dir, const char *size)
{
    char opts[64];

    mkdir(dir, 0755);
    snprintf(opts, sizeof opts, "size=%s", size);
    if (mount("tmpfs", dir, "tmpfs", 0, opts) != 0) {
        printf("skip: full-disk reproducers of issue 23 need a tmpfs (root): mount: %s\n",
               strerror(errno));
        return -1;
    }
    return 0;
}

/* dir emptied. */
static void clear(const char *dir)
{
    char *rm[] = {"sh", "-c", "cd \"$0\" && rm -rf ./* ./.[!.]*", (char *)dir, NULL};
    run_argv(rm, NULL, NULL);
}

/* dir/fill of kb KiB (as much as fits). */
static void fill(const char *dir, int kb)
{
    char path[700], block[1024] = {0};
    FILE *fp;

    snprintf(path, sizeof path, "%s/fill", dir);
    if ((fp = fopen(path, "w"))) {
        for (int i = 0; i < kb; i++)
            fwrite(block, 1, sizeof block, fp);
        fclose(fp);
    }
}

/* plot RESULTS with gnuplot out of PATH (the scripts and data only). */
static int plot_without_gnuplot(const char *res, char **err, const char *json)
{
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    int rc;

    setenv("PATH", "/nonexistent", 1);
    rc = pp(NULL, err, "plot", res, json, NULL);
    setenv("PATH", path, 1);
    free(path);
    return rc;
}

/* Item 4: merge and plot on a nearly full disk: every failure said with
 * the file and the reason; nothing cut short left, no temporary folder. */
void test_merge_full_disk(void);
void test_merge_full_disk(void)
{
    const char *base = tmp_path("disk"), *mnt = tmp_path("disk/mnt");
    char out[700], res[700], *err = NULL;
    int failed = 0;

    make_shards(base);
    if (small_disk(mnt, "200k") < 0)
        return;
    snprintf(out, sizeof out, "%s/out", mnt);
    for (int kb = 140; kb <= 196; kb += 2) {
        int rc;
        clear(mnt);
        fill(mnt, kb);
        rc = pp(NULL, &err, "merge", tmp_path("disk/s0"), tmp_path("disk/s1"), "-o", out, NULL);
        if (rc != 0) {
            failed++;
            CHECK_INT(rc, 125);
            CHECK_CONTAINS(err, ": cannot write: No space left on device");
            CHECK(access(out, F_OK) != 0);
        }
        CHECK_INT(entries_with(mnt, ".merge."), 0);
        free(err);
    }
    CHECK(failed > 0);
    umount(mnt);
    /* plot: a whole results folder, the plots on a full disk */
    make_results(tmp_path("disk/res"));
    if (small_disk(mnt, "2m") < 0)
        return;
    snprintf(res, sizeof res, "%s/res", mnt);
    failed = 0;
    for (int kb = 1500; kb <= 2000; kb += 50) {
        int rc;
        char plots[800];
        char *cp[] = {"sh", "-c", "mkdir \"$1\" && cd \"$0\" && cp -a traces summary.csv run.json "
                      "model.json profile.cfg \"$1\"", (char *)tmp_path("disk/res"), res, NULL};
        clear(mnt);
        CHECK_INT(run_argv(cp, NULL, NULL), 0); /* not model/: the plots' data is what fills */
        fill(mnt, kb);
        rc = plot_without_gnuplot(res, &err, "--json");
        snprintf(plots, sizeof plots, "%s/plots", res);
        if (rc != 0) {
            failed++;
            CHECK_INT(rc, 125);
            CHECK_CONTAINS(err, ": cannot write: No space left on device");
        }
        CHECK_INT(entries_with(plots, ".tmp"), 0);
        free(err);
    }
    CHECK(failed > 0);
    umount(mnt);
}

/* ---- profile, plan, model.json, plot --plan -------------------------------------- */

/* Item 12: a --node name is checked whole, never cut. */
void test_profile_node_name_whole(void);
void test_profile_node_name_whole(void)
{
    char name[200], *err = NULL;

    memset(name, 'a', 127);
    strcpy(name + 127, "1");
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue23/tiny.cfg"), "--node", name, "-o",
                 tmp_path("b1"), "--yes", NULL), 2);
    CHECK_CONTAINS(err, "128 characters, at most 127");
    CHECK(access(tmp_path("b1"), F_OK) != 0);
    free(err);
}

/* Items 2, 10 and 14: plan's --resolution refused past 50000 values or
 * below what the values resolve, at once; a mission the battery model
 * cannot fly refused by the option; numbers are decimal. */
void test_plan_steps_and_missions(void);
void test_plan_steps_and_missions(void)
{
    static const char *const tiny[] = {"w.a=1e-8", "w.a=1e-12", "w.a=1e-16", "w.a=1e-300"};
    static const char *const missions[] = {"1e-9", "1e300", "0x10", "inf", "nan", "0"};
    const char *res = tmp_path("res");
    char *err = NULL, *out = NULL;

    make_results(res);
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++) {
        double t0 = now_s();
        CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", "600", "--resolution", tiny[i], NULL),
                  2);
        CHECK(now_s() - t0 < 10);
        CHECK_CONTAINS(err, "plan: parameter w.a: a step of");
        CHECK_CONTAINS(err, "at most 50000: give a step of at least 6e-05");
        free(err);
    }
    CHECK_INT(pp(&out, NULL, "plan", res, "--mission-s", "600", "--resolution", "w.a=0.0001",
                 "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"feasible\"");
    free(out);
    for (size_t i = 0; i < sizeof missions / sizeof missions[0]; i++) {
        CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", missions[i], NULL), 2);
        CHECK_CONTAINS(err, "--mission-s");
        free(err);
    }
}

/* Item 7: every number of model.json range-checked, with the file and the
 * key, before a prediction or a plan uses it. */
void test_model_json_checked(void);
void test_model_json_checked(void)
{
    const char *res = tmp_path("res");
    char path[700], *text, *at, *err = NULL;

    make_results(res);
    snprintf(path, sizeof path, "%s/model.json", res);
    text = slurp(path);
    CHECK(text != NULL);
    at = text ? strstr(text, "\"q\":") : NULL;
    CHECK(at != NULL);
    if (!at)
        return;
    memcpy(at, "\"q\":-5", 6); /* the first metric's band, negative */
    for (char *c = at + 6; *c && *c != ',' && *c != '\n' && *c != '}'; c++)
        *c = ' ';
    write_file(path, text);
    free(text);
    CHECK_INT(pp(NULL, &err, "predict", res, "w.a=2", "w.b=1", NULL), 2);
    CHECK_CONTAINS(err, "model.json: groups[0]");
    CHECK_CONTAINS(err, "band.q -5 is out of range");
    free(err);
    CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", "600", NULL), 2);
    CHECK_CONTAINS(err, "band.q -5 is out of range");
    free(err);
    CHECK_INT(pp(NULL, NULL, "model", res, NULL), 0); /* built again: usable */
    CHECK_INT(pp(NULL, NULL, "predict", res, "w.a=2", "w.b=1", NULL), 0);
}

/* Items 3 and 10: plot when the lowest-power configuration has no trace
 * (a valid gnuplot command); plot --plan with a plan edited by hand. */
void test_plot_checked(void);
void test_plot_checked(void)
{
    static const struct {
        const char *file, *says;
    } plans[] = {
        {"issue23/plan-negative-planned.json", "plan-negative-planned.json: best.planned_w -1: out of range"},
        {"issue23/plan-huge-mission.json", "plan-huge-mission.json: mission_s 1e+300: out of range"},
        {"issue23/plan-huge-step-power.json",
         "plan-huge-step-power.json: schedule[0].planned_w 1e+308: out of range"},
    };
    const char *res = tmp_path("res");
    char path[700], *err = NULL, *script;
    pp_summary s;
    size_t low = 0;
    int mw;

    make_results(res);
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        CHECK_INT(pp(NULL, &err, "plot", res, "--plan", fixture(plans[i].file), NULL), 2);
        CHECK_CONTAINS(err, plans[i].says);
        free(err);
    }
    CHECK_INT(pp_summary_read(res, &s), 0);
    if (s.n_rows == 0)
        return;
    mw = pp_summary_metric(&s, "total_mean_w");
    for (size_t i = 1; mw >= 0 && i < s.n_rows; i++)
        if (s.y[i * s.n_metrics + (size_t)mw] < s.y[low * s.n_metrics + (size_t)mw])
            low = i;
    snprintf(path, sizeof path, "%s/traces/%ld.csv", res, s.ids[low]);
    CHECK_INT(unlink(path), 0);
    pp_summary_free(&s);
    CHECK_INT(plot_without_gnuplot(res, NULL, "--json"), 0);
    snprintf(path, sizeof path, "%s/plots/layer1-total.gp", res);
    script = slurp(path);
    CHECK(script != NULL);
    CHECK(script && !strstr(script, "\nplot,"));
    CHECK_CONTAINS(script, "\nplot  '../traces/");
    free(script);
    CHECK_INT(entries_with(tmp_path("res/plots"), ".tmp"), 0);
}

/* Items 11 and 14: counts in range (samples=1e95 once overflowed a long);
 * numbers are decimal everywhere. */
void test_util_numbers(void);
void test_util_numbers(void)
{
    static const char *const refused[] = {"0x10", "0X1p3", "inf", "-Infinity", "nan", "1e", "e5",
                                          ".", "1.2.3", "0x", "1,5"};
    static const char *const taken[] = {"16", "-0.5", ".5", "5.", "+2e-3", " 7 ", "1E3"};
    pp_summary s;
    double v;
    const char *dir;

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK_INT(pp_parse_double(refused[i], &v), -EINVAL);
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        CHECK_INT(pp_parse_double(taken[i], &v), 0);
    dir = results_folder_with("count", "id,p,status,samples,total_mean_w,reason\n"
                                       "0,1,ok,1e95,1.5,\n1,2,ok,100,2,\n", NULL);
    test_log_clear();
    CHECK_INT(pp_summary_read(dir, &s), -EINVAL);
    CHECK_CONTAINS(test_log(), "summary.csv:2: samples '1e95' is not a count");
    dir = results_folder_with("hex", "id,p,status,total_mean_w,reason\n0,0x10,ok,1.5,\n"
                                     "1,2,ok,2,\n2,3,ok,3,\n", NULL);
    CHECK_INT(pp_summary_read(dir, &s), 0); /* 0x10 is no number: p is a label */
    CHECK_INT(s.param[0].kind, PP_PARAM_CATEGORICAL);
    pp_summary_free(&s);
    /* libconfig's hexadecimal integers are refused in profiles */
    {
        char cfg[700], *err = NULL, *text = slurp(fixture("issue23/tiny.cfg")), *at;
        CHECK(text != NULL);
        if (text && (at = strstr(text, "rate_hz = 50.0;"))) {
            memcpy(at, "rate_hz = 0x32;", 15);
            snprintf(cfg, sizeof cfg, "%s/hex.cfg", test_tmpdir());
            write_file(cfg, text);
            CHECK_INT(pp(NULL, &err, "profile", cfg, "--dry-run", NULL), 2);
            CHECK_CONTAINS(err, "hex.cfg:5: profile.rate_hz: must be a number, written in decimal");
            free(err);
        }
        free(text);
    }
    /* a row cut short by a crash (no line end) is left out, said */
    dir = results_folder_with("torn", "id,p,status,total_mean_w,reason\n0,1,ok,1.5,\n1,2,ok,2,\n"
                                      "2,3,o", NULL);
    test_log_clear();
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.n_rows, 2);
    CHECK_CONTAINS(test_log(), "summary.csv:4: cut short");
    pp_summary_free(&s);
}
