/* The CUDA components (built when nvcc is found; see gpu.cu):
 *   matrix-gpu        cuBLAS exponentiation: parameters size, exponent (default 2)
 *   nvidia-matrix     cuBLAS multiplication, then a CPU check of 16 entries
 *   nvidia-quicksort  GPU quicksort of `size` random integers, checked on the CPU
 * Without a usable GPU, setup fails with CUDA's reason and the sweep goes on. */
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


static int whole_param(pp_component *c, const char *name, double dflt, double max, double *out)
{
    *out = dflt;
    if (pp_component_param(c, name, out) < 0 && dflt < 0) {
        snprintf(c->reason, sizeof c->reason, "%s needs a parameter '%s'", c->spec->type, name);
        return -EINVAL;
    }
    if (!(*out >= 1 && *out <= max && *out == floor(*out))) {
        snprintf(c->reason, sizeof c->reason, "%s %g: a whole number in [1, %g]", name, *out, max);
        return -EINVAL;
    }
    return 0;
}

static int gpu_setup(pp_component *c)
{
    gpu_priv *g = calloc(1, sizeof *g);
    double size, exponent;
    int rc;

    if (!g)
        return -ENOMEM;
    c->priv = g;
    rc = whole_param(c, "size", -1, strcmp(c->spec->type, "nvidia-quicksort") == 0 ? 1e9 : 32768,
                     &size);
    if (rc == 0)
        rc = whole_param(c, "exponent", 2, 100000, &exponent);
    if (rc < 0)
        return rc;
    g->exponent = (int)exponent;
    if (strcmp(c->spec->type, "nvidia-quicksort") == 0) {
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
    if (strcmp(c->spec->type, "matrix-gpu") == 0)
        rc = pp_gpu_matrix_exponentiate(g->m, g->exponent, c->reason, sizeof c->reason);
    else if (strcmp(c->spec->type, "nvidia-matrix") == 0)
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

const pp_component_ops pp_component_matrix_gpu = {"matrix-gpu", gpu_setup, gpu_step, gpu_teardown};
const pp_component_ops pp_component_nvidia_matrix = {"nvidia-matrix", gpu_setup, gpu_step,
                                                     gpu_teardown};
const pp_component_ops pp_component_nvidia_quicksort = {"nvidia-quicksort", gpu_setup, gpu_step,
                                                        gpu_teardown};
