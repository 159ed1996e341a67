/* tmpdir.h - a results folder written whole or not at all: into a
 * temporary folder beside its target, "<out>.<tag>.<pid>@<host>.XXXXXX",
 * renamed to the target at the end.
 *
 * Nothing is left behind: an error removes the temporary folder
 * (pp_tmpdir_abort); so does a signal, when the command's handler for
 * SIGINT, SIGTERM and SIGHUP calls pp_tmpdir_signal_cleanup before it dies
 * of the signal; and a temporary folder of a process that was killed
 * (SIGKILL, a crash, a power cut) is removed by the next one made beside it,
 * when it is of this host (its name), of this user, and its process no
 * longer runs. The folder is mode 0755 less the umask, as profile's.
 * One at a time per process. */
#ifndef PP_TMPDIR_H
#define PP_TMPDIR_H

#include <stddef.h>

/* Create the temporary folder of out (trailing slashes of out dropped)
 * with tag ("merge"); its path into tmp. 0 or -errno (logged). */
int pp_tmpdir_make(const char *out, const char *tag, char *tmp, size_t cap);

/* Rename it to its out. 0 or -errno (logged; the folder is then removed). */
int pp_tmpdir_commit(void);

/* Remove it (after an error). Safe when there is none. */
void pp_tmpdir_abort(void);

/* Remove it from a signal handler: async-signal-safe. */
void pp_tmpdir_signal_cleanup(void);

/* on: SIGINT, SIGTERM and SIGHUP remove it (pp_tmpdir_signal_cleanup),
 * then end the process as without a handler; 0: their default back. For
 * a command (import, merge) while it writes one. */
void pp_tmpdir_guard_signals(int on);

#endif
