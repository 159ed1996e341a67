#include "config.h"

#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct pp_config {
    config_t cfg;
    char path[PP_PATH_MAX];
};

/* The largest configuration file read: libconfig keeps the whole tree. */
#define CONFIG_MAX_BYTES ((off_t)16 << 20)

/* path opened for libconfig, if it is a regular file of at most
 * CONFIG_MAX_BYTES: libconfig's scanner given a directory (or a read
 * error) calls exit(2) without a word, ending a Python interpreter with
 * it. NULL, logged with the path, and errno otherwise. */
static FILE *open_checked(const char *path)
{
    FILE *fp = pp_file_fopen_regular(path);
    struct stat st;

    if (fp && fstat(fileno(fp), &st) == 0 && st.st_size > CONFIG_MAX_BYTES) {
        pp_log_error("%s: %lld bytes: a configuration file is at most %lld bytes", path,
                     (long long)st.st_size, (long long)CONFIG_MAX_BYTES);
        fclose(fp);
        errno = EFBIG;
        return NULL;
    }
    return fp;
}

/* A node is a libconfig setting; the cast stays in this file. */
#define SETTING(n) ((config_setting_t *)(n))
#define NODE(s) ((const pp_config_setting *)(s))

int pp_config_load(const char *path, pp_config **out)
{
    pp_config *c = calloc(1, sizeof *c);
    FILE *fp;

    *out = NULL;
    if (!c)
        return -ENOMEM;
    if (pp_path_copy(c->path, path, sizeof c->path) < 0) {
        free(c);
        return -ENAMETOOLONG;
    }
    config_init(&c->cfg);
    fp = open_checked(path);
    if (!fp) {
        int err = errno;
        config_destroy(&c->cfg);
        free(c);
        return -err;
    }
    if (config_read(&c->cfg, fp) != CONFIG_TRUE) {
        pp_log_error("%s:%d: %s", path, config_error_line(&c->cfg), config_error_text(&c->cfg));
        fclose(fp);
        config_destroy(&c->cfg);
        free(c);
        return -EINVAL;
    }
    fclose(fp);
    *out = c;
    return 0;
}

void pp_config_free(pp_config *cfg)
{
    if (!cfg)
        return;
    config_destroy(&cfg->cfg);
    free(cfg);
}

const char *pp_config_path(const pp_config *cfg) { return cfg->path; }

int pp_config_line(const pp_config_setting *node)
{
    return node ? (int)config_setting_source_line(SETTING(node)) : 0;
}

const pp_config_setting *pp_config_root(const pp_config *cfg)
{
    return NODE(config_root_setting(&cfg->cfg));
}

/* "group.key" for messages. */
static void full_name(const pp_config_setting *g, const char *key, char *buf, size_t cap)
{
    const char *gname = g ? config_setting_name(SETTING(g)) : NULL;

    if (gname && key)
        pp_text(buf, cap, "%s.%s", gname, key);
    else
        pp_text(buf, cap, "%s", key ? key : gname ? gname : "(top level)");
}

int pp_config_error(const pp_config *cfg, const pp_config_setting *g, const char *key,
                    const char *fmt, ...)
{
    char msg[512], name[256];
    const config_setting_t *s = key && g ? config_setting_get_member(SETTING(g), key) : SETTING(g);
    int line = s ? (int)config_setting_source_line(s) : 0;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    full_name(g, key, name, sizeof name);
    if (line > 0)
        pp_log_error("%s:%d: %s: %s", cfg->path, line, name, msg);
    else
        pp_log_error("%s: %s: %s", cfg->path, name, msg);
    return -EINVAL;
}

static const config_setting_t *member(const pp_config_setting *g, const char *key)
{
    return g ? config_setting_get_member(SETTING(g), key) : NULL;
}

int pp_config_get_group(const pp_config *cfg, const pp_config_setting *g, const char *name,
                        const pp_config_setting **out)
{
    const config_setting_t *s = member(g, name);

    if (!s)
        return 1;
    if (!config_setting_is_group(s))
        return pp_config_error(cfg, g, name, "must be a group { ... }");
    *out = NODE(s);
    return 0;
}

/* Numbers are decimal in every file (util.h pp_parse_double): libconfig's
 * hexadecimal integers (0x10) are refused. */
static int hex(const config_setting_t *s)
{
    return config_setting_get_format((config_setting_t *)s) == CONFIG_FORMAT_HEX;
}

static int as_double(const config_setting_t *s, double *out)
{
    if (hex(s))
        return -EINVAL;
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        *out = (double)config_setting_get_int(s);
        return 0;
    case CONFIG_TYPE_INT64:
        *out = (double)config_setting_get_int64(s);
        return 0;
    case CONFIG_TYPE_FLOAT:
        *out = config_setting_get_float(s);
        return 0;
    default:
        return -EINVAL;
    }
}

int pp_config_get_double(const pp_config *cfg, const pp_config_setting *g, const char *key,
                         double *out)
{
    const config_setting_t *s = member(g, key);

    if (!s)
        return 1;
    if (as_double(s, out) < 0)
        return pp_config_error(cfg, g, key, "must be a number, written in decimal");
    return 0;
}

int pp_config_get_int(const pp_config *cfg, const pp_config_setting *g, const char *key, int *out)
{
    const config_setting_t *s = member(g, key);

    if (!s)
        return 1;
    if (config_setting_type(s) != CONFIG_TYPE_INT || hex(s))
        return pp_config_error(cfg, g, key, "must be an integer, written in decimal");
    *out = config_setting_get_int(s);
    return 0;
}

int pp_config_get_string(const pp_config *cfg, const pp_config_setting *g, const char *key,
                         char *buf, size_t cap)
{
    const config_setting_t *s = member(g, key);

    if (!s)
        return 1;
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return pp_config_error(cfg, g, key, "must be a string \"...\"");
    if (pp_strlcpy(buf, config_setting_get_string(s), cap) < 0)
        return pp_config_error(cfg, g, key, "is longer than %zu characters", cap - 1);
    return 0;
}

int pp_config_get_doubles(const pp_config *cfg, const pp_config_setting *g, const char *key,
                          double *vals, size_t cap, size_t *n)
{
    const config_setting_t *s = member(g, key);
    int len;

    if (!s)
        return 1;
    if (!config_setting_is_aggregate(s) || config_setting_is_group(s))
        return pp_config_error(cfg, g, key, "must be a list of numbers [a, b, ...]");
    len = config_setting_length(s);
    if ((size_t)len > cap)
        return pp_config_error(cfg, g, key, "has %d values, at most %zu allowed", len, cap);
    for (int i = 0; i < len; i++)
        if (as_double(config_setting_get_elem(s, (unsigned)i), &vals[i]) < 0)
            return pp_config_error(cfg, g, key, "value %d is not a number written in decimal",
                                   i + 1);
    *n = (size_t)len;
    return 0;
}

int pp_config_check_keys(const pp_config *cfg, const pp_config_setting *g,
                         const char *const *allowed)
{
    int len = config_setting_length(SETTING(g));

    for (int i = 0; i < len; i++) {
        const char *name = config_setting_name(config_setting_get_elem(SETTING(g), (unsigned)i));
        int ok = 0;
        if (!name)
            continue;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, name) == 0;
        if (!ok) {
            char known[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(known, *a, sizeof known - strlen(known) - 3);
                if (a[1])
                    strncat(known, ", ", sizeof known - strlen(known) - 1);
            }
            return pp_config_error(cfg, g, name, "unknown key (known: %s)", known);
        }
    }
    return 0;
}

pp_config_kind pp_config_kind_of(const pp_config_setting *node)
{
    switch (config_setting_type(SETTING(node))) {
    case CONFIG_TYPE_GROUP:
        return PP_CONFIG_GROUP;
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
    case CONFIG_TYPE_FLOAT:
        return PP_CONFIG_NUMBER;
    case CONFIG_TYPE_STRING:
        return PP_CONFIG_STRING;
    case CONFIG_TYPE_ARRAY:
    case CONFIG_TYPE_LIST:
        return PP_CONFIG_LIST;
    default:
        return PP_CONFIG_OTHER;
    }
}

const pp_config_setting *pp_config_member(const pp_config_setting *g, const char *key)
{
    return NODE(member(g, key));
}

size_t pp_config_length(const pp_config_setting *node)
{
    int n = config_setting_length(SETTING(node));
    return n > 0 ? (size_t)n : 0;
}

const pp_config_setting *pp_config_elem(const pp_config_setting *node, size_t i)
{
    return NODE(config_setting_get_elem(SETTING(node), (unsigned)i));
}

const char *pp_config_name(const pp_config_setting *node) { return config_setting_name(SETTING(node)); }

int pp_config_number(const pp_config_setting *node, double *out) { return as_double(SETTING(node), out); }

const char *pp_config_string(const pp_config_setting *node)
{
    return config_setting_type(SETTING(node)) == CONFIG_TYPE_STRING
               ? config_setting_get_string(SETTING(node))
               : NULL;
}

int pp_config_node_error(const pp_config *cfg, const pp_config_setting *node, const char *what,
                         const char *fmt, ...)
{
    char msg[512];
    int line = node ? (int)config_setting_source_line(SETTING(node)) : 0;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        pp_log_error("%s:%d: %s: %s", cfg->path, line, what, msg);
    else
        pp_log_error("%s: %s: %s", cfg->path, what, msg);
    return -EINVAL;
}
