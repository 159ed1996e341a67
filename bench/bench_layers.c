/* Layer models (issue 14): how well per-layer models predict networks never
 * profiled, on this CPU, against a baseline of FLOPs x one fitted rate
 * measured in the same run.
 *
 * 1. Profiling time: `powprof layers profile yolov3-tiny` at 3 input sizes
 *    (target: under 2 minutes).
 * 2. The evaluation set: darknet cfgs Debian ships, profiled together at 3
 *    input sizes (every network takes turns frame by frame, so that a
 *    shared machine's load falls on all alike), then leave-one-network-out:
 *    each network (all its sizes) predicted by models fitted on the others,
 *    the family of each layer kind chosen inside the fold. Prints per-layer
 *    RMSPE (targets: <= 10 %), per-network MAPE of latency and energy
 *    (target: latency <= 5 %), the baseline's, and the layers' sum against
 *    the whole network measured in the same run (target: within 3 %).
 *
 * Latency is the CPU time of the thread that runs darknet (one core): on a
 * machine shared with other work the wall time also counts the time others
 * had the core; both are printed. Energies come from the device (the
 * procstat estimate on a machine without sensors). The load average is
 * printed before and after each profile.
 *
 * Environment: POWPROF_BIN (the binary); POWPROF_LAYERS_DATA=DIR evaluates
 * an existing profile instead of profiling; POWPROF_LAYERS_FRAMES (default
 * 9); POWPROF_LAYERS_NETS (comma-separated cfg names).
 */
#include "src/layers/layers_model.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 64
#define SUM_TARGET_FRAC 0.03

static const char default_nets[] =
    "yolov3-tiny,yolov2-tiny,yolov1-tiny,tiny,darknet,darknet19,extraction,resnet18,alexnet,"
    "resnet34,densenet201,resnext50";

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void print_load(const char *when)
{
    double load[3] = {0, 0, 0};

    getloadavg(load, 3);
    printf("  load average %s: %.2f %.2f %.2f (%ld CPUs)\n", when, load[0], load[1], load[2],
           sysconf(_SC_NPROCESSORS_ONLN));
}

/* Run argv with stdout on /dev/null; its wall time, or -1. */
static double run_timed(char **argv)
{
    double t0 = now_s();
    int st;
    pid_t pid = fork();

    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return now_s() - t0;
}

/* powprof layers profile NETS (comma-separated) --sizes SIZES into dir. */
static double profile(const char *bin, const char *nets, const char *sizes, const char *frames,
                      const char *dir)
{
    static char list[4096];
    char *argv[MAX_ARGS], *save = NULL;
    int n = 0;

    snprintf(list, sizeof list, "%s", nets);
    argv[n++] = (char *)bin;
    argv[n++] = "layers";
    argv[n++] = "profile";
    for (char *t = strtok_r(list, ",", &save); t && n < MAX_ARGS - 10; t = strtok_r(NULL, ",", &save))
        argv[n++] = t;
    argv[n++] = "--sizes";
    argv[n++] = (char *)sizes;
    argv[n++] = "--frames";
    argv[n++] = (char *)frames;
    argv[n++] = "-o";
    argv[n++] = (char *)dir;
    argv[n] = NULL;
    return run_timed(argv);
}

/* The layers' sum against the whole network, per run. */
static void print_sums(const pp_layers_data *d)
{
    int q[2] = {PP_LQ_CPU, PP_LQ_WALL};

    printf("\nsum of the layers against the whole network (same run, means over frames):\n");
    for (int k = 0; k < 2; k++) {
        double worst = 0.0, sum = 0.0;
        size_t within = 0;
        for (size_t r = 0; r < d->n_networks; r++) {
            double e = fabs(d->networks[r].layers_y[q[k]] / d->networks[r].y[q[k]] - 1.0);
            worst = e > worst ? e : worst;
            sum += e;
            within += e <= SUM_TARGET_FRAC;
        }
        printf("  %-7s mean |difference| %5.2f %%, max %5.2f %%, %zu of %zu runs within 3 %%\n",
               pp_layers_quantity_name((pp_layers_quantity)q[k]), 100 * sum / d->n_networks,
               100 * worst, within, d->n_networks);
    }
}

static void print_row(const char *name, const pp_layers_eval_stats *s)
{
    printf("  %-12s %7.1f %% %7.1f %% %7.1f %%   %7.1f %% %7.1f %% %7.1f %%\n", name,
           100 * s->layer_rmspe, 100 * s->layer_rmspe_major, 100 * s->layer_rmspe_flops,
           100 * s->net_mape, 100 * s->net_rms, 100 * s->net_max);
}

static void print_eval(const pp_layers_eval *e)
{
    printf("\nleave-one-network-out, %zu networks, %zu runs (family chosen inside each fold):\n",
           e->n_networks, e->n_runs);
    printf("  per-layer RMSPE over all layers, layers >= 1 %% of their network, layers with "
           "FLOPs; network MAPE, RMS, max\n");
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        printf("  %-12s %9s %9s %9s   %9s %9s %9s\n",
               pp_layers_quantity_name((pp_layers_quantity)q), "all", ">=1%", "FLOPs", "MAPE",
               "RMS", "max");
        print_row("chosen", &e->model[q]);
        for (int f = 0; f < PP_LF_COUNT; f++)
            print_row(pp_layer_family_name((pp_layer_family)f), &e->family[f][q]);
        print_row("FLOPs x rate", &e->baseline[q]);
    }
    printf("\nagainst the targets (cpu_s: latency on one core):\n");
    printf("  network latency MAPE   %5.1f %% (target <= 5 %%; baseline %5.1f %%, ratio %.2f)\n",
           100 * e->model[PP_LQ_CPU].net_mape, 100 * e->baseline[PP_LQ_CPU].net_mape,
           e->model[PP_LQ_CPU].net_mape / e->baseline[PP_LQ_CPU].net_mape);
    printf("  network energy MAPE    %5.1f %% (baseline %5.1f %%, ratio %.2f)\n",
           100 * e->model[PP_LQ_ENERGY].net_mape, 100 * e->baseline[PP_LQ_ENERGY].net_mape,
           e->model[PP_LQ_ENERGY].net_mape / e->baseline[PP_LQ_ENERGY].net_mape);
    printf("  per-layer RMSPE        %5.1f %% over layers >= 1 %% of their network, %5.1f %% over "
           "all (target <= 10 %%; baseline on layers with FLOPs %5.1f %%, model %5.1f %%)\n",
           100 * e->model[PP_LQ_CPU].layer_rmspe_major, 100 * e->model[PP_LQ_CPU].layer_rmspe,
           100 * e->baseline[PP_LQ_CPU].layer_rmspe_flops,
           100 * e->model[PP_LQ_CPU].layer_rmspe_flops);
}

static void print_runs(const pp_layers_data *d, const pp_layers_eval *e)
{
    printf("\nper run: measured CPU s per frame, model and baseline errors; energy J per frame\n");
    for (size_t r = 0; r < d->n_networks; r++) {
        const pp_network_sample *n = &d->networks[r];
        printf("  %-12s %4dx%-4d %8.4f s  model %+6.1f %%  base %+6.1f %%   %8.3f J  model "
               "%+6.1f %%  base %+6.1f %%\n", n->name, n->width, n->height, n->y[PP_LQ_CPU],
               100 * (e->pred[r][PP_LQ_CPU] / n->y[PP_LQ_CPU] - 1),
               100 * (e->base[r][PP_LQ_CPU] / n->y[PP_LQ_CPU] - 1), n->y[PP_LQ_ENERGY],
               100 * (e->pred[r][PP_LQ_ENERGY] / n->y[PP_LQ_ENERGY] - 1),
               100 * (e->base[r][PP_LQ_ENERGY] / n->y[PP_LQ_ENERGY] - 1));
    }
}

static int evaluate(const char *dir)
{
    pp_layers_data d = {0};
    pp_layers_eval e;
    double t0 = now_s();

    if (pp_layers_data_read(dir, &d) < 0 || pp_layers_evaluate(&d, &e) < 0)
        return 1;
    printf("  (%s, evaluated in %.1f s)\n", dir, now_s() - t0);
    print_sums(&d);
    print_eval(&e);
    print_runs(&d, &e);
    pp_layers_eval_free(&e);
    pp_layers_data_free(&d);
    return 0;
}

int main(void)
{
    const char *bin = getenv("POWPROF_BIN"), *data = getenv("POWPROF_LAYERS_DATA");
    const char *frames = getenv("POWPROF_LAYERS_FRAMES"), *nets = getenv("POWPROF_LAYERS_NETS");
    char small[] = "/tmp/powprof-bench-layers-small-XXXXXX";
    static char eval_dir[] = "/tmp/powprof-bench-layers-XXXXXX";
    double t;

    bin = bin ? bin : "build/powprof";
    frames = frames ? frames : "9";
    if (data)
        return evaluate(data);
    if (access("/usr/share/darknet/cfg/yolov3-tiny.cfg", R_OK) != 0 || !mkdtemp(small) ||
        !mkdtemp(eval_dir)) {
        printf("layers: skipped (darknet's cfgs are not installed: apt-get install darknet)\n");
        return 0;
    }
    printf("profiling time: yolov3-tiny at 160, 224 and 288, %s frames\n", frames);
    print_load("before");
    t = profile(bin, "yolov3-tiny", "160,224,288", frames, small);
    print_load("after");
    if (t < 0) {
        printf("  layers profile failed (is the darknet module built?)\n");
        return 1;
    }
    printf("  %.1f s (target < 120 s, ratio %.2f)\n", t, t / 120.0);
    printf("\nthe evaluation set: %s at 128, 192 and 256, %s frames\n", nets ? nets : default_nets,
           frames);
    print_load("before");
    t = profile(bin, nets ? nets : default_nets, "128,192,256", frames, eval_dir);
    print_load("after");
    if (t < 0)
        return 1;
    printf("  profiled in %.1f s into %s (kept: POWPROF_LAYERS_DATA=%s evaluates it again)\n", t,
           eval_dir, eval_dir);
    return evaluate(eval_dir);
}
