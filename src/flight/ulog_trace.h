/* ulog_trace.h - a flight's battery (ulog.h) as a power trace, and the
 * charge it drew. */
#ifndef PP_ULOG_TRACE_H
#define PP_ULOG_TRACE_H

#include "ulog.h"

/* The power of the batteries as a trace (trace.h): one rail per instance,
 * "battery<multi_id>", voltage_v x current_a, on the union of the
 * instances' sample times (from the first, in s), each instance linear
 * between its samples and held before its first and after its last; the
 * trace's total is their sum. Samples with a NaN voltage or current are
 * left out. t is initialized here. 0, -EINVAL (logged: no sample) or
 * -ENOMEM. */
struct pp_trace;
int pp_ulog_battery_trace(const pp_ulog_flight *f, const char *name, struct pp_trace *t);

/* The charge battery b drew: from its logged current (trapezoids) and by
 * its own discharged_mah (last minus first; NaN without), mAh. */
void pp_ulog_charge_mah(const pp_ulog_battery *b, double *from_current_mah, double *logged_mah);

/* The mean interval between b's samples, s (NaN below two). */
double pp_ulog_interval_s(const pp_ulog_battery *b);

#endif
