/* layers_data.h - the per-layer profiles read back (layers_model.h's
 * pp_layers_data). */
#ifndef PP_LAYERS_DATA_H
#define PP_LAYERS_DATA_H

#include "layers_model.h"

/* Add the profiles of dir (its layers.csv and networks.csv) to d (zeroed
 * the first time). A network run whose layers are not all in layers.csv
 * (an interrupted profile) is left out with a warning. Every error names
 * the file, line and column. 0 or -errno. */
int pp_layers_data_read(const char *dir, pp_layers_data *d);

void pp_layers_data_free(pp_layers_data *d);

#endif
