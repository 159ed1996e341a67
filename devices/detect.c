/* detect.c - the back-ends by name and auto-detection (device.h:
 * pp_device_backends, pp_device_find, pp_device_auto, pp_device_open). It
 * calls every back-end's probe and device.c's pp_device_open_ops; the
 * back-ends call device.c (rails), never this file. */
#include "device.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <string.h>

extern const pp_device_ops pp_device_jetson_ina3221;
extern const pp_device_ops pp_device_odroid_ina231;
extern const pp_device_ops pp_device_power_supply;
extern const pp_device_ops pp_device_hwmon;
extern const pp_device_ops pp_device_rapl;
extern const pp_device_ops pp_device_nvml;
extern const pp_device_ops pp_device_procstat;
extern const pp_device_ops pp_device_replay;

/* Auto-detection order: board-level input sensors measure everything the
 * board draws; a discharging laptop battery measures the whole machine;
 * hwmon, RAPL and NVML measure parts of it; procstat only estimates. */
const pp_device_ops *const pp_device_backends[] = {
    &pp_device_jetson_ina3221,
    &pp_device_odroid_ina231,
    &pp_device_power_supply,
    &pp_device_hwmon,
    &pp_device_rapl,
    &pp_device_nvml,
    &pp_device_procstat,
    &pp_device_replay,
};
const size_t pp_device_backend_count = PP_ARRAY_SIZE(pp_device_backends);

const pp_device_ops *pp_device_find(const char *name)
{
    for (size_t i = 0; i < pp_device_backend_count; i++)
        if (strcmp(pp_device_backends[i]->name, name) == 0)
            return pp_device_backends[i];
    return NULL;
}

int pp_device_auto(const pp_device_options *opts, const pp_device_ops **out)
{
    for (size_t i = 0; i < pp_device_backend_count; i++) {
        const pp_device_ops *ops = pp_device_backends[i];
        if (ops == &pp_device_replay)
            continue;
        if (ops->probe(opts, NULL, 0) == 0) {
            *out = ops;
            return 0;
        }
    }
    return -ENODEV;
}

int pp_device_open(const char *name, const pp_device_options *opts, pp_device **out)
{
    const pp_device_ops *ops;
    int rc;

    *out = NULL;
    if (strcmp(name, "auto") == 0) {
        rc = pp_device_auto(opts, &ops);
        if (rc < 0) {
            pp_log_error("auto: no power source found under %s", opts->sysfs_root);
            return rc;
        }
    } else if (!(ops = pp_device_find(name))) {
        char known[512] = "";
        for (size_t i = 0; i < pp_device_backend_count; i++) {
            strncat(known, pp_device_backends[i]->name, sizeof known - strlen(known) - 3);
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        }
        strncat(known, "auto", sizeof known - strlen(known) - 1);
        pp_log_error("unknown device '%s' (known: %s)", name, known);
        return -ENOENT;
    }
    return pp_device_open_ops(ops, opts, out);
}
