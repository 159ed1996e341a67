/* run_json.h - DIR/run.json: how the results of a sweep were made (written
 * with jansson).
 *
 *   profile, config (its path), device, rate_hz, warmup_s, mode, host,
 *   started (UTC, ISO 8601), rails [{name, estimated, board_input, inside}],
 *   params {"<component>.<param>": {scale, kind, values}}, configurations,
 *   battery {model, cells, capacity_ah, ...}
 *
 * A parameter's kind is fixed, linear, exponential, list or categorical
 * (scale repeats it, for readers of earlier files). values are numbers, or
 * for a categorical parameter its labels in the profile's order: the value
 * index i in a configuration is values[i], the label in summary.csv.
 */
#ifndef PP_RUN_JSON_H
#define PP_RUN_JSON_H

#include "profile.h"

#include "../devices/device.h"

#include <jansson.h>

/* Write dir/run.json atomically. 0 or -errno (logged). */
int pp_run_json_write(const char *dir, const pp_profile *p, const pp_device *dev);

/* A JSON number for v: an integer when v is one (256, not 256.0), a real
 * otherwise, null when not finite. */
json_t *pp_run_json_number(double v);

/* The name of a parameter kind in run.json. */
const char *pp_run_json_kind(pp_range_kind kind);

#endif
