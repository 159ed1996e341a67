/* import_ulog.h - PX4 flight logs: the battery_status topic as a trace, the
 * log's own figures beside it, a pack per battery instance. */
#ifndef PP_IMPORT_ULOG_H
#define PP_IMPORT_ULOG_H

#include "import.h"

/* A PX4 log's battery_status as a trace (src/flight/ulog.h): one rail per
 * battery instance. 0 or -errno (logged with the file). */
int pp_import_ulog(const char *path, const pp_import_options *o, pp_trace *t);
/* The logs' own battery figures beside their trace: dir/flight.csv, one row
 * per sample (file index, instance, time from the file's first sample,
 * voltage, current, discharged_mah, remaining). 0 or -errno (logged). */
int pp_import_ulog_flight_csv(const char *dir, const char *const *files, size_t n_files);
/* The battery of the flight log at path, read and parsed once (the
 * pack, the trace, flight.csv and the report share it; read again when the
 * file changed; owned here until pp_import_ulog_forget). NULL when it does
 * not read (logged). */
struct pp_ulog_flight;
const struct pp_ulog_flight *pp_import_ulog_flight(const char *path);
void pp_import_ulog_forget(void);
/* The pack of each rail of the log at path's trace (one per battery
 * instance, in pp_import_ulog's order): given (-c) for each, else each
 * instance's own (pp_flight_pack_for: its cell count, capacity and BATn_*
 * parameters), so that each pack is drained by its own battery's power.
 * 0, or -EINVAL (not n_rails instances; the log does not read). */
int pp_import_ulog_packs(const char *path, const pp_battery_params *given,
                         pp_battery_params *packs, size_t n_rails);

#endif
