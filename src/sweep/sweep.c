/* sweep.c - pp_sweep_run and pp_sweep_check (sweep.h): the folder and
 * summary.csv, each configuration measured and saved. Its parts, which it
 * calls and which call nothing of it: sweep_crew.c (the components on
 * threads), sweep_progress.c (the progress callback, failures in a row,
 * time left), sweep_resume.c (--resume: the rows already there). */
#include "sweep.h"

#include "src/base/log.h"
#include "src/results/base_traces.h"
#include "src/results/folder.h"
#include "src/results/lock.h"
#include "src/results/node.h"
#include "src/results/results.h"
#include "src/results/run_json.h"
#include "sweep_clocks.h"
#include "sweep_crew.h"
#include "sweep_progress.h"
#include "sweep_resume.h"
#include "sampler.h"
#include "scheduler.h"
#include "src/traces/trace.h"
#include "trace_stream.h"
#include "src/base/util.h"

#include "battery/battery.h"
#include "devices/device.h"
#include "devices/procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROW_MAX 16384
#define OVERHEAD_S 0.05       /* per configuration, beside its estimate: setup, files */

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

static int layout_of(const pp_profile *p, const pp_device *dev, pp_results_layout *l)
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
        if (pp_strlcpy(l->component_names[c], cs->name, sizeof l->component_names[c]) < 0) {
            pp_log_error("%s: component '%s': a name longer than %zu characters (a column of "
                         "the results)", p->path, cs->name, sizeof l->component_names[c] - 1);
            return -EINVAL;
        }
        for (size_t j = 0; j < cs->n_params; j++) {
            fps |= strcmp(cs->params[j].name, "fps") == 0;
            sleep |= strcmp(cs->params[j].name, "sleep_s") == 0;
        }
        l->component_pacing[c] = fps ? PP_PACING_FPS : sleep ? PP_PACING_SLEEP : PP_PACING_NONE;
    }
    l->n_rails = dev->n_rails;
    _Static_assert(PP_TRACE_NAME_MAX >= PP_RAIL_NAME_MAX, "a rail's name fits");
    for (size_t r = 0; r < dev->n_rails; r++) {
        memcpy(l->rail_names[r], dev->rails[r].name, sizeof dev->rails[r].name);
        l->rail_in_total[r] = dev->rails[r].parent < 0;
    }
    return 0;
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
    char path[PP_PATH_MAX];
    pp_atomic_file af;
    FILE *in = fopen(p->path, "r");
    char buf[8192];
    size_t n;

    if (!in)
        return;
    if (pp_path_in(path, sizeof path, dir, "profile.cfg") == 0 &&
        pp_atomic_file_open(&af, path) == 0) {
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, af.fp);
        pp_atomic_file_commit(&af);
    }
    fclose(in);
    pp_results_base_traces_record(dir, p->path); /* the copy's relative traces, resolved */
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

/* The results of the components into m: the worst status (and its reason)
 * overall, iterations and late frames summed. */
static void gather(const pp_profile *p, const pp_crew_job *jobs, pp_sweep_measured *m)
{
    for (size_t c = 0; c < p->n_components; c++) {
        const pp_run_result *r = &jobs[c].res;
        m->each[c] = *r;
        m->overall.iterations += r->iterations;
        m->overall.late_frames += r->late_frames;
        if (r->status > m->overall.status) {
            m->overall.status = r->status;
            pp_text(m->overall.reason, sizeof m->overall.reason, "%s", r->reason);
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
static int measure_config(const pp_profile *p, pp_device *dev, uint64_t id,
                          const atomic_int *cancel, const pp_crew_ticker *tk, double *values,
                          const char *trace_path, pp_sweep_measured *m)
{
    pp_crew_job jobs[PP_PROFILE_MAX_COMPONENTS];
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
        pp_crew_run(jobs, p->n_components, p->sequential, tk);
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
    rc = pp_device_open_with(p->device, &dopts, &dev);
    if (rc < 0)
        pp_log_error("%s: device '%s' cannot be opened", p->path, p->device);
    else
        pp_device_close(dev);
    rc2 = check_components(p);
    rc = rc < 0 ? rc : rc2;
    rc2 = pp_sweep_clocks_check(p);
    return rc < 0 ? rc : rc2;
}

/* The share of the samples of t at dev's procstat ceiling (PP_SWEEP_BUSY_FRAC of
 * every core busy); 0 for another source. */
static double saturated_frac(const pp_device *dev, const pp_trace *t)
{
    double ceiling_w, idle_w = dev->opts.procstat_idle_w, at;
    size_t n = 0;

    if (pp_procstat_ceiling_w(dev, &ceiling_w) < 0 || !(ceiling_w > idle_w) || !t->n_samples)
        return 0.0;
    at = idle_w + PP_SWEEP_BUSY_FRAC * (ceiling_w - idle_w);
    for (size_t i = 0; i < t->n_samples; i++)
        n += pp_trace_at(t, i, 0) >= at;
    return (double)n / (double)t->n_samples;
}

/* A configuration that left no sample (a warm-up as long as its run, a
 * run shorter than a sampling period) is never ok: failed, saying why. */
static void no_samples_failed(const pp_profile *p, const pp_trace *kept, size_t n_all,
                              pp_sweep_measured *m)
{
    if (kept->n_samples > 0 || m->overall.status != PP_RUN_OK)
        return;
    m->overall.status = PP_RUN_FAILED;
    if (n_all > 0)
        pp_text(m->overall.reason, sizeof m->overall.reason,
                "no samples after the warm-up (warmup_s = %g s; the run took %.3g s)",
                p->warmup_s, m->overall.duration_s);
    else
        pp_text(m->overall.reason, sizeof m->overall.reason,
                "no samples (the run took %.3g s at %g Hz)", m->overall.duration_s, p->rate_hz);
}

/* Keep configuration id: its row, from the trace streamed to path,
 * appended to the summary (fd). *mean_w and *saturated (the procstat estimate at its ceiling for
 * half the samples or more) for the progress. A run that left no sample is
 * made failed (m). 0 or -errno. */
static int save_one(const pp_sweep_state *r, const pp_device *dev, int fd,
                    const pp_results_layout *layout, uint64_t id, const double *values,
                    pp_sweep_measured *m, const char *path, char *row, double *mean_w,
                    int *saturated)
{
    const pp_profile *p = r->p;
    long it[PP_PROFILE_MAX_COMPONENTS], late[PP_PROFILE_MAX_COMPONENTS];
    double dur[PP_PROFILE_MAX_COMPONENTS];
    pp_trace trace, kept;
    size_t len, n_all;
    int rc;

    /* The summary's figures and the battery model need the whole trace: it
     * is read back from the file it was streamed to (path), after sampling. */
    rc = pp_trace_read_csv(path, &trace);
    if (rc < 0)
        return rc;
    trace.interval_average = (dev->ops->flags & PP_DEVICE_INTERVAL) != 0;
    n_all = trace.n_samples;
    rc = after_warmup(&trace, p->warmup_s, &kept);
    pp_trace_free(&trace);
    if (rc < 0)
        return rc;
    no_samples_failed(p, &kept, n_all, m);
    for (size_t c = 0; c < p->n_components; c++) {
        it[c] = m->each[c].iterations;
        late[c] = m->each[c].late_frames;
        dur[c] = m->each[c].duration_s;
    }
    {
        pp_results_row rr = {id, values, pp_run_status_name(m->overall.status),
                             m->overall.duration_s, m->overall.iterations,
                             m->overall.late_frames, it, late, m->overall.reason, dur, &m->cpu,
                             r->sl->node, r->rep};
        len = pp_results_format_row(layout, &rr, &kept, &p->battery, row, ROW_MAX, mean_w);
    }
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
                        const pp_results_layout *layout, uint8_t *done, const pp_sweep_slots *sl,
                        const pp_node *node)
{
    char path[PP_PATH_MAX], header[ROW_MAX];
    pp_run_json_info info = {node, sl->shard, sl->repeats};
    int fd, rc;

    if ((rc = pp_path_in(path, sizeof path, o->out_dir, "traces")) < 0 ||
        (rc = make_dir(o->out_dir)) < 0 || (rc = make_dir(path)) < 0)
        return rc;
    pp_results_header(layout, header, sizeof header);
    if ((rc = pp_path_in(path, sizeof path, o->out_dir, "summary.csv")) < 0)
        return rc;
    if (access(path, F_OK) == 0 && !o->resume) {
        pp_log_error("%s exists: continue it with --resume, or give another folder with -o", path);
        return -EEXIST;
    }
    if (o->resume && (rc = pp_run_json_check_resume(o->out_dir, p)) < 0)
        return rc;
    if (o->resume && (rc = pp_sweep_read_done(path, header, layout->n_params + 1,
                                              o->retry_failed, done, sl)) < 0)
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
static void count_slots(pp_sweep_state *r, pp_sweep_stats *st, const uint8_t *done,
                        double *values)
{
    const pp_sweep_slots *sl = r->sl;

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
static int measure_all(pp_sweep_state *r, pp_sweep_stats *st, pp_device *dev, int fd,
                       const pp_results_layout *layout, const uint8_t *done, double *values,
                       char *row, const atomic_int *interrupt)
{
    const pp_sweep_options *o = r->o;
    const pp_sweep_slots *sl = r->sl;
    pp_crew_ticker tk = {o->progress ? o->tick_s : 0.0, pp_sweep_tick, r};

    for (uint64_t slot = 0; slot < sl->count * sl->repeats && !atomic_load(interrupt); slot++) {
        uint64_t id = slot % sl->count;
        pp_sweep_measured m;
        char path[PP_PATH_MAX], name[64];
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
        if ((rc = pp_sweep_clocks_apply(r->clk, values)) < 0 ||
            (rc = measure_config(r->p, dev, id, interrupt, &tk, values, path, &m)) < 0 ||
            (rc = pp_sweep_clocks_end(r->clk, id, r->rep, &m.overall)) < 0)
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
        if (pp_sweep_streak(r, values, &m.overall) >= o->max_failures && o->max_failures) {
            st->stopped = 1;
            pp_text(st->stop_reason, sizeof st->stop_reason, "%s", m.overall.reason);
        }
        pp_sweep_report_done(r, id, values, &m, mean_w, saturated);
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
static int slots_of(const pp_profile *p, const pp_sweep_options *o, pp_sweep_slots *sl,
                    pp_node *node)
{
    static const pp_shard all = {0, 1, ""};

    sl->count = pp_profile_count(p);
    sl->repeats = o->repeats ? o->repeats : 1;
    sl->shard = o->shard.n > 1 ? &o->shard : &all;
    sl->node = node->name;
    if (sl->repeats > PP_SWEEP_MAX_REPEATS || (o->shard.n > 1 && o->shard.k >= o->shard.n)) {
        pp_log_error("%s: %u repeats, shard %llu/%llu: out of range", p->path, sl->repeats,
                     (unsigned long long)pp_shard_number(&o->shard), (unsigned long long)o->shard.n);
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
    pp_sweep_state *r = NULL;
    uint8_t *done = NULL;
    double *values = NULL;
    char *row = NULL;
    pp_sweep_clocks *clk = NULL;
    pp_sweep_slots sl;
    pp_node node;
    int fd = -1, rc, rc2, locked = 0;

    memset(st, 0, sizeof *st);
    if ((rc = slots_of(p, o, &sl, &node)) < 0)
        return rc;
    pp_device_options_init(&dopts);
    if (p->sysfs_root[0])
        dopts.sysfs_root = p->sysfs_root;
    rc = pp_device_open_with(p->device, &dopts, &dev);
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
    if ((rc = layout_of(p, dev, layout)) < 0 || (rc = pp_results_make_dirs(o->out_dir)) < 0 ||
        (rc = pp_results_lock(o->out_dir)) < 0)
        goto out; /* one writer per folder: a second --resume would measure ids twice */
    locked = 1;
    /* a killed sweep's clocks put back before anything, then this one's kept */
    if ((rc = pp_sweep_clocks_open(p, o->out_dir, &clk)) < 0)
        goto out;
    if ((rc = fd = open_summary(p, o, dev, layout, done, &sl, &node)) < 0)
        goto out;
    *r = (pp_sweep_state){.p = p, .o = o, .st = st, .sl = &sl, .clk = clk};
    r->t_start = pp_clock_now_ns(&pp_clock_monotonic);
    count_slots(r, st, done, values);
    rc = measure_all(r, st, dev, fd, layout, done, values, row,
                     o->interrupt ? o->interrupt : &never);
out:
    if ((rc2 = pp_sweep_clocks_close(clk)) < 0 && rc == 0)
        rc = rc2; /* every exit of the sweep puts the clocks back */
    if (fd >= 0)
        close(fd);
    if (locked)
        pp_results_unlock(o->out_dir);
    free(r);
    free(layout);
    free(row);
    free(values);
    free(done);
    pp_device_close(dev);
    return rc;
}
