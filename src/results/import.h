/* import.h - power data recorded by other tools, read into traces:
 *   powprofiler  the original tool's layer-1 CSV: a header of codes (100 total
 *                board input, 101 CPU, 102 GPU, watts), one row per sample,
 *                no time column; the time base is rate_hz, and each reading
 *                is the mean over its sampling period (sample i covers
 *                (i/rate, (i+1)/rate], so energy = sum of readings / rate).
 *   tegrastats   Jetson logs: "POM_5V_IN 3410/3410" (mW, instant/average; TX2,
 *                Nano) or "VDD_IN 5263mW/5263mW" (Xavier, Orin), with or
 *                without a leading "MM-DD-YYYY HH:MM:SS" timestamp, records
 *                wrapped over several lines or not. The instant value is
 *                kept; the time base is the timestamps, or interval_ms.
 *   csv          a time column (t_s, time, time_s, time_ms, time_us,
 *                timestamp) and power columns with their unit in the name
 *                (x_w, x_mw, x_uw, "x [W]", "x (mW)"), or pairs of current
 *                and voltage columns (x_a and x_v, x_ma and x_mv; the words
 *                voltage and current do not count, so PX4's voltage_v and
 *                current_a are the rail "battery") multiplied; unit_scale
 *                for columns without a unit. The time is rebased to the
 *                first sample; a time column without a unit (time,
 *                timestamp: PX4's ulog2csv writes microseconds) is read in
 *                the largest of s, ms, us, ns whose median step is at most
 *                5 s (a note says so), unless time_scale; a span over 7
 *                days or a step over 60 s is warned about. Columns that are
 *                not power, current or voltage (a unit such as _mah, _s,
 *                _wh, _pct, or none), and smoothed copies (voltage_filtered_v
 *                beside voltage_v) are left out with a note; with no power
 *                column left, a column without a unit is an error.
 * Every error (ragged row, non-number, NaN, negative power, time going
 * backwards, empty file, unknown header) is logged with the file and the
 * line and returns -EINVAL.
 */
#ifndef PP_IMPORT_H
#define PP_IMPORT_H

#include "src/traces/trace.h"
#include "battery/battery.h"

typedef struct pp_import_options {
    double rate_hz;      /* powprofiler: samples per second (default 10) */
    double interval_ms;  /* tegrastats: > 0 overrides the timestamps (default: 1000 without) */
    double unit_scale;   /* csv: watts per unit of columns without a unit (0: none allowed) */
    const char *time_col;/* csv: the time column's name (NULL: found by name) */
    double time_scale;   /* csv: seconds per unit of the time column (0: its name's unit,
                          * _s, _ms, _us, _ns, else found from its steps) */
} pp_import_options;

void pp_import_options_init(pp_import_options *o);

int pp_import_powprofiler(const char *path, const pp_import_options *o, pp_trace *t);
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
int pp_import_tegrastats(const char *path, const pp_import_options *o, pp_trace *t);
int pp_import_csv(const char *path, const pp_import_options *o, pp_trace *t);
/* jetson-stats' jtop logs (the CSV of jtop's logger, DictWriter over
 * jetson.stats): the "time" column (YYYY-MM-DD HH:MM:SS[.ffffff]) rebased
 * to the first row, each "Power <rail>" column (mW) a rail, "Power TOT"
 * the board input rail TOT_IN (left out when a rail already ends in _IN);
 * other columns (CPU, RAM, temperatures) left out. */
int pp_import_jtop(const char *path, const pp_import_options *o, pp_trace *t);

/* Match a file's base name against a pattern with {name} placeholders,
 * e.g. "matrix-exponentiation_{size}-{exponent}_1layer.csv"; {name:C} when
 * the value writes its decimal point as C ("yolo-{fps:-}fps.csv": 5-8 is
 * 5.8). Up to max
 * names and numeric values out. Returns the number of placeholders, or
 * -EINVAL (logged) when the name does not match or a value is no number. */
int pp_import_match_pattern(const char *pattern, const char *path, char names[][64],
                            double *values, size_t max);

#endif
