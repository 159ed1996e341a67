/* component.h - workloads behind one interface (installed as
 * <powprof/component.h>: the interface a component module is written
 * against).
 *
 * A component type is a static const pp_component_ops table: its name, the
 * keys it accepts in a profile, and four operations. The scheduler
 * (src/sweep/scheduler.h), not the component, paces the steps: a component does
 * one unit of work per step. A component reads its settings (the type's own
 * keys) from spec and this configuration's parameter values from values
 * (same order as spec->params). Operations return 0 or a negative errno,
 * with a one-line reason in c->reason.
 *
 * Types live in the core (idle, exec) or in shared modules loaded with
 * dlopen when a profile names them (matrix-cpu, darknet, the CUDA types, and
 * modules of your own). A module exports one pp_component_module table:
 *
 *   static const pp_component_ops my_type = {"my-type", "one line", keys,
 *                                            check, setup, step, teardown};
 *   PP_COMPONENT_MODULE(&my_type);
 *
 * and is installed as powprof-<type>.so where powprof looks for modules
 * (POWPROF_MODULE_PATH, then lib/powprof beside the binary's folder; see
 * docs/DESIGN.md). examples/module/memcopy.c is a complete one. Every helper
 * below is inline: a module needs no symbol of powprof's.
 *
 * This header depends on no parser and no other powprof header.
 */
#ifndef PP_COMPONENT_H
#define PP_COMPONENT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* C++ (a module written in it): std::atomic<int> has the layout of C's
 * atomic_int with GCC and Clang, the compilers powprof is built with. */
#ifdef __cplusplus
#include <atomic>
using std::atomic_int;
extern "C" {
#else
#include <stdatomic.h>
#endif

/* Bumped whenever a structure below changes layout. */
#define PP_COMPONENT_ABI 2

#define PP_COMPONENT_NAME_MAX 64
#define PP_COMPONENT_TYPE_MAX 32
#define PP_COMPONENT_MAX_PARAMS 16
#define PP_COMPONENT_MAX_VALUES 4096
#define PP_COMPONENT_MAX_SETTINGS 16
#define PP_COMPONENT_MAX_STRINGS 64   /* strings of all settings of one component */
#define PP_COMPONENT_STRING_MAX 256
#define PP_PARAM_MAX_LABELS 64
#define PP_PARAM_LABEL_MAX 128

/* ---- Parameters: one value per configuration ---------------------------- */

typedef enum pp_range_kind {
    PP_RANGE_FIXED = 0,
    PP_RANGE_LINEAR,
    PP_RANGE_EXPONENTIAL, /* normalized on a log scale in layer 2 */
    PP_RANGE_LIST,
    PP_RANGE_CATEGORICAL, /* labels ["yolov3-tiny", "yolov2-tiny"]; the value is the index */
} pp_range_kind;

typedef struct pp_param_spec {
    char name[PP_COMPONENT_NAME_MAX];
    pp_range_kind kind;
    size_t n_values;
    double values[PP_COMPONENT_MAX_VALUES]; /* categorical: 0 .. n_values-1 */
    /* categorical: letters, digits and _ . - + / : only (safe in a CSV cell,
     * an argv element, a file name) */
    char labels[PP_PARAM_MAX_LABELS][PP_PARAM_LABEL_MAX];
} pp_param_spec;

/* ---- Settings: the keys a type declares --------------------------------- */

typedef enum pp_key_kind {
    PP_KEY_STRING = 1, /* "text": may hold {param} placeholders; a parameter of the
                          same name may stand for it */
    PP_KEY_STRINGS,    /* ["text", ...]: each may hold {param} placeholders */
    PP_KEY_NUMBER,
} pp_key_kind;

typedef struct pp_component_key {
    const char *name;
    pp_key_kind kind;
    int required;
    const char *const *choices; /* PP_KEY_STRING: the accepted values, NULL-ended; NULL: any */
    const char *doc;            /* one line: what it is, its default */
} pp_component_key;

typedef struct pp_setting {
    char key[PP_COMPONENT_TYPE_MAX];
    pp_key_kind kind;
    double number;      /* PP_KEY_NUMBER */
    size_t first, n;    /* strings[first .. first + n - 1] of the spec */
} pp_setting;

/* ---- A component of a profile ------------------------------------------- */

typedef enum pp_until {
    PP_UNTIL_COMPLETION = 0, /* one step, run to its end */
    PP_UNTIL_DURATION,       /* steps repeated for duration_s */
    PP_UNTIL_ITERATIONS,     /* steps repeated iterations times */
} pp_until;

typedef struct pp_component_ops pp_component_ops;

typedef struct pp_component_spec {
    char name[PP_COMPONENT_NAME_MAX];
    char type[PP_COMPONENT_TYPE_MAX];
    const pp_component_ops *ops; /* the type (set when a profile is loaded); NULL: by name */
    pp_until until;
    double duration_s;
    long iterations;
    double fps;        /* 0: unpaced; may be a parameter instead */
    double sleep_s;    /* after each step; may be a parameter instead */
    double timeout_s;  /* a step running longer is stopped (0: duration_s + 10 s, or none) */
    size_t n_settings;
    pp_setting settings[PP_COMPONENT_MAX_SETTINGS];
    size_t n_strings;
    char strings[PP_COMPONENT_MAX_STRINGS][PP_COMPONENT_STRING_MAX];
    size_t n_params;
    pp_param_spec params[PP_COMPONENT_MAX_PARAMS];
} pp_component_spec;

typedef struct pp_component {
    const pp_component_ops *ops;
    const pp_component_spec *spec;
    const double *values;     /* one per spec->params; categorical: the label's index */
    const atomic_int *cancel; /* set when the sweep is interrupted */
    void *priv;
    char reason[512];
} pp_component;

struct pp_component_ops {
    const char *type;
    const char *summary;          /* one line for `powprof profile --types` */
    const pp_component_key *keys; /* the type's own keys, ended by {NULL}; NULL: none */
    /* Before any run (--dry-run and the start of a sweep), once per category
     * of the categorical parameters (numbers at their first value), with
     * priv NULL: are the files, libraries and devices there? May be NULL. */
    int (*check)(pp_component *c);
    int (*setup)(pp_component *c);
    /* One unit of work (a multiplication, a frame, one run of a program).
     * deadline_ns (monotonic) is when the step must be given up (0: none);
     * a step past it returns -ETIMEDOUT. Returns 0, -errno, or
     * PP_STEP_IDLE: no work done and none to do, so that a component
     * paced by neither fps nor sleep_s sleeps through the rest of its
     * duration instead of stepping in a loop. */
    int (*step)(pp_component *c, int64_t deadline_ns);
    void (*teardown)(pp_component *c); /* also after a failed setup */
};

/* pp_component_ops.step: "nothing to do" (a success). */
#define PP_STEP_IDLE 1

/* What a module exports, under the name "pp_component_exports". */
typedef struct pp_component_module {
    unsigned abi;                          /* PP_COMPONENT_ABI */
    size_t spec_size, component_size;      /* as the module was built */
    const pp_component_ops *const *types;  /* NULL-ended */
} pp_component_module;

#ifdef __cplusplus /* no compound literal; the table keeps C linkage (dlsym finds it) */
#define PP_COMPONENT_MODULE(...)                                                               \
    static const pp_component_ops *const pp_component_types_[] = {__VA_ARGS__, NULL};          \
    extern "C" __attribute__((visibility("default"))) const pp_component_module                \
        pp_component_exports = {PP_COMPONENT_ABI, sizeof(pp_component_spec),                  \
                                sizeof(pp_component), pp_component_types_}
#else
#define PP_COMPONENT_MODULE(...)                                                               \
    __attribute__((visibility("default"))) const pp_component_module pp_component_exports = {  \
        PP_COMPONENT_ABI, sizeof(pp_component_spec), sizeof(pp_component),                   \
        (const pp_component_ops *const[]){__VA_ARGS__, NULL}}
#endif

/* ---- Helpers for components (inline: modules link nothing of powprof) ---- */

/* Index of parameter name in spec, or -1. */
static inline int pp_component_param_index(const pp_component_spec *s, const char *name)
{
    for (size_t i = 0; i < s->n_params; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* The number a parameter has in this configuration: 0; -ENOENT when the
 * component has no such parameter; -EDOM when it is categorical. */
static inline int pp_component_param(const pp_component *c, const char *name, double *out)
{
    int i = pp_component_param_index(c->spec, name);

    if (i < 0)
        return -ENOENT;
    if (c->spec->params[i].kind == PP_RANGE_CATEGORICAL)
        return -EDOM;
    *out = c->values[i];
    return 0;
}

/* A parameter as text: its label, or its number as %.10g. 0, -ENOENT or
 * -ENAMETOOLONG. */
static inline int pp_component_param_text(const pp_component *c, const char *name, char *out,
                                          size_t cap)
{
    int i = pp_component_param_index(c->spec, name), n;
    const pp_param_spec *ps;

    if (i < 0)
        return -ENOENT;
    ps = &c->spec->params[i];
    if (ps->kind == PP_RANGE_CATEGORICAL) {
        size_t k = (size_t)c->values[i];
        n = snprintf(out, cap, "%s", k < ps->n_values ? ps->labels[k] : "");
    } else {
        n = snprintf(out, cap, "%.10g", c->values[i]);
    }
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* The setting of key, or NULL when the profile did not give it. */
static inline const pp_setting *pp_component_setting(const pp_component_spec *s, const char *key)
{
    for (size_t i = 0; i < s->n_settings; i++)
        if (strcmp(s->settings[i].key, key) == 0)
            return &s->settings[i];
    return NULL;
}

/* String i of a string (list) setting, or NULL. */
static inline const char *pp_component_string(const pp_component_spec *s, const char *key,
                                              size_t i)
{
    const pp_setting *st = pp_component_setting(s, key);

    return st && i < st->n ? s->strings[st->first + i] : NULL;
}

/* in with each {name} replaced by parameter name's text. 0; -EINVAL (not
 * a parameter: c->reason says which); -ENAMETOOLONG. */
static inline int pp_component_expand(pp_component *c, const char *in, char *out, size_t cap)
{
    size_t len = 0;

    while (*in) {
        const char *end = *in == '{' ? strchr(in, '}') : NULL;
        char name[PP_COMPONENT_NAME_MAX];
        int rc;

        if (!end) {
            if (len + 1 >= cap)
                return -ENAMETOOLONG;
            out[len++] = *in++;
            continue;
        }
        snprintf(name, sizeof name, "%.*s", (int)(end - in - 1), in + 1);
        rc = pp_component_param_text(c, name, out + len, cap - len);
        if (rc == -ENOENT)
            snprintf(c->reason, sizeof c->reason, "{%s} is not a parameter", name);
        if (rc < 0)
            return rc == -ENOENT ? -EINVAL : rc;
        len += strlen(out + len);
        in = end + 1;
    }
    out[len] = '\0';
    return 0;
}

/* A PP_KEY_STRING key's text in this configuration: the parameter of that
 * name when there is one, else the setting with its placeholders replaced.
 * 0; 1 when neither is given (out empty); or a pp_component_expand error. */
static inline int pp_component_text(pp_component *c, const char *key, char *out, size_t cap)
{
    const char *s = pp_component_string(c->spec, key, 0);

    out[0] = '\0';
    if (pp_component_param_index(c->spec, key) >= 0)
        return pp_component_param_text(c, key, out, cap);
    return s ? pp_component_expand(c, s, out, cap) : 1;
}

/* For programs that build a spec themselves (the profile loader, tests,
 * embedding): set key to n strings (PP_KEY_STRING: one; PP_KEY_STRINGS:
 * a list) or to number (PP_KEY_NUMBER, n = 0). 0; -ENOSPC past
 * PP_COMPONENT_MAX_SETTINGS settings or PP_COMPONENT_MAX_STRINGS strings;
 * -ENAMETOOLONG for a key or a string too long (nothing set then). */
static inline int pp_component_spec_set(pp_component_spec *s, const char *key, pp_key_kind kind,
                                        const char *const *strings, size_t n, double number)
{
    pp_setting *st = &s->settings[s->n_settings];

    if (s->n_settings == PP_COMPONENT_MAX_SETTINGS || s->n_strings + n > PP_COMPONENT_MAX_STRINGS)
        return -ENOSPC;
    if (strlen(key) >= sizeof st->key)
        return -ENAMETOOLONG;
    for (size_t i = 0; i < n; i++)
        if (strlen(strings[i]) >= PP_COMPONENT_STRING_MAX)
            return -ENAMETOOLONG;
    memset(st, 0, sizeof *st);
    memcpy(st->key, key, strlen(key) + 1);
    st->kind = kind;
    st->number = number;
    st->first = s->n_strings;
    st->n = n;
    for (size_t i = 0; i < n; i++)
        memcpy(s->strings[s->n_strings++], strings[i], strlen(strings[i]) + 1);
    s->n_settings++;
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif
