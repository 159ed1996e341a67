/* proc.h - running a program from an argv, never through a shell. */
#ifndef PP_PROC_H
#define PP_PROC_H

#include <sys/types.h>

/* fork + execvp(argv[0], argv). The child gets default signal dispositions
 * and an empty signal mask; with new_group it leads its own process group
 * (so that the whole group can be signalled). Returns 0 once the program is
 * running, or -errno when it could not be started (not found: -ENOENT, not
 * executable: -EACCES), logged with the program's name. */
int pp_proc_spawn(char *const argv[], int new_group, pid_t *pid_out);

/* The same, with the child's standard streams replaced by these descriptors
 * (-1: inherited). */
typedef struct pp_proc_io {
    int stdin_fd, stdout_fd, stderr_fd;
} pp_proc_io;
int pp_proc_spawn_io(char *const argv[], int new_group, const pp_proc_io *io, pid_t *pid_out);

/* Wait for pid (retrying on EINTR). *status_out gets the shell-style exit
 * status: the exit code, or 128 + signal number. 0 or -errno. */
int pp_proc_wait(pid_t pid, int *status_out);

/* Exit status for a spawn error: 127 not found, 126 otherwise (as shells). */
int pp_proc_spawn_status(int err);

#endif
