/* model_refuse.c - the predictions `powprof predict` refuses (model.h:
 * pp_model_first_beyond). */
#include "model.h"

long pp_model_first_beyond(const pp_model *m, const pp_model_point *pt, size_t from,
                           pp_prediction *p)
{
    for (size_t k = from; k < m->sum.n_metrics; k++)
        if (pp_model_predict(m, k, pt, p) == 0 && p->beyond)
            return (long)k;
    return -1;
}
