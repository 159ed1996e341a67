/* lock.h - one writer per results folder. Every command that writes a
 * results folder in place (profile, run, --resume, --adaptive) holds an
 * advisory lock (flock) on DIR/.powprof.lock while it writes: a second
 * writer is refused with the first one's pid, and the kernel releases the
 * lock when the holder dies (kill -9 included), so a stale lock never
 * blocks a resume; the temporary files such a writer left (NAME.tmp.XXXXXX
 * of the summary, run.json, adaptive.json, profile.cfg and traces/) are
 * removed when the lock is taken. Folders written whole and renamed into place (import,
 * merge -o) need none: the rename fails when the folder exists. */
#ifndef PP_RESULTS_LOCK_H
#define PP_RESULTS_LOCK_H

#define PP_RESULTS_LOCK_FILE ".powprof.lock"

/* Lock folder dir (which must exist) for this process; nested calls on the
 * same folder (an adaptive run's sweeps) count. 0, -EBUSY (logged: "DIR is
 * being written by another powprof (pid N) ...") or -errno (logged). */
int pp_results_lock(const char *dir);

/* Undo one pp_results_lock of dir; the last one releases the lock. */
void pp_results_unlock(const char *dir);

#endif
