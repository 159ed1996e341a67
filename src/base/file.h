/* file.h - opening input files that could be anything: a FIFO that would
 * block open() forever, /dev/zero that would grow a line without end, a
 * directory. Readers of user-named files go through these. And the
 * temporary files a writer killed mid-write leaves behind. */
#ifndef PP_FILE_H
#define PP_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The longest line a line reader accepts by default, bytes. */
#define PP_FILE_LINE_MAX ((size_t)1 << 20)

/* Open path for reading (O_CLOEXEC) without blocking on a FIFO
 * (O_NONBLOCK, cleared after the check) and refuse what is not a regular
 * file. The descriptor, or -errno: -ENOENT and the like (logged "PATH:
 * cannot open: REASON"), -EINVAL for a FIFO, device, socket or directory
 * (logged "PATH: not a regular file (a FIFO): refused"). */
int pp_file_open_regular(const char *path);

/* The same as a stdio stream ("r"); NULL with errno set, logged. */
FILE *pp_file_fopen_regular(const char *path);

/* getline() that stops at max bytes: the line's length (newline included
 * when there is one; the line NUL-ended), -1 at the end of the file or on
 * a read error (errno), -2 when the line is longer than max bytes (the
 * stream is then left inside it). *line and *cap as getline's. */
ssize_t pp_file_getline_max(char **line, size_t *cap, FILE *fp, size_t max);

/* Remove the regular files of folder dir named BASE.tmp.XXXXXX (six
 * letters or digits: pp_atomic_file's temporaries, which a rename ends
 * unless the writer was killed), base NULL for any BASE; logged when there
 * were some. The caller must be the folder's only writer of those files
 * (a lock, a state file of its own). How many were removed. */
size_t pp_file_stale_remove(const char *dir, const char *base);

#endif
