/* device.c - an open device and its rails (device.h): what every back-end
 * calls (pp_device_add_rail, pp_device_mark_board_input) and what follows
 * an open; the back-ends by name and auto-detection. The back-ends call
 * the rails' functions here; this file calls a back-end through dev->ops,
 * and names each one only in the table below. */
#include "device.h"

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pp_device_options_init(pp_device_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->sysfs_root = "/";
    opts->procstat_idle_w = 1.5;
    opts->procstat_core_w = 0.6;
}

int pp_device_open_ops(const pp_device_ops *ops, const pp_device_options *opts, pp_device **out)
{
    pp_device *dev;
    int rc;

    *out = NULL;
    dev = calloc(1, sizeof *dev);
    if (!dev)
        return -ENOMEM;
    dev->ops = ops;
    dev->opts = *opts;
    if (pp_strlcpy(dev->root, opts->sysfs_root ? opts->sysfs_root : "/", sizeof dev->root) < 0 ||
        pp_strlcpy(dev->replay_path, opts->replay_path ? opts->replay_path : "",
                   sizeof dev->replay_path) < 0 ||
        pp_strlcpy(dev->nvml_library, opts->nvml_library ? opts->nvml_library : "libnvidia-ml.so.1",
                   sizeof dev->nvml_library) < 0) {
        pp_log_error("%s: path too long", ops->name);
        free(dev);
        return -ENAMETOOLONG;
    }
    dev->opts.sysfs_root = dev->root;
    dev->opts.replay_path = dev->replay_path;
    dev->opts.nvml_library = dev->nvml_library;
    rc = ops->open(dev);
    if (rc < 0)
        goto fail_open;
    if (dev->n_rails == 0) {
        pp_log_error("%s: no rails found under %s", ops->name, dev->root);
        rc = -ENODEV;
        goto fail_rails;
    }
    if (ops->flags & PP_DEVICE_INTERVAL)
        dev->first_due_ns = pp_clock_now_ns(&pp_clock_monotonic) + PP_DEVICE_FIRST_INTERVAL_NS;
    *out = dev;
    return 0;

fail_rails:
    if (ops->close)
        ops->close(dev);
fail_open:
    free(dev);
    return rc;
}

int pp_device_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    return dev->ops->read(dev, t_ns, power_w);
}

void pp_device_close(pp_device *dev)
{
    if (!dev)
        return;
    if (dev->ops->close)
        dev->ops->close(dev);
    free(dev);
}

int pp_device_add_rail(pp_device *dev, const char *name, unsigned flags)
{
    pp_rail *r;

    if (dev->n_rails >= PP_DEVICE_MAX_RAILS) {
        pp_log_error("%s: more than %d rails", dev->ops->name, PP_DEVICE_MAX_RAILS);
        return -ENOSPC;
    }
    if (!name || !*name)
        return -EINVAL;
    r = &dev->rails[dev->n_rails];
    pp_text(r->name, sizeof r->name, "%s", name); /* a label too long is cut, said by "..." */
    /* Rail names become CSV column names and file names: keep them to
     * [A-Za-z0-9_.-], not starting with . or - (pp_name_check in util.h),
     * and never "total" (summary.csv has total_* columns of its own). */
    for (char *c = r->name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || ((*c == '-' || *c == '.') && c != r->name)))
            *c = '_';
    if (strcmp(r->name, "total") == 0)
        memcpy(r->name, "total_rail", sizeof "total_rail"); /* fits: PP_RAIL_NAME_MAX */
    r->flags = flags;
    r->parent = -1;
    return (int)dev->n_rails++;
}

void pp_device_mark_board_input(pp_device *dev)
{
    int input = -1;

    for (size_t i = 0; i < dev->n_rails; i++) {
        if (pp_rail_is_board_input(dev->rails[i].name)) {
            if (input >= 0)
                return; /* two inputs: no safe guess, keep every rail top-level */
            input = (int)i;
        }
    }
    if (input < 0)
        return;
    dev->rails[input].flags |= PP_RAIL_BOARD_INPUT;
    for (size_t i = 0; i < dev->n_rails; i++)
        if ((int)i != input)
            dev->rails[i].parent = input;
}

double pp_device_total_w(const pp_device *dev, const double *power_w)
{
    double sum = 0.0;

    for (size_t i = 0; i < dev->n_rails; i++)
        if (dev->rails[i].parent < 0)
            sum += power_w[i];
    return sum;
}

int pp_device_is_estimated(const pp_device *dev)
{
    for (size_t i = 0; i < dev->n_rails; i++)
        if (dev->rails[i].flags & PP_RAIL_ESTIMATED)
            return 1;
    return 0;
}

/* The back-ends by name and auto-detection: pp_device_backends,
 * pp_device_find, pp_device_auto, pp_device_open_with. */

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

int pp_device_open_with(const char *name, const pp_device_options *opts, pp_device **out)
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
