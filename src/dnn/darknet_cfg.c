#include "darknet_cfg.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The line at p (up to '\n') without any blank, in a malloc'd string. */
static char *stripped_line(const char *p, size_t len)
{
    char *s = malloc(len + 1);
    size_t n = 0;

    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)p[i]))
            s[n++] = p[i];
    s[n] = '\0';
    return s;
}

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
    void *p;

    if (n < *cap)
        return 0;
    p = realloc(*arr, (*cap ? *cap * 2 : 16) * size);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = *cap ? *cap * 2 : 16;
    return 0;
}

typedef struct parse_state {
    pp_dncfg *c;
    size_t cap_sections, cap_options; /* of the arrays being filled */
} parse_state;

/* "[type]": a new section. Takes s. */
static int add_section(parse_state *ps, char *s, int line)
{
    pp_dncfg *c = ps->c;
    size_t len = strlen(s);
    pp_dncfg_section *sec;

    if (len < 3 || s[len - 1] != ']') {
        pp_log_error("%s:%d: a section is '[type]', not '%s'", c->name, line, s);
        free(s);
        return -EINVAL;
    }
    if (grow((void **)&c->sections, c->n_sections, &ps->cap_sections, sizeof *c->sections) < 0) {
        free(s);
        return -ENOMEM;
    }
    sec = &c->sections[c->n_sections++];
    memset(sec, 0, sizeof *sec);
    memmove(s, s + 1, len - 2);
    s[len - 2] = '\0';
    sec->type = s;
    sec->line = line;
    ps->cap_options = 0;
    return 0;
}

/* "key=value" in the current section. Takes s. */
static int add_option(parse_state *ps, char *s, int line)
{
    pp_dncfg *c = ps->c;
    pp_dncfg_section *sec = c->n_sections ? &c->sections[c->n_sections - 1] : NULL;
    char *eq = strchr(s, '=');
    pp_dncfg_option *o;

    if (!sec || !eq || eq == s || !eq[1]) {
        pp_log_error("%s:%d: %s: '%s'", c->name, line,
                     !sec ? "a key before the first [section]"
                          : !eq ? "not 'key=value'" : eq == s ? "no key" : "no value",
                     s);
        free(s);
        return -EINVAL;
    }
    if (grow((void **)&sec->options, sec->n_options, &ps->cap_options, sizeof *sec->options) < 0) {
        free(s);
        return -ENOMEM;
    }
    *eq = '\0';
    o = &sec->options[sec->n_options++];
    o->key = s;
    o->value = eq + 1;
    o->line = line;
    return 0;
}

int pp_dncfg_parse(const char *text, const char *name, pp_dncfg *out)
{
    parse_state ps = {out, 0, 0};
    int line = 0, rc = 0;

    memset(out, 0, sizeof *out);
    if (!(out->name = strdup(name)))
        return -ENOMEM;
    for (const char *p = text; *p && rc == 0;) {
        size_t len = strcspn(p, "\n");
        char *s = stripped_line(p, len);

        line++;
        p += len + (p[len] == '\n');
        if (!s)
            rc = -ENOMEM;
        else if (s[0] == '\0' || s[0] == '#' || s[0] == ';')
            free(s);
        else
            rc = s[0] == '[' ? add_section(&ps, s, line) : add_option(&ps, s, line);
    }
    if (rc == 0 && (out->n_sections == 0 || (strcmp(out->sections[0].type, "net") != 0 &&
                                             strcmp(out->sections[0].type, "network") != 0))) {
        pp_log_error("%s:%d: a network file starts with [net], not %s%s%s", name,
                     out->n_sections ? out->sections[0].line : line + (line == 0),
                     out->n_sections ? "[" : "", out->n_sections ? out->sections[0].type : "nothing",
                     out->n_sections ? "]" : "");
        rc = -EINVAL;
    }
    if (rc < 0)
        pp_dncfg_free(out);
    return rc;
}

int pp_dncfg_read(const char *path, pp_dncfg *out)
{
    char *text = pp_read_file(path);
    int rc;

    memset(out, 0, sizeof *out);
    if (!text) {
        rc = -errno;
        pp_log_error("%s: cannot read: %s", path, strerror(errno));
        return rc ? rc : -EIO;
    }
    rc = pp_dncfg_parse(text, path, out);
    free(text);
    return rc;
}

void pp_dncfg_free(pp_dncfg *c)
{
    for (size_t i = 0; i < c->n_sections; i++) {
        for (size_t k = 0; k < c->sections[i].n_options; k++)
            free(c->sections[i].options[k].key); /* the value lives in the same block */
        free(c->sections[i].options);
        free(c->sections[i].type);
    }
    free(c->sections);
    free(c->name);
    memset(c, 0, sizeof *c);
}

const pp_dncfg_option *pp_dncfg_find(const pp_dncfg_section *s, const char *key)
{
    for (size_t k = s->n_options; k-- > 0;)
        if (strcmp(s->options[k].key, key) == 0)
            return &s->options[k];
    return NULL;
}

int pp_dncfg_int(const pp_dncfg *c, const pp_dncfg_section *s, const char *key, int dflt,
                 int min, int max, int *out)
{
    const pp_dncfg_option *o = pp_dncfg_find(s, key);
    int64_t v;

    if (!o) {
        *out = dflt;
        return 0;
    }
    if (pp_parse_int64(o->value, &v) < 0) {
        pp_log_error("%s:%d: [%s] %s=%s: not an integer", c->name, o->line, s->type, key, o->value);
        return -EINVAL;
    }
    if (v < min || v > max) {
        pp_log_error("%s:%d: [%s] %s=%s: out of range [%d, %d]", c->name, o->line, s->type, key,
                     o->value, min, max);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

int pp_dncfg_ints(const pp_dncfg *c, const pp_dncfg_section *s, const char *key, int *out,
                  size_t cap, size_t *n)
{
    const pp_dncfg_option *o = pp_dncfg_find(s, key);
    char buf[256];
    char *tok, *save = NULL;

    *n = 0;
    if (!o)
        return -ENOENT;
    if (pp_strlcpy(buf, o->value, sizeof buf) < 0) {
        pp_log_error("%s:%d: [%s] %s: too long", c->name, o->line, s->type, key);
        return -EINVAL;
    }
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (*n == cap || pp_parse_int64(tok, &v) < 0 || v < INT_MIN || v > INT_MAX) {
            pp_log_error("%s:%d: [%s] %s=%s: %s", c->name, o->line, s->type, key, o->value,
                         *n == cap ? "too many values" : "not a list of integers");
            return -EINVAL;
        }
        out[(*n)++] = (int)v;
    }
    if (*n == 0) {
        pp_log_error("%s:%d: [%s] %s=%s: no value", c->name, o->line, s->type, key, o->value);
        return -EINVAL;
    }
    return 0;
}

static void write_section(FILE *fp, const pp_dncfg_section *s, int width, int height)
{
    fprintf(fp, "[%s]\n", s->type);
    if (width > 0)
        fprintf(fp, "width=%d\nheight=%d\n", width, height);
    for (size_t k = 0; k < s->n_options; k++)
        if (width <= 0 || (strcmp(s->options[k].key, "width") != 0 &&
                           strcmp(s->options[k].key, "height") != 0))
            fprintf(fp, "%s=%s\n", s->options[k].key, s->options[k].value);
    fputc('\n', fp);
}

int pp_dncfg_write_sized(const pp_dncfg *c, int width, int height, const char *path)
{
    FILE *fp = fopen(path, "w");
    int rc = 0;

    if (!fp) {
        rc = -errno;
        pp_log_error("%s: %s", path, strerror(errno));
        return rc;
    }
    for (size_t i = 0; i < c->n_sections; i++)
        write_section(fp, &c->sections[i], i == 0 ? width : 0, height);
    if (ferror(fp))
        rc = -EIO;
    if (fclose(fp) != 0 && rc == 0)
        rc = -errno;
    if (rc < 0)
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    return rc;
}
