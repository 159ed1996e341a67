/* run_json.h - DIR/run.json: how the results of a sweep were made (written
 * with jansson).
 *
 *   profile, config (its path), device, rate_hz, warmup_s, mode, host,
 *   started (UTC, ISO 8601), rails [{name, estimated, board_input, inside}],
 *   params {"<component>.<param>": {scale, kind, values}}, configurations,
 *   battery {model, cells, capacity_ah, ...},
 *   node {name, hostname, model, model_from, kernel, machine, device,
 *         rails} (node.h), config_hash, shard {k, n, from}, repeats
 *
 * config_hash ("fnv1a64:" and 16 hex digits) identifies the configuration
 * space and how each configuration is run and measured: the parameters
 * (names, kinds, values), the components' names, types and pacing
 * (until, duration_s, iterations, fps, sleep_s), rate_hz, warmup_s, mode
 * and the battery. Not the device, its root, the node or a component's own
 * settings (paths, commands), which may differ from board to board: two
 * folders with the same hash have rows that mean the same thing, and
 * `powprof merge` merges only those.
 *
 * A parameter's kind is fixed, linear, exponential, list or categorical
 * (scale repeats it, for readers of earlier files). values are numbers, or
 * for a categorical parameter its labels in the profile's order: the value
 * index i in a configuration is values[i], the label in summary.csv.
 */
#ifndef PP_RUN_JSON_H
#define PP_RUN_JSON_H

#include "node.h"
#include "src/config/profile.h"
#include "src/config/shard.h"

#include "devices/device.h"

#include <jansson.h>

/* What a sweep adds to run.json beside the profile and the device. */
typedef struct pp_run_json_info {
    const pp_node *node;   /* NULL: no node recorded */
    const pp_shard *shard; /* NULL: the whole sweep */
    unsigned repeats;      /* measurements of each configuration (0 counts as 1) */
} pp_run_json_info;

/* Write dir/run.json atomically. info may be NULL. 0 or -errno (logged). */
int pp_run_json_write(const char *dir, const pp_profile *p, const pp_device *dev,
                      const pp_run_json_info *info);

#define PP_CONFIG_HASH_MAX 32

/* How run.json is written (pp_json_save): one line, members in order. */
#define PP_RUN_JSON_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* The profile's config_hash (above) into buf. 0, or -ENOMEM. */
int pp_run_json_config_hash(const pp_profile *p, char *buf, size_t cap);

/* Before --resume into dir: 0 when dir/run.json was made by this very
 * profile (the same config_hash) or has none (an older powprof's, or no
 * run.json yet); -EINVAL, logged with what changed (a parameter's values,
 * the battery, rate_hz, ...), when it was made by another. Rows are
 * numbered by configuration, so a changed grid would mix configurations. */
int pp_run_json_check_resume(const char *dir, const pp_profile *p);

/* The battery's parameters as JSON (run.json's battery object, with its
 * OCV table as ocv_soc and ocv_v), and back: pp_run_json_battery_read
 * fills b (the keys not there keep b's values) and checks it; 0, or
 * -EINVAL (not an object, an unknown model, a value out of range). */
json_t *pp_run_json_battery(const pp_battery_params *b);
int pp_run_json_battery_read(json_t *o, pp_battery_params *b);
/* The battery the JSON file at path records (run.json, plan.json: its
 * "battery" object) into b as pp_run_json_battery_read does. 1 when read,
 * 0 when the file or its battery is not there (b untouched), -EINVAL when
 * the file is not JSON or its battery not valid (logged with the path). */
int pp_run_json_battery_load(const char *path, pp_battery_params *b);

/* A JSON number for v: an integer when v is one (256, not 256.0), a real
 * otherwise, null when not finite. */
json_t *pp_run_json_number(double v);

/* The name of a parameter kind in run.json. */
const char *pp_run_json_kind(pp_range_kind kind);

#endif
