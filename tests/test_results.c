/* A results folder against hostile input and faults (reproducers of
 * tests/fixtures/issue33/README): one writer at a time, a full disk, a
 * commit that never replaces what is there. A clear error naming the file,
 * a non-zero exit, nothing lost. */
#include "harness.h"
#include "limited.h"

#include "src/base/util.h"
#include "src/results/lock.h"
#include "src/results/tmpdir.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- one writer per folder; the rows are the truth ---------------------------- */

/* A writer killed mid-write (kill -9 of profile --adaptive, repro-t5's
 * kill9-adaptive) leaves NAME.tmp.XXXXXX beside the file it was replacing:
 * the next writer removes its own kinds when it takes the lock, and
 * nothing else (model.json's belong to `model`, which takes no lock). */
void test_results_lock_removes_stale(void);
void test_results_lock_removes_stale(void)
{
    const char *dir = tmp_path("stale");
    static const char *const gone[] = {"summary.csv.tmp.Ab12Cd", "traces/3.csv.tmp.Xy34Zw",
                                       "adaptive.json.tmp.q9W8e7"};
    static const char *const kept[] = {"model.json.tmp.Qq11Rr", "summary.csv.tmp.Ab12",
                                       "summary.csv.tmp.Ab-2Cd", "traces/3.csv"};
    char path[700];

    CHECK_INT(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/traces", dir);
    CHECK_INT(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/run.json.tmp.Dd55Ee", dir); /* a folder: not a temporary */
    CHECK_INT(mkdir(path, 0755), 0);
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, gone[i]);
        CHECK_INT(write_file(path, "half"), 0);
    }
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, kept[i]);
        CHECK_INT(write_file(path, "x"), 0);
    }
    CHECK_INT(pp_results_lock(dir), 0);
    pp_results_unlock(dir);
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, gone[i]);
        CHECK(access(path, F_OK) != 0);
    }
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, kept[i]);
        CHECK(access(path, F_OK) == 0);
    }
    snprintf(path, sizeof path, "%s/run.json.tmp.Dd55Ee", dir);
    CHECK(access(path, F_OK) == 0);
}

/* Item 7: a second writer of a folder is refused while the first holds it
 * (here this process: the old code let both write, duplicating ids); model
 * refuses an id measured twice. */
void test_results_folder_lock(void);
void test_results_folder_lock(void)
{
    const char *dir = tmp_path("locked");
    char want[160], path[700], *err = NULL, *text;
    FILE *fp;

    CHECK_INT(mkdir(dir, 0755), 0);
    CHECK_INT(pp_results_lock(dir), 0);
    CHECK_INT(pp_results_lock(dir), 0); /* nested: an adaptive run's rounds */
    pp_results_unlock(dir);
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/tiny.cfg"), "-o", dir, "--yes", NULL), 2);
    snprintf(want, sizeof want, "is being written by another powprof (pid %ld)", (long)getpid());
    CHECK_CONTAINS(err, want);
    free(err);
    err = NULL;
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "4", "-o", dir, "--resume", NULL), 2);
    CHECK_CONTAINS(err, want);
    free(err);
    err = NULL;
    pp_results_unlock(dir);
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/tiny.cfg"), "-o", dir, "--yes", NULL), 0);
    CHECK_INT(rows_of(dir), 8);
    /* a row written twice (two writers before the lock) */
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    text = slurp(path);
    fp = fopen(path, "a");
    CHECK(text && fp);
    if (text && fp) {
        char *last = text + strlen(text) - 1;
        while (last > text && last[-1] != '\n')
            last--;
        fputs(last, fp);
    }
    if (fp)
        fclose(fp);
    free(text);
    CHECK_INT(pp(NULL, &err, "model", dir, NULL), 2);
    CHECK_CONTAINS(err, "summary.csv:10: id 7");
    CHECK_CONTAINS(err, "measured twice (also on line 9)");
    free(err);
}

/* sh -c script with $0 = a: its exit status. */
static int sh(const char *script, const char *a)
{
    char *argv[] = {"sh", "-c", (char *)script, (char *)a, NULL};
    return run_argv(argv, NULL, NULL);
}

/* Files under dir whose name holds part (a temporary file left behind). */
static int leftovers(const char *dir, const char *part)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "find \"$0\" -name '*%s*' | grep -q .", part);
    return sh(cmd, dir) == 0;
}

/* Item 9: run --resume and import on a full disk: every failure names the
 * file and the reason (the model step and import exited 125 in silence,
 * plan.json said no reason and plot then read the plan never written);
 * nothing cut short left; a failed plan stops the plots. */
void test_results_full_disk(void);
void test_results_full_disk(void)
{
    const char *mnt = tmp_path("disk33"), *src = tmp_path("full33");
    char cfg[700], res[700], *text, *err = NULL;
    static const int fill_kb[] = {1400, 2000, 3500};
    int failed = 0;
    FILE *fp;

    snprintf(cfg, sizeof cfg, "%s/run.cfg", test_tmpdir());
    text = slurp(fixture("issue33/tiny.cfg"));
    if ((fp = fopen(cfg, "w"))) {
        fprintf(fp, "%smission = { maximize = \"w.a\"; phases = ( { name = \"a\"; duration = "
                "\"2min\"; base_power_w = 100.0; } ); };\n", text ? text : "");
        fclose(fp);
    }
    free(text);
    CHECK_INT(pp(NULL, NULL, "run", cfg, "-o", src, NULL), 0);
    CHECK_INT(mkdir(mnt, 0755), 0);
    if (sh("mount -t tmpfs -o size=4096k tmpfs \"$0\" 2>/dev/null", mnt) != 0) {
        printf("skip: the full-disk reproducers of issue 33 need a tmpfs (root)\n");
        return;
    }
    snprintf(res, sizeof res, "%s/r", mnt);
    for (size_t i = 0; i < PP_ARRAY_SIZE(fill_kb); i++) {
        char script[900];
        int rc;
        snprintf(script, sizeof script, "rm -rf \"$0\"/* && head -c %d /dev/zero > \"$0/filler\" && "
                 "mkdir \"$0/r\" && cd \"%s\" && cp -r profile.cfg run.json summary.csv traces "
                 "\"$0/r/\"", fill_kb[i] * 1024, src);
        CHECK_INT(sh(script, mnt), 0);
        rc = pp(NULL, &err, "run", cfg, "-o", res, "--resume", NULL);
        if (rc != 0) {
            failed++;
            CHECK_CONTAINS(err, ": No space left on device"); /* ours, or gnuplot's image */
            CHECK(!strstr(err, "cannot write\n"));
            CHECK(!strstr(err, "plan.json:-1")); /* the plots after a plan not written */
        }
        CHECK(!leftovers(res, ".tmp."));
        free(err);
        err = NULL;
    }
    CHECK(failed > 0);
    /* import of a flight log into a disk with 4 KB left */
    CHECK_INT(sh("rm -rf \"$0\"/* && head -c 4190208 /dev/zero > \"$0/filler\"", mnt), 0);
    snprintf(res, sizeof res, "%s/imp", mnt);
    CHECK(pp(NULL, &err, "import", "ulog", fixture("ulog/sample_log_small.ulg"), "-o", res,
             NULL) != 0);
    CHECK_CONTAINS(err, "No space left on device");
    CHECK(!leftovers(mnt, ".import."));
    CHECK(access(res, F_OK) != 0);
    free(err);
    sh("umount \"$0\"", mnt);
}

/* Item 7 for the writers that create a folder (import, merge -o): the
 * temporary folder is never renamed over a folder another writer made
 * meanwhile (rename() replaced an empty one): the second is refused. */
void test_results_commit_never_replaces(void);
void test_results_commit_never_replaces(void)
{
    const char *out = tmp_path("made-meanwhile");
    char tmp[4200], probe[4300];
    struct stat st;

    CHECK_INT(pp_tmpdir_make(out, "import", tmp, sizeof tmp), 0);
    snprintf(probe, sizeof probe, "%s/summary.csv", tmp);
    CHECK_INT(write_file(probe, "id,status\n"), 0);
    CHECK_INT(mkdir(out, 0755), 0); /* another writer's, still empty */
    test_log_clear();
    CHECK_INT(pp_tmpdir_commit(), -EEXIST);
    CHECK_CONTAINS(test_log(), "made-meanwhile: made by another writer meanwhile");
    snprintf(probe, sizeof probe, "%s/summary.csv", out);
    CHECK(stat(probe, &st) != 0);  /* the other writer's folder as it was */
    CHECK(stat(tmp, &st) != 0);    /* this one's temporary folder removed */
}
