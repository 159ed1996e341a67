/* memcopy: a component module of one's own, as a user writes one.
 *
 * Each step copies a buffer of size_kb KiB (a parameter, default 1024)
 * into another: memory traffic, to see what bandwidth costs in power.
 * fill = "zeros" (default) or "random" chooses the buffer's contents (a key
 * of this type, with its choices); passes = N copies per step (a number
 * key, default 1).
 *
 * Build it against the installed headers, as a shared object named after
 * its type, and put it where powprof looks for modules:
 *
 *   cc -shared -fPIC $(pkg-config --cflags powprof) -o powprof-memcopy.so memcopy.c
 *   POWPROF_MODULE_PATH=$PWD powprof profile memcopy.cfg --dry-run
 *
 * with a profile such as
 *
 *   components = ( { type = "memcopy"; fill = "random"; duration_s = 2.0;
 *                    params = { size_kb = [ 256, 4096, 65536 ]; }; } );
 */
#include <powprof/component.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct memcopy {
    size_t bytes;
    long passes;
    unsigned char *src, *dst;
} memcopy;

static const char *const fills[] = {"zeros", "random", NULL};

static const pp_component_key memcopy_keys[] = {
    {"fill", PP_KEY_STRING, 0, fills, "the buffer's contents: zeros (default) or random"},
    {"passes", PP_KEY_NUMBER, 0, NULL, "copies per step (default 1)"},
    {NULL, 0, 0, NULL, NULL},
};

/* size_kb and passes of this configuration. */
static int read_sizes(pp_component *c, size_t *bytes, long *passes)
{
    const pp_setting *p = pp_component_setting(c->spec, "passes");
    double kb = 1024;
    int rc = pp_component_param(c, "size_kb", &kb);

    if (rc == -EDOM || !(kb >= 1 && kb <= 16 * 1024 * 1024 && kb == floor(kb))) {
        snprintf(c->reason, sizeof c->reason, "size_kb: a whole number of KiB in [1, 16777216]");
        return -EINVAL;
    }
    *passes = p ? (long)p->number : 1;
    if (*passes < 1 || *passes > 1000000) {
        snprintf(c->reason, sizeof c->reason, "passes %ld: in [1, 1000000]", *passes);
        return -EINVAL;
    }
    *bytes = (size_t)kb * 1024;
    return 0;
}

static int memcopy_check(pp_component *c)
{
    size_t bytes;
    long passes;

    return read_sizes(c, &bytes, &passes);
}

static int memcopy_setup(pp_component *c)
{
    memcopy *m = calloc(1, sizeof *m);
    char fill[16];
    int rc;

    if (!m)
        return -ENOMEM;
    c->priv = m;
    if ((rc = read_sizes(c, &m->bytes, &m->passes)) < 0)
        return rc;
    m->src = calloc(1, m->bytes);
    m->dst = calloc(1, m->bytes);
    if (!m->src || !m->dst) {
        snprintf(c->reason, sizeof c->reason, "cannot allocate 2 x %zu bytes", m->bytes);
        return -ENOMEM;
    }
    if (pp_component_text(c, "fill", fill, sizeof fill) == 0 && strcmp(fill, "random") == 0) {
        unsigned seed = 1;
        for (size_t i = 0; i < m->bytes; i++) {
            seed = seed * 1103515245u + 12345u;
            m->src[i] = (unsigned char)(seed >> 16);
        }
    }
    return 0;
}

static int memcopy_step(pp_component *c, int64_t deadline_ns)
{
    memcopy *m = c->priv;

    (void)deadline_ns;
    for (long i = 0; i < m->passes; i++) {
        if (atomic_load(c->cancel))
            return -ECANCELED;
        memcpy(m->dst, m->src, m->bytes);
    }
    /* the copy is used, so that the compiler keeps it */
    return m->dst[m->bytes - 1] == m->src[m->bytes - 1] ? 0 : -EIO;
}

static void memcopy_teardown(pp_component *c)
{
    memcopy *m = c->priv;

    if (m) {
        free(m->src);
        free(m->dst);
        free(m);
    }
    c->priv = NULL;
}

static const pp_component_ops memcopy_type = {
    .type = "memcopy",
    .summary = "copies a buffer of size_kb KiB per step (memory traffic)",
    .keys = memcopy_keys,
    .check = memcopy_check,
    .setup = memcopy_setup,
    .step = memcopy_step,
    .teardown = memcopy_teardown,
};

PP_COMPONENT_MODULE(&memcopy_type);
