/* import_csv.h - CSV files of other tools: a time column (t_s, time, time_s,
 * time_ms, time_us, timestamp) and power columns with their unit in the name
 * (x_w, x_mw, x_uw, "x [W]", "x (mW)"), or pairs of current and voltage
 * columns (x_a and x_v, x_ma and x_mv; the words voltage and current do not
 * count, so PX4's voltage_v and current_a are the rail "battery")
 * multiplied; unit_scale for columns without a unit. The time is rebased to
 * the first sample; a time column without a unit (time, timestamp: PX4's
 * ulog2csv writes microseconds) is read in the largest of s, ms, us, ns
 * whose median step is at most 5 s (a note says so), unless time_scale; a
 * span over 7 days or a step over 60 s is warned about. Columns that are not
 * power, current or voltage (a unit such as _mah, _s, _wh, _pct, or none),
 * and smoothed copies (voltage_filtered_v beside voltage_v) are left out
 * with a note; with no power column left, a column without a unit is an
 * error. */
#ifndef PP_IMPORT_CSV_H
#define PP_IMPORT_CSV_H

#include "import.h"

int pp_import_csv(const char *path, const pp_import_options *o, pp_trace *t);

#endif
