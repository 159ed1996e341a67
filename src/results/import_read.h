/* import_read.h - what the format readers of import.h share (import.c).
 * Not for other modules: the readers call these, these call no reader. */
#ifndef PP_IMPORT_READ_H
#define PP_IMPORT_READ_H

#include "src/traces/trace.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The file to import, opened for reading when it is a regular file (a
 * FIFO or a device refused at once, never waited on); NULL with the reason
 * logged. */
FILE *pp_import_open(const char *path);

/* getline() bounded to PP_TRACE_LINE_MAX bytes: the length, -1 at the end,
 * -2 for a longer line (logged: path, line line_no). */
ssize_t pp_import_getline(char **line, size_t *cap, FILE *fp, const char *path, long line_no);

/* Strip trailing newlines, carriage returns and blanks, in place. */
void pp_import_chomp(char *s);

/* s without leading and trailing white space (the end cut in place). */
char *pp_import_trim(char *s);

/* A power value at file:line (column col): a finite number >= 0, times
 * scale into *out. 0 or -EINVAL (logged). */
int pp_import_power_value(const char *path, long line, size_t col, const char *text, double scale,
                          double *out);

/* 0 when ts is not before t's last sample, else -EINVAL (logged). */
int pp_import_check_time(const pp_trace *t, const char *path, long line, double ts);

/* A rail name read at file:line (column col, 0: none): a safe name
 * (util.h) that fits a trace and that no earlier rail of names[0..n-1]
 * has. 0 or -EINVAL (logged). */
int pp_import_check_rail(const char *path, long line, size_t col, const char *name,
                         const char *const *names, size_t n);

/* The end of a reader: rc, or -EINVAL (logged) when t has no samples; a
 * short trace is warned about. On an error t is freed and zeroed. */
int pp_import_finish(pp_trace *t, const char *path, int rc);

#endif
