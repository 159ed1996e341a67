#include "sweep.h"

#include "log.h"
#include "results.h"
#include "run_json.h"
#include "sampler.h"
#include "scheduler.h"
#include "trace.h"
#include "trace_stream.h"
#include "util.h"

#include "../battery/battery.h"
#include "../devices/device.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROW_MAX 16384

typedef struct job {
    pp_scheduled sched;
    int ready;
    pp_run_result res;
} job;

static void *job_main(void *arg)
{
    job *j = arg;
    if (j->ready)
        pp_scheduled_run(&j->sched, &j->res);
    return NULL;
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

/* Read the ids of the whole rows of an existing summary; drop a torn last
 * line. Returns 0, or -EINVAL when the header differs. */
static int read_done(const char *path, const char *header, uint8_t *done, uint64_t total)
{
    FILE *fp = fopen(path, "r+");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long line_no = 0, good_end = 0;
    int rc = 0;

    if (!fp)
        return errno == ENOENT ? 0 : -errno;
    while ((n = getline(&line, &cap, fp)) > 0) {
        line_no++;
        if (line[n - 1] != '\n')
            break; /* torn: cut below */
        if (line_no == 1) {
            if (strcmp(line, header) != 0) {
                pp_log_error("%s:1: the columns differ from this profile's (another profile or "
                             "device?): resume into a new folder with -o", path);
                rc = -EINVAL;
                break;
            }
        } else {
            char *end;
            unsigned long long id = strtoull(line, &end, 10);
            if (end == line || *end != ',' || id >= total) {
                pp_log_error("%s:%ld: not a row of this profile", path, line_no);
                rc = -EINVAL;
                break;
            }
            done[id] = 1;
        }
        good_end = ftell(fp);
    }
    if (rc == 0 && ftruncate(fileno(fp), good_end) != 0)
        rc = -errno;
    free(line);
    fclose(fp);
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
 * then torn down. */
static int run_one(const pp_profile *p, pp_device *dev, uint64_t id, const atomic_int *cancel,
                   double *values, const char *trace_path, pp_run_result *overall,
                   pp_run_result *each)
{
    job jobs[PP_PROFILE_MAX_COMPONENTS];
    pthread_t threads[PP_PROFILE_MAX_COMPONENTS];
    int started[PP_PROFILE_MAX_COMPONENTS] = {0};
    int all_ready = 1;
    pp_sampler *s = NULL;
    pp_trace_stream *w = NULL;
    size_t k = 0;
    int rc = 0, wrc;

    pp_profile_values(p, id, values);
    memset(jobs, 0, sizeof jobs);
    for (size_t c = 0; c < p->n_components; c++) {
        jobs[c].ready = pp_scheduled_setup(&jobs[c].sched, &p->components[c], values + k, NULL,
                                           NULL, cancel, &jobs[c].res) == 0;
        all_ready &= jobs[c].ready;
        k += p->components[c].n_params;
    }
    if ((rc = sample_to(p, dev, trace_path, &s, &w)) < 0)
        goto out;
    if (all_ready) {
        for (size_t c = 0; c < p->n_components; c++) {
            if (!p->sequential && p->n_components > 1 &&
                pthread_create(&threads[c], NULL, job_main, &jobs[c]) == 0)
                started[c] = 1;
            else
                job_main(&jobs[c]);
        }
        for (size_t c = 0; c < p->n_components; c++)
            if (started[c])
                pthread_join(threads[c], NULL);
    }
    rc = pp_sampler_stop(s);
    if (rc < 0) {
        pp_log_error("configuration %llu: sampling failed: %s", (unsigned long long)id,
                     strerror(-rc));
        goto out;
    }
    {
        pp_sampler_stats st;
        pp_sampler_get_stats(s, &st);
        memset(overall, 0, sizeof *overall);
        overall->duration_s = st.wall_s;
    }
    for (size_t c = 0; c < p->n_components; c++) {
        pp_run_result *r = &jobs[c].res;
        each[c] = *r;
        overall->iterations += r->iterations;
        overall->late_frames += r->late_frames;
        if (r->status > overall->status) {
            overall->status = r->status;
            pp_strlcpy(overall->reason, r->reason, sizeof overall->reason);
        }
    }
out:
    if (s)
        pp_sampler_destroy(s);
    wrc = pp_trace_stream_close(w, NULL);
    if (rc == 0)
        rc = wrc;
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

int pp_sweep_run(const pp_profile *p, const pp_sweep_options *o, pp_sweep_stats *st)
{
    static const atomic_int never = 0;
    const atomic_int *interrupt = o->interrupt ? o->interrupt : &never;
    pp_device_options dopts;
    pp_device *dev = NULL;
    char path[4096], header[ROW_MAX], *row = NULL;
    pp_results_layout *layout = NULL;
    uint8_t *done = NULL;
    double *values = NULL;
    int fd = -1, rc;
    int64_t t_start = pp_clock_now_ns(&pp_clock_monotonic);
    double est_total = 0, est_done = 0;

    memset(st, 0, sizeof *st);
    st->total = pp_profile_count(p);
    if (st->total > 100000000) {
        pp_log_error("%s: %llu configurations is more than powprof will run", p->path,
                     (unsigned long long)st->total);
        return -E2BIG;
    }
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
    done = calloc(st->total, 1);
    values = calloc(pp_profile_n_params(p) + 1, sizeof *values);
    row = malloc(ROW_MAX);
    layout = malloc(sizeof *layout);
    if (!done || !values || !row || !layout) {
        rc = -ENOMEM;
        goto out;
    }
    if ((rc = make_dir(o->out_dir)) < 0)
        goto out;
    pp_fmt(path, sizeof path, "%s/traces", o->out_dir);
    if ((rc = make_dir(path)) < 0)
        goto out;
    layout_of(p, dev, layout);
    pp_results_header(layout, header, sizeof header);
    pp_fmt(path, sizeof path, "%s/summary.csv", o->out_dir);
    if (access(path, F_OK) == 0 && !o->resume) {
        pp_log_error("%s exists: continue it with --resume, or give another folder with -o", path);
        rc = -EEXIST;
        goto out;
    }
    if (o->resume && (rc = read_done(path, header, done, st->total)) < 0)
        goto out;
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = -errno;
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        goto out;
    }
    if (lseek(fd, 0, SEEK_END) == 0 && (rc = append_row(fd, header, strlen(header))) < 0) {
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
        goto out;
    }
    if ((rc = pp_run_json_write(o->out_dir, p, dev)) < 0)
        goto out;
    copy_config(p, o->out_dir);
    for (uint64_t id = 0; id < st->total; id++) {
        if (done[id]) {
            st->skipped++;
            continue;
        }
        pp_profile_values(p, id, values);
        est_total += pp_profile_estimate_s(p, values) + 0.05;
    }
    for (uint64_t id = 0; id < st->total && !atomic_load(interrupt); id++) {
        pp_trace trace, kept;
        pp_run_result res, each[PP_PROFILE_MAX_COMPONENTS];
        double mean_w = 0, est;
        size_t len;

        if (done[id])
            continue;
        pp_fmt(path, sizeof path, "%s/traces/%llu.csv", o->out_dir, (unsigned long long)id);
        rc = run_one(p, dev, id, interrupt, values, path, &res, each);
        if (rc < 0)
            goto out;
        if (res.status == PP_RUN_INTERRUPTED || atomic_load(interrupt)) {
            unlink(path); /* unfinished: not saved, run again on --resume */
            break;
        }
        /* The summary's figures and the battery model need the whole trace:
         * it is read back from the file, after sampling. */
        rc = pp_trace_read_csv(path, &trace);
        if (rc == 0) {
            trace.interval_average = (dev->ops->flags & PP_DEVICE_INTERVAL) != 0;
            rc = after_warmup(&trace, p->warmup_s, &kept);
        }
        if (rc < 0) {
            pp_trace_free(&trace);
            goto out;
        }
        {
            long it[PP_PROFILE_MAX_COMPONENTS], late[PP_PROFILE_MAX_COMPONENTS];
            double dur[PP_PROFILE_MAX_COMPONENTS];
            pp_results_row rr = {id, values, pp_run_status_name(res.status), res.duration_s,
                                 res.iterations, res.late_frames, it, late, res.reason, dur};
            for (size_t c = 0; c < p->n_components; c++) {
                it[c] = each[c].iterations;
                late[c] = each[c].late_frames;
                dur[c] = each[c].duration_s;
            }
            len = pp_results_format_row(layout, &rr, &kept, &p->battery, row, ROW_MAX, &mean_w);
        }
        pp_trace_free(&kept);
        pp_trace_free(&trace);
        rc = append_row(fd, row, len);
        if (rc < 0) {
            pp_log_error("%s/summary.csv: cannot write: %s", o->out_dir, strerror(-rc));
            goto out;
        }
        st->ran++;
        if (res.status == PP_RUN_OK)
            st->ok++;
        else
            st->failed++;
        if (o->progress) {
            pp_sweep_progress pr;
            est = pp_profile_estimate_s(p, values) + 0.05;
            est_done += est;
            pr.done = st->ran;
            pr.total = st->total - st->skipped;
            pr.id = id;
            pr.status = pp_run_status_name(res.status);
            pr.duration_s = res.duration_s;
            pr.total_mean_w = mean_w;
            pr.elapsed_s = pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic) - t_start);
            /* what is left, at the pace seen so far against the estimates */
            pr.left_s = est_done > 0 ? pr.elapsed_s / est_done * (est_total - est_done)
                                     : NAN;
            if (!(est_total > 0))
                pr.left_s = pr.elapsed_s / (double)pr.done * (double)(pr.total - pr.done);
            o->progress(o->progress_ctx, &pr);
        }
    }
    rc = 0;
    if (atomic_load(interrupt) && st->ran + st->skipped < st->total) {
        st->interrupted = 1;
        rc = -EINTR;
    }
out:
    if (fd >= 0)
        close(fd);
    free(layout);
    free(row);
    free(values);
    free(done);
    pp_device_close(dev);
    return rc;
}
