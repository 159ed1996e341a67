/* point_check.c - the warnings and the refusal of a prediction (point_check.h). */
#include "point_check.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/layer2/surface.h"
#include "src/results/summary_params.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

/* Numeric parameter k (the j-th) of pt outside w's range: its warning into
 * buf. */
static void outside_text(const pp_model *m, const pp_model_point *pt, const pp_model_where *w,
                         size_t j, char *buf, size_t cap)
{
    size_t k = m->num[j];
    double only;

    if (pp_summary_constant(&m->sum, k, &only))
        pp_text(buf, cap, "%s = %g: the results measured %s = %g only (a constant): outside the "
                         "measured range, the prediction is that of %g", m->sum.params[k],
               pt->raw[k], m->sum.params[k], only, only);
    else
        pp_text(buf, cap, "%s = %g lies outside the measured range [%g, %g]: an extrapolation",
                m->sum.params[k], pt->raw[k], pp_surface_denormalize(&m->groups[w->group].surf, j, 0),
                pp_surface_denormalize(&m->groups[w->group].surf, j, 1));
}

size_t pp_point_outside(const pp_model *m, const pp_model_point *pt, const pp_model_where *w,
                        char *buf, size_t cap)
{
    char text[512];
    size_t n = 0;

    for (size_t j = 0; j < m->n_num; j++) {
        if (!w->outside[m->num[j]])
            continue;
        if (!buf) {
            outside_text(m, pt, w, j, text, sizeof text);
            pp_log_warn("%s", text);
        } else if (n == 0) {
            outside_text(m, pt, w, j, buf, cap);
        }
        n++;
    }
    return n;
}

int pp_point_beyond(const pp_model *m, const pp_model_where *w, size_t k, const pp_prediction *p,
                    int extrapolate, size_t row)
{
    const pp_model_fit *f = pp_model_fit_of(m, w->group, k);
    char where[64] = "";

    if (!p->beyond)
        return 0;
    if (row != SIZE_MAX)
        pp_text(where, sizeof where, "row %zu (from 0): ", row);
    if (extrapolate) {
        pp_log_warn("%s%s predicted %g, beyond %g times what was measured [%g, %g]: an "
                    "extrapolation the measurements do not support", where, m->sum.metrics[k],
                    p->value, PP_MODEL_BEYOND_FACTOR, f ? f->y_min : NAN, f ? f->y_max : NAN);
        return 0;
    }
    pp_log_error("refused: %s%s predicted %g, beyond %g times what was measured [%g, %g]: an "
                 "extrapolation the measurements do not support (asked for, it is given: "
                 "--extrapolate, PP_ESTIMATE_EXTRAPOLATE, extrapolate=True)", where,
                 m->sum.metrics[k], p->value, PP_MODEL_BEYOND_FACTOR, f ? f->y_min : NAN,
                 f ? f->y_max : NAN);
    return -ERANGE;
}
