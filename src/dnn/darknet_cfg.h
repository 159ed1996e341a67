/* darknet_cfg.h - powprof's own reader of darknet network files (.cfg), so
 * that describing and predicting a network needs no darknet.
 *
 * The format, as darknet reads it: a "[type]" line opens a section; every
 * other line is "key=value"; blanks anywhere in a line are dropped (darknet
 * strips them all); lines that are empty or start with '#' or ';' are
 * comments. Unlike darknet, which carries on past a line it cannot read,
 * this reader stops at the first bad line: a line without '=', an empty key,
 * a key before the first section, an unclosed '[', a file with no [net]
 * first. Every error is logged as "FILE:LINE: what: 'the text'" and returns
 * -EINVAL.
 */
#ifndef PP_DARKNET_CFG_H
#define PP_DARKNET_CFG_H

#include <stddef.h>

typedef struct pp_dncfg_option {
    char *key, *value; /* blanks removed, as darknet does */
    int line;
} pp_dncfg_option;

typedef struct pp_dncfg_section {
    char *type; /* without the brackets: "net", "convolutional", ... */
    int line;
    size_t n_options;
    pp_dncfg_option *options;
} pp_dncfg_section;

typedef struct pp_dncfg {
    char *name; /* the file, as named in messages */
    size_t n_sections;
    pp_dncfg_section *sections; /* sections[0] is [net] or [network] */
} pp_dncfg;

/* Parse text; name is what messages call the file. 0, -EINVAL (logged with
 * name:line) or -ENOMEM. *out is empty on error. */
int pp_dncfg_parse(const char *text, const char *name, pp_dncfg *out);

/* Read and parse the file at path. 0, -errno (unreadable: logged with the
 * path), -EINVAL or -ENOMEM. */
int pp_dncfg_read(const char *path, pp_dncfg *out);

void pp_dncfg_free(pp_dncfg *c);

/* The value of key in section s (the last one when repeated, as in
 * darknet), or NULL. */
const pp_dncfg_option *pp_dncfg_find(const pp_dncfg_section *s, const char *key);

/* key of section s as an int: dflt when absent. 0, or -EINVAL logged as
 * "FILE:LINE: [type] key=value: not an integer" (also for values out of
 * [min, max], with the range). */
int pp_dncfg_int(const pp_dncfg *c, const pp_dncfg_section *s, const char *key, int dflt,
                 int min, int max, int *out);

/* The comma-separated integers of key (route's layers=-1,8): up to cap into
 * out, their count in *n. 0; -ENOENT when absent (not logged); -EINVAL
 * logged with file and line for a bad number or more than cap. */
int pp_dncfg_ints(const pp_dncfg *c, const pp_dncfg_section *s, const char *key, int *out,
                  size_t cap, size_t *n);

/* Write the network to path with [net]'s width and height replaced (added
 * when absent) by width and height (> 0), for darknet to load at another
 * input size. Comments are not kept. 0 or -errno (logged). */
int pp_dncfg_write_sized(const pp_dncfg *c, int width, int height, const char *path);

#endif
