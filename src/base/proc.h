/* proc.h - running a program from an argv, never through a shell, and
 * keeping track of what it leaves behind.
 *
 * Lifetime. Every program started here dies with powprof: the child sets
 * PR_SET_PDEATHSIG(SIGKILL) before exec and then checks that its parent is
 * still the process that forked it (powprof may have died in between), so
 * a SIGKILL of powprof does not orphan a workload. The signal comes when
 * the *thread* that spawned the child ends: spawn from a thread that waits
 * for the child (powprof always does). A program's own children are not
 * covered by it; a scope (below) stops them at the end of each step.
 *
 * Scopes. A process group does not hold a grandchild that calls setsid()
 * or changes its group. A scope holds every descendant whatever it does:
 *   cgroup     a cgroup v2 of its own, below powprof's (where cgroup2 is
 *              mounted and powprof may create and join one: root, or a
 *              delegated subtree); the child is born in it (clone3 with
 *              CLONE_INTO_CGROUP, else it joins before exec), and a kill
 *              is SIGKILL to each member, repeated until it is empty. The
 *              cgroups of a powprof killed by SIGKILL are emptied and
 *              removed by the next one that opens a scope.
 *   subreaper  else: powprof becomes a child subreaper
 *              (PR_SET_CHILD_SUBREAPER), so orphaned descendants are
 *              reparented to it instead of init; a kill SIGKILLs and reaps
 *              every child of powprof it did not spawn itself, repeated
 *              until none is left, once no scoped child is still running
 *              (with several scoped programs at once, what one leaves is
 *              stopped when the last of them ends).
 */
#ifndef PP_PROC_H
#define PP_PROC_H

#include "util.h"

#include <sys/types.h>

typedef enum pp_proc_scope_kind {
    PP_SCOPE_AUTO = 0,  /* cgroup when it works here, else subreaper */
    PP_SCOPE_CGROUP,
    PP_SCOPE_SUBREAPER,
} pp_proc_scope_kind;

typedef struct pp_proc_scope {
    pp_proc_scope_kind kind; /* the method in use: CGROUP or SUBREAPER */
    char dir[PP_PATH_MAX];          /* CGROUP: the cgroup's folder */
    char procs[PP_PATH_MAX];        /* CGROUP: its cgroup.procs */
    int dir_fd;              /* CGROUP: the folder, open (children are born in it) */
} pp_proc_scope;

/* Open a scope of kind want (AUTO: the best that works). Returns 0, or
 * -errno when the kind asked for cannot be had (logged). */
int pp_proc_scope_open(pp_proc_scope *s, pp_proc_scope_kind want);

/* "cgroup" or "subreaper". */
const char *pp_proc_scope_name(const pp_proc_scope *s);

/* SIGKILL every process left in the scope and wait (at most about 2 s)
 * until they are gone. Returns how many were killed. */
int pp_proc_scope_kill(pp_proc_scope *s);

/* Kill what is left and remove the cgroup. */
void pp_proc_scope_close(pp_proc_scope *s);

/* fork + execvp(argv[0], argv). The child gets default signal dispositions
 * and an empty signal mask; with new_group it leads its own process group
 * (so that the whole group can be signalled). Returns 0 once the program is
 * running, or -errno when it could not be started (not found: -ENOENT, not
 * executable: -EACCES), logged with the program's name. */
int pp_proc_spawn(char *const argv[], int new_group, pid_t *pid_out);

/* The same, with the child's standard streams replaced by these descriptors
 * (-1: inherited), and inside scope (NULL: none). */
typedef struct pp_proc_io {
    int stdin_fd, stdout_fd, stderr_fd;
    pp_proc_scope *scope;
} pp_proc_io;
int pp_proc_spawn_io(char *const argv[], int new_group, const pp_proc_io *io, pid_t *pid_out);

/* Wait for pid (retrying on EINTR). *status_out gets the shell-style exit
 * status: the exit code, or 128 + signal number. 0 or -errno. */
int pp_proc_wait(pid_t pid, int *status_out);

/* The same without blocking: 1 when pid has exited (*status_out set), 0
 * when it still runs, -errno. */
int pp_proc_try_wait(pid_t pid, int *status_out);

/* Exit status for a spawn error: 127 not found, 126 otherwise (as shells). */
int pp_proc_spawn_status(int err);

#endif
