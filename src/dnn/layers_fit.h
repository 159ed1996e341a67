/* layers_fit.h - inside the layer models (not a public header): one family
 * fitted on a set of samples, and evaluated (src/dnn/layers_model.c);
 * the choice among families (layers_choose.c) and predictions
 * (layers_predict.c) are built on them. */
#ifndef PP_LAYERS_FIT_H
#define PP_LAYERS_FIT_H

#include "layers_model.h"

/* The samples a fit is made on: d->samples[idx[0 .. n)], quantity q. */
typedef struct pp_lsamples {
    const pp_layers_data *d;
    const size_t *idx;
    size_t n;
    pp_layers_quantity q;
} pp_lsamples;

/* Fit family f (pp_layer_family, PP_LF_ROOFLINE too) on s into fit, with
 * weight 1: 0; -EDOM (too few samples for the family); -ENOSYS (no
 * LAPACK); -ERANGE when the least squares fail on the values (fit->floor
 * then says nothing; pp_lfit_extreme names the row). */
int pp_lfit_family(const pp_lsamples *s, int f, pp_layer_fit *fit);

/* fit's value for l: the family's (at least fit->floor) mixed with the
 * baseline's by fit->weight, at least fit->floor. */
double pp_lfit_eval(const pp_layer_fit *fit, const pp_layer_desc *l);

/* The sample of s whose value is farthest from its work's (log of value
 * over work against the median's): where a failed fit should look. */
size_t pp_lfit_extreme(const pp_lsamples *s);

#endif
