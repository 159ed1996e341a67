/* powprof layers: per-layer profiles of darknet networks, layer models, and
 * predictions for networks never run. */
#include "cli.h"
#include "opt.h"

#include "src/dnn/layers_model.h"
#include "src/dnn/layers_profile.h"
#include "src/dnn/layers_choose.h"
#include "src/dnn/layers_data.h"
#include "src/dnn/layers_eval.h"
#include "src/dnn/layers_json.h"
#include "src/base/log.h"
#include "src/sweep/sampler.h"
#include "src/base/util.h"

#include "battery/battery.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SIZES 16

static const char layers_help[] =
    "usage: powprof layers profile CFG... [-o DIR] [--sizes WxH,...] [--frames N]\n"
    "       powprof layers model DIR... [-o MODEL.json] [--json]\n"
    "       powprof layers predict MODEL.json CFG... [--width W --height H] [--fps F] [--json]\n"
    "\n"
    "Predict what a neural network costs before running it, from its layers.\n"
    "\n"
    "  profile   run darknet networks (random weights) and time every layer over\n"
    "            N frames while sampling power: each layer's time and energy per\n"
    "            frame into DIR/layers.csv, the whole network's (measured in the\n"
    "            same run) into DIR/networks.csv\n"
    "  model     fit, per layer type, a model of time and energy per frame from the\n"
    "            layer's shape (leave-one-network-out errors of each family tried)\n"
    "  predict   the time and energy per frame of a network never profiled, per\n"
    "            layer and in total, with an error band, and the highest frame rate\n"
    "            this machine sustains; needs no darknet\n"
    "\n"
    "CFG is a darknet .cfg: a path, or a name in " PP_LAYERS_CFG_DIR " (\".cfg\"\n"
    "optional). 'powprof layers COMMAND --help' describes each command.\n";

static const char profile_head[] =
    "usage: powprof layers profile CFG... [-o DIR] [--sizes WxH,...] [--frames N]\n"
    "                              [--warmup N] [-d DEVICE] [-r HZ] [--idle-s S]\n"
    "                              [device options]\n"
    "\n"
    "Run each network (darknet, random weights, batch 1) at each input size:\n"
    "warm-up frames first (discarded), then N frames, each run once whole\n"
    "(darknet's network_predict) and once layer by layer with a clock reading\n"
    "between layers, while the device is sampled. Each layer gets its mean time\n"
    "and energy per frame (power integrated over its intervals; means, which add\n"
    "up to the network's), with their median and interquartile range; the whole\n"
    "network its own, to check the sum of the layers against it. Times are wall\n"
    "time and the CPU time of the thread that runs darknet (on a shared machine\n"
    "the latter leaves out the time other programs had the core). Without power\n"
    "sensors the device is the procstat estimate and energies are marked\n"
    "estimated. darknet runs on one core (its own gemm, no threads).\n"
    "The networks are loaded together and take turns frame by frame, so that\n"
    "the load of a shared machine falls on all of them alike. DIR/layers.csv and\n"
    "DIR/networks.csv are replaced after every round of frames, so that an\n"
    "interrupted profile keeps what it measured.\n";

/* "416x416,320x240,256": sizes into w[], h[]. Returns how many, or -1. */
static int parse_sizes(const char *arg, int *w, int *h, int cap)
{
    char buf[512], *tok, *save = NULL;
    int n = 0;

    if (pp_strlcpy(buf, arg, sizeof buf) < 0)
        return -1;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *x = strchr(tok, 'x');
        int64_t a, b;
        if (n < cap && strcmp(tok, "own") == 0) { /* the cfg's own size */
            w[n] = h[n] = 0;
            n++;
            continue;
        }
        if (x)
            *x = '\0';
        if (n == cap || pp_parse_int64(tok, &a) < 0 || pp_parse_int64(x ? x + 1 : tok, &b) < 0 ||
            a < 1 || b < 1 || a > 8192 || b > 8192)
            return -1;
        w[n] = (int)a;
        h[n++] = (int)b;
    }
    return n > 0 ? n : -1;
}

static void print_result(const pp_layers_result *r)
{
    const pp_network_desc *d = r->desc;

    printf("%-16s %4dx%-4d %3zu layers %7.3f GFLOPs  whole %8.4f s (iqr %.4f, CPU %.4f s)  "
           "layers' sum %+.2f %% (CPU %+.2f %%)  %7.3f J%s\n",
           d->name, d->width, d->height, d->n, d->flops * 1e-9, r->whole.time_s,
           r->whole.time_iqr_s, r->whole.cpu_s,
           100.0 * (r->layers_sum.time_s / r->whole.time_s - 1),
           100.0 * (r->layers_sum.cpu_s / r->whole.cpu_s - 1), r->whole.energy_j,
           r->estimated ? " (estimated)" : "");
    fflush(stdout);
}

typedef struct profile_args {
    const char *out_dir, *device;
    int n_sizes, w[MAX_SIZES], h[MAX_SIZES];
    double idle_s;
    pp_layers_profile_opts opts;
    pp_device_options dev_opts;
} profile_args;

static int sizes_option(const pp_opt *row, const char *arg, const char *cmd)
{
    profile_args *a = row->value;

    if ((a->n_sizes = parse_sizes(arg, a->w, a->h, MAX_SIZES)) >= 0)
        return 0;
    fprintf(stderr, "powprof %s: --sizes '%s': WxH[,WxH...] with W and H from 1 to 8192, at most "
                    "%d sizes\n", cmd, arg, MAX_SIZES);
    return -1;
}

static int rate_option(const pp_opt *row, const char *arg, const char *cmd)
{
    return pp_cli_parse_double(cmd, "--rate", arg, row->value) < 0 ||
                   pp_sampler_check_rate(*(double *)row->value, "--rate") < 0 ? -1 : 0;
}

/* Options of `layers profile`; optind then points at the first CFG.
 * Returns 0, 1 (help printed) or -1 (usage error printed). */
static int profile_options(int argc, char **argv, profile_args *a)
{
    const pp_opt rows[] = {
        PP_OPT_STRING('o', "output", &a->out_dir, "DIR", "results folder (default "
                      "results/layers)"),
        PP_OPT_CALLBACK(0, "sizes", a, "WxH,...", "input sizes (default: the cfg's own and 0.75 "
                        "and 1.5\ntimes it, multiples of 32); N means NxN, own the\ncfg's own",
                        sizes_option),
        PP_OPT_INT(0, "frames", &a->opts.n_frames, "N", "measured frames per size (default 5)", 1,
                   100000),
        PP_OPT_INT(0, "warmup", &a->opts.n_warmup, "N", "frames run first and discarded (default "
                   "1)", 0, 100000),
        PP_OPT_STRING('d', "device", &a->device, "NAME", "power source (default auto)"),
        PP_OPT_CALLBACK('r', "rate", &a->opts.rate_hz, "HZ", "sampling rate (default 50)",
                        rate_option),
        PP_OPT_RANGE(0, "idle-s", &a->idle_s, "S", "seconds of idle power measured first, for "
                     "plans\n(default 1; 0: none)", 0, 600, 0, "0 to 600"),
        PP_CLI_DEVICE_ROWS(&a->dev_opts),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"layers profile", profile_head, NULL, rows, NULL, 0};
    int rc = pp_opt_parse(&c, argc, argv);

    return rc == 0 ? 0 : rc == 1 ? 1 : -1;
}

static int profile_all(const profile_args *a, int n_cfgs, char (*paths)[PP_PATH_MAX], pp_device *dev)
{
    pp_layers_run_request rq = {a->out_dir, a->n_sizes, a->w, a->h, a->idle_s, &a->opts};
    pp_layers_result *res = NULL;
    size_t n = 0;
    int rc = pp_layers_run(&rq, n_cfgs, paths, dev, &res, &n);

    for (size_t k = 0; rc == 0 && k < n; k++)
        print_result(&res[k]);
    pp_layers_results_free(res, n);
    return rc;
}

static int cmd_profile(int argc, char **argv)
{
    profile_args a = {.out_dir = "results/layers", .device = "auto", .idle_s = 1.0};
    char (*paths)[PP_PATH_MAX] = NULL;
    pp_device *dev = NULL;
    int n_cfgs, rc, status = PP_EXIT_FAILURE;

    pp_layers_profile_opts_init(&a.opts);
    pp_device_options_init(&a.dev_opts);
    if ((rc = profile_options(argc, argv, &a)) != 0)
        return rc > 0 ? 0 : PP_EXIT_USAGE;
    if ((n_cfgs = argc - optind) < 1) {
        fprintf(stderr, "powprof layers profile: no network given (try --help)\n");
        return PP_EXIT_USAGE;
    }
    if (!(paths = calloc((size_t)n_cfgs, sizeof *paths)))
        return PP_EXIT_FAILURE;
    if (pp_layers_check_cfgs(n_cfgs, argv + optind, paths) < 0)
        goto out;
    if (mkdir(a.out_dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "powprof layers profile: %s: %s\n", a.out_dir, strerror(errno));
        goto out;
    }
    if (pp_device_open(a.device, &a.dev_opts, &dev) < 0)
        goto out;
    if (profile_all(&a, n_cfgs, paths, dev) == 0)
        status = 0;
    pp_device_close(dev);
out:
    free(paths);
    return status;
}

/* ---- layers model ------------------------------------------------------- */

static const char model_head[] =
    "usage: powprof layers model DIR... [-o MODEL.json] [--json]\n"
    "\n"
    "Fit, per layer kind, models of the CPU time, wall time and energy per frame\n"
    "of a layer from its shape, on the profiles in DIR... (layers.csv and\n"
    "networks.csv of 'powprof layers profile'). Families: linear and step\n"
    "(Blackthorn's templates over the layer's FLOPs and its channels), terms\n"
    "(the terms of darknet's CPU convolution, with steps at cache sizes) and\n"
    "power (a power law of the FLOPs), and the baseline rate (one rate of the\n"
    "FLOPs, or of the bytes moved). Each kind takes the family, shrunk toward\n"
    "the baseline, with the lowest leave-one-network-out error of its share of\n"
    "whole networks (every size of a network left out together); a kind in\n"
    "fewer than 3 networks takes the baseline. Kinds never profiled are\n"
    "predicted from their bytes and FLOPs (a memory and a compute rate fitted\n"
    "on every layer). Prints every family's error per kind, then the error of whole\n"
    "networks left out (the family chosen again inside each fold), against a\n"
    "baseline of FLOPs x one fitted rate; the latter is the error band of\n"
    "predictions (with one network profiled there is none).\n";

static void print_fits(const pp_layer_model *m)
{
    printf("leave-one-network-out RMSPE per layer kind (chosen family marked *):\n");
    printf("  %-9s %-14s %7s %4s  %9s %9s %9s %9s %9s\n", "quantity", "kind", "layers", "nets",
           "linear", "step", "terms", "power", "rate");
    for (int q = 0; q < PP_LQ_COUNT; q++)
        for (int k = 0; k <= PP_LAYER_KINDS; k++) {
            const pp_layer_fit *f = k < PP_LAYER_KINDS ? &m->fit[q][k] : &m->roofline[q];
            char why[160];
            if (f->family < 0)
                continue;
            printf("  %-9s %-14s %7zu %4zu ", pp_layers_quantity_name((pp_layers_quantity)q),
                   k < PP_LAYER_KINDS ? pp_layer_kind_name((pp_layer_kind)k) : "(roofline)",
                   f->n_samples, f->n_networks);
            for (int fam = 0; fam < PP_LF_COUNT; fam++) {
                const char *mark = fam == f->family ? "*" : " ";
                if (isfinite(f->loo_rmspe[fam]))
                    printf(" %7.1f%%%s", 100 * f->loo_rmspe[fam], mark);
                else
                    printf(" %8s%s", "-", mark);
            }
            pp_layer_fit_describe(f, why, sizeof why);
            printf("  %s\n", why);
        }
}

static void print_stats_row(const char *name, const pp_layers_eval_stats *s)
{
    printf("  %-10s %8.1f%% %8.1f%% %8.1f%%   %8.1f%% %8.1f%% %8.1f%%\n", name,
           100 * s->layer_rmspe, 100 * s->layer_rmspe_major, 100 * s->layer_rmspe_flops,
           100 * s->net_mape, 100 * s->net_rms, 100 * s->net_max);
}

static void print_eval(const pp_layers_eval *e)
{
    printf("\nnetworks left out (%zu networks, %zu runs): per-layer RMSPE (all layers, layers of "
           ">= 1 %% of their network, layers with FLOPs) and whole-network errors\n",
           e->n_networks, e->n_runs);
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        printf("  %-10s %9s %9s %9s   %9s %9s %9s\n", pp_layers_quantity_name((pp_layers_quantity)q),
               "all", ">=1%", "FLOPs", "MAPE", "RMS", "max");
        print_stats_row("chosen", &e->model[q]);
        for (int f = 0; f < PP_LF_COUNT; f++)
            print_stats_row(pp_layer_family_name((pp_layer_family)f), &e->family[f][q]);
        print_stats_row("FLOPs*rate", &e->baseline[q]);
    }
}

static json_t *stats_json(const pp_layers_eval_stats *s)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:I}", "layer_rmspe", s->layer_rmspe,
                     "layer_rmspe_major", s->layer_rmspe_major, "layer_rmspe_flops",
                     s->layer_rmspe_flops, "net_mape", s->net_mape, "net_rms", s->net_rms,
                     "net_max", s->net_max, "layers", (json_int_t)s->n_layers, "runs",
                     (json_int_t)s->n_runs);
}

static void print_eval_json(const pp_layers_eval *e, const char *path)
{
    json_t *root = json_pack("{s:s,s:I,s:I}", "model", path, "networks",
                             (json_int_t)e->n_networks, "runs", (json_int_t)e->n_runs);
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        json_t *o = json_pack("{s:o,s:o}", "chosen", stats_json(&e->model[q]), "baseline",
                              stats_json(&e->baseline[q]));
        for (int f = 0; f < PP_LF_COUNT; f++)
            json_object_set_new(o, pp_layer_family_name((pp_layer_family)f),
                                stats_json(&e->family[f][q]));
        json_object_set_new(root, pp_layers_quantity_name((pp_layers_quantity)q), o);
    }
    json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
    putchar('\n');
    json_decref(root);
}

/* Fit, evaluate and write; prints unless json. */
static int build_model(const pp_layers_data *d, const char *out, int json)
{
    pp_layer_model *m = malloc(sizeof *m);
    pp_layer_fit_opts o = {-1, NULL, 0};
    pp_layers_eval e;
    int rc = m ? pp_layer_model_fit(d, &o, m) : -ENOMEM;

    if (rc == 0 && m->n_networks < 2) {
        pp_log_warn("layer model: one network profiled: no leave-one-network-out error, and "
                    "predictions carry no band (profile another network)");
        if ((rc = pp_layer_model_write(m, out)) == 0 && !json)
            print_fits(m);
    } else if (rc == 0 && (rc = pp_layers_evaluate(d, &e)) == 0) {
        for (int q = 0; q < PP_LQ_COUNT; q++) {
            m->net_mape[q] = e.model[q].net_mape;
            m->net_rms[q] = e.model[q].net_rms;
        }
        if ((rc = pp_layer_model_write(m, out)) == 0 && json)
            print_eval_json(&e, out);
        if (rc == 0 && !json) {
            print_fits(m);
            print_eval(&e);
            printf("whole networks: the layers' sum x %.2f + FLOPs x one rate x %.2f (cpu_s; "
                   "chosen leave-one-network-out)\n", m->net_weight[PP_LQ_CPU],
                   1.0 - m->net_weight[PP_LQ_CPU]);
            printf("\nmodel: %s%s\n", out, m->estimated ? " (energies ESTIMATED)" : "");
        }
        pp_layers_eval_free(&e);
    }
    free(m);
    return rc;
}

static int cmd_model(int argc, char **argv)
{
    const char *out = NULL;
    char def[4096];
    pp_layers_data d = {0};
    int json = 0, rc = 0;
    const pp_opt rows[] = {
        PP_OPT_STRING('o', "output", &out, "FILE", "the model (default DIR/layer-model.json, "
                      "first DIR)"),
        PP_OPT_BOOL(0, "json", &json, "the errors as one JSON object on stdout"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"layers model", model_head, NULL, rows, NULL, 0};

    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 0 : rc;
    if (optind >= argc) {
        fprintf(stderr, "powprof layers model: no profile folder given (try --help)\n");
        return PP_EXIT_USAGE;
    }
    if (!out && pp_path_join(def, sizeof def, argv[optind], "layer-model.json") == 0)
        out = def;
    for (int i = optind; i < argc && rc == 0; i++)
        rc = pp_layers_data_read(argv[i], &d);
    if (rc == 0)
        rc = build_model(&d, out, json);
    pp_layers_data_free(&d);
    return rc == 0 ? 0 : PP_EXIT_FAILURE;
}

int pp_cmd_layers(int argc, char **argv)
{
    if (argc < 2) {
        fputs(layers_help, stderr);
        return PP_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(layers_help, stdout);
        return 0;
    }
    if (strcmp(argv[1], "profile") == 0)
        return cmd_profile(argc - 1, argv + 1);
    if (strcmp(argv[1], "model") == 0)
        return cmd_model(argc - 1, argv + 1);
    if (strcmp(argv[1], "predict") == 0)
        return pp_cli_layers_predict(argc - 1, argv + 1);
    fprintf(stderr, "powprof layers: unknown command '%s' (profile, model, predict; try --help)\n",
            argv[1]);
    return PP_EXIT_USAGE;
}
