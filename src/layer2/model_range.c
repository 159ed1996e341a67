/* model_range.c - the values each metric was measured at (model.h:
 * pp_model_value_ranges; pp_model_predict flags what lies beyond them). */
#include "model_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int pp_model_value_ranges(pp_model *m)
{
    for (size_t g = 0; g < m->n_groups; g++)
        for (size_t k = 0; m->groups[g].fits && k < m->sum.n_metrics; k++) {
            pp_model_fit *f = &m->groups[g].fits[k];
            double *y = pp_model_column(m, &m->groups[g], k);
            if (!y)
                return -ENOMEM;
            f->y_min = INFINITY;
            f->y_max = -INFINITY;
            for (size_t r = 0; r < m->groups[g].n_rows; r++)
                if (!isnan(y[r])) {
                    f->y_min = fmin(f->y_min, y[r]);
                    f->y_max = fmax(f->y_max, y[r]);
                }
            free(y);
        }
    return 0;
}
