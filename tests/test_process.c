/* Process lifetime (issue 12): noisy workloads, descendants that leave
 * their group, powprof killed or interrupted. */
#include "harness.h"

#include "components/component.h"
#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/proc.h"
#include "src/config/profile.h"
#include "src/sweep/scheduler.h"

#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run the first component of a profile written as text into dir:
 * the path a user's configuration takes. Returns pp_schedule_component's. */
static int run_profile_text(const char *dir, const char *text, pp_run_result *r)
{
    char path[512];
    pp_profile *p = malloc(sizeof *p);
    double values[1];
    int rc = -1;

    snprintf(path, sizeof path, "%s/exec.cfg", dir);
    write_file(path, text);
    CHECK(p != NULL);
    if (p && pp_profile_load(path, p) == 0)
        rc = pp_schedule_component(&p->components[0], values, NULL, NULL, NULL, r);
    else
        pp_test_fail(__FILE__, __LINE__, "profile not loaded:\n%s\n%s", text, test_log());
    free(p);
    return rc;
}

/* Whether pid is gone (or a zombie nobody reaped yet), within ~2 s. */
static int gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        char path[64], *stat;
        int dead;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        stat = slurp(path);
        dead = !stat || strstr(stat, ") Z ") != NULL;
        free(stat);
        if (dead)
            return 1;
        usleep(10000);
    }
    return 0;
}

static pid_t read_pid(const char *path)
{
    for (int i = 0; i < 500; i++) {
        char *text = slurp(path);
        pid_t pid = text && *text ? (pid_t)atoi(text) : 0;
        free(text);
        if (pid > 0)
            return pid;
        usleep(10000);
    }
    return 0;
}

/* 4: 1 MB and 50 MB of stderr: the program writes to a blocking pipe, as
 * outside powprof, and the step runs to its end. */
void test_exec_stderr_volume(void);
void test_exec_stderr_volume(void)
{
    static const char *const sizes[] = {"1000000", "50000000"};
    char done[512], text[1024];
    pp_run_result r;

    snprintf(done, sizeof done, "%s/done", test_tmpdir());
    for (size_t i = 0; i < 2; i++) {
        char *out;
        unlink(done);
        snprintf(text, sizeof text,
                 "components = ( { type = \"exec\"; iterations = 1; command = [ \"sh\", \"-c\",\n"
                 "  \"head -c %s /dev/zero >&2 && echo ok > %s\" ]; } );\n", sizes[i], done);
        CHECK_INT(run_profile_text(test_tmpdir(), text, &r), 0);
        CHECK_INT(r.status, PP_RUN_OK);
        out = slurp(done);
        CHECK_STR(out, "ok\n");
        free(out);
    }
    /* and the tail of a noisy failure is kept */
    CHECK(run_profile_text(test_tmpdir(), "components = ( { type = \"exec\"; command = [ \"sh\", \"-c\",\n"
                           "  \"head -c 1000000 /dev/zero >&2; echo 'the end' >&2; exit 4\" ]; "
                           "} );\n", &r) < 0);
    CHECK_CONTAINS(r.reason, "exited with status 4");
    CHECK_CONTAINS(r.reason, "the end");
}

/* A script whose grandchild leaves its session (setsid) and writes its pid
 * into $1 once it has; run as "sh script PIDFILE LOG": LOG notes when the
 * previous grandchild is still alive. */
static const char setsid_script[] =
    "if [ -s \"$1\" ]; then\n"
    "  s=$(cat /proc/$(cat \"$1\")/stat 2>/dev/null)\n"
    "  case \"$s\" in ''|*') Z '*) ;; *) echo alive >> \"$2\";; esac\n"
    "fi\n"
    "rm -f \"$1.new\"\n"
    "setsid sh -c 'echo $$ > \"$0\"; exec sleep 30' \"$1.new\" &\n"
    "while [ ! -s \"$1.new\" ]; do sleep 0.01; done\n"
    "mv \"$1.new\" \"$1\"\n";

/* Two steps of the script in an exec component; the scope kind it used
 * must be kind. */
static void run_detach_steps(const char *dir, const char *kind)
{
    char script[512], pidfile[512], log[512], want[64], cfg[2048];
    pp_run_result r;
    char *text;
    pid_t gc;

    snprintf(script, sizeof script, "%s/detach.sh", dir);
    snprintf(pidfile, sizeof pidfile, "%s/gc.pid", dir);
    snprintf(log, sizeof log, "%s/alive.log", dir);
    write_file(script, setsid_script);
    snprintf(cfg, sizeof cfg,
             "components = ( { type = \"exec\"; iterations = 2;\n"
             "  command = [ \"sh\", \"%s\", \"%s\", \"%s\" ]; } );\n", script, pidfile, log);
    pp_log_set_level(PP_LOG_DEBUG);
    test_log_clear();
    CHECK_INT(run_profile_text(dir, cfg, &r), 0);
    CHECK_STR(r.reason, "");
    CHECK_INT(r.iterations, 2);
    snprintf(want, sizeof want, "tracked by %s", kind);
    CHECK_CONTAINS(test_log(), want);
    text = slurp(log);
    CHECK(text == NULL); /* the first step's grandchild was gone when the second began */
    free(text);
    gc = read_pid(pidfile);
    CHECK(gc > 0 && gone(gc));
}

/* 8: a grandchild that calls setsid leaves the process group; the step's
 * end kills it all the same: the second step finds the first one's gone.
 * As root with a cgroup, and as a user who cannot make one, where powprof
 * is the subreaper. */
void test_exec_setsid_grandchild_killed(void);
void test_exec_setsid_grandchild_killed(void)
{
    char dir[512];
    pid_t pid;
    int st;

    if (geteuid() != 0) {
        run_detach_steps(test_tmpdir(), "subreaper");
        return;
    }
    run_detach_steps(test_tmpdir(), access("/sys/fs/cgroup/unified", F_OK) == 0 ||
                                            access("/sys/fs/cgroup/cgroup.procs", F_OK) == 0
                                        ? "cgroup"
                                        : "subreaper");
    snprintf(dir, sizeof dir, "%s/nobody", test_tmpdir());
    mkdir(dir, 0777);
    chmod(dir, 0777);
    chmod(test_tmpdir(), 0755);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(3);
        run_detach_steps(dir, "subreaper");
        fflush(NULL);
        _exit(pp_test_failures ? 1 : 0);
    }
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The two ways of holding descendants, each on its own: a setsid'd
 * grandchild outlives its parent and the kill of the scope ends it. */
void test_proc_scopes(void);
void test_proc_scopes(void)
{
    static const pp_proc_scope_kind kinds[] = {PP_SCOPE_CGROUP, PP_SCOPE_SUBREAPER};
    char script[512], pidfile[512], log[512];
    char *argv[] = {"sh", script, pidfile, log, NULL};

    snprintf(script, sizeof script, "%s/detach.sh", test_tmpdir());
    snprintf(pidfile, sizeof pidfile, "%s/gc.pid", test_tmpdir());
    snprintf(log, sizeof log, "%s/alive.log", test_tmpdir());
    write_file(script, setsid_script);
    for (size_t k = 0; k < 2; k++) {
        pp_proc_scope scope;
        pp_proc_io io = {-1, -1, -1, &scope};
        pid_t pid, gc;
        int st;

        unlink(pidfile);
        if (pp_proc_scope_open(&scope, kinds[k]) < 0) {
            CHECK(kinds[k] == PP_SCOPE_CGROUP); /* a subreaper is always possible */
            fprintf(stderr, "    (no writable cgroup v2 here: the cgroup scope not tested)\n");
            continue;
        }
        CHECK_STR(pp_proc_scope_name(&scope), k == 0 ? "cgroup" : "subreaper");
        CHECK_INT(pp_proc_spawn_io(argv, 1, &io, &pid), 0);
        CHECK_INT(pp_proc_wait(pid, &st), 0);
        CHECK_INT(st, 0);
        gc = read_pid(pidfile);
        CHECK(gc > 0 && kill(gc, 0) == 0); /* it outlived its parent and its group */
        CHECK_INT(pp_proc_scope_kill(&scope), 1);
        CHECK(gc > 0 && gone(gc));
        pp_proc_scope_close(&scope);
    }
}

/* 8: SIGKILL of `powprof profile` does not orphan the workload. */
void test_profile_sigkill_kills_workload(void);
void test_profile_sigkill_kills_workload(void)
{
    char cfg[512], pidfile[512], out[512], text[2048];
    pid_t pp, wl;
    int st;

    snprintf(cfg, sizeof cfg, "%s/p.cfg", test_tmpdir());
    snprintf(pidfile, sizeof pidfile, "%s/wl.pid", test_tmpdir());
    snprintf(out, sizeof out, "%s/res", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"k\"; device = \"procstat\"; rate_hz = 10.0; };\n"
             "components = ( { name = \"w\"; type = \"exec\";\n"
             "  command = [ \"sh\", \"-c\", \"echo $$ > %s; exec sleep 30\" ]; iterations = 1; } );\n",
             pidfile);
    write_file(cfg, text);
    fflush(NULL);
    pp = fork();
    if (pp == 0) {
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execl(getenv("POWPROF_BIN"), "powprof", "profile", cfg, "-o", out, "--yes", (char *)NULL);
        _exit(127);
    }
    wl = read_pid(pidfile);
    CHECK(wl > 0);
    kill(pp, SIGKILL);
    waitpid(pp, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CHECK(wl > 0 && gone(wl));
    /* the cgroup the killed powprof left (when it had one) goes with the
     * next scope opened */
    {
        pp_proc_scope scope;
        char pattern[128];
        glob_t g;
        snprintf(pattern, sizeof pattern, "/sys/fs/cgroup/{,unified/}powprof-%d-*", (int)pp);
        CHECK_INT(pp_proc_scope_open(&scope, PP_SCOPE_AUTO), 0);
        CHECK_INT(glob(pattern, GLOB_BRACE, NULL, &g), GLOB_NOMATCH);
        globfree(&g);
        pp_proc_scope_close(&scope);
    }
}

/* 8: Ctrl-C during import leaves no RESULTS.import.XXXXXX behind. */
void test_import_interrupt_removes_temporary(void);
void test_import_interrupt_removes_temporary(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    char out[512], pattern[600], file[512], *argv[520];
    int n = 0;

    snprintf(file, sizeof file, "%s/../../data/tx2/darknet/1layer_yolo-10fps.csv", fixture("."));
    snprintf(out, sizeof out, "%s/res", test_tmpdir());
    snprintf(pattern, sizeof pattern, "%s.import.*", out);
    argv[n++] = getenv("POWPROF_BIN");
    argv[n++] = "import";
    argv[n++] = "powprofiler";
    while (n < 510)
        argv[n++] = file; /* long enough to be interrupted */
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n] = NULL;
    for (size_t k = 0; k < 2; k++) {
        glob_t g;
        int st, seen = 0;
        pid_t pid;

        fflush(NULL);
        if ((pid = fork()) == 0) {
            freopen("/dev/null", "w", stdout);
            execv(argv[0], argv);
            _exit(127);
        }
        for (int i = 0; i < 2000 && !seen; i++) { /* until its temporary folder exists */
            seen = glob(pattern, 0, NULL, &g) == 0;
            globfree(&g);
            if (!seen)
                usleep(1000);
        }
        CHECK(seen);
        usleep(50000);
        kill(pid, sigs[k]);
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sigs[k]); /* dies of it, as without cleanup */
        CHECK(glob(pattern, 0, NULL, &g) == GLOB_NOMATCH);
        globfree(&g);
        CHECK(access(out, F_OK) != 0);
    }
}
