/* merge against hostile or broken input (the reproducers of
 * tests/fixtures/issue23/README): a clear error naming the file and the
 * line or key, a non-zero exit, nothing read through a link, nothing left
 * behind, nothing cut short left under its name, a full disk said. */
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
        double t0 = test_now_s();
        int status;
        while (entries_with(base, ".merge.") == 0 && test_now_s() - t0 < 10)
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
    tiny_profile_and_model(tmp_path("disk/res"));
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
