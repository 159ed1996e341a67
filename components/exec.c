/* exec: any program, one run per step. {param} placeholders inside argv
 * elements are replaced by this configuration's values (a categorical
 * parameter's label, or a number); the program is
 * started with execvp, never through a shell, so a value stays one argument
 * whatever it contains. The program leads its own process group: a step
 * past its deadline, or an interrupted sweep, stops the whole group
 * (SIGTERM, then SIGKILL after a grace period). At the end of every step,
 * whatever the program left running is killed, even descendants that left
 * its group or session (setsid): they live in a scope of src/base/proc.h, a
 * cgroup of the component's own where powprof may make one, else powprof
 * is their subreaper. The program dies with powprof (PR_SET_PDEATHSIG).
 * Its standard output is discarded; the tail of its standard error is kept
 * for the log, read from a pipe whose read end only is non-blocking (the
 * program writes to a blocking one, as outside powprof). A non-zero exit
 * fails the step. */
#include "component.h"

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/proc.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define GRACE_NS 2000000000LL
#define TAIL 400

typedef struct exec_priv {
    char *argv[PP_COMPONENT_MAX_STRINGS + 1];
    char buf[PP_COMPONENT_MAX_STRINGS][1024];
    pp_proc_scope scope; /* every descendant of the program */
    int have_scope;
} exec_priv;

static const pp_component_key exec_keys[] = {
    {"command", PP_KEY_STRINGS, 1, NULL,
     "the program and its arguments, [\"program\", \"arg\", ...], {param} replaced"},
    {NULL, 0, 0, NULL, NULL},
};

/* The program's argv in this configuration into e. 0 or -errno (reason set). */
static int expand_argv(pp_component *c, exec_priv *e)
{
    const pp_setting *cmd = pp_component_setting(c->spec, "command");
    size_t n = cmd ? cmd->n : 0;

    for (size_t i = 0; i < n; i++) {
        int rc = pp_component_expand(c, c->spec->strings[cmd->first + i], e->buf[i],
                                     sizeof e->buf[i]);
        if (rc < 0) {
            if (rc == -ENAMETOOLONG)
                pp_text(c->reason, sizeof c->reason, "argument %zu is too long", i + 1);
            return rc;
        }
        e->argv[i] = e->buf[i];
    }
    e->argv[n] = NULL;
    if (n == 0 || !e->argv[0][0]) {
        pp_text(c->reason, sizeof c->reason, "no program to run (command is empty)");
        return -EINVAL;
    }
    return 0;
}

/* Is the program there (a path, or a name found in PATH as execvp would)? */
static int exec_check(pp_component *c)
{
    exec_priv *e = malloc(sizeof *e);
    const char *path = getenv("PATH");
    char full[4096];
    int rc;

    if (!e)
        return -ENOMEM;
    rc = expand_argv(c, e);
    if (rc == 0 && strchr(e->argv[0], '/')) {
        if (access(e->argv[0], X_OK) != 0) {
            rc = -errno;
            pp_text(c->reason, sizeof c->reason, "program %s: %s", e->argv[0], strerror(errno));
        }
    } else if (rc == 0) {
        rc = -ENOENT;
        for (const char *s = path ? path : "/usr/local/bin:/usr/bin:/bin"; rc < 0 && *s;) {
            size_t len = strcspn(s, ":");
            if (pp_fmt(full, sizeof full, "%.*s/%s", (int)len, len ? s : ".", e->argv[0]) == 0 &&
                access(full, X_OK) == 0)
                rc = 0;
            s += len + (s[len] == ':');
        }
        if (rc < 0)
            pp_text(c->reason, sizeof c->reason, "program '%s' not found in PATH (%s)",
                    e->argv[0], path ? path : "unset");
    }
    free(e);
    return rc;
}

static atomic_int told;

static int exec_setup(pp_component *c)
{
    exec_priv *e = calloc(1, sizeof *e);
    int rc;

    if (!e)
        return -ENOMEM;
    c->priv = e;
    if ((rc = expand_argv(c, e)) < 0)
        return rc;
    if ((rc = pp_proc_scope_open(&e->scope, PP_SCOPE_AUTO)) < 0) {
        pp_text(c->reason, sizeof c->reason, "cannot track the program's processes: %s",
                strerror(-rc));
        return rc;
    }
    e->have_scope = 1;
    if (atomic_exchange(&told, 1) == 0) /* once: which way this machine allows */
        pp_log_info("exec: what programs leave running is tracked by %s and killed after "
                    "each step", e->scope.kind == PP_SCOPE_CGROUP ? "a cgroup" : "a subreaper");
    pp_log_debug("%s: the program's descendants are tracked by %s", c->spec->name,
                 pp_proc_scope_name(&e->scope));
    return 0;
}

static void exec_teardown(pp_component *c)
{
    exec_priv *e = c->priv;

    if (e && e->have_scope)
        pp_proc_scope_close(&e->scope);
    free(e);
    c->priv = NULL;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Keep the last TAIL bytes of what fd gives. */
static void drain(int fd, char *tail, size_t *len)
{
    char buf[4096];
    ssize_t n;

    while ((n = read(fd, buf, sizeof buf)) > 0) {
        size_t k = (size_t)n;
        if (k >= TAIL) {
            memcpy(tail, buf + k - TAIL, TAIL);
            *len = TAIL;
        } else {
            size_t keep = *len + k > TAIL ? TAIL - k : *len;
            memmove(tail, tail + *len - keep, keep);
            memcpy(tail + keep, buf, k);
            *len = keep + k;
        }
    }
}

/* Wait until the child exits or until_ns; 1 when it exited (*status set). */
static int wait_until(pid_t pid, int pidfd, int err_fd, int64_t until_ns, const atomic_int *cancel,
                      char *tail, size_t *tail_len, int *status)
{
    for (;;) {
        int r = pp_proc_try_wait(pid, status);
        int64_t now = pp_clock_now_ns(&pp_clock_monotonic), wait_ms;
        struct pollfd fds[2];
        int nfds = 0;

        if (r != 0) {
            drain(err_fd, tail, tail_len);
            if (r < 0)
                *status = 255;
            return 1;
        }
        if ((until_ns && now >= until_ns) || (cancel && atomic_load(cancel)))
            return 0;
        wait_ms = 100; /* to notice an interrupt */
        if (until_ns && (until_ns - now) / 1000000 + 1 < wait_ms)
            wait_ms = (until_ns - now) / 1000000 + 1;
        if (pidfd >= 0)
            fds[nfds++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        else if (wait_ms > 10)
            wait_ms = 10; /* no pidfd (old kernel): look again soon */
        fds[nfds++] = (struct pollfd){.fd = err_fd, .events = POLLIN};
        if (poll(fds, (nfds_t)nfds, (int)wait_ms) > 0)
            drain(err_fd, tail, tail_len);
    }
}

static int exec_step(pp_component *c, int64_t deadline_ns)
{
    exec_priv *e = c->priv;
    int err_pipe[2], null_fd, pidfd, rc, status = 0;
    char tail[TAIL + 1];
    size_t tail_len = 0;
    pp_proc_io io;
    pid_t pid;

    /* O_NONBLOCK on the pipe would be shared with the program's end */
    if (pipe2(err_pipe, O_CLOEXEC) != 0)
        return -errno;
    if (fcntl(err_pipe[0], F_SETFL, O_NONBLOCK) != 0) {
        rc = -errno;
        close(err_pipe[0]);
        close(err_pipe[1]);
        return rc;
    }
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    io.stdin_fd = null_fd;
    io.stdout_fd = null_fd;
    io.stderr_fd = err_pipe[1];
    io.scope = e->have_scope ? &e->scope : NULL;
    rc = pp_proc_spawn_io(e->argv, 1, &io, &pid);
    close(err_pipe[1]);
    if (null_fd >= 0)
        close(null_fd);
    if (rc < 0) {
        pp_text(c->reason, sizeof c->reason, "cannot run '%s': %s", e->argv[0], strerror(-rc));
        close(err_pipe[0]);
        return rc;
    }
    pidfd = open_pidfd(pid);
    if (wait_until(pid, pidfd, err_pipe[0], deadline_ns, c->cancel, tail, &tail_len, &status)) {
        kill(-pid, SIGKILL); /* what it left behind in its group */
        rc = 0;
        if (status != 0) {
            tail[tail_len] = '\0';
            for (size_t i = 0; i < tail_len; i++) /* NUL bytes too: the tail is text */
                if ((unsigned char)tail[i] < 0x20 || tail[i] == ',' || tail[i] == '"')
                    tail[i] = ' ';
            pp_text(c->reason, sizeof c->reason, "'%s' exited with status %d%s%s", e->argv[0],
                     status, tail_len ? ": " : "", tail);
            rc = -EIO;
        }
    } else {
        int timed_out = !(c->cancel && atomic_load(c->cancel));
        kill(-pid, SIGTERM);
        if (!wait_until(pid, pidfd, err_pipe[0], pp_clock_now_ns(&pp_clock_monotonic) + GRACE_NS,
                        NULL, tail, &tail_len, &status)) {
            kill(-pid, SIGKILL);
            pp_proc_wait(pid, &status);
        }
        kill(-pid, SIGKILL);
        pp_text(c->reason, sizeof c->reason, "'%s' %s; its process group was stopped",
                 e->argv[0], timed_out ? "ran past its deadline" : "was interrupted");
        rc = timed_out ? -ETIMEDOUT : -ECANCELED;
    }
    if (e->have_scope)
        pp_proc_scope_kill(&e->scope); /* what left the group: setsid, double fork */
    if (pidfd >= 0)
        close(pidfd);
    close(err_pipe[0]);
    return rc;
}

const pp_component_ops pp_component_exec = {
    .type = "exec",
    .summary = "any program, one run per step, never through a shell",
    .keys = exec_keys,
    .check = exec_check,
    .setup = exec_setup,
    .step = exec_step,
    .teardown = exec_teardown,
};
