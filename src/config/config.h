/* config.h - configuration files (libconfig syntax), behind an interface that
 * keeps libconfig's types inside src/config/config.c.
 *
 * Every error names the file, the line and the key:
 *   "configs/drone.cfg:12: battery.capacity_ah: must be > 0 (got -3)".
 * Getters return 0 when the key was found and valid, 1 when it is absent (the
 * out value is untouched), or -EINVAL after logging what is wrong.
 */
#ifndef PP_CONFIG_H
#define PP_CONFIG_H

#include <stddef.h>

typedef struct pp_config pp_config;
typedef struct pp_config_setting pp_config_setting; /* a group, list or array */

/* Parse path. Syntax errors are logged as "file:line: message". */
int pp_config_load(const char *path, pp_config **out);
void pp_config_free(pp_config *cfg);
const char *pp_config_path(const pp_config *cfg);

/* The line of a node in its file (0 when unknown). */
int pp_config_line(const pp_config_setting *node);

/* The top-level group. */
const pp_config_setting *pp_config_root(const pp_config *cfg);

/* Member group name of g: 0 and *out, 1 when absent, -EINVAL when it exists
 * but is not a group. */
int pp_config_get_group(const pp_config *cfg, const pp_config_setting *g, const char *name,
                        const pp_config_setting **out);

/* Typed members of group g. A double accepts integer-looking values. */
int pp_config_get_double(const pp_config *cfg, const pp_config_setting *g, const char *key,
                         double *out);
int pp_config_get_int(const pp_config *cfg, const pp_config_setting *g, const char *key, int *out);
int pp_config_get_string(const pp_config *cfg, const pp_config_setting *g, const char *key,
                         char *buf, size_t cap);
/* A numeric array or list [a, b, ...]; *n receives the count (at most cap). */
int pp_config_get_doubles(const pp_config *cfg, const pp_config_setting *g, const char *key,
                          double *vals, size_t cap, size_t *n);

/* Generic access to nodes, for structures the getters above do not cover
 * (lists of groups, parameter ranges). */
typedef enum pp_config_kind {
    PP_CONFIG_OTHER = 0,
    PP_CONFIG_GROUP,
    PP_CONFIG_NUMBER, /* integer or float */
    PP_CONFIG_STRING,
    PP_CONFIG_LIST,   /* [a, b] or (a, b) */
} pp_config_kind;

pp_config_kind pp_config_kind_of(const pp_config_setting *node);
/* Member key of group g, or NULL. */
const pp_config_setting *pp_config_member(const pp_config_setting *g, const char *key);
/* Number of elements of a group or list; element i; the member name of a
 * node (NULL for list elements). */
size_t pp_config_length(const pp_config_setting *node);
const pp_config_setting *pp_config_elem(const pp_config_setting *node, size_t i);
const char *pp_config_name(const pp_config_setting *node);
/* The value of a number / string node: 0, or -EINVAL when of another kind. */
int pp_config_number(const pp_config_setting *node, double *out);
const char *pp_config_string(const pp_config_setting *node);
/* Log "file:line: what: message" for any node. Returns -EINVAL. */
int pp_config_node_error(const pp_config *cfg, const pp_config_setting *node, const char *what,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Every member of g must be one of allowed (NULL-terminated): -EINVAL
 * naming the first unknown key and its line otherwise. */
int pp_config_check_keys(const pp_config *cfg, const pp_config_setting *g,
                         const char *const *allowed);

/* Log "file:line: group.key: message" for member key of g (key may be
 * NULL: then the group itself). Returns -EINVAL for convenience. */
int pp_config_error(const pp_config *cfg, const pp_config_setting *g, const char *key,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
