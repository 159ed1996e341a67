/* layers_json.h - a layer model written and read (JSON). */
#ifndef PP_LAYERS_JSON_H
#define PP_LAYERS_JSON_H

#include "layers_model.h"

/* Write (jansson) and read the model. 0 or -errno (logged with the file;
 * reading names the key at fault). */
int pp_layer_model_write(const pp_layer_model *m, const char *path);

int pp_layer_model_read(const char *path, pp_layer_model *m);

#endif
