/* clocks_restore.h - putting the clocks back as they were. Before its
 * first change a sweep reads every file it will write (and the nvpmodel
 * mode) into a record, saved in the results folder (fsync'd, replaced
 * atomically) before anything is written; it restores the record at its
 * end, on SIGINT/SIGTERM and on an error, then removes it. A record left
 * by a sweep killed with -9 is restored when the next sweep starts in
 * that folder (pp_clocks_restore_pending). */
#ifndef PP_CLOCKS_RESTORE_H
#define PP_CLOCKS_RESTORE_H

#include "clocks.h"

#define PP_CLOCKS_RECORD "clocks-restore.json"

typedef struct pp_clocks_record {
    size_t n;
    char paths[PP_CLOCKS_MAX_FILES][PP_PATH_MAX];
    char values[PP_CLOCKS_MAX_FILES][64];
    int nvpmodel_mode;                  /* -1: not changed */
    char nvpmodel_command[PP_PATH_MAX];
} pp_clocks_record;

/* An empty record (no file, no mode). */
void pp_clocks_record_init(pp_clocks_record *r);

/* Add the files that setting domain k writes, with their values now (a
 * value the kernel shows as "<unsupported>" is not written back). 0 or
 * -errno (logged, naming the file). */
int pp_clocks_record_add(pp_clocks_record *r, const pp_clocks *c, pp_clock_kind k);

/* Write r to path as JSON (atomically, fsync'd). 0 or -errno (logged). */
int pp_clocks_record_save(const pp_clocks_record *r, const char *path);

/* Read a record from path: 0, -ENOENT when there is none, -EINVAL when it
 * is not one (logged, naming the file and the entry). */
int pp_clocks_record_load(const char *path, pp_clocks_record *r);

/* The nvpmodel mode back first (its limits are the old ones again), then
 * every file in reverse order of writing; a write refused is tried again
 * once after the others (a lower bound above the upper one is refused
 * until the upper one is back). 0, or the first failure's -errno (each
 * logged, naming the file). */
int pp_clocks_record_restore(const pp_clocks_record *r);

/* 0 when r writes only clock files of the board c (each one that
 * pp_clocks_files lists for it, exactly), values that are a number or a
 * governor's name, and runs no program but command: a record is read from
 * a results folder, and whoever wrote it must not choose what root
 * writes or runs. Else -EPERM, with why naming the entry. */
int pp_clocks_record_check(const pp_clocks_record *r, const pp_clocks *c, const char *command,
                           char *why, size_t cap);

/* When path holds a record: check it against the board under root (NULL:
 * /) and command (pp_clocks_record_check), restore it (said on stderr)
 * and remove it. 1 when restored, 0 when there was none, -errno when it
 * could not be or was refused (logged; the record is kept). */
int pp_clocks_restore_pending(const char *path, const char *root, const char *command);

#endif
