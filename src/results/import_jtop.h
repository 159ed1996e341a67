/* import_jtop.h - jetson-stats' jtop logs. */
#ifndef PP_IMPORT_JTOP_H
#define PP_IMPORT_JTOP_H

#include "import.h"

/* jetson-stats' jtop logs (the CSV of jtop's logger, DictWriter over
 * jetson.stats): the "time" column (YYYY-MM-DD HH:MM:SS[.ffffff]) rebased
 * to the first row, each "Power <rail>" column (mW) a rail, "Power TOT"
 * the board input rail TOT_IN (left out when a rail already ends in _IN);
 * other columns (CPU, RAM, temperatures) left out. */
int pp_import_jtop(const char *path, const pp_import_options *o, pp_trace *t);

#endif
