/* util.h - small helpers shared by every module: strict number parsing,
 * whole-file reads, path joins, atomic file replacement, and the one rule
 * for names that come from data (rails, parameters, metrics, columns) with
 * the only ways such a name may reach a file path or a gnuplot script. */
#ifndef PP_UTIL_H
#define PP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The one size of a path buffer, files and folders alike: the kernel's
 * PATH_MAX (4096) and room for a file name joined under a folder that
 * long, so that a path cut short (pp_fmt, pp_path_fmt: -ENAMETOOLONG) is
 * still one the kernel refuses, never another file's name. */
#define PP_PATH_MAX 4200

/* Parse the whole of s (leading/trailing blanks and one trailing newline
 * allowed) as a finite double / an int64, written in decimal: [+-] digits
 * [. digits] [e [+-] digits]. The one number parser of the command line
 * and of every file: hexadecimal (0x10), inf, nan and the like are refused.
 * Returns 0, -EINVAL when s is empty or not entirely a number, -ERANGE on
 * overflow. *out is untouched on error. */
int pp_parse_double(const char *s, double *out);
int pp_parse_int64(const char *s, int64_t *out);
/* A fraction: 0.2, or a percentage 20%. 0 or -EINVAL/-ERANGE. */
int pp_parse_fraction(const char *s, double *out);
/* A time for people: 42.0 s, 12.5 min, 14 h 4 min. */
void pp_format_duration(double s, char *buf, size_t cap);

/* Open path for reading, if it is a regular file: a folder gives -EISDIR,
 * a FIFO, device or socket -EINVAL (never a read that hangs). The file
 * descriptor, or -errno. */
int pp_open_regular(const char *path);

/* The same for rel, names joined by '/', under the folder dirfd, never
 * through a symbolic link: a link anywhere on the way gives -ELOOP, so
 * what is opened lies inside the folder (a folder received from someone
 * else cannot make powprof read /etc/shadow). The file descriptor, or
 * -errno. */
int pp_open_inside(int dirfd, const char *rel);

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

/* out = dir "/" file, refused when it does not fit: logged with the
 * folder's start and its length, -ENAMETOOLONG. 0 when it fits. */
int pp_path_in(char *out, size_t cap, const char *dir, const char *file);

/* pp_strlcpy of a path, refused when it does not fit: logged with the
 * path's start and its length, -ENAMETOOLONG. 0 when copied. */
int pp_path_copy(char *dst, const char *path, size_t cap);

/* fmt into buf (cap bytes), a text to show a person (a reason, a title, a
 * label): cut to fit with "..." at its end, never silently. Never for a
 * path or a name that is looked up: those are refused when cut (pp_fmt).
 * Returns buf. */
const char *pp_text(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *pp_vtext(char *buf, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Split a CSV line in place at its commas (no quoting: powprof's files have
 * none). Up to cap field pointers into fields; returns the field count,
 * which may exceed cap. */
size_t pp_csv_split(char *line, char **fields, size_t cap);

/* Copy src into dst (cap bytes), always NUL-terminated. Returns 0, or
 * -ENAMETOOLONG when src was cut. */
int pp_strlcpy(char *dst, const char *src, size_t cap);

/* Room for one more element in items, an array of *cap elements of elem
 * bytes with n of them used: items itself while n < *cap, else items
 * reallocated to twice *cap (first when 0) and *cap updated. NULL when
 * out of memory (items and *cap left as they were). */
void *pp_grow(void *items, size_t *cap, size_t n, size_t elem, size_t first);

/* ---- Names from data ----------------------------------------------------
 *
 * A rail, parameter, metric or column name read from a file, a header, a
 * configuration or the command line is data: it must never be interpreted.
 * Every entry point checks it with pp_name_check(); every file path built
 * from one goes through pp_path_fmt(); every string written into a gnuplot
 * script goes through pp_gp_printf() (or pp_gp_quote()). A test scans the
 * sources for path formats and gnuplot commands that bypass them.
 *
 * The rule: 1 to PP_NAME_MAX - 1 bytes of letters, digits and _ . - +
 * (ASCII), not starting with '.' or '-'. So a name is one file name that is
 * never "." or "..", never an option, holds no '/', quote, comma, space,
 * backquote, '$', '@' or control character, and is safe in a CSV header, a
 * JSON string, a path and a shell word alike. */
#define PP_NAME_MAX 128
#define PP_NAME_RULE                                                                           \
    "letters, digits and _ . - + only, not starting with . or -, at most 127 characters"

/* 0 when name follows the rule; else -EINVAL, logged as
 * "<what> '<name>': <why>" where why names the first offending character
 * and its position (non-printable bytes shown as \xNN). what says where
 * the name came from, e.g. "data.csv:1: column 3" or "--param". */
int pp_name_check(const char *name, const char *what);

/* A categorical parameter's label is a value, not a name: 1 to
 * PP_LABEL_MAX - 1 of letters, digits and _ . - + / : (safe in a CSV cell,
 * an argv element and a JSON string; never part of a file name, which
 * pp_path_fmt refuses for its '/'). 1 when label follows the rule. The one
 * rule for profiles that write labels and summaries that read them. */
#define PP_LABEL_MAX 64
int pp_label_ok(const char *label);

/* The same rule without logging, for callers that report the error
 * themselves (configuration files, with their line): 0, or -EINVAL with
 * the reason written to why[cap] (when why is not NULL). */
int pp_name_why(const char *name, char *why, size_t cap);

/* Build dir "/" fmt into out, where fmt is a literal of the code and every
 * %s argument is a name from data, checked with pp_name_check() (a refused
 * name is logged and gives -EINVAL, out empty): the path stays inside dir.
 * Conversions: %s, %c, %d %i %u %ld %lu %lld %llu %zu, %g %f %e with flags,
 * width and precision, %%. Returns 0, -EINVAL or -ENAMETOOLONG. */
int pp_path_fmt(char *out, size_t cap, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Write s as one gnuplot string expression that gnuplot never interprets,
 * whatever the bytes: printable ASCII in single quotes (no backquote,
 * macro or escape processing inside them), the quote itself and every
 * byte outside printable ASCII as "\ooo" octal escapes in double quotes
 * (escapes only: nothing to substitute), the pieces joined with gnuplot's
 * '.' operator:  it's<LF>  ->  'it'."\047".'s'."\012".  (A doubled ''
 * does not work at the start of a string in gnuplot 5.4.) Returns 0, or
 * -ENAMETOOLONG when out is too small (out then holds "''"). */
int pp_gp_quote(char *out, size_t cap, const char *s);

/* fprintf for gnuplot scripts: every %s argument is written through
 * pp_gp_quote(), quotes included (write "title %s", never "title '%s'");
 * numbers as in pp_path_fmt(). Returns 0 or -errno (-EIO on a write
 * error). */
int pp_gp_printf(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Atomic replacement of a file: write to a temporary file beside it, then
 * fsync and rename over the target, so readers see the old file or the new
 * one, never half of one. */
typedef struct pp_atomic_file {
    FILE *fp;           /* write here between open and commit */
    char path[PP_PATH_MAX];    /* the target */
    char tmp_path[PP_PATH_MAX];
} pp_atomic_file;

int pp_atomic_file_open(pp_atomic_file *af, const char *path);
/* Flush, fsync, rename. On failure the target is untouched and the temporary
 * removed. Returns 0 or -errno. */
int pp_atomic_file_commit(pp_atomic_file *af);
/* Drop the temporary (after an error). Safe after commit. */
void pp_atomic_file_abort(pp_atomic_file *af);

#endif
