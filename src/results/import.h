/* import.h - power data recorded by other tools, read into traces: what
 * every format's reader shares (import.c), its options and the file-name
 * patterns; each format in its own file (import_powprofiler.h,
 * import_tegrastats.h, import_csv.h, import_jtop.h, import_ulog.h), all
 * reached by folder.h's pp_import_reader_of.
 *
 * Every error (ragged row, non-number, NaN, negative power, time going
 * backwards, empty file, unknown header) is logged with the file and the
 * line and returns -EINVAL.
 */
#ifndef PP_IMPORT_H
#define PP_IMPORT_H

#include "src/traces/trace.h"
#include "battery/battery.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct pp_import_options {
    double rate_hz;      /* powprofiler: samples per second (default 10) */
    double interval_ms;  /* tegrastats: > 0 overrides the timestamps (default: 1000 without) */
    double unit_scale;   /* csv: watts per unit of columns without a unit (0: none allowed) */
    const char *time_col;/* csv: the time column's name (NULL: found by name) */
    double time_scale;   /* csv: seconds per unit of the time column (0: its name's unit,
                          * _s, _ms, _us, _ns, else found from its steps) */
} pp_import_options;

void pp_import_options_init(pp_import_options *o);

/* ---- for the format readers only (they call these; these call no reader) ---- */

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


/* Match a file's base name against a pattern with {name} placeholders,
 * e.g. "matrix-exponentiation_{size}-{exponent}_1layer.csv"; {name:C} when
 * the value writes its decimal point as C ("yolo-{fps:-}fps.csv": 5-8 is
 * 5.8). Up to max
 * names and numeric values out. Returns the number of placeholders, or
 * -EINVAL (logged) when the name does not match or a value is no number. */
int pp_import_match_pattern(const char *pattern, const char *path, char names[][64],
                            double *values, size_t max);

#endif
