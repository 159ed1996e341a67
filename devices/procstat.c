/* CPU-utilization power estimate from /proc/stat (proc(5)).
 *
 * Not a measurement: P = idle_w + core_w * sum over cores of the busy share
 * of that core since the previous reading, where busy = user + nice + system
 * + irq + softirq + steal and the whole = busy + idle + iowait (guest time
 * is already inside user). Its one rail, "procstat_est", is flagged
 * PP_RAIL_ESTIMATED and every output says so.
 *
 * /proc/stat counts in clock ticks (1/USER_HZ s, 10 ms): its counters move
 * at most once a tick. The file is read at most once a tick, and between
 * reads, or when a core's counters have not moved, the last busy share is
 * held. A load therefore shows up to one tick late, but its energy is not
 * biased: counting an interval without a tick as idle made a busy core
 * read 1.66 W instead of 2.4 W at 1 kHz (and reading the file at every
 * sample cost the kernel more than the rest of the sampler).
 *
 * Default coefficients (pp_device_options_init): idle_w = 1.5 W, the lowest
 * board-input reading in the Jetson TX2 traces in data/tx2; core_w = 0.6 W,
 * the rise of the TX2's CPU-only darknet trace (4.0 W mean) over idle, spread
 * over its four Cortex-A57 cores. Calibrate them for your board.
 */
#include "procstat.h"
#include "sysfs.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
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
    double share[MAX_CPUS];  /* each core's busy share at its last move */
    int64_t tick_ns;         /* the counters' unit */
    int64_t read_ns;         /* when the file was last read */
    int read_once;
    double held_w;           /* the estimate then */
    char buf[BUF_SIZE];
} procstat_priv;

static int procstat_probe(const pp_device_options *opts, char *why, size_t cap)
{
    char path[PP_PATH_MAX];

    if (pp_sysfs_path(path, sizeof path, opts->sysfs_root, STAT_PATH) == 0 &&
        access(path, R_OK) == 0)
        return 0;
    if (why)
        pp_text(why, cap, "%s is not readable", path);
    return -ENODEV;
}

static int procstat_read(pp_device *dev, int64_t t_ns, double *power_w);

/* The unsigned decimal at *s (blanks before it skipped) into *v; *s moves
 * past it. 0, or -1 when there is none. */
static int next_u64(const char **s, uint64_t *v)
{
    const char *c = *s;
    uint64_t x = 0;

    while (*c == ' ')
        c++;
    if (*c < '0' || *c > '9')
        return -1;
    for (; *c >= '0' && *c <= '9'; c++)
        x = x * 10 + (uint64_t)(*c - '0');
    *s = c;
    *v = x;
    return 0;
}

/* Parse every "cpuN" line of the /proc/stat text buf into times[]: user
 * nice system idle at least, then iowait irq softirq steal when present.
 * Returns the number of CPUs, or -EINVAL (logged with path and the line at
 * fault). */
static int parse_stat(const char *buf, const char *path, cpu_times *times, size_t max)
{
    size_t n = 0;
    int line_no = 0;

    for (const char *line = buf; *line; line_no++) {
        const char *end = strchr(line, '\n'), *c = line + 3;
        uint64_t v[8] = {0}, cpu;
        int fields = 0;

        if (strncmp(line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9') {
            next_u64(&c, &cpu);
            while (fields < 8 && next_u64(&c, &v[fields]) == 0)
                fields++;
            if (fields < 4) {
                pp_log_error("%s:%d: cannot parse '%.60s'", path, line_no + 1, line);
                return -EINVAL;
            }
            if (n >= max)
                break;
            /* user nice system idle iowait irq softirq steal */
            times[n].busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
            times[n].total = times[n].busy + v[3] + v[4];
            n++;
        }
        if (!end)
            break;
        line = end + 1;
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
    char path[PP_PATH_MAX], *buf;
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
    char path[PP_PATH_MAX];
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
    p->tick_ns = 1000000000 / (sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100);
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
    int n;

    if (p->read_once && t_ns - p->read_ns < p->tick_ns) {
        power_w[0] = p->held_w; /* no tick since: the counters cannot have moved */
        return 0;
    }
    if ((n = read_stat(p, now, MAX_CPUS)) < 0)
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
            p->share[i] = (double)db / (double)dt;
        busy_cores += p->share[i];
        p->last[i] = now[i];
    }
    p->read_once = 1;
    p->read_ns = t_ns;
    p->held_w = dev->opts.procstat_idle_w + dev->opts.procstat_core_w * busy_cores;
    power_w[0] = p->held_w;
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
