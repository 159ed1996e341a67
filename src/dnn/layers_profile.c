/* layers_profile.c - per-layer profiles of darknet networks
 * (layers_profile.h): the frames timed layer by layer, layers.csv and
 * networks.csv written, and `powprof layers profile` as library calls. */
#include "layers_profile.h"

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/sweep/sampler.h"

#include "components/registry.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void pp_layers_profile_opts_init(pp_layers_profile_opts *o)
{
    o->n_frames = 5;
    o->n_warmup = 1;
    o->rate_hz = 50.0;
}

int pp_layers_resolve_cfg(const char *name, char *out, size_t cap)
{
    size_t len = strlen(name);
    int has_suffix = len > 4 && strcmp(name + len - 4, ".cfg") == 0;

    if (strchr(name, '/') || access(name, F_OK) == 0)
        return pp_strlcpy(out, name, cap);
    if ((has_suffix ? pp_path_fmt(out, cap, PP_LAYERS_CFG_DIR, "%s", name)
                    : pp_path_fmt(out, cap, PP_LAYERS_CFG_DIR, "%s.cfg", name)) < 0)
        return -EINVAL;
    if (access(out, R_OK) == 0)
        return 0;
    pp_log_error("network '%s': no such file here, nor %s (darknet's cfgs: apt-get install "
                 "darknet)", name, out);
    return -ENOENT;
}

static int round32(double v)
{
    int r = (int)(floor(v / 32.0 + 0.5) * 32.0);
    return r < 32 ? 32 : r;
}

int pp_layers_default_sizes(int width, int height, int *w, int *h)
{
    static const double scale[PP_LAYERS_DEFAULT_SIZES] = {0.75, 1.0, 1.5};
    int n = 0;

    for (int k = 0; k < PP_LAYERS_DEFAULT_SIZES; k++) {
        int sw = k == 1 ? width : round32(scale[k] * width);
        int sh = k == 1 ? height : round32(scale[k] * height);
        if (n > 0 && sw == w[n - 1] && sh == h[n - 1])
            continue;
        w[n] = sw;
        h[n++] = sh;
    }
    return n;
}

int pp_layers_jobs_of(const char *cfg_path, int n_sizes, const int *w, const int *h,
                      pp_layers_job *out)
{
    int own_w, own_h, sw[PP_LAYERS_DEFAULT_SIZES], sh[PP_LAYERS_DEFAULT_SIZES], rc;
    pp_dncfg cfg;

    if (n_sizes == 0) {
        if ((rc = pp_dncfg_read(cfg_path, &cfg)) < 0)
            return rc;
        if ((rc = pp_dncfg_int(&cfg, &cfg.sections[0], "width", 0, 0, 65536, &own_w)) == 0 &&
            (rc = pp_dncfg_int(&cfg, &cfg.sections[0], "height", 0, 0, 65536, &own_h)) == 0 &&
            (own_w < 1 || own_h < 1)) {
            pp_log_error("%s:%d: [net] has no width and height", cfg_path, cfg.sections[0].line);
            rc = -EINVAL;
        }
        pp_dncfg_free(&cfg);
        if (rc < 0)
            return rc;
        n_sizes = pp_layers_default_sizes(own_w, own_h, sw, sh);
        w = sw;
        h = sh;
    }
    for (int k = 0; k < n_sizes; k++) {
        out[k].cfg_path = cfg_path;
        out[k].width = w[k];
        out[k].height = h[k];
    }
    return n_sizes;
}

/* ---- The module --------------------------------------------------------- */

int pp_layer_timer_load(const pp_layer_timer_ops **out)
{
    const pp_component_ops *component;
    const pp_layer_timer_ops *ops = NULL;
    char why[2048];
    Dl_info info;
    void *h;
    int rc = pp_component_lookup("darknet", &component, why, sizeof why);

    *out = NULL;
    if (rc < 0) {
        pp_log_error("layer profiles run darknet: %s", why);
        return rc;
    }
    /* The registry loaded the module that holds the type: look its second
     * entry point up in the same file (it stays loaded). */
    if (!dladdr(component, &info) || !info.dli_fname ||
        !(h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD))) {
        pp_log_error("layer profiles: cannot find the darknet module's file");
        return -ELIBACC;
    }
    ops = dlsym(h, PP_LAYER_TIMER_SYMBOL);
    dlclose(h);
    if (!ops || ops->abi != PP_LAYER_TIMER_ABI || ops->info_size != sizeof(pp_layer_timer_info)) {
        pp_log_error("%s: %s: rebuild it with this powprof (make)", info.dli_fname,
                     ops ? "its layer timer is of another version" : "it has no layer timer");
        return -EINVAL;
    }
    *out = ops;
    return 0;
}

/* ---- Statistics --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sorted_quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;

    return i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

double pp_layers_median(double *v, size_t n, double *iqr)
{
    if (n == 0) {
        if (iqr)
            *iqr = NAN;
        return NAN;
    }
    qsort(v, n, sizeof *v, cmp_double);
    if (iqr)
        *iqr = sorted_quantile(v, n, 0.75) - sorted_quantile(v, n, 0.25);
    return sorted_quantile(v, n, 0.5);
}

/* ---- Energy over an interval of a trace --------------------------------- */

typedef struct power_series {
    const double *t_s, *p_w;
    size_t n;
    int interval; /* sample k is the mean over (t[k-1], t[k]], t[-1] = 0 */
} power_series;

/* Power at t on an instantaneous series (linear between samples, held
 * outside). */
static double power_at(const power_series *s, size_t k, double t)
{
    if (k == 0 || t >= s->t_s[s->n - 1])
        return s->p_w[k == 0 ? 0 : s->n - 1];
    return s->p_w[k - 1] + (s->p_w[k] - s->p_w[k - 1]) * (t - s->t_s[k - 1]) /
                               (s->t_s[k] - s->t_s[k - 1]);
}

/* The first sample at or after t (n when none). */
static size_t first_after(const power_series *s, double t)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->t_s[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Joules over [a, b] (seconds on the series' time line). */
static double energy_between(const power_series *s, double a, double b)
{
    double e = 0.0, from = a;
    size_t k = first_after(s, a);

    if (s->n == 0)
        return NAN;
    for (; k < s->n && from < b; k++) {
        double to = s->t_s[k] < b ? s->t_s[k] : b;
        if (s->interval)
            e += s->p_w[k] * (to - from);
        else
            e += 0.5 * (power_at(s, k, from) + power_at(s, k, to)) * (to - from);
        from = to;
    }
    if (from < b) /* past the last sample: its power held */
        e += s->p_w[s->n - 1] * (b - from);
    return e;
}

/* ---- The run ------------------------------------------------------------ */

/* The monotonic clock, remembering its first reading: the sampler's t0, to
 * put the frames' timestamps on the trace's time line. */
typedef struct t0_clock {
    _Atomic int64_t t0_ns;
} t0_clock;

static int64_t t0_now(void *ctx)
{
    t0_clock *c = ctx;
    int64_t t = pp_clock_monotonic.now_ns(pp_clock_monotonic.ctx), zero = 0;

    atomic_compare_exchange_strong(&c->t0_ns, &zero, t);
    return t;
}

static int t0_sleep(void *ctx, int64_t deadline_ns)
{
    (void)ctx;
    return pp_clock_monotonic.sleep_until_ns(pp_clock_monotonic.ctx, deadline_ns);
}

enum { V_TIME, V_CPU, V_ENERGY, NV };

/* One network at one size being profiled. Items: its n layers, then the
 * whole network (n), then the layers' sum (n + 1). */
typedef struct job {
    void *net;
    size_t n;
    int64_t w[2], wc[2];  /* this round's whole frame: wall and CPU clock */
    int64_t *lt, *lc;     /* this round's layer-by-layer frame: n + 1 of each */
    double *v;            /* [frame][item][NV] */
} job;

static double *job_value(const job *j, int frame, size_t item)
{
    return j->v + ((size_t)frame * (j->n + 2) + item) * NV;
}

/* darknet loads the network from a copy of the cfg at the input size. */
static int sized_copy(const char *cfg_path, int width, int height, char *tmp, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    pp_dncfg cfg;
    int fd, rc;

    if (pp_fmt(tmp, cap, "%s/powprof-layers-XXXXXX.cfg", dir && *dir ? dir : "/tmp") < 0)
        return -ENAMETOOLONG;
    if ((fd = mkstemps(tmp, 4)) < 0) {
        rc = -errno;
        pp_log_error("%s: %s", tmp, strerror(errno));
        return rc;
    }
    close(fd);
    if ((rc = pp_dncfg_read(cfg_path, &cfg)) == 0) {
        rc = pp_dncfg_write_sized(&cfg, width, height, tmp);
        pp_dncfg_free(&cfg);
    }
    if (rc < 0)
        unlink(tmp);
    return rc;
}

/* darknet and powprof must read the cfg alike: same layers, same shapes. */
static int compare_with_darknet(const pp_layer_timer_ops *ops, void *net, size_t n,
                                const pp_network_desc *d, const char *cfg_path)
{
    if (n != d->n) {
        pp_log_error("%s: darknet builds %zu layers, powprof reads %zu", cfg_path, n, d->n);
        return -EPROTO;
    }
    for (size_t i = 0; i < n; i++) {
        const pp_layer_desc *l = &d->layers[i];
        pp_layer_timer_info info;
        ops->info(net, i, &info);
        if (info.outputs == l->outputs && strcmp(info.type, pp_layer_kind_name(l->kind)) == 0 &&
            (info.out_w == 0 || (info.out_w == l->out_w && info.out_h == l->out_h &&
                                 info.out_c == l->out_c)))
            continue;
        pp_log_error("%s:%d: [%s] (layer %zu): powprof reads an output of %d x %d x %d (%ld "
                     "values), darknet builds a %s of %d x %d x %d (%ld values)",
                     cfg_path, l->line, pp_layer_kind_name(l->kind), i, l->out_w, l->out_h,
                     l->out_c, l->outputs, info.type, info.out_w, info.out_h, info.out_c,
                     info.outputs);
        return -EPROTO;
    }
    return 0;
}

/* Describe, load and check one network; r->desc is set. */
static int job_open(const pp_layer_timer_ops *ops, const pp_layers_job *spec, int n_frames,
                    job *j, pp_layers_result *r)
{
    char tmp[PP_PATH_MAX], why[1024];
    int rc;

    if (!(r->desc = malloc(sizeof *r->desc)))
        return -ENOMEM;
    if ((rc = pp_layers_describe_file(spec->cfg_path, spec->width, spec->height, r->desc)) < 0 ||
        (rc = sized_copy(spec->cfg_path, r->desc->width, r->desc->height, tmp, sizeof tmp)) < 0)
        return rc;
    rc = ops->open(tmp, &j->net, &j->n, why, sizeof why);
    unlink(tmp);
    if (rc < 0) {
        pp_log_error("%s: %s", spec->cfg_path, why);
        return rc;
    }
    if ((rc = compare_with_darknet(ops, j->net, j->n, r->desc, spec->cfg_path)) < 0)
        return rc;
    j->lt = calloc(j->n + 1, sizeof *j->lt);
    j->lc = calloc(j->n + 1, sizeof *j->lc);
    j->v = calloc((size_t)n_frames * (j->n + 2) * NV, sizeof *j->v);
    r->layer = calloc(j->n, sizeof *r->layer);
    return j->lt && j->lc && j->v && r->layer ? 0 : -ENOMEM;
}

static void job_close(const pp_layer_timer_ops *ops, job *j)
{
    if (j->net)
        ops->close(j->net);
    free(j->lt);
    free(j->lc);
    free(j->v);
    memset(j, 0, sizeof *j);
}

/* A frame whole and a frame layer by layer, in the order of parity. */
static void job_frames(const pp_layer_timer_ops *ops, job *j, int parity)
{
    if (parity == 0) {
        ops->frame(j->net, j->w, j->wc);
        ops->frame_layers(j->net, j->lt, j->lc);
    } else {
        ops->frame_layers(j->net, j->lt, j->lc);
        ops->frame(j->net, j->w, j->wc);
    }
}

/* The round's frames of j into frame f: times, CPU times, energies. */
static void job_store(job *j, int f, const power_series *ps, int64_t t0)
{
    for (size_t i = 0; i < j->n + 2; i++) {
        int64_t a = i < j->n ? j->lt[i] : i == j->n ? j->w[0] : j->lt[0];
        int64_t b = i < j->n ? j->lt[i + 1] : i == j->n ? j->w[1] : j->lt[j->n];
        int64_t ca = i < j->n ? j->lc[i] : i == j->n ? j->wc[0] : j->lc[0];
        int64_t cb = i < j->n ? j->lc[i + 1] : i == j->n ? j->wc[1] : j->lc[j->n];
        double *v = job_value(j, f, i);
        v[V_TIME] = pp_ns_to_s(b - a);
        v[V_CPU] = pp_ns_to_s(cb - ca);
        v[V_ENERGY] = energy_between(ps, pp_ns_to_s(a - t0), pp_ns_to_s(b - t0));
    }
}

/* One round: a frame pair of every job while dev is sampled; stored as
 * frame f (f < 0: a warm-up round, not stored). */
static int run_round(const pp_layer_timer_ops *ops, pp_device *dev, double rate_hz, job *jobs,
                     size_t n_jobs, int f)
{
    t0_clock tc = {0};
    pp_clock clock = {t0_now, t0_sleep, &tc};
    pp_sampler *s = NULL;
    pp_trace trace = {0};
    double *total = NULL;
    int rc = pp_sampler_create(dev, &clock, rate_hz, 0, &s);

    if (rc == 0 && (rc = pp_sampler_start(s)) == 0) {
        for (size_t k = 0; k < n_jobs; k++) /* the order turns each round */
            job_frames(ops, &jobs[(k + (size_t)(f < 0 ? 0 : f)) % n_jobs], (f < 0 ? 0 : f) % 2);
        rc = pp_sampler_stop(s);
    }
    if (rc == 0 && (rc = pp_sampler_trace(s, &trace)) == 0 &&
        !(total = calloc(trace.n_samples + 1, sizeof *total)))
        rc = -ENOMEM;
    if (rc == 0 && f >= 0) {
        power_series ps = {trace.t_s, total, trace.n_samples, trace.interval_average};
        pp_trace_total_series(&trace, total);
        for (size_t k = 0; k < n_jobs; k++)
            job_store(&jobs[k], f, &ps, atomic_load(&tc.t0_ns));
    }
    if (rc < 0 && rc != -ENOMEM)
        pp_log_error("layer profile: sampling %s failed: %s", dev->ops->name, strerror(-rc));
    free(total);
    pp_trace_free(&trace);
    pp_sampler_destroy(s);
    return rc;
}

/* Mean, median and interquartile range over frames [0, n_frames) of j
 * into r. */
static void job_reduce(const job *j, int n_frames, pp_layers_result *r, double *scratch)
{
    size_t nf = (size_t)n_frames;

    r->n_frames = n_frames;
    for (size_t i = 0; i < j->n + 2; i++) {
        pp_layer_measure *m = i < j->n ? &r->layer[i] : i == j->n ? &r->whole : &r->layers_sum;
        double *out[NV][3] = {{&m->time_s, &m->time_median_s, &m->time_iqr_s},
                              {&m->cpu_s, &m->cpu_median_s, &m->cpu_iqr_s},
                              {&m->energy_j, &m->energy_median_j, &m->energy_iqr_j}};
        for (int q = 0; q < NV; q++) {
            double sum = 0.0;
            for (size_t f = 0; f < nf; f++)
                sum += scratch[f] = job_value(j, (int)f, i)[q];
            *out[q][0] = sum / (double)nf;
            *out[q][1] = pp_layers_median(scratch, nf, out[q][2]);
        }
    }
}

static double now_s(void) { return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic)); }

/* Load every job; results get their descriptions. */
static int open_jobs(const pp_layer_timer_ops *ops, pp_device *dev, const pp_layers_job *specs,
                     size_t n_jobs, const pp_layers_profile_opts *o, job *jobs,
                     pp_layers_result *out)
{
    int rc = 0;

    for (size_t k = 0; k < n_jobs && rc == 0; k++) {
        out[k].idle_w = NAN;
        out[k].estimated = pp_device_is_estimated(dev);
        if ((rc = pp_strlcpy(out[k].device, dev->ops->name, sizeof out[k].device)) == 0)
            rc = job_open(ops, &specs[k], o->n_frames, &jobs[k], &out[k]);
    }
    return rc;
}

int pp_layers_profile(const pp_layer_timer_ops *ops, pp_device *dev, const pp_layers_job *specs,
                      size_t n_jobs, const pp_layers_profile_opts *o,
                      pp_layers_checkpoint checkpoint, void *ctx, pp_layers_result *out)
{
    job *jobs = calloc(n_jobs + 1, sizeof *jobs);
    double *scratch = calloc((size_t)o->n_frames + 1, sizeof *scratch), start = now_s();
    int rc = jobs && scratch ? 0 : -ENOMEM;

    memset(out, 0, n_jobs * sizeof *out);
    if (rc == 0)
        rc = open_jobs(ops, dev, specs, n_jobs, o, jobs, out);
    for (int f = -o->n_warmup; f < o->n_frames && rc == 0; f++) {
        if ((rc = run_round(ops, dev, o->rate_hz, jobs, n_jobs, f)) < 0 || f < 0)
            continue;
        for (size_t k = 0; k < n_jobs; k++) {
            job_reduce(&jobs[k], f + 1, &out[k], scratch);
            out[k].profile_s = now_s() - start;
        }
        if (checkpoint)
            rc = checkpoint(out, n_jobs, ctx);
    }
    for (size_t k = 0; jobs && k < n_jobs; k++)
        job_close(ops, &jobs[k]);
    free(jobs);
    free(scratch);
    if (rc < 0)
        for (size_t k = 0; k < n_jobs; k++)
            pp_layers_result_free(&out[k]);
    return rc;
}

void pp_layers_result_free(pp_layers_result *r)
{
    free(r->desc);
    free(r->layer);
    memset(r, 0, sizeof *r);
}

int pp_layers_idle_power(pp_device *dev, double rate_hz, double duration_s, double *idle_w)
{
    pp_sampler *s = NULL;
    pp_trace trace = {0};
    struct timespec ts = {(time_t)duration_s, (long)((duration_s - (double)(time_t)duration_s) * 1e9)};
    int rc = pp_sampler_create(dev, NULL, rate_hz, 0, &s);

    if (rc == 0 && (rc = pp_sampler_start(s)) == 0) {
        nanosleep(&ts, NULL);
        rc = pp_sampler_stop(s);
    }
    if (rc == 0 && (rc = pp_sampler_trace(s, &trace)) == 0) {
        double total_j = 0.0;
        for (size_t r = 0; r < trace.n_rails; r++)
            if (!pp_trace_rail_is_inside(&trace, r))
                total_j += pp_trace_energy_j(&trace, r);
        *idle_w = pp_trace_duration_s(&trace) > 0 ? total_j / pp_trace_duration_s(&trace) : NAN;
    }
    pp_trace_free(&trace);
    pp_sampler_destroy(s);
    return rc;
}

/* ---- layers.csv and networks.csv written ---- */

const char pp_layers_csv_header[] =
    "network,width,height,layer,type,line,in_w,in_h,in_c,out_w,out_h,out_c,filters,size,"
    "stride,groups,batch_normalize,activation,flops,param_bytes,in_bytes,out_bytes,time_s,"
    "time_median_s,time_iqr_s,cpu_s,cpu_median_s,cpu_iqr_s,energy_j,energy_median_j,"
    "energy_iqr_j,frames,estimated";
const char pp_networks_csv_header[] =
    "network,width,height,layers,flops,frames,time_s,time_median_s,time_iqr_s,cpu_s,cpu_median_s,"
    "energy_j,layers_time_s,layers_cpu_s,layers_energy_j,layers_vs_whole_frac,idle_w,device,"
    "estimated,profile_s";

int pp_layers_name_ok(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n > 63)
        return 0;
    for (; *name; name++)
        if (!((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
              (*name >= '0' && *name <= '9') || strchr("_.-+", *name)))
            return 0;
    return 1;
}

static void write_layer(FILE *fp, const pp_layers_result *r, size_t i)
{
    const pp_network_desc *d = r->desc;
    const pp_layer_desc *l = &d->layers[i];
    const pp_layer_measure *m = &r->layer[i];

    fprintf(fp, "%s,%d,%d,%zu,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%.17g,%.17g,%.17g,%.17g,",
            d->name, d->width, d->height, i, pp_layer_kind_name(l->kind), l->line, l->in_w,
            l->in_h, l->in_c, l->out_w, l->out_h, l->out_c, l->filters, l->size, l->stride,
            l->groups, l->batch_normalize, l->activation[0] ? l->activation : "-", l->flops,
            l->param_bytes, l->in_bytes, l->out_bytes);
    fprintf(fp, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%d\n", m->time_s,
            m->time_median_s, m->time_iqr_s, m->cpu_s, m->cpu_median_s, m->cpu_iqr_s,
            m->energy_j, m->energy_median_j, m->energy_iqr_j, r->n_frames, r->estimated);
}

static void write_network(FILE *fp, const pp_layers_result *r)
{
    const pp_network_desc *d = r->desc;

    fprintf(fp, "%s,%d,%d,%zu,%.17g,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6f,%.6g,%s,"
                "%d,%.3f\n",
            d->name, d->width, d->height, d->n, d->flops, r->n_frames, r->whole.time_s,
            r->whole.time_median_s, r->whole.time_iqr_s, r->whole.cpu_s, r->whole.cpu_median_s,
            r->whole.energy_j, r->layers_sum.time_s,
            r->layers_sum.cpu_s, r->layers_sum.energy_j,
            r->layers_sum.time_s / r->whole.time_s - 1.0, r->idle_w, r->device, r->estimated,
            r->profile_s);
}

/* dir/name replaced by header and the rows of every result. */
static int write_file(const char *dir, const char *name, const char *header,
                      const pp_layers_result *r, size_t n, int layers)
{
    pp_atomic_file af;
    char path[PP_PATH_MAX];
    int rc;

    if (pp_path_join(path, sizeof path, dir, name) < 0) {
        pp_log_error("%s: path too long", dir);
        return -ENAMETOOLONG;
    }
    if ((rc = pp_atomic_file_open(&af, path)) < 0)
        return rc;
    fprintf(af.fp, "%s\n", header);
    for (size_t k = 0; k < n; k++) {
        if (!layers)
            write_network(af.fp, &r[k]);
        for (size_t i = 0; layers && i < r[k].desc->n; i++)
            write_layer(af.fp, &r[k], i);
    }
    return pp_atomic_file_commit(&af);
}

int pp_layers_write(const char *dir, const pp_layers_result *r, size_t n)
{
    int rc = write_file(dir, "layers.csv", pp_layers_csv_header, r, n, 1);

    return rc < 0 ? rc : write_file(dir, "networks.csv", pp_networks_csv_header, r, n, 0);
}

/* ---- `powprof layers profile` as library calls: the networks read and
 * named before anything runs, then every network at every size profiled,
 * the idle power first, the results kept under the folder as they come ---- */

int pp_layers_check_cfgs(int n, char *const *names, char (*paths)[PP_PATH_MAX])
{
    for (int i = 0; i < n; i++) {
        pp_network_desc *d = malloc(sizeof *d);
        int rc = d ? pp_layers_resolve_cfg(names[i], paths[i], sizeof paths[i]) : -ENOMEM;
        if (rc == 0)
            rc = pp_layers_describe_file(paths[i], 0, 0, d);
        if (rc == 0 && !pp_layers_name_ok(d->name)) {
            pp_log_error("%s: the network's name '%s' must be letters, digits and _ . - + (it "
                         "goes into CSV cells): rename the file", paths[i], d->name);
            rc = -EINVAL;
        }
        free(d);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int write_checkpoint(const pp_layers_result *r, size_t n, void *ctx)
{
    return pp_layers_write(ctx, r, n);
}

void pp_layers_results_free(pp_layers_result *res, size_t n)
{
    for (size_t k = 0; res && k < n; k++)
        pp_layers_result_free(&res[k]);
    free(res);
}

int pp_layers_run(const pp_layers_run_request *rq, int n_cfgs, char (*paths)[PP_PATH_MAX],
                  pp_device *dev, pp_layers_result **out, size_t *n_out)
{
    size_t n_sizes = rq->n_sizes ? (size_t)rq->n_sizes : PP_LAYERS_DEFAULT_SIZES, n = 0;
    pp_layers_job *jobs = calloc((size_t)n_cfgs * n_sizes, sizeof *jobs);
    pp_layers_result *res = calloc((size_t)n_cfgs * n_sizes, sizeof *res);
    const pp_layer_timer_ops *ops;
    double idle_w = NAN;
    int rc = jobs && res ? pp_layer_timer_load(&ops) : -ENOMEM;

    if (rc == 0 && rq->idle_s > 0)
        rc = pp_layers_idle_power(dev, rq->opts->rate_hz, rq->idle_s, &idle_w);
    for (int c = 0; c < n_cfgs && rc == 0; c++)
        if ((rc = pp_layers_jobs_of(paths[c], rq->n_sizes, rq->w, rq->h, jobs + n)) > 0)
            n += (size_t)rc, rc = 0;
    if (rc == 0)
        rc = pp_layers_profile(ops, dev, jobs, n, rq->opts, write_checkpoint,
                               (void *)rq->out_dir, res);
    for (size_t k = 0; k < n && rc == 0; k++)
        res[k].idle_w = idle_w;
    if (rc == 0)
        rc = pp_layers_write(rq->out_dir, res, n);
    free(jobs);
    *out = res;
    *n_out = n;
    return rc;
}
