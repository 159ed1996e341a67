/* layers_choose.h - a layer model fitted on profiles: each kind's family
 * chosen. */
#ifndef PP_LAYERS_CHOOSE_H
#define PP_LAYERS_CHOOSE_H

#include "layers_model.h"

/* Fit m on d. 0, -EINVAL (logged: no profile, no convolutional layer) or
 * -ENOSYS (no LAPACK). */
int pp_layer_model_fit(const pp_layers_data *d, const pp_layer_fit_opts *o, pp_layer_model *m);

/* What fit uses, in words: "linear x 0.75 + rate x 0.25", "rate (3
 * networks: too few to choose)", "roofline". */
void pp_layer_fit_describe(const pp_layer_fit *fit, char *buf, size_t cap);

#endif
