#include "component.h"

#include <errno.h>
#include <string.h>

extern const pp_component_ops pp_component_idle;
extern const pp_component_ops pp_component_exec;
extern const pp_component_ops pp_component_matrix_cpu;
#ifdef PP_HAVE_DARKNET
extern const pp_component_ops pp_component_darknet;
#endif
#ifdef PP_HAVE_CUDA
extern const pp_component_ops pp_component_matrix_gpu;
extern const pp_component_ops pp_component_nvidia_matrix;
extern const pp_component_ops pp_component_nvidia_quicksort;
#endif

static const pp_component_ops *const all[] = {
    &pp_component_idle,
    &pp_component_exec,
    &pp_component_matrix_cpu,
#ifdef PP_HAVE_DARKNET
    &pp_component_darknet,
#endif
#ifdef PP_HAVE_CUDA
    &pp_component_matrix_gpu,
    &pp_component_nvidia_matrix,
    &pp_component_nvidia_quicksort,
#endif
};

const pp_component_ops *pp_component_find(const char *type)
{
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->type, type) == 0)
            return all[i];
    return NULL;
}

int pp_component_param(const pp_component *c, const char *name, double *out)
{
    for (size_t i = 0; i < c->spec->n_params; i++)
        if (strcmp(c->spec->params[i].name, name) == 0) {
            *out = c->values[i];
            return 0;
        }
    return -ENOENT;
}
