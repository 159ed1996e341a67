/* sysfs.h - reading sysfs attribute files under a replaceable root.
 *
 * A pp_sysfs_attr keeps its file open and re-reads it with pread() at offset
 * 0, as sysfs regenerates the value on every read: one system call per
 * reading, nothing allocated. */
#ifndef PP_SYSFS_H
#define PP_SYSFS_H

#include "src/base/util.h"

#include <glob.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* glob(3) of root + pattern (pattern absolute, e.g. "/sys/class/hwmon/hwmon*");
 * metacharacters in root are escaped. Returns the number of matches (0 when
 * none; g is then still to be freed with globfree) or -errno. */
int pp_sysfs_glob(const char *root, const char *pattern, glob_t *g);

/* Number of matches of root + pattern (0 when none), or -errno. */
int pp_sysfs_count(const char *root, const char *pattern);

/* Call fn(path, ctx) for each match of root + pattern, in sorted order,
 * until one returns non-zero. Returns that value, 0, or a glob error. */
int pp_sysfs_foreach(const char *root, const char *pattern, int (*fn)(const char *path, void *ctx),
                     void *ctx);

/* root + rel into out. */
int pp_sysfs_path(char *out, size_t cap, const char *root, const char *rel);

/* dir "/" and the attribute fmt names into out: 0, or -ENAMETOOLONG and
 * said (the folder's start) when that does not fit. */
int pp_sysfs_at(char *out, size_t cap, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

typedef struct pp_sysfs_attr {
    int fd;
    char path[PP_PATH_MAX];
} pp_sysfs_attr;

/* Open path for reading. Returns 0 or -errno (logged, naming the file; a
 * permission error says how to grant access). */
int pp_sysfs_attr_open(pp_sysfs_attr *a, const char *path);
void pp_sysfs_attr_close(pp_sysfs_attr *a);

/* Read the attribute as an integer / a real in [min, max]. An empty value,
 * garbage or a value out of range is -EINVAL (-ERANGE for range), a vanished
 * sensor (ENODEV, ENOENT, EIO, ENXIO) is -ENODEV; each is logged with the
 * path and the text read. unit names the sysfs unit in messages. */
int pp_sysfs_attr_read_i64(pp_sysfs_attr *a, int64_t min, int64_t max, const char *unit,
                           int64_t *out);
int pp_sysfs_attr_read_double(pp_sysfs_attr *a, double min, double max, const char *unit,
                              double *out);

/* One-shot reads of a whole attribute (labels, names): 0 or -errno. */
int pp_sysfs_read_string(const char *path, char *buf, size_t cap);
int pp_sysfs_read_i64(const char *path, int64_t *out);

#endif
