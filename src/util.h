/* util.h - small helpers shared by every module: strict number parsing,
 * whole-file reads, path joins and atomic file replacement. */
#ifndef PP_UTIL_H
#define PP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Parse the whole of s (leading/trailing blanks and one trailing newline
 * allowed) as a finite double / a decimal int64. Returns 0, -EINVAL when s is
 * empty or not entirely a number (NaN and infinities included), -ERANGE on
 * overflow. *out is untouched on error. */
int pp_parse_double(const char *s, double *out);
int pp_parse_int64(const char *s, int64_t *out);

/* Read at most cap-1 bytes of a (small) file into buf, NUL-terminated, with
 * trailing newlines and blanks removed. Returns the length kept, or -errno. */
int pp_read_small_file(const char *path, char *buf, size_t cap);

/* The whole file, NUL-terminated, in a malloc'd buffer (free it); NULL when
 * it cannot be read. */
char *pp_read_file(const char *path);

/* out = a "/" b (one slash between them). Returns 0 or -ENAMETOOLONG. */
int pp_path_join(char *out, size_t cap, const char *a, const char *b);

/* snprintf that reports truncation: 0, or -ENAMETOOLONG when the output was
 * cut (buf still NUL-terminated). */
int pp_fmt(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Split a CSV line in place at its commas (no quoting: powprof's files have
 * none). Up to cap field pointers into fields; returns the field count,
 * which may exceed cap. */
size_t pp_csv_split(char *line, char **fields, size_t cap);

/* Copy src into dst (cap bytes), always NUL-terminated. Returns 0, or
 * -ENAMETOOLONG when src was cut. */
int pp_strlcpy(char *dst, const char *src, size_t cap);

/* Atomic replacement of a file: write to a temporary file beside it, then
 * fsync and rename over the target, so readers see the old file or the new
 * one, never half of one. */
typedef struct pp_atomic_file {
    FILE *fp;           /* write here between open and commit */
    char path[4096];    /* the target */
    char tmp_path[4096];
} pp_atomic_file;

int pp_atomic_file_open(pp_atomic_file *af, const char *path);
/* Flush, fsync, rename. On failure the target is untouched and the temporary
 * removed. Returns 0 or -errno. */
int pp_atomic_file_commit(pp_atomic_file *af);
/* Drop the temporary (after an error). Safe after commit. */
void pp_atomic_file_abort(pp_atomic_file *af);

#endif
