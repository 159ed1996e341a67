/* matrix-cpu (module powprof-matrix-cpu.so): random single-precision
 * matrices with OpenBLAS (sgemm). Parameters: size (required), exponent
 * (exponentiate; default 2), threads (default 1). op = "multiply" (C = A B,
 * one step) or "exponentiate" (A^exponent by exponent - 1 multiplications,
 * one step); op may be a categorical parameter. Entries are drawn in
 * [0, 1/size) so that powers stay finite. A module of its own so that only
 * the profiles that use it load OpenBLAS (and start its threads). */
#include "component.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct matrix_priv {
    int n, exponent, exponentiate, threads;
    float *a, *b, *c;
} matrix_priv;

static const char *const ops[] = {"multiply", "exponentiate", NULL};

static const pp_component_key matrix_keys[] = {
    {"op", PP_KEY_STRING, 0, ops, "multiply (default) or exponentiate"},
    {NULL, 0, 0, NULL, NULL},
};

/* A parameter that must be a whole number in [1, max]; dflt < 0: required. */
static int whole(pp_component *c, const char *name, double dflt, double max, int *out)
{
    double v = dflt;
    int rc = pp_component_param(c, name, &v);

    if (rc == -EDOM || (rc == -ENOENT && dflt < 0)) {
        snprintf(c->reason, sizeof c->reason, "matrix-cpu needs a number parameter '%s'", name);
        return -EINVAL;
    }
    if (!(v >= 1 && v <= max && v == floor(v))) {
        snprintf(c->reason, sizeof c->reason, "%s %g: a whole number in [1, %g]", name, v, max);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

/* The settings of this configuration into m (no allocation). */
static int matrix_read(pp_component *c, matrix_priv *m)
{
    char op[32];
    int rc;

    if ((rc = whole(c, "size", -1, 65536, &m->n)) < 0 ||
        (rc = whole(c, "exponent", 2, 100000, &m->exponent)) < 0 ||
        (rc = whole(c, "threads", 1, 1024, &m->threads)) < 0)
        return rc;
    rc = pp_component_text(c, "op", op, sizeof op);
    if (rc < 0)
        return rc;
    if (rc == 0 && strcmp(op, "multiply") != 0 && strcmp(op, "exponentiate") != 0) {
        snprintf(c->reason, sizeof c->reason, "op '%s': multiply or exponentiate", op);
        return -EINVAL;
    }
    m->exponentiate = strcmp(op, "exponentiate") == 0;
    return 0;
}

static int matrix_check(pp_component *c)
{
    matrix_priv m;

    return matrix_read(c, &m);
}

static void matrix_teardown(pp_component *c)
{
    matrix_priv *m = c->priv;

    if (!m)
        return;
    free(m->a);
    free(m->b);
    free(m->c);
    free(m);
    c->priv = NULL;
}

static int matrix_setup(pp_component *c)
{
    matrix_priv *m = calloc(1, sizeof *m);
    unsigned seed = 12345;
    size_t nn;
    int rc;

    if (!m)
        return -ENOMEM;
    c->priv = m;
    if ((rc = matrix_read(c, m)) < 0)
        return rc;
    openblas_set_num_threads(m->threads);
    nn = (size_t)m->n * (size_t)m->n;
    m->a = malloc(nn * sizeof *m->a);
    m->b = malloc(nn * sizeof *m->b);
    m->c = malloc(nn * sizeof *m->c);
    if (!m->a || !m->b || !m->c) {
        snprintf(c->reason, sizeof c->reason, "cannot allocate three %dx%d matrices", m->n, m->n);
        return -ENOMEM;
    }
    for (size_t i = 0; i < nn; i++) {
        seed = seed * 1103515245u + 12345u;
        m->a[i] = (float)((seed >> 8) & 0xffff) / 65536.0f / (float)m->n;
        seed = seed * 1103515245u + 12345u;
        m->b[i] = (float)((seed >> 8) & 0xffff) / 65536.0f / (float)m->n;
    }
    return 0;
}

static int matrix_step(pp_component *c, int64_t deadline_ns)
{
    matrix_priv *m = c->priv;
    int n = m->n;

    (void)deadline_ns;
    if (!m->exponentiate) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, m->a, n, m->b, n,
                    0.0f, m->c, n);
        return 0;
    }
    /* A^e: b holds the running power */
    memcpy(m->b, m->a, (size_t)n * (size_t)n * sizeof *m->b);
    for (int e = 1; e < m->exponent; e++) {
        float *t;
        if (atomic_load(c->cancel))
            return -ECANCELED;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, m->b, n, m->a, n,
                    0.0f, m->c, n);
        t = m->b;
        m->b = m->c;
        m->c = t;
    }
    return 0;
}

static const pp_component_ops matrix_cpu = {
    .type = "matrix-cpu",
    .summary = "OpenBLAS sgemm on random matrices: multiply, or exponentiate",
    .keys = matrix_keys,
    .check = matrix_check,
    .setup = matrix_setup,
    .step = matrix_step,
    .teardown = matrix_teardown,
};

PP_COMPONENT_MODULE(&matrix_cpu);
