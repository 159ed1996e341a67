/* import_powprofiler.h - the original powprofiler tool's layer-1 CSV: the
 * original tool's layer-1 CSV: a header of codes (100 total board input, 101
 * CPU, 102 GPU, watts), one row per sample, no time column; the time base is
 * rate_hz, and each reading is the mean over its sampling period (sample i
 * covers (i/rate, (i+1)/rate], so energy = sum of readings / rate). */
#ifndef PP_IMPORT_POWPROFILER_H
#define PP_IMPORT_POWPROFILER_H

#include "import.h"

int pp_import_powprofiler(const char *path, const pp_import_options *o, pp_trace *t);

#endif
