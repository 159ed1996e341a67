/* battery_doc.h - what `powprof battery` reports, as text and JSON: a
 * trace drained (battery/battery.h, pp_battery_run's result) and a pack
 * checked against a recorded flight (src/flight/flight.h, pp_flight_check).
 * Here in src/results: the JSON's numbers go through json_file's
 * pp_json_num (null, never nan).
 */
#ifndef PP_BATTERY_DOC_H
#define PP_BATTERY_DOC_H

#include "src/flight/flight.h"

#include <jansson.h>
#include <stdio.h>

/* The drain of the trace at trace_path by pack p (its result r) on fp, and
 * as `battery TRACE --json`'s object (NULL on no memory). */
void pp_battery_drain_print(FILE *fp, const char *trace_path, const pp_battery_params *p,
                            const pp_battery_result *r);
json_t *pp_battery_drain_json(const char *trace_path, const pp_battery_params *p,
                              const pp_battery_result *r);

/* c on fp: the pack (pack_from: where it comes from, said after its
 * model), the voltage and charge figures, and where each gap comes from. */
void pp_flight_check_print(FILE *fp, const pp_flight_check *c, const char *pack_from);

/* c as one JSON object (instance, samples, figures; NULL on no memory). */
json_t *pp_flight_check_json(const pp_flight_check *c);

#endif
