#include "proc.h"

#include "log.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The children powprof spawned and has not reaped yet: a subreaper's kill
 * spares them. The lock is held across fork, so that no kill runs between
 * a fork and the registration of its child. */
#define MAX_CHILDREN 256
static pthread_mutex_t children_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t children[MAX_CHILDREN];
static int children_scoped[MAX_CHILDREN];
static size_t n_children;

static void child_forget(pid_t pid)
{
    pthread_mutex_lock(&children_lock);
    for (size_t i = 0; i < n_children; i++)
        if (children[i] == pid) {
            children[i] = children[--n_children];
            children_scoped[i] = children_scoped[n_children];
            break;
        }
    pthread_mutex_unlock(&children_lock);
}

/* Called with the lock held. */
static int child_known(pid_t pid, int *scoped_running)
{
    int known = 0;

    *scoped_running = 0;
    for (size_t i = 0; i < n_children; i++) {
        known |= children[i] == pid;
        *scoped_running |= children_scoped[i];
    }
    return known;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- cgroup scope -------------------------------------------------------- */

/* Where cgroup2 is mounted (with its root at "/"), from mountinfo. */
static int cgroup2_mount(char *out, size_t cap)
{
    FILE *fp = fopen("/proc/self/mountinfo", "r");
    char *line = NULL;
    size_t lcap = 0;
    int rc = -ENODEV;

    if (!fp)
        return -errno;
    while (rc < 0 && getline(&line, &lcap, fp) >= 0) {
        char root[PP_PATH_MAX], mnt[PP_PATH_MAX];
        const char *sep = strstr(line, " - ");
        if (sep && strncmp(sep, " - cgroup2 ", 11) == 0 &&
            sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) == 2 && strcmp(root, "/") == 0)
            rc = pp_strlcpy(out, mnt, cap);
    }
    free(line);
    fclose(fp);
    return rc;
}

/* powprof's own cgroup v2 path ("0::/..." in /proc/self/cgroup). */
static int own_cgroup(char *out, size_t cap)
{
    char buf[8192];
    const char *at;
    int n = pp_read_small_file("/proc/self/cgroup", buf, sizeof buf);

    if (n < 0)
        return n;
    at = strncmp(buf, "0::", 3) == 0 ? buf : strstr(buf, "\n0::");
    if (!at)
        return -ENODEV;
    at += at == buf ? 3 : 4;
    return pp_fmt(out, cap, "%.*s", (int)strcspn(at, "\n"), at);
}

/* fork, the child born inside the scope's cgroup (clone3 with
 * CLONE_INTO_CGROUP, Linux >= 5.7: no migration, no window outside it)
 * when it has one. *inside tells, in parent and child, whether it was;
 * when not, the child joins by writing its cgroup.procs itself. */
static pid_t fork_into(const pp_proc_scope *s, int *inside)
{
    *inside = 0;
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
    if (s && s->kind == PP_SCOPE_CGROUP && s->dir_fd >= 0) {
        struct clone_args args;
        long pid;
        memset(&args, 0, sizeof args);
        args.flags = CLONE_INTO_CGROUP;
        args.exit_signal = SIGCHLD;
        args.cgroup = (uint64_t)s->dir_fd;
        pid = syscall(SYS_clone3, &args, sizeof args);
        if (pid >= 0) {
            *inside = 1;
            return (pid_t)pid;
        }
        if (errno != ENOSYS && errno != E2BIG && errno != EINVAL)
            return -1;
    }
#endif
    return fork();
}

/* In a child of fork_into that was not born inside: join. 0 or errno. */
static int join_cgroup(const pp_proc_scope *s)
{
    int fd = open(s->procs, O_WRONLY | O_CLOEXEC), err = 0;

    if (fd < 0 || write(fd, "0", 1) != 1)
        err = errno;
    if (fd >= 0)
        close(fd);
    return err;
}

/* Whether a child can be put in the cgroup: one tries. */
static int can_join(const pp_proc_scope *s)
{
    int st, inside;
    pid_t pid = fork_into(s, &inside);

    if (pid < 0)
        return 0;
    if (pid == 0)
        _exit(inside || join_cgroup(s) == 0 ? 0 : 1);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The cgroups of a powprof killed before it could remove them (SIGKILL):
 * what still runs in them is killed, and they are removed. A cgroup is
 * stale when no process has the pid in its name (as this pid namespace
 * sees them). */
static void remove_stale_cgroups(const char *base)
{
    DIR *d = opendir(base);
    struct dirent *e;

    while (d && (e = readdir(d))) {
        long pid;
        int n;
        pp_proc_scope stale;
        if (sscanf(e->d_name, "powprof-%ld-%*d%n", &pid, &n) != 1 || e->d_name[n] != '\0' ||
            pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        memset(&stale, 0, sizeof stale);
        stale.kind = PP_SCOPE_CGROUP;
        stale.dir_fd = -1;
        if (pp_path_fmt(stale.dir, sizeof stale.dir, base, "%s", e->d_name) < 0 ||
            pp_fmt(stale.procs, sizeof stale.procs, "%s/cgroup.procs", stale.dir) < 0)
            continue;
        pp_log_info("%s: left by a powprof that was killed: removed", stale.dir);
        pp_proc_scope_close(&stale);
    }
    if (d)
        closedir(d);
}

static int scope_open_cgroup(pp_proc_scope *s)
{
    static int seq;
    char mnt[PP_PATH_MAX], own[PP_PATH_MAX], base[2 * PP_PATH_MAX];
    int rc;

    if ((rc = cgroup2_mount(mnt, sizeof mnt)) < 0 || (rc = own_cgroup(own, sizeof own)) < 0)
        return rc;
    if (pp_path_join(base, sizeof base, mnt, own) < 0)
        return -ENAMETOOLONG;
    remove_stale_cgroups(base);
    if (pp_path_fmt(s->dir, sizeof s->dir, base, "powprof-%ld-%d", (long)getpid(),
                    __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED)) < 0 ||
        pp_fmt(s->procs, sizeof s->procs, "%s/cgroup.procs", s->dir) < 0)
        return -ENAMETOOLONG;
    if (mkdir(s->dir, 0755) != 0)
        return -errno;
    s->kind = PP_SCOPE_CGROUP;
    s->dir_fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!can_join(s)) {
        if (s->dir_fd >= 0)
            close(s->dir_fd);
        rmdir(s->dir);
        memset(s, 0, sizeof *s);
        s->dir_fd = -1;
        return -EACCES;
    }
    return 0;
}

/* The members of the cgroup into pids (at most cap); how many. */
static size_t cgroup_members(const pp_proc_scope *s, pid_t *pids, size_t cap)
{
    FILE *fp = fopen(s->procs, "r");
    long pid;
    size_t n = 0;

    if (!fp)
        return 0;
    while (n < cap && fscanf(fp, "%ld", &pid) == 1)
        pids[n++] = (pid_t)pid;
    fclose(fp);
    return n;
}

/* SIGKILL to each member, again until none is left (a member may fork
 * meanwhile). Not cgroup.kill: on Linux 6.18 a child later born in the
 * cgroup with CLONE_INTO_CGROUP is killed too. */
static int cgroup_kill(pp_proc_scope *s)
{
    pid_t pids[512];
    int killed = 0;
    size_t n;

    for (int round = 0; round < 200 && (n = cgroup_members(s, pids, 512)) > 0; round++) {
        if (round == 0)
            killed = (int)n;
        for (size_t i = 0; i < n; i++)
            kill(pids[i], SIGKILL);
        sleep_ms(round == 0 ? 1 : 10);
    }
    return killed;
}

/* ---- subreaper scope ----------------------------------------------------- */

/* The parent of pid from /proc/<pid>/stat ("pid (comm) state ppid ..."). */
static pid_t parent_of(const char *pid_dir)
{
    char path[300], buf[1024];
    const char *close_paren;
    char state;
    long ppid;

    if (pp_path_fmt(path, sizeof path, "/proc", "%s/stat", pid_dir) < 0 ||
        pp_read_small_file(path, buf, sizeof buf) < 0 || !(close_paren = strrchr(buf, ')')))
        return -1;
    if (sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

/* The children of powprof from /proc/self/task/<tid>/children (every
 * thread's; CONFIG_PROC_CHILDREN): -1 when the kernel has no such file. */
static long task_children(pid_t *pids, size_t cap)
{
    glob_t g;
    size_t n = 0;

    if (glob("/proc/self/task/*/children", 0, NULL, &g) != 0)
        return -1;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *fp = fopen(g.gl_pathv[i], "r");
        long pid;
        while (fp && n < cap && fscanf(fp, "%ld", &pid) == 1)
            pids[n++] = (pid_t)pid;
        if (fp)
            fclose(fp);
    }
    globfree(&g);
    return (long)n;
}

/* Children of powprof it did not spawn: descendants reparented to it.
 * Called with the lock held. */
static size_t orphans(pid_t *pids, size_t cap)
{
    pid_t self = getpid(), all[512];
    long n_all = task_children(all, 512);
    size_t n = 0;
    int scoped_running;

    if (n_all < 0) { /* no children files: every process's parent */
        DIR *d = opendir("/proc");
        struct dirent *e;
        n_all = 0;
        while (d && n_all < 512 && (e = readdir(d)))
            if (isdigit((unsigned char)e->d_name[0]) && parent_of(e->d_name) == self)
                all[n_all++] = (pid_t)atol(e->d_name);
        if (d)
            closedir(d);
    }
    for (long i = 0; i < n_all && n < cap; i++)
        if (!child_known(all[i], &scoped_running))
            pids[n++] = all[i];
    return n;
}

static int subreaper_kill(void)
{
    pid_t pids[512];
    int killed = 0, scoped_running;
    size_t n;

    pthread_mutex_lock(&children_lock);
    child_known(0, &scoped_running);
    for (int round = 0; !scoped_running && round < 200 && (n = orphans(pids, 512)) > 0; round++) {
        for (size_t i = 0; i < n; i++)
            kill(pids[i], SIGKILL);
        for (size_t i = 0; i < n; i++) /* SIGKILL: gone at once, unless stuck in the kernel */
            for (int tries = 0; tries < 200 && waitpid(pids[i], NULL, WNOHANG) == 0; tries++)
                sleep_ms(10);
        killed += (int)n;
    }
    pthread_mutex_unlock(&children_lock);
    return killed;
}

/* ---- scopes -------------------------------------------------------------- */

int pp_proc_scope_open(pp_proc_scope *s, pp_proc_scope_kind want)
{
    int rc = -ENOTSUP;

    memset(s, 0, sizeof *s);
    s->dir_fd = -1;
    if (want != PP_SCOPE_SUBREAPER && (rc = scope_open_cgroup(s)) == 0)
        return 0;
    if (want == PP_SCOPE_CGROUP) {
        pp_log_error("cannot make a cgroup for the descendants of a program: %s", strerror(-rc));
        return rc;
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        rc = -errno;
        pp_log_error("cannot become a child subreaper: %s", strerror(errno));
        return rc;
    }
    s->kind = PP_SCOPE_SUBREAPER;
    return 0;
}

const char *pp_proc_scope_name(const pp_proc_scope *s)
{
    return s->kind == PP_SCOPE_CGROUP ? "cgroup" : "subreaper";
}

int pp_proc_scope_kill(pp_proc_scope *s)
{
    return s->kind == PP_SCOPE_CGROUP ? cgroup_kill(s) : subreaper_kill();
}

void pp_proc_scope_close(pp_proc_scope *s)
{
    pp_proc_scope_kill(s);
    if (s->dir_fd >= 0)
        close(s->dir_fd);
    s->dir_fd = -1;
    if (s->kind == PP_SCOPE_CGROUP)
        for (int tries = 0; tries < 100 && rmdir(s->dir) != 0 && errno == EBUSY; tries++)
            sleep_ms(10);
    s->kind = PP_SCOPE_AUTO;
}

/* ---- spawning ------------------------------------------------------------ */

int pp_proc_spawn(char *const argv[], int new_group, pid_t *pid_out)
{
    pp_proc_io io = {-1, -1, -1, NULL};
    return pp_proc_spawn_io(argv, new_group, &io, pid_out);
}

/* In the child after fork: die with the parent, join the scope, set the
 * streams, exec. What failed goes to report as {stage, errno}. */
static void child_exec(char *const argv[], int new_group, const pp_proc_io *io, pid_t parent,
                       int inside, int report)
{
    int err[2] = {0, 0}; /* stage: 0 exec, 1 cgroup */
    sigset_t none;

    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127); /* powprof is gone already */
    if (new_group)
        setpgid(0, 0);
    if (io->scope && io->scope->kind == PP_SCOPE_CGROUP && !inside &&
        (err[1] = join_cgroup(io->scope)) != 0) {
        err[0] = 1;
        if (write(report, err, sizeof err) < 0)
            _exit(127);
        _exit(127);
    }
    if (io->stdin_fd >= 0)
        dup2(io->stdin_fd, 0);
    if (io->stdout_fd >= 0)
        dup2(io->stdout_fd, 1);
    if (io->stderr_fd >= 0)
        dup2(io->stderr_fd, 2);
    execvp(argv[0], argv);
    err[1] = errno;
    if (write(report, err, sizeof err) < 0)
        _exit(127);
    _exit(127);
}

int pp_proc_spawn_io(char *const argv[], int new_group, const pp_proc_io *io, pid_t *pid_out)
{
    int fds[2], child_err[2] = {0, 0}, inside;
    pid_t parent = getpid(), pid;
    ssize_t n;

    if (!argv || !argv[0] || !argv[0][0]) {
        pp_log_error("no command given");
        return -EINVAL;
    }
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -errno;
    pthread_mutex_lock(&children_lock);
    pid = n_children < MAX_CHILDREN ? fork_into(io->scope, &inside) : (errno = EAGAIN, -1);
    if (pid == 0) {
        close(fds[0]);
        child_exec(argv, new_group, io, parent, inside, fds[1]);
    }
    if (pid > 0) {
        children_scoped[n_children] = io->scope != NULL;
        children[n_children++] = pid;
    }
    pthread_mutex_unlock(&children_lock);
    if (pid < 0) {
        int err = errno;
        close(fds[0]);
        close(fds[1]);
        pp_log_error("cannot start '%s': %s", argv[0], strerror(err));
        return -err;
    }
    if (new_group)
        setpgid(pid, pid); /* both sides, so there is no race */
    close(fds[1]);
    do
        n = read(fds[0], child_err, sizeof child_err);
    while (n < 0 && errno == EINTR);
    close(fds[0]);
    if (n == (ssize_t)sizeof child_err) {
        int st;
        pp_proc_wait(pid, &st);
        if (child_err[0] == 1)
            pp_log_error("cannot put '%s' in cgroup %s: %s", argv[0], io->scope->dir,
                         strerror(child_err[1]));
        else
            pp_log_error("cannot run '%s': %s", argv[0], strerror(child_err[1]));
        return -child_err[1];
    }
    *pid_out = pid;
    return 0;
}

static void set_status(int st, int *status_out)
{
    if (WIFEXITED(st))
        *status_out = WEXITSTATUS(st);
    else if (WIFSIGNALED(st))
        *status_out = 128 + WTERMSIG(st);
    else
        *status_out = 255;
}

int pp_proc_wait(pid_t pid, int *status_out)
{
    int st;
    pid_t r;

    do
        r = waitpid(pid, &st, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -errno;
    child_forget(pid);
    set_status(st, status_out);
    return 0;
}

int pp_proc_try_wait(pid_t pid, int *status_out)
{
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);

    if (r < 0)
        return -errno;
    if (r == 0)
        return 0;
    child_forget(pid);
    set_status(st, status_out);
    return 1;
}

int pp_proc_spawn_status(int err) { return err == -ENOENT ? 127 : 126; }
