#include "proc.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int pp_proc_spawn(char *const argv[], int new_group, pid_t *pid_out)
{
    pp_proc_io io = {-1, -1, -1};
    return pp_proc_spawn_io(argv, new_group, &io, pid_out);
}

int pp_proc_spawn_io(char *const argv[], int new_group, const pp_proc_io *io, pid_t *pid_out)
{
    int fds[2], child_errno = 0;
    ssize_t n;
    pid_t pid;

    if (!argv || !argv[0] || !argv[0][0]) {
        pp_log_error("no command given");
        return -EINVAL;
    }
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -errno;
    pid = fork();
    if (pid < 0) {
        int err = errno;
        close(fds[0]);
        close(fds[1]);
        pp_log_error("cannot fork: %s", strerror(err));
        return -err;
    }
    if (pid == 0) {
        sigset_t none;
        int err;
        for (int sig = 1; sig < NSIG; sig++)
            signal(sig, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (new_group)
            setpgid(0, 0);
        if (io->stdin_fd >= 0)
            dup2(io->stdin_fd, 0);
        if (io->stdout_fd >= 0)
            dup2(io->stdout_fd, 1);
        if (io->stderr_fd >= 0)
            dup2(io->stderr_fd, 2);
        close(fds[0]);
        execvp(argv[0], argv);
        err = errno;
        if (write(fds[1], &err, sizeof err) < 0)
            _exit(127);
        _exit(127);
    }
    if (new_group)
        setpgid(pid, pid); /* both sides, so there is no race */
    close(fds[1]);
    do
        n = read(fds[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(fds[0]);
    if (n == (ssize_t)sizeof child_errno) {
        int st;
        waitpid(pid, &st, 0);
        pp_log_error("cannot run '%s': %s", argv[0], strerror(child_errno));
        return -child_errno;
    }
    *pid_out = pid;
    return 0;
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
    if (WIFEXITED(st))
        *status_out = WEXITSTATUS(st);
    else if (WIFSIGNALED(st))
        *status_out = 128 + WTERMSIG(st);
    else
        *status_out = 255;
    return 0;
}

int pp_proc_spawn_status(int err) { return err == -ENOENT ? 127 : 126; }
