/* layers_eval.h - the families evaluated on networks left out of the fit. */
#ifndef PP_LAYERS_EVAL_H
#define PP_LAYERS_EVAL_H

#include "layers_model.h"

/* Evaluate the families on d (every run; at least two networks). 0,
 * -EINVAL (logged) or -ENOMEM. Free with pp_layers_eval_free. */
int pp_layers_evaluate(const pp_layers_data *d, pp_layers_eval *out);

void pp_layers_eval_free(pp_layers_eval *e);

#endif
