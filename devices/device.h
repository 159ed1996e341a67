/* device.h - power sources behind one interface.
 *
 * A back-end is a static const pp_device_ops table; an open pp_device holds
 * its rails and the back-end's private state. Every sysfs or procfs path a
 * back-end touches is built from opts.sysfs_root ("/" by default), so each
 * back-end is tested against fake trees.
 *
 * Units: power in watts (double), time in ns on the sampler's clock.
 */
#ifndef PP_DEVICE_H
#define PP_DEVICE_H

#include "src/base/util.h"

#include <stddef.h>
#include <stdint.h>

#define PP_RAIL_NAME_MAX 48
#define PP_DEVICE_MAX_RAILS 64

/* Rail flags. */
#define PP_RAIL_ESTIMATED 0x1u   /* computed from a model, not measured */
#define PP_RAIL_BOARD_INPUT 0x2u /* the board's input: every other rail is inside it */

typedef struct pp_rail {
    char name[PP_RAIL_NAME_MAX]; /* the sensor's own label, e.g. "VDD_IN" */
    unsigned flags;              /* PP_RAIL_* */
    int parent;                  /* rail whose power includes this one, or -1 */
} pp_rail;

typedef struct pp_device_options {
    const char *sysfs_root;  /* root of /sys and /proc; "/" when NULL */
    double procstat_idle_w;  /* procstat: power with every core idle */
    double procstat_core_w;  /* procstat: added power of one fully busy core */
    const char *replay_path; /* replay: the trace CSV to play back */
    const char *nvml_library;/* nvml: library to dlopen; "libnvidia-ml.so.1" when NULL */
} pp_device_options;

/* Defaults: root "/", procstat coefficients of devices/procstat.c. */
void pp_device_options_init(pp_device_options *opts);

typedef struct pp_device pp_device;

/* Back-end flags. */
#define PP_DEVICE_INTERVAL 0x1u /* a reading is the mean power since the previous
                                   reading (energy counters, utilization) */

typedef struct pp_device_ops {
    const char *name;    /* as given to -d */
    const char *summary; /* one line for `powprof devices` */
    unsigned flags;      /* PP_DEVICE_* */
    /* 0 when the source is present and readable; -ENODEV when absent; any
     * other negative errno when present but unusable. why (may be NULL)
     * receives a one-line reason naming the file involved. */
    int (*probe)(const pp_device_options *opts, char *why, size_t why_cap);
    /* Find the rails (pp_device_add_rail), allocate dev->priv, and for
     * PP_DEVICE_INTERVAL back-ends take the first counter reading. Returns 0
     * or -errno (logged). */
    int (*open)(pp_device *dev);
    /* Fill power_w[0..n_rails-1] for time t_ns. Returns 0 or -errno, logged
     * with the file and the value at fault. -EAGAIN: no valid reading this
     * time (a RAPL counter reset): drop this sample, the next read is good. */
    int (*read)(pp_device *dev, int64_t t_ns, double *power_w);
    void (*close)(pp_device *dev); /* frees priv; may be NULL */
} pp_device_ops;

struct pp_device {
    const pp_device_ops *ops;
    pp_device_options opts;
    char root[PP_PATH_MAX];   /* copy of opts.sysfs_root */
    char replay_path[PP_PATH_MAX];
    char nvml_library[PP_PATH_MAX];
    size_t n_rails;
    pp_rail rails[PP_DEVICE_MAX_RAILS];
    void *priv;
    /* PP_DEVICE_INTERVAL back-ends: the monotonic time (ns) before which a
     * first reading means nothing yet (its interval since the open is too
     * short: procstat's counters move once a tick); 0 once read. */
    int64_t first_due_ns;
};

/* The shortest interval after the open that a first reading of a
 * PP_DEVICE_INTERVAL back-end averages over (as `powprof devices` waits). */
#define PP_DEVICE_FIRST_INTERVAL_NS 250000000LL

/* Every back-end (device.c), in auto-detection order: the most direct source first,
 * procstat (an estimate) last; replay is never picked by auto. */
extern const pp_device_ops *const pp_device_backends[];
extern const size_t pp_device_backend_count;

/* The back-end called name, or NULL. */
const pp_device_ops *pp_device_find(const char *name);

/* The first back-end of pp_device_backends whose probe succeeds. Returns 0,
 * or -ENODEV when none does (procstat missing: not Linux). */
int pp_device_auto(const pp_device_options *opts, const pp_device_ops **out);

/* Open device name ("auto" allowed). An unknown name is -ENOENT
 * and the message lists the known ones. *out is freed with
 * pp_device_close(). */
int pp_device_open_with(const char *name, const pp_device_options *opts, pp_device **out);

/* Open the device of back-end ops (device.c): its paths copied, its open,
 * at least one rail. 0, or -errno (logged). */
int pp_device_open_ops(const pp_device_ops *ops, const pp_device_options *opts, pp_device **out);

int pp_device_read(pp_device *dev, int64_t t_ns, double *power_w);
void pp_device_close(pp_device *dev);

/* For back-ends: append a rail. Returns its index, or -ENOSPC / -EINVAL. */
int pp_device_add_rail(pp_device *dev, const char *name, unsigned flags);

/* For back-ends: when exactly one rail is a board input by its label
 * (pp_rail_is_board_input), flag it and make it every other rail's parent. */
void pp_device_mark_board_input(pp_device *dev);

/* Power of the whole device: the sum of the rails that no other rail
 * contains (parent == -1), so nothing is counted twice. */
double pp_device_total_w(const pp_device *dev, const double *power_w);

/* 1 when any rail is an estimate. */
int pp_device_is_estimated(const pp_device *dev);

#endif
