/* summary_params.c - what the rows say of each parameter (summary_params.h):
 * a parameter measured at one value only is a constant of the folder. */
#include "summary_params.h"

int pp_summary_constant(const pp_summary *s, size_t k, double *value)
{
    if (k >= s->n_params || s->n_rows == 0)
        return 0;
    for (size_t r = 1; r < s->n_rows; r++)
        if (s->x[r * s->n_params + k] != s->x[k])
            return 0;
    if (value)
        *value = s->x[k];
    return 1;
}

size_t pp_summary_imply_constants(const pp_summary *s, double *raw, int *given)
{
    size_t n = 0;

    for (size_t k = 0; k < s->n_params; k++)
        if (!given[k] && pp_summary_constant(s, k, &raw[k])) {
            given[k] = 1;
            n++;
        }
    return n;
}
