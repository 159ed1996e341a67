/* procstat.h - what the CPU-utilization estimate (devices/procstat.c) can
 * tell beside its rail: the whole machine's CPU time, and the estimate's
 * ceiling. The estimate measures the machine, not a program: every busy
 * core counts, whoever keeps it busy. */
#ifndef PP_PROCSTAT_H
#define PP_PROCSTAT_H

#include "device.h"

#include <stddef.h>

/* The busy CPU time of the whole machine since boot, summed over its cores
 * (user + nice + system + irq + softirq + steal, in seconds), and its number
 * of cores, from /proc/stat under root (NULL: "/"). 0; -ENOENT when there is
 * no readable /proc/stat there (not logged); -EINVAL when it does not parse
 * (logged with the line). */
int pp_procstat_machine(const char *root, double *busy_s, size_t *n_cpus);

/* The ceiling of an open procstat device: its estimate with every core
 * busy, idle_w + core_w x cores, in W. 0, or -EINVAL when dev is another
 * source. */
int pp_procstat_ceiling_w(const pp_device *dev, double *ceiling_w);

#endif
