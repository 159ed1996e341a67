/* flight_log.h - a recorded flight's battery from the logs pilots have: a
 * PX4 ULog (.ulg, ulog.h) or the CSV that pyulog's ulog2csv writes for the
 * battery_status topic (timestamp in microseconds, voltage_v, current_a,
 * and where present discharged_mah, remaining, connected, cell_count,
 * capacity; columns in any order, others ignored).
 *
 * Samples are left out, counted in the flight (never fitted or drawn):
 * connected = 0, a NaN or empty voltage or current, a current of -1 (PX4's
 * "not measured"), a voltage of 0 or less, a time equal to the one before, and a current that reads
 * 0 while the voltage sags (more than 2 % below the highest voltage of the
 * 60 s before: a current sensor that dropped out under load). A time going
 * back, a cell that is not a number, a missing timestamp, voltage_v or
 * current_a column are errors naming the file and line.
 */
#ifndef PP_FLIGHT_LOG_H
#define PP_FLIGHT_LOG_H

#include "ulog.h"

/* 1 when path is a flight log: a ULog, or a CSV whose header has
 * timestamp and voltage_v. */
int pp_flight_log_is(const char *path);

/* Read the flight log at path (either kind) into f and leave out the
 * samples above; free with pp_ulog_flight_free (also after an error). 0 or
 * -EINVAL / -errno (logged). */
int pp_flight_log_read(const char *path, pp_ulog_flight *f);

/* The same, at most about 2 x keep_max samples kept of each battery: bin
 * means (ulog_samples.h; 0 keeps every sample). */
int pp_flight_log_read_max(const char *path, pp_ulog_flight *f, size_t keep_max);

/* The ulog2csv battery_status CSV alone (one battery, its instance from the
 * file name's "_N.csv"): 0 or -errno (logged); _opt with the samples'
 * options (ulog_samples.h). */
int pp_ulog_csv_read(const char *path, pp_ulog_flight *f);
int pp_ulog_csv_read_opt(const char *path, pp_ulog_flight *f, int clean, size_t keep_max);
int pp_ulog_csv_is(const char *path);

/* The batteries' power of the flight log at path (pp_ulog_battery_trace:
 * every instance's voltage_v x current_a, summed) as a load: times from
 * the first sample and total watts (trace.h). 0 or -errno (logged). */
struct pp_trace_load;
int pp_flight_log_load(const char *path, struct pp_trace_load *out);

/* What was left out of f, as one sentence into buf ("" when nothing). */
void pp_flight_log_left_out(const pp_ulog_flight *f, char *buf, size_t cap);

#endif
