#include "meter.h"
#include "sweep.h"

#include "devices/procstat.h"
#include "src/results/results.h"

#include "src/base/log.h"
#include "src/base/proc.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The command running now (0: none), a signal to pass on as soon as one
 * runs, and the last signal noted. Signals are process-wide, so is this. */
static atomic_int g_pid;
static atomic_int g_pending;
static atomic_int g_signaled;

void pp_meter_signal(int sig, int forward)
{
    pid_t pid = (pid_t)atomic_load(&g_pid);

    atomic_store(&g_signaled, sig);
    if (!forward)
        return;
    if (pid > 0)
        kill(pid, sig);
    else
        atomic_store(&g_pending, sig);
}

int pp_meter_signaled(void) { return atomic_load(&g_signaled); }

void pp_meter_signal_reset(void)
{
    atomic_store(&g_signaled, 0);
    atomic_store(&g_pending, 0);
}

/* Spawn and wait for the command, with its pid published to
 * pp_meter_signal while it may be signalled: until it has exited, and not a
 * moment after it is reaped (its pid could be reused). */
static int run_command(char *const argv[], pp_meter_result *res, int *spawned)
{
    siginfo_t info;
    pid_t pid;
    int rc = pp_proc_spawn(argv, 0, &pid), sig;

    *spawned = rc == 0;
    if (rc < 0) {
        res->exit_status = pp_proc_spawn_status(rc);
        return rc;
    }
    atomic_store(&g_pid, pid);
    if ((sig = atomic_exchange(&g_pending, 0)) != 0)
        kill(pid, sig);
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR)
        ;
    atomic_store(&g_pid, 0);
    return pp_proc_wait(pid, &res->exit_status);
}

/* A trace file made for a command that never ran says nothing: remove it
 * (a regular file only: a FIFO is the user's). */
static void drop_trace(const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        unlink(path);
}

struct pp_meter_session {
    pp_sampler *s;
    pp_trace_stream *w;
    int64_t t_start;
    char trace_path[PP_PATH_MAX];
};

int pp_meter_session_begin(pp_device *dev, const pp_meter_options *o, pp_meter_session **out)
{
    pp_meter_session *ms = calloc(1, sizeof *ms);
    int rc;

    *out = NULL;
    if (!ms)
        return -ENOMEM;
    if (o->trace_path && pp_strlcpy(ms->trace_path, o->trace_path, sizeof ms->trace_path) < 0) {
        pp_log_error("%s: the path is too long", o->trace_path);
        free(ms);
        return -ENAMETOOLONG;
    }
    if ((rc = pp_sampler_create(dev, NULL, o->rate_hz, 0, &ms->s)) < 0) {
        free(ms);
        return rc;
    }
    pp_sampler_set_sink(ms->s, NULL);
    if ((o->trace_path &&
         (rc = pp_trace_stream_attach(ms->s, dev, o->rate_hz, o->trace_path, &ms->w)) < 0) ||
        (rc = pp_sampler_start(ms->s)) < 0) {
        if (ms->w) {
            pp_trace_stream_close(ms->w, &(pp_trace_stream_stats){0});
            drop_trace(ms->trace_path);
        }
        pp_sampler_destroy(ms->s);
        free(ms);
        return rc;
    }
    ms->t_start = pp_clock_now_ns(&pp_clock_monotonic);
    *out = ms;
    return 0;
}

int pp_meter_session_end(pp_meter_session *ms, int keep, pp_meter_result *res)
{
    int rc;

    res->duration_s = pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic) - ms->t_start);
    rc = pp_sampler_stop(ms->s);
    res->measured = keep;
    res->traced = ms->w != NULL;
    pp_sampler_get_stats(ms->s, &res->stats);
    pp_sampler_get_sums(ms->s, &res->sums);
    if (ms->w) {
        int wrc = pp_trace_stream_close(ms->w, &res->write);
        if (rc == 0)
            rc = wrc;
        if (!keep)
            drop_trace(ms->trace_path);
    }
    res->signal = pp_meter_signaled();
    pp_sampler_destroy(ms->s);
    free(ms);
    return rc;
}

int pp_meter_run(pp_device *dev, const pp_meter_options *o, char *const argv[],
                 pp_meter_result *res)
{
    pp_meter_session *ms;
    int rc, src, spawned = 0;

    memset(res, 0, sizeof *res);
    if ((rc = pp_meter_session_begin(dev, o, &ms)) < 0)
        return rc;
    rc = run_command(argv, res, &spawned);
    src = pp_meter_session_end(ms, spawned, res);
    return rc == 0 ? src : rc;
}

int pp_meter_rate_check(double rate_hz, char *why, size_t cap)
{
    if (rate_hz >= PP_SAMPLER_MIN_HZ && rate_hz <= PP_SAMPLER_MAX_HZ) /* NaN fails */
        return 0;
    pp_text(why, cap, "the rate must be between %g and %g Hz", PP_SAMPLER_MIN_HZ,
            PP_SAMPLER_MAX_HZ);
    return -EINVAL;
}

int pp_meter_trace_path(const char *path, size_t run, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');

    if (!dot || dot == (slash ? slash + 1 : path)) /* no extension, or a dot file */
        return pp_fmt(buf, cap, "%s.%zu", path, run);
    return pp_fmt(buf, cap, "%.*s.%zu%s", (int)(dot - path), path, run, dot);
}

int pp_meter_repeat(pp_device *dev, const pp_meter_options *o, char *const argv[],
                    size_t n_runs, pp_meter_result *runs, size_t *n_done)
{
    char path[PP_PATH_MAX];
    int rc = 0;

    *n_done = 0;
    for (size_t k = 0; k < n_runs; k++) {
        pp_meter_options ok = *o;
        if (o->trace_path && n_runs > 1) {
            if (pp_meter_trace_path(o->trace_path, k + 1, path, sizeof path) < 0) {
                pp_log_error("%s: the path is too long", o->trace_path);
                return -ENAMETOOLONG;
            }
            ok.trace_path = path;
        }
        rc = pp_meter_run(dev, &ok, argv, &runs[k]);
        *n_done = k + 1;
        if (rc < 0 || runs[k].signal)
            break;
        if (runs[k].exit_status != 0) {
            if (k + 1 < n_runs)
                pp_log_warn("run %zu of %zu exited with status %d: the other runs are not made",
                            k + 1, n_runs, runs[k].exit_status);
            break;
        }
    }
    return rc;
}

/* Spread of one figure of the measured runs: which(run, rail). Two passes,
 * for a standard deviation without cancellation. */
static void spread_of(const pp_meter_result *runs, size_t n_runs, size_t rail,
                      double (*which)(const pp_meter_result *, size_t), pp_meter_spread *out)
{
    double sum = 0.0, ss = 0.0;
    size_t n = 0;

    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < n_runs; k++) {
        double v;
        if (!runs[k].measured)
            continue;
        v = which(&runs[k], rail);
        out->min = n == 0 || v < out->min ? v : out->min;
        out->max = n == 0 || v > out->max ? v : out->max;
        sum += v;
        n++;
    }
    if (n == 0)
        return;
    out->mean = sum / (double)n;
    for (size_t k = 0; k < n_runs; k++)
        if (runs[k].measured) {
            double d = which(&runs[k], rail) - out->mean;
            ss += d * d;
        }
    out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

static double run_duration(const pp_meter_result *r, size_t rail)
{
    (void)rail;
    return r->duration_s;
}

static double run_mean_w(const pp_meter_result *r, size_t rail)
{
    return pp_trace_sums_mean_w(&r->sums, rail);
}

static double run_energy_j(const pp_meter_result *r, size_t rail) { return r->sums.energy_j[rail]; }

void pp_meter_summarize(const pp_meter_result *runs, size_t n_runs, pp_meter_summary *out)
{
    size_t total = 0;

    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < n_runs; k++)
        if (runs[k].measured) {
            out->n_runs++;
            total = out->n_rails = runs[k].sums.n_rails;
        }
    spread_of(runs, n_runs, 0, run_duration, &out->duration_s);
    spread_of(runs, n_runs, total, run_mean_w, &out->total_mean_w);
    spread_of(runs, n_runs, total, run_energy_j, &out->total_energy_j);
    for (size_t r = 0; r < out->n_rails; r++) {
        spread_of(runs, n_runs, r, run_mean_w, &out->mean_w[r]);
        spread_of(runs, n_runs, r, run_energy_j, &out->energy_j[r]);
    }
}

void pp_meter_checks(const pp_device *dev, const pp_meter_result *res, int *saturated,
                     int *short_run, double *ceiling_w)
{
    const pp_trace_sums *s = &res->sums;
    double idle_w = dev->opts.procstat_idle_w, hz = res->stats.requested_hz;

    *saturated = 0;
    if (res->measured && s->n_samples && pp_procstat_ceiling_w(dev, ceiling_w) == 0 &&
        *ceiling_w > idle_w)
        *saturated = pp_trace_sums_mean_w(s, s->n_rails) >=
                     idle_w + PP_SWEEP_BUSY_FRAC * (*ceiling_w - idle_w);
    *short_run = res->measured && (res->stats.n_samples < PP_RESULTS_SHORT_SAMPLES ||
                                   (hz > 0 && res->duration_s < PP_RESULTS_SHORT_SAMPLES / hz));
}
