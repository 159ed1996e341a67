/* node.h - the machine a sweep runs on (a node of a fleet of boards): its
 * name, host name, board model, kernel and power source, recorded in
 * run.json ("node") and in summary.csv's node column, so that results from
 * several boards can be merged and compared (merge.h, variability.h).
 *
 * Everything is read under a root (the profile's sysfs_root; "/" by
 * default), so that tests give fake trees a board of their own:
 *
 *   host name   ROOT/proc/sys/kernel/hostname, else gethostname()
 *   board model ROOT/proc/device-tree/model (ARM boards: Jetson, Raspberry
 *               Pi, ...), else ROOT/sys/class/dmi/id/sys_vendor and
 *               product_name (PCs, servers), else unknown
 *   kernel      ROOT/proc/sys/kernel/osrelease, else uname()
 *   machine     uname() (the architecture: aarch64, x86_64)
 *
 * The node's name is the one given (--node NAME), else the host name up to
 * its first dot. A name passes pp_name_check (util.h): it becomes a
 * summary.csv cell, a folder name (traces/<node>/ in a merged folder) and a
 * JSON string.
 */
#ifndef PP_NODE_H
#define PP_NODE_H

#include "src/base/util.h"

#include "devices/device.h"

#include <jansson.h>
#include <stddef.h>

/* A node's name is a name from data: pp_name_check (util.h). */
#define PP_NODE_NAME_MAX PP_NAME_MAX

typedef struct pp_node {
    char name[PP_NODE_NAME_MAX];
    char hostname[256];
    char model[256];        /* "" when unknown */
    const char *model_from; /* "device-tree", "dmi" or "none" */
    char kernel[128];
    char machine[64];
} pp_node;

/* Identify this machine under root (NULL or "": "/"), named name_override
 * when it is not NULL. 0, or -EINVAL (logged) when the name (given, or
 * the host name) does not pass the rule. */
int pp_node_identify(const char *root, const char *name_override, pp_node *n);

/* The node as run.json records it: {name, hostname, model, model_from,
 * kernel, machine, device, rails: [names]} with the power source dev (NULL:
 * no device, rails empty). A new reference (NULL: no memory). */
json_t *pp_node_json(const pp_node *n, const pp_device *dev);

#endif
