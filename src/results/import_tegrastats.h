/* import_tegrastats.h - Jetson tegrastats logs: "POM_5V_IN 3410/3410" (mW,
 * instant/average; TX2, Nano) or "VDD_IN 5263mW/5263mW" (Xavier, Orin), with
 * or without a leading "MM-DD-YYYY HH:MM:SS" timestamp, records wrapped over
 * several lines or not. The instant value is kept; the time base is the
 * timestamps, or interval_ms. */
#ifndef PP_IMPORT_TEGRASTATS_H
#define PP_IMPORT_TEGRASTATS_H

#include "import.h"

int pp_import_tegrastats(const char *path, const pp_import_options *o, pp_trace *t);

#endif
