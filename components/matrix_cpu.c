/* matrix-cpu: random single-precision matrices with OpenBLAS (sgemm).
 * Parameters: size (required), exponent (exponentiate; default 2), threads
 * (default 1). op = "multiply" (C = A B, one step) or "exponentiate"
 * (A^exponent by exponent - 1 multiplications, one step). Entries are drawn
 * in [0, 1/size) so that powers stay finite. */
#include "component.h"

#include "../src/util.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct matrix_priv {
    int n, exponent, exponentiate;
    float *a, *b, *c;
} matrix_priv;

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
    matrix_priv *m;
    double size, exponent = 2, threads = 1;
    unsigned seed = 12345;
    size_t nn;

    if (pp_component_param(c, "size", &size) < 0) {
        pp_fmt(c->reason, sizeof c->reason, "matrix-cpu needs a parameter 'size'");
        return -EINVAL;
    }
    pp_component_param(c, "exponent", &exponent);
    pp_component_param(c, "threads", &threads);
    if (!(size >= 1 && size <= 65536 && size == floor(size))) {
        pp_fmt(c->reason, sizeof c->reason, "size %g: a whole number in [1, 65536]", size);
        return -EINVAL;
    }
    if (!(exponent >= 1 && exponent <= 100000 && exponent == floor(exponent))) {
        pp_fmt(c->reason, sizeof c->reason, "exponent %g: a whole number >= 1", exponent);
        return -EINVAL;
    }
    if (!(threads >= 1 && threads <= 1024 && threads == floor(threads))) {
        pp_fmt(c->reason, sizeof c->reason, "threads %g: a whole number >= 1", threads);
        return -EINVAL;
    }
    m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    c->priv = m;
    m->n = (int)size;
    m->exponent = (int)exponent;
    m->exponentiate = strcmp(c->spec->op, "exponentiate") == 0;
    nn = (size_t)m->n * (size_t)m->n;
    m->a = malloc(nn * sizeof *m->a);
    m->b = malloc(nn * sizeof *m->b);
    m->c = malloc(nn * sizeof *m->c);
    if (!m->a || !m->b || !m->c) {
        pp_fmt(c->reason, sizeof c->reason, "cannot allocate three %dx%d matrices", m->n, m->n);
        matrix_teardown(c);
        return -ENOMEM;
    }
    for (size_t i = 0; i < nn; i++) {
        seed = seed * 1103515245u + 12345u;
        m->a[i] = (float)((seed >> 8) & 0xffff) / 65536.0f / (float)m->n;
        seed = seed * 1103515245u + 12345u;
        m->b[i] = (float)((seed >> 8) & 0xffff) / 65536.0f / (float)m->n;
    }
    openblas_set_num_threads((int)threads);
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

const pp_component_ops pp_component_matrix_cpu = {"matrix-cpu", matrix_setup, matrix_step,
                                                  matrix_teardown};
