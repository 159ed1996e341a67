/* summary_params.c - what the rows say of each parameter (summary.h):
 * a parameter measured at one value only is a constant of the folder; a
 * scale that is logarithmic. */
#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Distinct values (sorted), at least 3, all > 0, each ratio between
 * neighbours a whole power (within 1 %) of the smallest one, which is at
 * least 1.5: a geometric sequence, or one with values left out (dropping
 * a level must not switch the scale: issue 31). */
int pp_summary_values_geometric(const double *v, size_t n)
{
    double r = INFINITY;
    int geo = n >= 3 && v[0] > 0;

    for (size_t i = 1; geo && i < n; i++)
        r = fmin(r, log(v[i] / v[i - 1]));
    geo = geo && r >= log(1.5);
    for (size_t i = 1; geo && i < n; i++) {
        double q = log(v[i] / v[i - 1]) / r;
        geo = fabs(q - round(q)) < 0.01 * round(q);
    }
    return geo;
}
