/* CPU-utilization power estimate from /proc/stat (proc(5)).
 *
 * Not a measurement: P = idle_w + core_w * sum over cores of the busy share
 * of that core since the previous reading, where busy = user + nice + system
 * + irq + softirq + steal and the whole = busy + idle + iowait (guest time
 * is already inside user). Its one rail, "procstat_est", is flagged
 * PP_RAIL_ESTIMATED and every output says so.
 *
 * Default coefficients (pp_device_options_init): idle_w = 1.5 W, the lowest
 * board-input reading in the Jetson TX2 traces in data/tx2; core_w = 0.6 W,
 * the rise of the TX2's CPU-only darknet trace (4.0 W mean) over idle, spread
 * over its four Cortex-A57 cores. Calibrate them for your board.
 */
#include "procstat.h"
#include "sysfs.h"

#include "../src/log.h"
#include "../src/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAT_PATH "/proc/stat"
#define BUF_SIZE 65536
#define MAX_CPUS 1024

typedef struct cpu_times {
    uint64_t busy, total;
} cpu_times;

typedef struct procstat_priv {
    pp_sysfs_attr stat;
    size_t n_cpus;
    cpu_times last[MAX_CPUS];
    char buf[BUF_SIZE];
} procstat_priv;

static int procstat_probe(const pp_device_options *opts, char *why, size_t cap)
{
    char path[PATH_MAX];

    if (pp_sysfs_path(path, sizeof path, opts->sysfs_root, STAT_PATH) == 0 &&
        access(path, R_OK) == 0)
        return 0;
    if (why)
        pp_fmt(why, cap, "%s is not readable", path);
    return -ENODEV;
}

static int procstat_read(pp_device *dev, int64_t t_ns, double *power_w);

/* Parse every "cpuN" line of the /proc/stat text buf (changed in place)
 * into times[]. Returns the number of CPUs, or -EINVAL (logged with path
 * and the line at fault). */
static int parse_stat(char *buf, const char *path, cpu_times *times, size_t max)
{
    size_t n = 0;
    int line_no = 0;
    char *line, *save = NULL;

    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        uint64_t v[8] = {0};
        unsigned cpu;
        int fields, consumed = 0;

        line_no++;
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
            continue;
        fields = sscanf(line, "cpu%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                              " %" SCNu64 " %" SCNu64 " %" SCNu64 "%n",
                        &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &consumed);
        if (fields < 5) {
            pp_log_error("%s:%d: cannot parse '%.60s'", path, line_no, line);
            return -EINVAL;
        }
        if (n >= max)
            break;
        /* user nice system idle iowait irq softirq steal */
        times[n].busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        times[n].total = times[n].busy + v[3] + v[4];
        n++;
    }
    if (n == 0) {
        pp_log_error("%s: no 'cpuN' line", path);
        return -EINVAL;
    }
    return (int)n;
}

/* Read the open /proc/stat and parse it into times[]: the number of CPUs,
 * or -errno (logged). */
static int read_stat(procstat_priv *p, cpu_times *times, size_t max)
{
    ssize_t len;

    do
        len = pread(p->stat.fd, p->buf, sizeof p->buf - 1, 0);
    while (len < 0 && errno == EINTR);
    if (len < 0) {
        int err = errno;
        pp_log_error("%s: cannot read: %s", p->stat.path, strerror(err));
        return -err;
    }
    p->buf[len] = '\0';
    return parse_stat(p->buf, p->stat.path, times, max);
}

int pp_procstat_machine(const char *root, double *busy_s, size_t *n_cpus)
{
    cpu_times times[MAX_CPUS];
    char path[PATH_MAX], *buf;
    long tick_hz = sysconf(_SC_CLK_TCK);
    uint64_t busy = 0;
    int n;

    if (pp_sysfs_path(path, sizeof path, root ? root : "/", STAT_PATH) < 0 ||
        !(buf = pp_read_file(path)))
        return -ENOENT;
    n = parse_stat(buf, path, times, MAX_CPUS);
    free(buf);
    if (n < 0)
        return n;
    for (int i = 0; i < n; i++)
        busy += times[i].busy;
    *busy_s = (double)busy / (double)(tick_hz > 0 ? tick_hz : 100);
    *n_cpus = (size_t)n;
    return 0;
}

int pp_procstat_ceiling_w(const pp_device *dev, double *ceiling_w)
{
    const procstat_priv *p = dev->priv;

    if (!dev->ops || dev->ops->read != procstat_read || !p)
        return -EINVAL;
    *ceiling_w = dev->opts.procstat_idle_w + dev->opts.procstat_core_w * (double)p->n_cpus;
    return 0;
}

static void procstat_close(pp_device *dev)
{
    procstat_priv *p = dev->priv;

    if (!p)
        return;
    pp_sysfs_attr_close(&p->stat);
    free(p);
    dev->priv = NULL;
}

static int procstat_open(pp_device *dev)
{
    procstat_priv *p = calloc(1, sizeof *p);
    char path[PATH_MAX];
    int rc;

    if (!p)
        return -ENOMEM;
    dev->priv = p;
    p->stat.fd = -1;
    if (!(dev->opts.procstat_idle_w >= 0.0) || !(dev->opts.procstat_core_w >= 0.0) ||
        dev->opts.procstat_idle_w > 10000.0 || dev->opts.procstat_core_w > 10000.0) {
        pp_log_error("procstat: coefficients must be in [0, 10000] W (idle %g W, core %g W)",
                     dev->opts.procstat_idle_w, dev->opts.procstat_core_w);
        rc = -EINVAL;
        goto fail;
    }
    rc = pp_sysfs_path(path, sizeof path, dev->root, STAT_PATH);
    if (rc == 0)
        rc = pp_sysfs_attr_open(&p->stat, path);
    if (rc < 0)
        goto fail;
    rc = read_stat(p, p->last, MAX_CPUS);
    if (rc < 0)
        goto fail;
    p->n_cpus = (size_t)rc;
    rc = pp_device_add_rail(dev, "procstat_est", PP_RAIL_ESTIMATED);
    if (rc < 0)
        goto fail;
    return 0;

fail:
    procstat_close(dev);
    return rc;
}

static int procstat_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    procstat_priv *p = dev->priv;
    cpu_times now[MAX_CPUS];
    double busy_cores = 0.0;
    int n = read_stat(p, now, MAX_CPUS);

    (void)t_ns;
    if (n < 0)
        return n;
    if ((size_t)n != p->n_cpus) {
        pp_log_error("%s: %d CPUs now, %zu at the start (CPU hot-plug is not supported)",
                     p->stat.path, n, p->n_cpus);
        return -ENODEV;
    }
    for (int i = 0; i < n; i++) {
        uint64_t db = now[i].busy - p->last[i].busy;
        uint64_t dt = now[i].total - p->last[i].total;
        if (now[i].total < p->last[i].total || now[i].busy < p->last[i].busy) {
            pp_log_error("%s: cpu%d counters went backwards", p->stat.path, i);
            return -EINVAL;
        }
        if (dt > 0)
            busy_cores += (double)db / (double)dt;
        p->last[i] = now[i];
    }
    power_w[0] = dev->opts.procstat_idle_w + dev->opts.procstat_core_w * busy_cores;
    return 0;
}

const pp_device_ops pp_device_procstat = {
    .name = "procstat",
    .summary = "ESTIMATE from CPU utilization in /proc/stat (idle + per-busy-core power)",
    .flags = PP_DEVICE_INTERVAL,
    .probe = procstat_probe,
    .open = procstat_open,
    .read = procstat_read,
    .close = procstat_close,
};
