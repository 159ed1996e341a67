#include "layers_profile.h"

#include "clock.h"
#include "log.h"
#include "sampler.h"
#include "util.h"

#include "../components/registry.h"

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
    if (pp_fmt(out, cap, "%s/%s%s", PP_LAYERS_CFG_DIR, name, has_suffix ? "" : ".cfg") < 0)
        return -ENAMETOOLONG;
    if (access(out, R_OK) == 0)
        return 0;
    pp_log_error("network '%s': no such file here, nor %s (darknet's cfgs: apt-get install "
                 "darknet)", name, out);
    return -ENOENT;
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

/* Every frame's timestamps: whole[f][0..1], layers[f][0..n]; the thread's
 * CPU time in the cpu_ arrays alike. */
typedef struct frame_times {
    size_t n_layers;
    int n_frames;
    int64_t *whole, *layers, *cpu_whole, *cpu_layers;
} frame_times;

static void run_frames(const pp_layer_timer_ops *ops, void *net, const pp_layers_profile_opts *o,
                       frame_times *ft)
{
    for (int f = 0; f < o->n_warmup; f++) { /* into frame 0's place, overwritten below */
        ops->frame(net, ft->whole, ft->cpu_whole);
        ops->frame_layers(net, ft->layers, ft->cpu_layers);
    }
    for (int f = 0; f < ft->n_frames; f++) {
        size_t lf = (size_t)f * (ft->n_layers + 1);
        int64_t *w = ft->whole + 2 * f, *cw = ft->cpu_whole + 2 * f;
        int64_t *l = ft->layers + lf, *cl = ft->cpu_layers + lf;
        if (f % 2 == 0) { /* alternate the order: neither always runs on the other's cache */
            ops->frame(net, w, cw);
            ops->frame_layers(net, l, cl);
        } else {
            ops->frame_layers(net, l, cl);
            ops->frame(net, w, cw);
        }
    }
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

/* Sample dev while the frames run. The trace's time line starts at *t0_ns. */
static int sampled_frames(const pp_layer_timer_ops *ops, void *net, pp_device *dev,
                          const pp_layers_profile_opts *o, frame_times *ft, pp_trace *trace,
                          int64_t *t0_ns)
{
    t0_clock tc = {0};
    pp_clock clock = {t0_now, t0_sleep, &tc};
    pp_sampler *s = NULL;
    int rc = pp_sampler_create(dev, &clock, o->rate_hz, 0, &s);

    if (rc == 0)
        rc = pp_sampler_start(s);
    if (rc < 0) {
        pp_sampler_destroy(s);
        return rc;
    }
    run_frames(ops, net, o, ft);
    rc = pp_sampler_stop(s);
    if (rc == 0)
        rc = pp_sampler_trace(s, trace);
    if (rc < 0)
        pp_log_error("layer profile: sampling %s failed: %s", dev->ops->name, strerror(-rc));
    *t0_ns = atomic_load(&tc.t0_ns);
    pp_sampler_destroy(s);
    return rc;
}

static double ns_to_s_since(int64_t t_ns, int64_t t0_ns) { return pp_ns_to_s(t_ns - t0_ns); }

/* The interval of frame f that item i covers: layer i < n, the whole
 * network (i == n) or the layers' sum (i == n + 1), in whole/layers (the
 * wall clock) or cpu_whole/cpu_layers. */
static void item_interval(const frame_times *ft, size_t i, size_t f, int cpu, int64_t *a,
                          int64_t *b)
{
    size_t n = ft->n_layers;
    const int64_t *w = (cpu ? ft->cpu_whole : ft->whole) + 2 * f;
    const int64_t *l = (cpu ? ft->cpu_layers : ft->layers) + f * (n + 1);

    *a = i < n ? l[i] : i == n ? w[0] : l[0];
    *b = i < n ? l[i + 1] : i == n ? w[1] : l[n];
}

/* Medians over the frames of every layer, of the whole network and of the
 * layers' sum. scratch holds 3 * n_frames doubles. */
static void reduce_frames(const frame_times *ft, const power_series *ps, int64_t t0,
                          pp_layers_result *r, double *scratch)
{
    size_t n = ft->n_layers, nf = (size_t)ft->n_frames;
    double *t = scratch, *c = scratch + nf, *e = scratch + 2 * nf;

    for (size_t i = 0; i <= n + 1; i++) {
        pp_layer_measure *m = i < n ? &r->layer[i] : i == n ? &r->whole : &r->layers_sum;
        for (size_t f = 0; f < nf; f++) {
            int64_t a, b, ca, cb;
            item_interval(ft, i, f, 0, &a, &b);
            item_interval(ft, i, f, 1, &ca, &cb);
            t[f] = pp_ns_to_s(b - a);
            c[f] = pp_ns_to_s(cb - ca);
            e[f] = energy_between(ps, ns_to_s_since(a, t0), ns_to_s_since(b, t0));
        }
        m->time_s = pp_layers_median(t, nf, &m->time_iqr_s);
        m->cpu_s = pp_layers_median(c, nf, &m->cpu_iqr_s);
        m->energy_j = pp_layers_median(e, nf, &m->energy_iqr_j);
    }
}

/* Frames of the loaded network, sampled and reduced into r. */
static int measure(const pp_layer_timer_ops *ops, void *net, pp_device *dev,
                   const pp_layers_profile_opts *o, pp_layers_result *r)
{
    frame_times ft = {r->desc->n, o->n_frames, NULL, NULL, NULL, NULL};
    pp_trace trace = {0};
    double *total = NULL, *scratch = NULL;
    int64_t t0 = 0;
    int rc = -ENOMEM;

    ft.whole = calloc(2 * (size_t)o->n_frames, sizeof *ft.whole);
    ft.cpu_whole = calloc(2 * (size_t)o->n_frames, sizeof *ft.whole);
    ft.layers = calloc((size_t)o->n_frames * (ft.n_layers + 1), sizeof *ft.layers);
    ft.cpu_layers = calloc((size_t)o->n_frames * (ft.n_layers + 1), sizeof *ft.layers);
    scratch = calloc(3 * (size_t)o->n_frames, sizeof *scratch);
    if (!ft.whole || !ft.layers || !ft.cpu_whole || !ft.cpu_layers || !scratch)
        goto out;
    if ((rc = sampled_frames(ops, net, dev, o, &ft, &trace, &t0)) < 0)
        goto out;
    if (!(total = calloc(trace.n_samples ? trace.n_samples : 1, sizeof *total))) {
        rc = -ENOMEM;
        goto out;
    }
    pp_trace_total_series(&trace, total);
    {
        power_series ps = {trace.t_s, total, trace.n_samples, trace.interval_average};
        reduce_frames(&ft, &ps, t0, r, scratch);
    }
out:
    free(ft.whole);
    free(ft.layers);
    free(ft.cpu_whole);
    free(ft.cpu_layers);
    free(scratch);
    free(total);
    pp_trace_free(&trace);
    return rc;
}

static double now_s(void) { return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic)); }

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

int pp_layers_profile(const pp_layer_timer_ops *ops, pp_device *dev, const char *cfg_path,
                      int width, int height, const pp_layers_profile_opts *o,
                      pp_layers_result *out)
{
    char tmp[4096];
    void *net = NULL;
    size_t n = 0;
    double start = now_s();
    char why[1024];
    int rc;

    memset(out, 0, sizeof *out);
    out->idle_w = NAN;
    if (!(out->desc = malloc(sizeof *out->desc)))
        return -ENOMEM;
    if ((rc = pp_layers_describe_file(cfg_path, width, height, out->desc)) < 0 ||
        (rc = sized_copy(cfg_path, out->desc->width, out->desc->height, tmp, sizeof tmp)) < 0)
        goto fail;
    rc = ops->open(tmp, &net, &n, why, sizeof why);
    unlink(tmp);
    if (rc < 0) {
        pp_log_error("%s: %s", cfg_path, why);
        goto fail;
    }
    if ((rc = compare_with_darknet(ops, net, n, out->desc, cfg_path)) < 0)
        goto fail;
    if (!(out->layer = calloc(n, sizeof *out->layer))) {
        rc = -ENOMEM;
        goto fail;
    }
    out->n_frames = o->n_frames;
    out->estimated = pp_device_is_estimated(dev);
    pp_strlcpy(out->device, dev->ops->name, sizeof out->device);
    if ((rc = measure(ops, net, dev, o, out)) < 0)
        goto fail;
    ops->close(net);
    out->profile_s = now_s() - start;
    return 0;
fail:
    if (net)
        ops->close(net);
    pp_layers_result_free(out);
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
