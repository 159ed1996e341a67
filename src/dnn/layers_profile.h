/* layers_profile.h - per-layer profiles of darknet networks (`powprof
 * layers profile`): the time and the energy of every layer per frame, and
 * of the whole network measured in the same run.
 *
 * The frames run in the darknet module (components/layer_timer.h, found
 * through the component registry: the core does not link darknet); this
 * side reads the cfg (src/dnn/layers.h, which checks it before darknet sees
 * it), samples the device while the frames run, and integrates the power
 * over each layer's intervals. Each measured frame is run twice, once
 * whole (darknet's network_predict) and once layer by layer, in alternating
 * order; warm-up frames are run first and discarded; the networks take
 * turns frame by frame (pp_layers_profile). Times and energies are means
 * over the frames, with the median and the interquartile range beside.
 * On a machine without power sensors the device is the procstat estimate,
 * and every energy is marked estimated.
 *
 * Files written into the output folder (replaced; `powprof layers model`
 * reads several folders):
 *   layers.csv    network,width,height,layer,type,line,in_w,in_h,in_c,
 *                 out_w,out_h,out_c,filters,size,stride,groups,batch_normalize,
 *                 activation,flops,param_bytes,in_bytes,out_bytes,time_s,
 *                 time_median_s,time_iqr_s,cpu_s,cpu_median_s,cpu_iqr_s,
 *                 energy_j,energy_median_j,energy_iqr_j,frames,estimated
 *   networks.csv  network,width,height,layers,flops,frames,time_s,
 *                 time_median_s,time_iqr_s,cpu_s,cpu_median_s,energy_j,
 *                 layers_time_s,layers_cpu_s,layers_energy_j,
 *                 layers_vs_whole_frac,idle_w,device,estimated,profile_s
 * (one row per layer and one per network and input size; time_s is wall
 * time, cpu_s the CPU time of the thread that ran the frame, which leaves
 * out the time other processes had the core; unsuffixed figures are means
 * over the frames (pp_layer_measure); layers_time_s is the mean sum of the
 * layers of a frame, layers_vs_whole_frac its relative difference from the
 * whole network's time_s).
 */
#ifndef PP_LAYERS_PROFILE_H
#define PP_LAYERS_PROFILE_H

#include "layers.h"

#include "components/layer_timer.h"
#include "devices/device.h"

#include <stdio.h>

#define PP_LAYERS_CFG_DIR "/usr/share/darknet/cfg"

typedef struct pp_layers_profile_opts {
    int n_frames;   /* measured frames, >= 1 */
    int n_warmup;   /* frames run first and discarded, >= 0 */
    double rate_hz; /* sampling rate of the device */
} pp_layers_profile_opts;

/* Defaults: 5 frames, 1 warm-up, 50 Hz. */
void pp_layers_profile_opts_init(pp_layers_profile_opts *o);

/* Per frame: the mean over the measured frames (the figure models use: means
 * add up, so that the layers' means sum to the mean of the frames' sums;
 * medians do not), the median and the interquartile range. */
typedef struct pp_layer_measure {
    double time_s, time_median_s, time_iqr_s;       /* wall time */
    double cpu_s, cpu_median_s, cpu_iqr_s;          /* CPU time of the thread */
    double energy_j, energy_median_j, energy_iqr_j; /* the device's energy */
} pp_layer_measure;

/* One network at one input size. */
typedef struct pp_layers_result {
    pp_network_desc *desc;   /* the layers, from the cfg (owned) */
    pp_layer_measure *layer; /* desc->n of them (owned) */
    int n_frames;
    pp_layer_measure whole;  /* network_predict */
    pp_layer_measure layers_sum; /* the layers' sum in a frame */
    double idle_w;           /* the device's power before the frames (NaN: not measured) */
    double profile_s;        /* wall time of the profile until this result */
    int estimated;           /* the device's rails are estimates */
    char device[32];
} pp_layers_result;

/* A network given by name (a file in PP_LAYERS_CFG_DIR, ".cfg" optional)
 * or by path (containing '/', or an existing file): its path into out.
 * 0, -ENOENT (logged with the places looked in) or -EINVAL (a name that
 * pp_path_fmt refuses, or too long; logged). */
int pp_layers_resolve_cfg(const char *name, char *out, size_t cap);

/* The darknet module's layer timer, loaded through the component registry.
 * 0; -ELIBACC when the module is missing (logged: what to install); -EINVAL
 * for a module without the entry point or of another ABI. */
int pp_layer_timer_load(const pp_layer_timer_ops **out);

/* One network to profile: cfg_path at width x height (0, 0: the cfg's own). */
typedef struct pp_layers_job {
    const char *cfg_path;
    int width, height;
} pp_layers_job;

/* The input sizes a network is profiled at unless told: its cfg's own
 * (width x height) and 0.75 and 1.5 times it, those rounded to multiples
 * of 32 (at least 32), repeats dropped, into w[], h[] (3 each). Returns how
 * many (1 to 3). */
#define PP_LAYERS_DEFAULT_SIZES 3
int pp_layers_default_sizes(int width, int height, int *w, int *h);

/* The jobs of the cfg at cfg_path: n_sizes sizes w[], h[] (0 x 0: the
 * cfg's own), or with n_sizes 0 its default sizes (above), into out
 * (room for max(n_sizes, PP_LAYERS_DEFAULT_SIZES)). Returns how many, or
 * -errno (logged: a cfg that cannot be read). */
int pp_layers_jobs_of(const char *cfg_path, int n_sizes, const int *w, const int *h,
                      pp_layers_job *out);

/* Called after each measured round with the medians so far (every result
 * then has n_frames >= 1). A negative return stops the profile with it. */
typedef int (*pp_layers_checkpoint)(const pp_layers_result *r, size_t n, void *ctx);

/* Profile n_jobs networks together while sampling dev: every network is
 * loaded first, then each round runs one frame pair (whole, then layer by
 * layer, or the reverse on odd rounds) of every network in turn, so that
 * the load of a shared machine falls on all of them alike; a round is
 * sampled on its own and its energies integrated when it ends. Warm-up
 * rounds come first. out[n_jobs] receives the results (free each with
 * pp_layers_result_free; freed on error). 0, or -errno (logged: a bad cfg
 * names its file and line; a cfg that powprof and darknet read differently
 * names the layer). */
int pp_layers_profile(const pp_layer_timer_ops *ops, pp_device *dev, const pp_layers_job *jobs,
                      size_t n_jobs, const pp_layers_profile_opts *o,
                      pp_layers_checkpoint checkpoint, void *ctx, pp_layers_result *out);
void pp_layers_result_free(pp_layers_result *r);

/* The device's mean total power over duration_s of sleep (the idle power a
 * plan adds between frames). 0 or -errno. */
int pp_layers_idle_power(pp_device *dev, double rate_hz, double duration_s, double *idle_w);

/* Write the results to dir/layers.csv and dir/networks.csv, replacing
 * them atomically (the files hold the last checkpoint of a profile that was
 * interrupted). 0 or -errno (logged with the file). */
int pp_layers_write(const char *dir, const pp_layers_result *r, size_t n);

/* The headers of the two files. */
extern const char pp_layers_csv_header[];
extern const char pp_networks_csv_header[];

/* Whether a network's name can go into a CSV cell and a file name: letters,
 * digits and _ . - + only, 1 to 63 of them. */
int pp_layers_name_ok(const char *name);

/* Median and interquartile range (linear interpolation between order
 * statistics) of v[n] (reordered). NaN for n == 0. */
double pp_layers_median(double *v, size_t n, double *iqr);

/* ---- layers profile, whole ---- */

/* The networks names[n] (cfg files or darknet's names) resolved into
 * paths and read, each named as a CSV cell allows, before anything runs.
 * 0 or -errno (logged with the file). */
int pp_layers_check_cfgs(int n, char *const *names, char (*paths)[PP_PATH_MAX]);

typedef struct pp_layers_run_request {
    const char *out_dir;                 /* layers.csv, networks.csv (a folder that exists) */
    int n_sizes;                         /* 0: each network's own size (and the defaults) */
    const int *w, *h;                    /* the input sizes (n_sizes) */
    double idle_s;                       /* the idle power measured first for this long (0: not) */
    const pp_layers_profile_opts *opts;  /* frames, warm-up, rate, ... */
} pp_layers_run_request;

/* Every network of paths[n_cfgs] at every size profiled on dev, the idle
 * power first, checkpoints written under rq->out_dir as they come and the
 * whole written at the end: *res (malloc'd, *n of them; free with
 * pp_layers_results_free, also after an error). 0 or -errno (logged). */
int pp_layers_run(const pp_layers_run_request *rq, int n_cfgs, char (*paths)[PP_PATH_MAX],
                  pp_device *dev, pp_layers_result **res, size_t *n);
void pp_layers_results_free(pp_layers_result *res, size_t n);

#endif
