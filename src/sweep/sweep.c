#include "sweep.h"

#include "src/base/log.h"
#include "src/results/node.h"
#include "src/results/results.h"
#include "src/results/run_json.h"
#include "sampler.h"
#include "scheduler.h"
#include "src/traces/trace.h"
#include "trace_stream.h"
#include "src/base/util.h"

#include "battery/battery.h"
#include "devices/device.h"
#include "devices/procstat.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROW_MAX 16384
#define OVERHEAD_S 0.05       /* per configuration, beside its estimate: setup, files */
#define BUSY_FRAC 0.97        /* a procstat sample with this share of every core busy is
                                 at the estimate's ceiling */

typedef struct job {
    pp_scheduled sched;
    int ready;
    pp_run_result res;
} job;

/* The components of one configuration on threads: one each when they run
 * together, one for all when they run in turn; running counts the threads
 * not finished. */
typedef struct crew {
    job *jobs;
    pthread_mutex_t lock;
    pthread_cond_t done;
    size_t running;
} crew;

typedef struct worker {
    crew *crew;
    size_t first, n;
    pthread_t thread;
    int started;
} worker;

/* Called every tick while a configuration runs, with the time since it
 * started. */
typedef struct ticker {
    double tick_s; /* 0: never */
    void (*fn)(void *ctx, double running_s);
    void *ctx;
} ticker;

static void *worker_main(void *arg)
{
    worker *w = arg;

    for (size_t c = w->first; c < w->first + w->n; c++)
        if (w->crew->jobs[c].ready)
            pp_scheduled_run(&w->crew->jobs[c].sched, &w->crew->jobs[c].res);
    pthread_mutex_lock(&w->crew->lock);
    w->crew->running--;
    pthread_cond_signal(&w->crew->done);
    pthread_mutex_unlock(&w->crew->lock);
    return NULL;
}

/* Wait for the crew's threads, ticking meanwhile. */
static void wait_crew(crew *c, const ticker *tk)
{
    int64_t t0 = pp_clock_now_ns(&pp_clock_monotonic), next = t0;

    pthread_mutex_lock(&c->lock);
    while (c->running > 0) {
        struct timespec ts;
        if (!(tk->tick_s > 0)) {
            pthread_cond_wait(&c->done, &c->lock);
            continue;
        }
        next += (int64_t)llround(tk->tick_s * 1e9);
        ts.tv_sec = (time_t)(next / 1000000000);
        ts.tv_nsec = (long)(next % 1000000000);
        while (c->running > 0 && pthread_cond_timedwait(&c->done, &c->lock, &ts) != ETIMEDOUT)
            ;
        if (c->running > 0) {
            pthread_mutex_unlock(&c->lock);
            tk->fn(tk->ctx, pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic) - t0));
            pthread_mutex_lock(&c->lock);
        }
    }
    pthread_mutex_unlock(&c->lock);
}

/* Run the jobs that are ready, together or in turn, and wait for them. A
 * thread that cannot be created runs its jobs here (without ticks). */
static void run_crew(job *jobs, size_t n, int sequential, const ticker *tk)
{
    worker w[PP_PROFILE_MAX_COMPONENTS];
    size_t n_workers = sequential ? 1 : n;
    pthread_condattr_t attr;
    crew c;

    c.jobs = jobs;
    c.running = n_workers;
    pthread_mutex_init(&c.lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&c.done, &attr);
    pthread_condattr_destroy(&attr);
    for (size_t i = 0; i < n_workers; i++) {
        w[i] = (worker){&c, sequential ? 0 : i, sequential ? n : 1, 0, 0};
        w[i].started = pthread_create(&w[i].thread, NULL, worker_main, &w[i]) == 0;
        if (!w[i].started)
            worker_main(&w[i]);
    }
    wait_crew(&c, tk);
    for (size_t i = 0; i < n_workers; i++)
        if (w[i].started)
            pthread_join(w[i].thread, NULL);
    pthread_cond_destroy(&c.done);
    pthread_mutex_destroy(&c.lock);
}

/* The monotonic clock, and CPU time so far: this process's (every
 * thread), its children's that ended and were waited for, and the whole
 * machine's (NAN: no /proc/stat under the profile's root), in seconds. */
typedef struct cpu_mark {
    double wall_s, self_s, children_s, machine_s;
    size_t n_cpus;
} cpu_mark;

static void cpu_mark_now(const pp_profile *p, cpu_mark *m)
{
    struct timespec ts = {0, 0};
    struct rusage ru;
    m->wall_s = pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic));
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    m->self_s = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_CHILDREN, &ru);
    m->children_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    if (pp_procstat_machine(p->sysfs_root[0] ? p->sysfs_root : NULL, &m->machine_s, &m->n_cpus) < 0)
        m->machine_s = NAN;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    pp_log_error("%s: cannot create the folder: %s", path, strerror(errno));
    return -errno;
}

static void layout_of(const pp_profile *p, const pp_device *dev, pp_results_layout *l)
{
    memset(l, 0, sizeof *l);
    l->n_params = pp_profile_n_params(p);
    for (size_t k = 0; k < l->n_params; k++) {
        const pp_param_spec *ps = pp_profile_param(p, k);
        pp_profile_param_name(p, k, l->param_names[k], sizeof l->param_names[k]);
        l->categorical[k] = ps->kind == PP_RANGE_CATEGORICAL ? ps : NULL;
    }
    l->n_components = p->n_components;
    for (size_t c = 0; c < p->n_components; c++) {
        const pp_component_spec *cs = &p->components[c];
        int fps = cs->fps > 0, sleep = cs->sleep_s > 0;
        pp_strlcpy(l->component_names[c], cs->name, sizeof l->component_names[c]);
        for (size_t j = 0; j < cs->n_params; j++) {
            fps |= strcmp(cs->params[j].name, "fps") == 0;
            sleep |= strcmp(cs->params[j].name, "sleep_s") == 0;
        }
        l->component_pacing[c] = fps ? PP_PACING_FPS : sleep ? PP_PACING_SLEEP : PP_PACING_NONE;
    }
    l->n_rails = dev->n_rails;
    for (size_t r = 0; r < dev->n_rails; r++) {
        pp_strlcpy(l->rail_names[r], dev->rails[r].name, sizeof l->rail_names[r]);
        l->rail_in_total[r] = dev->rails[r].parent < 0;
    }
}

/* 1 when field status_col of a summary row is "ok". */
static int row_ok(const char *line, size_t status_col)
{
    for (size_t i = 0; i < status_col && line; i++)
        if ((line = strchr(line, ',')))
            line++;
    return line && strncmp(line, "ok,", 3) == 0;
}

/* Replace path with len bytes of text, atomically. 0 or -errno (logged). */
static int rewrite(const char *path, const char *text, size_t len)
{
    pp_atomic_file af;
    int rc = pp_atomic_file_open(&af, path);

    if (rc == 0 && fwrite(text, 1, len, af.fp) != len) {
        pp_atomic_file_abort(&af);
        rc = -EIO;
    }
    if (rc == 0)
        rc = pp_atomic_file_commit(&af);
    if (rc < 0)
        pp_log_error("%s: cannot rewrite: %s", path, strerror(-rc));
    return rc;
}

/* The measurements of a sweep: slot rep * count + id is repeat rep of
 * configuration id. */
typedef struct slots {
    uint64_t count;       /* configurations of the profile */
    unsigned repeats;
    const pp_shard *shard;
    const char *node;
} slots;

/* The slot of summary row line (ending at nl): 0 with *slot, 1 for a row
 * of this sweep beyond its repeats (kept, not marked), -EINVAL (logged)
 * for a row of another profile, shard or node. */
static int row_slot(const char *path, long line_no, const char *line, const char *nl,
                    const slots *sl, uint64_t *slot)
{
    const char *rep_at = nl, *node_at;
    unsigned long long id, rep;
    char *end;

    while (rep_at > line && rep_at[-1] != ',')
        rep_at--;
    for (node_at = rep_at - 1; node_at > line && node_at[-1] != ','; node_at--)
        ;
    id = strtoull(line, &end, 10);
    if (end == line || *end != ',' || id >= sl->count || node_at <= line) {
        pp_log_error("%s:%ld: not a row of this profile", path, line_no);
        return -EINVAL;
    }
    rep = strtoull(rep_at, &end, 10);
    if (end != nl || end == rep_at || (size_t)(rep_at - 1 - node_at) != strlen(sl->node) ||
        strncmp(node_at, sl->node, strlen(sl->node)) != 0) {
        pp_log_error("%s:%ld: a row of node '%.*s', repeat '%.*s': this is node '%s' (resume "
                     "on that node, or give --node with its name)", path, line_no,
                     (int)(rep_at > node_at ? rep_at - 1 - node_at : 0), node_at,
                     (int)(nl - rep_at), rep_at, sl->node);
        return -EINVAL;
    }
    if (!pp_shard_has(sl->shard, id)) {
        pp_log_error("%s:%ld: configuration %llu is not in shard %llu/%llu: resume with the "
                     "--shard of the run that made this folder", path, line_no, id,
                     (unsigned long long)sl->shard->k, (unsigned long long)sl->shard->n);
        return -EINVAL;
    }
    *slot = rep * sl->count + id;
    return rep < sl->repeats ? 0 : 1;
}

/* Mark the measurements of the whole rows of an existing summary done. A
 * torn last line is dropped, and with retry_failed the rows whose status
 * is not ok (they run again); the file is then rewritten without them. 0,
 * or -EINVAL when the header or a row is not this sweep's. */
static int read_done(const char *path, const char *header, size_t status_col, int retry_failed,
                     uint8_t *done, const slots *sl)
{
    char *text = pp_read_file(path), *line, *next, *kept;
    size_t n_kept = 0;
    long line_no = 0;
    int rc = 0, dropped = 0;

    if (!text)
        return access(path, F_OK) != 0 && errno == ENOENT ? 0 : -EIO;
    kept = malloc(strlen(text) + 1);
    for (line = text; kept && *line && rc == 0; line = next) {
        char *nl = strchr(line, '\n');
        uint64_t slot = 0;
        int r = 0;
        if (!nl) { /* torn */
            dropped = 1;
            break;
        }
        next = nl + 1;
        if (++line_no == 1 && strncmp(line, header, (size_t)(next - line)) != 0) {
            pp_log_error("%s:1: the columns differ from this profile's (another profile or "
                         "device, or an older powprof?): resume into a new folder with -o", path);
            rc = -EINVAL;
        } else if (line_no > 1 && (r = row_slot(path, line_no, line, nl, sl, &slot)) < 0) {
            rc = r;
        } else if (line_no > 1 && retry_failed && !row_ok(line, status_col)) {
            dropped = 1;
            continue;
        } else if (line_no > 1 && r == 0) {
            done[slot] = 1;
        }
        memcpy(kept + n_kept, line, (size_t)(next - line));
        n_kept += (size_t)(next - line);
    }
    if (!kept)
        rc = -ENOMEM;
    else if (rc == 0 && dropped)
        rc = rewrite(path, kept, n_kept);
    free(kept);
    free(text);
    return rc;
}

static int append_row(int fd, const char *row, size_t len)
{
    ssize_t n = write(fd, row, len);

    if (n != (ssize_t)len || fsync(fd) != 0)
        return -errno;
    return 0;
}

static void copy_config(const pp_profile *p, const char *dir)
{
    char path[4096];
    pp_atomic_file af;
    FILE *in = fopen(p->path, "r");
    char buf[8192];
    size_t n;

    if (!in)
        return;
    pp_fmt(path, sizeof path, "%s/profile.cfg", dir);
    if (pp_atomic_file_open(&af, path) == 0) {
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, af.fp);
        pp_atomic_file_commit(&af);
    }
    fclose(in);
}

/* The samples from warmup_s on, as a trace of their own (times kept). */
static int after_warmup(const pp_trace *t, double warmup_s, pp_trace *out)
{
    const char *names[PP_TRACE_MAX_RAILS];
    size_t k = 0;
    int rc;

    for (size_t r = 0; r < t->n_rails; r++)
        names[r] = t->names[r];
    rc = pp_trace_init(out, t->n_rails, names);
    if (rc < 0)
        return rc;
    out->interval_average = t->interval_average;
    while (k < t->n_samples && t->t_s[k] < warmup_s)
        k++;
    for (size_t i = k; i < t->n_samples; i++) {
        /* interval means: the first kept one covers (t[k-1], t[k]] */
        double ts = t->interval_average && k > 0 ? t->t_s[i] - t->t_s[k - 1] : t->t_s[i];
        rc = pp_trace_append(out, ts, t->power_w + i * t->n_rails);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* What one configuration measured. */
typedef struct measured {
    pp_run_result overall, each[PP_PROFILE_MAX_COMPONENTS];
    pp_results_cpu cpu;
} measured;

/* The results of the components into m: the worst status (and its reason)
 * overall, iterations and late frames summed. */
static void gather(const pp_profile *p, const job *jobs, measured *m)
{
    for (size_t c = 0; c < p->n_components; c++) {
        const pp_run_result *r = &jobs[c].res;
        m->each[c] = *r;
        m->overall.iterations += r->iterations;
        m->overall.late_frames += r->late_frames;
        if (r->status > m->overall.status) {
            m->overall.status = r->status;
            pp_strlcpy(m->overall.reason, r->reason, sizeof m->overall.reason);
        }
    }
}

/* A sampler of dev at the profile's rate whose samples stream to path. */
static int sample_to(const pp_profile *p, pp_device *dev, const char *path, pp_sampler **s,
                     pp_trace_stream **w)
{
    int rc = pp_sampler_create(dev, NULL, p->rate_hz, 0, s);

    if (rc == 0)
        rc = pp_trace_stream_attach(*s, dev, p->rate_hz, path, w);
    if (rc == 0)
        rc = pp_sampler_start(*s);
    return rc;
}

/* Measure configuration id: the components are set up, then run while the
 * device is sampled (all together, or one after the other) into trace_path,
 * then torn down. The workload's CPU time is the process's over the sampled span,
 * less the sampler's own, plus the children's waited for meanwhile. */
static int run_one(const pp_profile *p, pp_device *dev, uint64_t id, const atomic_int *cancel,
                   const ticker *tk, double *values, const char *trace_path, measured *m)
{
    job jobs[PP_PROFILE_MAX_COMPONENTS];
    pp_sampler *s = NULL;
    pp_trace_stream *w = NULL;
    pp_sampler_stats st;
    cpu_mark before, after;
    int all_ready = 1, rc, wrc;
    size_t k = 0;

    pp_profile_values(p, id, values);
    memset(jobs, 0, sizeof jobs);
    memset(m, 0, sizeof *m);
    for (size_t c = 0; c < p->n_components; c++) {
        jobs[c].ready = pp_scheduled_setup(&jobs[c].sched, &p->components[c], values + k, NULL,
                                           NULL, cancel, &jobs[c].res) == 0;
        all_ready &= jobs[c].ready;
        k += p->components[c].n_params;
    }
    cpu_mark_now(p, &before);
    if ((rc = sample_to(p, dev, trace_path, &s, &w)) < 0)
        goto out;
    if (all_ready)
        run_crew(jobs, p->n_components, p->sequential, tk);
    rc = pp_sampler_stop(s);
    cpu_mark_now(p, &after);
    if (rc < 0) {
        pp_log_error("configuration %llu: sampling failed: %s", (unsigned long long)id,
                     strerror(-rc));
        goto out;
    }
    pp_sampler_get_stats(s, &st);
    m->overall.duration_s = st.wall_s;
    m->cpu.cpu_s = fmax(0.0, after.self_s - before.self_s - st.cpu_s + after.children_s -
                                 before.children_s);
    m->cpu.span_s = after.wall_s - before.wall_s;
    /* /proc/stat counts in ticks (10 ms): a short span can read more than every core */
    m->cpu.machine_busy_s = fmin(after.machine_s - before.machine_s,
                                 (double)after.n_cpus * m->cpu.span_s);
    gather(p, jobs, m);
out:
    wrc = pp_trace_stream_close(w, NULL);
    if (rc == 0)
        rc = wrc;
    if (s)
        pp_sampler_destroy(s);
    for (size_t c = 0; c < p->n_components; c++)
        pp_scheduled_teardown(&jobs[c].sched);
    return rc;
}

/* Every component's preflight check; each failure logged. 0, or the first
 * failure's -errno. */
static int check_components(const pp_profile *p)
{
    char why[1024];
    int rc = 0;

    for (size_t c = 0; c < p->n_components; c++) {
        int r = pp_scheduled_check(&p->components[c], why, sizeof why);
        if (r < 0) {
            pp_log_error("%s: component %s", p->path, why);
            rc = rc < 0 ? rc : r;
        }
    }
    return rc;
}

int pp_sweep_check(const pp_profile *p)
{
    pp_device_options dopts;
    pp_device *dev = NULL;
    int rc, rc2;

    pp_device_options_init(&dopts);
    if (p->sysfs_root[0])
        dopts.sysfs_root = p->sysfs_root;
    rc = pp_device_open(p->device, &dopts, &dev);
    if (rc < 0)
        pp_log_error("%s: device '%s' cannot be opened", p->path, p->device);
    else
        pp_device_close(dev);
    rc2 = check_components(p);
    return rc < 0 ? rc : rc2;
}

/* The share of the samples of t at dev's procstat ceiling (BUSY_FRAC of
 * every core busy); 0 for another source. */
static double saturated_frac(const pp_device *dev, const pp_trace *t)
{
    double ceiling_w, idle_w = dev->opts.procstat_idle_w, at;
    size_t n = 0;

    if (pp_procstat_ceiling_w(dev, &ceiling_w) < 0 || !(ceiling_w > idle_w) || !t->n_samples)
        return 0.0;
    at = idle_w + BUSY_FRAC * (ceiling_w - idle_w);
    for (size_t i = 0; i < t->n_samples; i++)
        n += pp_trace_at(t, i, 0) >= at;
    return (double)n / (double)t->n_samples;
}

/* A failure's reason without what changes from one configuration to the
 * next (numbers, this configuration's labels: each becomes '#'), so that
 * the same failure repeated is recognized. */
static void reason_key(const pp_profile *p, const double *values, const char *reason, char *key,
                       size_t cap)
{
    size_t len = 0, n = pp_profile_n_params(p);

    while (*reason && len + 1 < cap) {
        size_t skip = isdigit((unsigned char)*reason) ? strspn(reason, "0123456789") : 0;
        for (size_t k = 0; k < n && !skip; k++) {
            const char *label = pp_profile_label(p, k, values[k]);
            if (label && strncmp(reason, label, strlen(label)) == 0)
                skip = strlen(label);
        }
        key[len++] = skip ? '#' : *reason;
        reason += skip ? skip : 1;
    }
    key[len] = '\0';
}

/* The sweep as it goes, for the progress callback. */
typedef struct sweep_run {
    const pp_profile *p;
    const pp_sweep_options *o;
    const pp_sweep_stats *st;
    const slots *sl;
    unsigned rep;         /* the repeat of the configuration running */
    int64_t t_start;
    double est_total, est_done, est_running; /* to run, finished, the one running */
    pp_sweep_progress pr;
    pp_sweep_component_progress comps[PP_PROFILE_MAX_COMPONENTS];
    char reason[512];
    char streak_key[512]; /* reason_key of the failures in a row */
} sweep_run;

static double elapsed_s(const sweep_run *r)
{
    return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic) - r->t_start);
}

/* What is left: the estimates still to run at the pace seen so far against
 * the estimates of those finished (when nothing has an estimate, the mean
 * time of a configuration), less what the running one has done. NAN when
 * nothing is known yet. */
static double time_left_s(const sweep_run *r, double elapsed, double running_s)
{
    double finished_s = elapsed - running_s, t;
    uint64_t left = r->st->total - r->st->skipped - r->st->ran;

    if (r->est_total > 0)
        t = (r->est_done > 0 ? finished_s / r->est_done : 1.0) * (r->est_total - r->est_done);
    else if (r->st->ran > 0)
        t = finished_s / (double)r->st->ran * (double)left;
    else
        return NAN;
    return t > running_s ? t - running_s : 0.0;
}

/* Progress while a configuration runs (ticker callback). */
static void tick(void *ctx, double running_s)
{
    sweep_run *r = ctx;

    r->pr.running = 1;
    r->pr.config_elapsed_s = running_s;
    r->pr.config_estimate_s = r->est_running;
    r->pr.elapsed_s = elapsed_s(r);
    r->pr.left_s = time_left_s(r, r->pr.elapsed_s, running_s);
    r->o->progress(r->o->progress_ctx, &r->pr);
}

/* Count the failures in a row with the same reason: the count, 0 after a
 * success. */
static unsigned streak(sweep_run *r, const double *values, const pp_run_result *res)
{
    char key[512];

    if (res->status == PP_RUN_OK)
        return r->pr.failures_in_row = 0;
    reason_key(r->p, values, res->reason, key, sizeof key);
    if (r->pr.failures_in_row && strcmp(key, r->streak_key) == 0)
        return ++r->pr.failures_in_row;
    pp_strlcpy(r->streak_key, key, sizeof r->streak_key);
    return r->pr.failures_in_row = 1;
}

/* Steps per second over duration_s, each step counted as at least one
 * period of fps (when paced by it): a run that keeps up reads fps, not the
 * more that rounding up the frames of a short duration would give. */
static double achieved_fps(long steps, double duration_s, double fps)
{
    double span_s = fps > 0 ? fmax(duration_s, (double)steps / fps) : duration_s;

    return span_s > 0 ? (double)steps / span_s : NAN;
}

/* Each component's pace in configuration values. */
static void pace_of(sweep_run *r, const double *values, const measured *m)
{
    size_t k = 0;

    for (size_t c = 0; c < r->p->n_components; c++) {
        const pp_component_spec *cs = &r->p->components[c];
        pp_sweep_component_progress *cp = &r->comps[c];
        int i = pp_component_param_index(cs, "fps");
        cp->name = cs->name;
        cp->fps = i >= 0 ? values[k + (size_t)i] : cs->fps;
        cp->iterations = m->each[c].iterations;
        cp->late_frames = m->each[c].late_frames;
        cp->achieved_fps = achieved_fps(cp->iterations, m->each[c].duration_s, cp->fps);
        k += cs->n_params;
    }
}

/* Progress: configuration id has just been saved. */
static void report_done(sweep_run *r, uint64_t id, const double *values, const measured *m,
                        double mean_w, int saturated)
{
    pp_sweep_progress *pr = &r->pr;
    double d = m->cpu.span_s;

    r->est_done += r->est_running;
    pp_strlcpy(r->reason, m->overall.status == PP_RUN_OK ? "" : m->overall.reason,
               sizeof r->reason);
    pace_of(r, values, m);
    pr->running = 0;
    pr->done = r->st->ran;
    pr->total = r->st->total - r->st->skipped;
    pr->id = id;
    pr->status = pp_run_status_name(m->overall.status);
    pr->reason = r->reason;
    pr->duration_s = m->overall.duration_s;
    pr->total_mean_w = mean_w;
    pr->cpu_share = d > 0 ? m->cpu.cpu_s / d : NAN;
    pr->machine_cpu_share = d > 0 ? m->cpu.machine_busy_s / d : NAN;
    pr->saturated = saturated;
    pr->n_components = r->p->n_components;
    pr->components = r->comps;
    pr->elapsed_s = elapsed_s(r);
    pr->left_s = time_left_s(r, pr->elapsed_s, 0.0);
    if (r->o->progress)
        r->o->progress(r->o->progress_ctx, pr);
}

/* Keep configuration id: its row, from the trace streamed to path,
 * appended to the summary (fd). *mean_w and *saturated (the procstat estimate at its ceiling for
 * half the samples or more) for the progress. 0 or -errno. */
static int save_one(const sweep_run *r, const pp_device *dev, int fd,
                    const pp_results_layout *layout, uint64_t id, const double *values,
                    const measured *m, const char *path, char *row, double *mean_w,
                    int *saturated)
{
    const pp_profile *p = r->p;
    long it[PP_PROFILE_MAX_COMPONENTS], late[PP_PROFILE_MAX_COMPONENTS];
    double dur[PP_PROFILE_MAX_COMPONENTS];
    pp_results_row rr = {id, values, pp_run_status_name(m->overall.status), m->overall.duration_s,
                         m->overall.iterations, m->overall.late_frames, it, late,
                         m->overall.reason, dur, &m->cpu, r->sl->node, r->rep};
    pp_trace trace, kept;
    size_t len;
    int rc;

    /* The summary's figures and the battery model need the whole trace: it
     * is read back from the file it was streamed to (path), after sampling. */
    rc = pp_trace_read_csv(path, &trace);
    if (rc < 0)
        return rc;
    trace.interval_average = (dev->ops->flags & PP_DEVICE_INTERVAL) != 0;
    rc = after_warmup(&trace, p->warmup_s, &kept);
    pp_trace_free(&trace);
    if (rc < 0)
        return rc;
    for (size_t c = 0; c < p->n_components; c++) {
        it[c] = m->each[c].iterations;
        late[c] = m->each[c].late_frames;
        dur[c] = m->each[c].duration_s;
    }
    len = pp_results_format_row(layout, &rr, &kept, &p->battery, row, ROW_MAX, mean_w);
    *saturated = saturated_frac(dev, &kept) >= 0.5;
    pp_trace_free(&kept);
    rc = append_row(fd, row, len);
    if (rc < 0)
        pp_log_error("%s/summary.csv: cannot write: %s", r->o->out_dir, strerror(-rc));
    return rc;
}

/* The folders, summary.csv (its header written, or with resume the
 * measurements it has marked done), run.json and profile.cfg. The
 * summary's descriptor, open for appending, or -errno (logged). */
static int open_summary(const pp_profile *p, const pp_sweep_options *o, const pp_device *dev,
                        const pp_results_layout *layout, uint8_t *done, const slots *sl,
                        const pp_node *node)
{
    char path[4096], header[ROW_MAX];
    pp_run_info info = {node, sl->shard, sl->repeats};
    int fd, rc;

    pp_fmt(path, sizeof path, "%s/traces", o->out_dir);
    if ((rc = make_dir(o->out_dir)) < 0 || (rc = make_dir(path)) < 0)
        return rc;
    pp_results_header(layout, header, sizeof header);
    pp_fmt(path, sizeof path, "%s/summary.csv", o->out_dir);
    if (access(path, F_OK) == 0 && !o->resume) {
        pp_log_error("%s exists: continue it with --resume, or give another folder with -o", path);
        return -EEXIST;
    }
    if (o->resume && (rc = read_done(path, header, layout->n_params + 1, o->retry_failed, done,
                                     sl)) < 0)
        return rc;
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = -errno;
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        return rc;
    }
    if (lseek(fd, 0, SEEK_END) == 0 && (rc = append_row(fd, header, strlen(header))) < 0)
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    if (rc == 0 && (rc = pp_run_json_write(o->out_dir, p, dev, &info)) == 0)
        copy_config(p, o->out_dir);
    if (rc < 0)
        close(fd);
    return rc < 0 ? rc : fd;
}

/* The measurements to run: this shard's, done ones counted as skipped,
 * the others' estimates summed. */
static void plan_run(sweep_run *r, pp_sweep_stats *st, const uint8_t *done, double *values)
{
    const slots *sl = r->sl;

    for (uint64_t slot = 0; slot < sl->count * sl->repeats; slot++) {
        uint64_t id = slot % sl->count;
        if (!pp_shard_has(sl->shard, id) || (r->o->only && !r->o->only[id]))
            continue;
        st->total++;
        if (done[slot]) {
            st->skipped++;
            continue;
        }
        pp_profile_values(r->p, id, values);
        r->est_total += pp_profile_estimate_s(r->p, values) + OVERHEAD_S;
    }
    r->pr.total = st->total - st->skipped;
}

/* The measurements not done, in order (every configuration of the shard,
 * then every one again for each repeat), until the end, an interruption,
 * max_failures identical failures in a row, or an error. */
static int run_all(sweep_run *r, pp_sweep_stats *st, pp_device *dev, int fd,
                   const pp_results_layout *layout, const uint8_t *done, double *values,
                   char *row, const atomic_int *interrupt)
{
    const pp_sweep_options *o = r->o;
    const slots *sl = r->sl;
    ticker tk = {o->progress ? o->tick_s : 0.0, tick, r};

    for (uint64_t slot = 0; slot < sl->count * sl->repeats && !atomic_load(interrupt); slot++) {
        uint64_t id = slot % sl->count;
        measured m;
        char path[4096], name[64];
        double mean_w = 0;
        int saturated = 0, rc;

        if (done[slot] || !pp_shard_has(sl->shard, id) || (o->only && !o->only[id]))
            continue;
        r->rep = (unsigned)(slot / sl->count);
        pp_profile_values(r->p, id, values);
        r->est_running = pp_profile_estimate_s(r->p, values) + OVERHEAD_S;
        r->pr.id = id;
        pp_results_trace_name(id, r->rep, name, sizeof name);
        if ((rc = pp_path_fmt(path, sizeof path, o->out_dir, "traces/%s", name)) < 0)
            return rc;
        if ((rc = run_one(r->p, dev, id, interrupt, &tk, values, path, &m)) < 0)
            return rc;
        if (m.overall.status == PP_RUN_INTERRUPTED || atomic_load(interrupt)) {
            unlink(path); /* unfinished: not saved, run again on --resume */
            break;
        }
        rc = save_one(r, dev, fd, layout, id, values, &m, path, row, &mean_w, &saturated);
        if (rc < 0)
            return rc;
        st->ran++;
        st->ok += m.overall.status == PP_RUN_OK;
        st->failed += m.overall.status != PP_RUN_OK;
        st->saturated += (uint64_t)saturated;
        if (streak(r, values, &m.overall) >= o->max_failures && o->max_failures) {
            st->stopped = 1;
            pp_strlcpy(st->stop_reason, m.overall.reason, sizeof st->stop_reason);
        }
        report_done(r, id, values, &m, mean_w, saturated);
        if (st->stopped)
            return -ENOTRECOVERABLE;
    }
    if (atomic_load(interrupt) && st->ran + st->skipped < st->total) {
        st->interrupted = 1;
        return -EINTR;
    }
    return 0;
}

/* The measurements this sweep makes, and the node it runs on: 0, or
 * -E2BIG / -EINVAL (logged). */
static int slots_of(const pp_profile *p, const pp_sweep_options *o, slots *sl, pp_node *node)
{
    static const pp_shard all = {0, 1, ""};

    sl->count = pp_profile_count(p);
    sl->repeats = o->repeats ? o->repeats : 1;
    sl->shard = o->shard.n > 1 ? &o->shard : &all;
    sl->node = node->name;
    if (sl->repeats > PP_SWEEP_MAX_REPEATS || (o->shard.n > 1 && o->shard.k >= o->shard.n)) {
        pp_log_error("%s: %u repeats, shard %llu/%llu: out of range", p->path, sl->repeats,
                     (unsigned long long)o->shard.k, (unsigned long long)o->shard.n);
        return -EINVAL;
    }
    if (sl->count > 100000000 / sl->repeats) {
        pp_log_error("%s: %llu configurations x %u repeats is more than powprof will run",
                     p->path, (unsigned long long)sl->count, sl->repeats);
        return -E2BIG;
    }
    return pp_node_identify(p->sysfs_root, o->node, node);
}

int pp_sweep_run(const pp_profile *p, const pp_sweep_options *o, pp_sweep_stats *st)
{
    static const atomic_int never = 0;
    pp_device_options dopts;
    pp_device *dev = NULL;
    pp_results_layout *layout = NULL;
    sweep_run *r = NULL;
    uint8_t *done = NULL;
    double *values = NULL;
    char *row = NULL;
    slots sl;
    pp_node node;
    int fd = -1, rc;

    memset(st, 0, sizeof *st);
    if ((rc = slots_of(p, o, &sl, &node)) < 0)
        return rc;
    pp_device_options_init(&dopts);
    if (p->sysfs_root[0])
        dopts.sysfs_root = p->sysfs_root;
    rc = pp_device_open(p->device, &dopts, &dev);
    if (rc < 0)
        return rc;
    if ((rc = check_components(p)) < 0) {
        pp_device_close(dev);
        return rc;
    }
    done = calloc(sl.count * sl.repeats, 1);
    values = calloc(pp_profile_n_params(p) + 1, sizeof *values);
    row = malloc(ROW_MAX);
    layout = malloc(sizeof *layout);
    r = calloc(1, sizeof *r);
    if (!done || !values || !row || !layout || !r) {
        rc = -ENOMEM;
        goto out;
    }
    layout_of(p, dev, layout);
    if ((rc = fd = open_summary(p, o, dev, layout, done, &sl, &node)) < 0)
        goto out;
    *r = (sweep_run){.p = p, .o = o, .st = st, .sl = &sl};
    r->t_start = pp_clock_now_ns(&pp_clock_monotonic);
    plan_run(r, st, done, values);
    rc = run_all(r, st, dev, fd, layout, done, values, row, o->interrupt ? o->interrupt : &never);
out:
    if (fd >= 0)
        close(fd);
    free(r);
    free(layout);
    free(row);
    free(values);
    free(done);
    pp_device_close(dev);
    return rc;
}
