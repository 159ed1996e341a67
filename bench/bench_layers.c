/* Layer models (issues 14 and 24): how well per-layer models predict
 * networks never profiled, on this CPU, against a baseline of FLOPs x one
 * fitted rate measured in the same run.
 *
 * The default (issue 24): a handful of networks at hand. yolov2-tiny,
 * tiny, resnet18, darknet and alexnet, every other Debian cfg whose layer
 * kinds those five cover (listed, all of them) and yolov3-tiny (whose
 * yolo, upsample and route layers the five lack) are profiled together at
 * their cfgs' own sizes, in one run. Then:
 *  a. leave-one-network-out on the five: whole-network latency MAPE of the
 *     model against the baseline's (targets: <= the baseline's, <= 8 %);
 *  b. the model fitted on the five predicts every covered cfg, compared
 *     with darknet's network_predict of that cfg timed in the same run
 *     (median CPU time over the frames; target: within 5 % each);
 *  c. yolov3-tiny from the same model: within 10 %, with the note naming
 *     the layers of kinds never profiled.
 * POWPROF_LAYERS_BENCH=twelve runs issue 14's bench instead:
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
 * 9; 3 for the default bench); POWPROF_LAYERS_NETS (comma-separated cfg
 * names, twelve only).
 */
#include "src/dnn/layers_model.h"
#include "src/dnn/layers_profile.h"
#include "src/dnn/layers_choose.h"
#include "src/dnn/layers_data.h"
#include "src/dnn/layers_eval.h"
#include "src/dnn/layers_predict.h"

#include <dirent.h>
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

/* ---- Issue 24: five networks at hand ----------------------------------- */

#define COVERED_TARGET_FRAC 0.05
#define UNPROFILED_TARGET_FRAC 0.10
#define FIVE_TARGET_FRAC 0.08
#define MAX_NETS 64

static const char *const five[] = {"yolov2-tiny", "tiny", "resnet18", "darknet", "alexnet"};
static const char unprofiled_net[] = "yolov3-tiny";

static int is_five(const char *name)
{
    for (size_t i = 0; i < sizeof five / sizeof five[0]; i++)
        if (strcmp(five[i], name) == 0)
            return 1;
    return 0;
}

/* The kinds of the cfg at path (its own size) as bits; -1 when unreadable. */
static long kinds_of(const char *path)
{
    pp_network_desc *d = malloc(sizeof *d);
    long mask = -1;

    if (d && pp_layers_describe_file(path, 0, 0, d) == 0) {
        mask = 0;
        for (size_t i = 0; i < d->n; i++)
            mask |= 1L << d->layers[i].kind;
    }
    free(d);
    return mask;
}

static void print_kinds(long mask)
{
    for (int k = 0; k < PP_LAYER_KINDS; k++)
        if (mask & (1L << k))
            printf(" %s", pp_layer_kind_name((pp_layer_kind)k));
}

/* Every Debian cfg whose kinds the five cover (names without ".cfg", into
 * list, comma-separated after what it holds); printed with the others. */
static int covered_cfgs(char *list, size_t cap, size_t *n_covered)
{
    struct dirent **ent;
    char path[1024], name[256];
    long cover = 0;
    int n = scandir(PP_LAYERS_CFG_DIR, &ent, NULL, alphasort);

    if (n < 0)
        return -1;
    for (size_t i = 0; i < sizeof five / sizeof five[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.cfg", PP_LAYERS_CFG_DIR, five[i]);
        cover |= kinds_of(path);
    }
    printf("the five cover:");
    print_kinds(cover);
    printf("\nDebian's other cfgs (%s):\n", PP_LAYERS_CFG_DIR);
    *n_covered = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(ent[i]->d_name);
        long mask;
        if (len > 4 && strcmp(ent[i]->d_name + len - 4, ".cfg") == 0) {
            snprintf(name, sizeof name, "%.*s", (int)(len - 4), ent[i]->d_name);
            snprintf(path, sizeof path, "%s/%s", PP_LAYERS_CFG_DIR, ent[i]->d_name);
            mask = is_five(name) ? 0 : kinds_of(path);
            if (is_five(name)) {
            } else if (mask < 0) {
                printf("  %-20s not read by powprof (a layer type it does not model)\n", name);
            } else if (mask & ~cover) {
                printf("  %-20s not covered, lacks:", name);
                print_kinds(mask & ~cover);
                putchar('\n');
            } else {
                printf("  %-20s covered\n", name);
                snprintf(list + strlen(list), cap - strlen(list), ",%s", name);
                (*n_covered)++;
            }
        }
        free(ent[i]);
    }
    free(ent);
    return 0;
}

/* The runs of d in use, as data of their own. */
static int subset(const pp_layers_data *d, const unsigned char *use, pp_layers_data *out)
{
    memset(out, 0, sizeof *out);
    out->networks = calloc(d->n_networks + 1, sizeof *out->networks);
    out->samples = calloc(d->n_samples + 1, sizeof *out->samples);
    if (!out->networks || !out->samples)
        return -1;
    for (size_t r = 0; r < d->n_networks; r++) {
        pp_network_sample *n = &out->networks[out->n_networks];
        if (!use[r])
            continue;
        *n = d->networks[r];
        n->first = out->n_samples;
        for (size_t i = 0; i < n->n_layers; i++) {
            out->samples[out->n_samples] = d->samples[d->networks[r].first + i];
            out->samples[out->n_samples].net = out->n_networks;
            out->samples[out->n_samples++].line = 0;
        }
        out->n_networks++;
    }
    return 0;
}

/* networks.csv's cpu_median_s of name at w x h (NaN: not found). */
static double median_cpu(const char *dir, const char *name, int w, int h)
{
    char path[1024], line[4096];
    int col_cpu = -1;
    double v = NAN;
    FILE *fp;

    snprintf(path, sizeof path, "%s/networks.csv", dir);
    if (!(fp = fopen(path, "r")))
        return NAN;
    while (fgets(line, sizeof line, fp) && isnan(v)) {
        char *f[64], *save = NULL;
        int n = 0;
        for (char *t = strtok_r(line, ",\n", &save); t && n < 64; t = strtok_r(NULL, ",\n", &save))
            f[n++] = t;
        if (col_cpu < 0) {
            for (int k = 0; k < n; k++)
                col_cpu = strcmp(f[k], "cpu_median_s") == 0 ? k : col_cpu;
        } else if (n > col_cpu && strcmp(f[0], name) == 0 && atoi(f[1]) == w && atoi(f[2]) == h) {
            v = atof(f[col_cpu]);
        }
    }
    fclose(fp);
    return v;
}

/* The baseline's rate on the runs in use: sum(x/y) / sum((x/y)^2). */
static double base_rate(const pp_layers_data *d, const unsigned char *use)
{
    double s1 = 0, s2 = 0;

    for (size_t r = 0; r < d->n_networks; r++)
        if (use[r]) {
            double x = d->networks[r].flops / d->networks[r].y[PP_LQ_CPU];
            s1 += x;
            s2 += x * x;
        }
    return s1 / s2;
}

typedef struct held_out {
    size_t n, within, n_model_better;
    double sum_abs, sum_base, sum_alone, worst, alone;
} held_out;

/* Predict run r of d from m; print it against its median CPU time. */
static void predict_run(const char *dir, const pp_layers_data *d, size_t r,
                        const pp_layer_model *m, double rate, held_out *h)
{
    const pp_network_sample *net = &d->networks[r];
    char path[1024];
    pp_network_desc *desc = malloc(sizeof *desc);
    pp_layers_prediction p;
    double meas = median_cpu(dir, net->name, net->width, net->height), e, eb;
    int unprof = strcmp(net->name, unprofiled_net) == 0;

    snprintf(path, sizeof path, "%s/%s.cfg", PP_LAYERS_CFG_DIR, net->name);
    if (!desc || pp_layers_describe_file(path, net->width, net->height, desc) < 0 ||
        pp_layers_predict(m, desc, &p) < 0) {
        printf("  %-18s prediction FAILED (see above)\n", net->name);
        free(desc);
        return;
    }
    e = p.total[PP_LQ_CPU] / meas - 1.0;
    eb = rate * net->flops / meas - 1.0;
    {   /* the layers alone (network weight 1), for comparison */
        pp_layer_model *alone = malloc(sizeof *alone);
        pp_layers_prediction pa;
        *alone = *m;
        for (int q = 0; q < PP_LQ_COUNT; q++)
            alone->net_weight[q] = 1.0;
        h->alone = pp_layers_predict(alone, desc, &pa) == 0 ? pa.total[PP_LQ_CPU] / meas - 1 : NAN;
        pp_layers_prediction_free(&pa);
        free(alone);
    }
    printf("  %-18s %4dx%-4d %7.2f GFLOPs  measured %8.4f s  predicted %8.4f s  %+6.1f %%  "
           "baseline %+6.1f %%  layers alone %+6.1f %%  unprofiled %4.1f %%  %s\n", net->name,
           net->width, net->height, net->flops * 1e-9, meas, p.total[PP_LQ_CPU], 100 * e,
           100 * eb, 100 * h->alone, 100 * p.roofline_frac,
           fabs(e) <= (unprof ? UNPROFILED_TARGET_FRAC : COVERED_TARGET_FRAC) ? "ok" : "MISSED");
    if (p.n_roofline)
        printf("  %-18s note: %s\n", "", p.note);
    if (!unprof) {
        h->n++;
        h->within += fabs(e) <= COVERED_TARGET_FRAC;
        h->n_model_better += fabs(e) <= fabs(eb);
        h->sum_abs += fabs(e);
        h->sum_base += fabs(eb);
        h->sum_alone += fabs(h->alone);
        h->worst = fabs(e) > h->worst ? fabs(e) : h->worst;
    }
    pp_layers_prediction_free(&p);
    free(desc);
}

/* a. leave-one-network-out on the five; the model fitted on them. */
static int five_eval(const pp_layers_data *d, const unsigned char *use, pp_layer_model *m)
{
    pp_layers_data sub;
    pp_layers_eval e;
    pp_layer_fit_opts o = {-1, use, 0};
    double t0 = now_s();

    if (subset(d, use, &sub) < 0 || pp_layers_evaluate(&sub, &e) < 0 ||
        pp_layer_model_fit(d, &o, m) < 0)
        return -1;
    print_eval(&e);
    print_runs(&sub, &e);
    printf("  (evaluated in %.1f s)\n", now_s() - t0);
    printf("\na. the five, leave-one-network-out latency MAPE %.1f %% (targets: <= baseline "
           "%.1f %%: %s; <= 8 %%: %s)\n", 100 * e.model[PP_LQ_CPU].net_mape,
           100 * e.baseline[PP_LQ_CPU].net_mape,
           e.model[PP_LQ_CPU].net_mape <= e.baseline[PP_LQ_CPU].net_mape ? "met" : "MISSED",
           e.model[PP_LQ_CPU].net_mape <= FIVE_TARGET_FRAC ? "met" : "MISSED");
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        m->net_mape[q] = e.model[q].net_mape;
        m->net_rms[q] = e.model[q].net_rms;
    }
    pp_layers_eval_free(&e);
    free(sub.networks);
    free(sub.samples);
    return 0;
}

static int five_evaluate(const char *dir)
{
    pp_layers_data d = {0};
    pp_layer_model *m = malloc(sizeof *m);
    unsigned char use[MAX_NETS * 4];
    held_out h = {0};
    double rate;

    if (!m || pp_layers_data_read(dir, &d) < 0 || d.n_networks > sizeof use)
        return 1;
    for (size_t r = 0; r < d.n_networks; r++)
        use[r] = is_five(d.networks[r].name);
    print_sums(&d);
    if (five_eval(&d, use, m) < 0)
        return 1;
    rate = base_rate(&d, use);
    printf("\nb, c. the model fitted on the five against darknet's network_predict of each "
           "cfg, timed in the same run (median CPU time per frame):\n");
    for (size_t r = 0; r < d.n_networks; r++)
        if (!use[r])
            predict_run(dir, &d, r, m, rate, &h);
    printf("\nb. covered cfgs: %zu of %zu within 5 %% (target: all), MAPE %.1f %% (baseline "
           "FLOPs x rate of the five: %.1f %%), worst %.1f %%, model closer than the baseline "
           "or as close for %zu; the layers alone (network weight 1): MAPE %.1f %%\n", h.within,
           h.n, 100 * h.sum_abs / h.n, 100 * h.sum_base / h.n, 100 * h.worst, h.n_model_better,
           100 * h.sum_alone / h.n);
    pp_layers_data_free(&d);
    free(m);
    return 0;
}

static int five_bench(const char *bin, const char *frames, const char *data)
{
    static char dir[] = "/tmp/powprof-bench-layers-five-XXXXXX";
    char list[4096] = "";
    size_t n_covered;
    double t;

    if (covered_cfgs(list, sizeof list, &n_covered) < 0) {
        printf("layers: skipped (darknet's cfgs are not installed: apt-get install darknet)\n");
        return 0;
    }
    if (data)
        return five_evaluate(data);
    if (!mkdtemp(dir))
        return 1;
    snprintf(list + strlen(list), sizeof list - strlen(list), ",%s", unprofiled_net);
    printf("\nprofiling the five, the %zu covered and %s at their own sizes, %s frames, in one "
           "run\n", n_covered, unprofiled_net, frames);
    print_load("before");
    {
        char nets[4096];
        snprintf(nets, sizeof nets, "yolov2-tiny,tiny,resnet18,darknet,alexnet%s", list);
        t = profile(bin, nets, "own", frames, dir);
    }
    print_load("after");
    if (t < 0) {
        printf("  layers profile failed (is the darknet module built?)\n");
        return 1;
    }
    printf("  profiled in %.1f s into %s (kept: POWPROF_LAYERS_DATA=%s evaluates it again)\n", t,
           dir, dir);
    return five_evaluate(dir);
}

int main(void)
{
    const char *bin = getenv("POWPROF_BIN"), *data = getenv("POWPROF_LAYERS_DATA");
    const char *frames = getenv("POWPROF_LAYERS_FRAMES"), *nets = getenv("POWPROF_LAYERS_NETS");
    char small[] = "/tmp/powprof-bench-layers-small-XXXXXX";
    static char eval_dir[] = "/tmp/powprof-bench-layers-XXXXXX";
    double t;

    bin = bin ? bin : "build/powprof";
    if (!getenv("POWPROF_LAYERS_BENCH") || strcmp(getenv("POWPROF_LAYERS_BENCH"), "twelve") != 0)
        return five_bench(bin, frames ? frames : "3", data);
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
