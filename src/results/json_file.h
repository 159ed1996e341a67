/* json_file.h - JSON as powprof writes it (every results file, plan.json,
 * model.json, adaptive.json, a layer model): a number or null, and a file
 * replaced atomically. The one place for both (jansson, src/base/util.h's
 * atomic file). */
#ifndef PP_JSON_FILE_H
#define PP_JSON_FILE_H

#include <jansson.h>
#include <stddef.h>

/* v as a JSON real, or null when it is not finite (NaN: unknown). A new
 * reference. */
json_t *pp_json_num(double v);

/* root into path with jansson's flags and a final newline, replacing the
 * file atomically (a temporary beside it renamed into place: a crash
 * leaves the old file or the new one, never half of one). 0, or -errno
 * (logged with the path). */
int pp_json_save(const char *path, const json_t *root, size_t flags);

#endif
