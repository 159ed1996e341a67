/* The CUDA components (module powprof-cuda.so, built when nvcc is found;
 * see gpu.cu):
 *   matrix-gpu        cuBLAS exponentiation: parameters size, exponent (default 2);
 *                     op = "multiply" is one product
 *   nvidia-matrix     cuBLAS multiplication, then a CPU check of 16 entries
 *   nvidia-quicksort  GPU quicksort of `size` random integers, checked on the CPU
 * Their check says when there is no driver or no device, so a dry run fails
 * before anything runs. */
#include "component.h"
#include "gpu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gpu_priv {
    pp_gpu_matrix *m;
    int exponent;
    size_t sort_n;
    unsigned seed;
} gpu_priv;

static const char *const ops[] = {"multiply", "exponentiate", NULL};

static const pp_component_key matrix_gpu_keys[] = {
    {"op", PP_KEY_STRING, 0, ops, "exponentiate (default) or multiply (one product)"},
    {NULL, 0, 0, NULL, NULL},
};

static int is_sort(const pp_component *c) { return strcmp(c->ops->type, "nvidia-quicksort") == 0; }

static int whole_param(pp_component *c, const char *name, double dflt, double max, double *out)
{
    int rc;

    *out = dflt;
    rc = pp_component_param(c, name, out);
    if (rc == -EDOM || (rc < 0 && dflt < 0)) {
        snprintf(c->reason, sizeof c->reason, "%s needs a number parameter '%s'", c->ops->type,
                 name);
        return -EINVAL;
    }
    if (!(*out >= 1 && *out <= max && *out == floor(*out))) {
        snprintf(c->reason, sizeof c->reason, "%s %g: a whole number in [1, %g]", name, *out, max);
        return -EINVAL;
    }
    return 0;
}

/* size and exponent of this configuration (op = multiply: exponent 2). */
static int read_params(pp_component *c, double *size, double *exponent)
{
    char op[32];
    int rc = whole_param(c, "size", -1, is_sort(c) ? 1e9 : 32768, size);

    if (rc == 0)
        rc = whole_param(c, "exponent", 2, 100000, exponent);
    if (rc == 0 && pp_component_text(c, "op", op, sizeof op) == 0 && strcmp(op, "multiply") == 0)
        *exponent = 2;
    return rc;
}

static int gpu_check(pp_component *c)
{
    double size, exponent;
    int rc = read_params(c, &size, &exponent);

    if (rc == 0 && pp_gpu_check(c->reason, sizeof c->reason) < 0)
        rc = -ENODEV;
    return rc;
}

static int gpu_setup(pp_component *c)
{
    gpu_priv *g = calloc(1, sizeof *g);
    double size, exponent;
    int rc;

    if (!g)
        return -ENOMEM;
    c->priv = g;
    if ((rc = read_params(c, &size, &exponent)) < 0)
        return rc;
    g->exponent = (int)exponent;
    if (is_sort(c)) {
        g->sort_n = (size_t)size;
        g->seed = 1;
        return pp_gpu_check(c->reason, sizeof c->reason) < 0 ? -ENODEV : 0;
    }
    return pp_gpu_matrix_create((int)size, &g->m, c->reason, sizeof c->reason) < 0 ? -ENODEV : 0;
}

static int gpu_step(pp_component *c, int64_t deadline_ns)
{
    gpu_priv *g = c->priv;
    int rc;

    (void)deadline_ns;
    if (strcmp(c->ops->type, "matrix-gpu") == 0)
        rc = pp_gpu_matrix_exponentiate(g->m, g->exponent, c->reason, sizeof c->reason);
    else if (strcmp(c->ops->type, "nvidia-matrix") == 0)
        rc = pp_gpu_matrix_multiply_checked(g->m, 16, c->reason, sizeof c->reason);
    else
        rc = pp_gpu_quicksort(g->sort_n, g->seed++, c->reason, sizeof c->reason);
    return rc < 0 ? -EIO : 0;
}

static void gpu_teardown(pp_component *c)
{
    gpu_priv *g = c->priv;

    if (!g)
        return;
    pp_gpu_matrix_destroy(g->m);
    free(g);
    c->priv = NULL;
}

#define GPU_TYPE(var, name, text, k)                                                          \
    static const pp_component_ops var = {.type = name, .summary = text, .keys = k,            \
                                         .check = gpu_check, .setup = gpu_setup,              \
                                         .step = gpu_step, .teardown = gpu_teardown}

GPU_TYPE(matrix_gpu, "matrix-gpu", "cuBLAS matrix exponentiation on the GPU", matrix_gpu_keys);
GPU_TYPE(nvidia_matrix, "nvidia-matrix", "cuBLAS multiplication, checked on the CPU", NULL);
GPU_TYPE(nvidia_quicksort, "nvidia-quicksort", "quicksort of random integers on the GPU", NULL);

PP_COMPONENT_MODULE(&matrix_gpu, &nvidia_matrix, &nvidia_quicksort);
