/* powprof layers: per-layer profiles of darknet networks, layer models, and
 * predictions for networks never run. */
#include "cli.h"

#include "src/api/layers_doc.h"

#include <string.h>

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

    if ((a->n_sizes = pp_layers_sizes_parse(arg, a->w, a->h, MAX_SIZES)) >= 0)
        return 0;
    fprintf(stderr, "powprof %s: --sizes '%s': WxH[,WxH...] with W and H from 1 to 8192, at most "
                    "%d sizes\n", cmd, arg, MAX_SIZES);
    return -1;
}

static int rate_option(const pp_opt *row, const char *arg, const char *cmd)
{
    int rc = pp_layers_rate_parse(arg, row->value);

    if (rc == -EINVAL)
        fprintf(stderr, "powprof %s: --rate '%s' is not a number\n", cmd, arg);
    return rc < 0 ? -1 : 0;
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

static int cmd_profile(int argc, char **argv)
{
    profile_args a = {.out_dir = "results/layers", .device = "auto", .idle_s = 1.0};
    char why[PP_PATH_MAX + 100];
    int rc;

    pp_layers_profile_opts_init(&a.opts);
    pp_device_options_init(&a.dev_opts);
    if ((rc = profile_options(argc, argv, &a)) != 0)
        return rc > 0 ? 0 : PP_EXIT_USAGE;
    if (argc - optind < 1) {
        fprintf(stderr, "powprof layers profile: no network given (try --help)\n");
        return PP_EXIT_USAGE;
    }
    pp_layers_run_request rq = {a.out_dir, a.n_sizes, a.w, a.h, a.idle_s, &a.opts};
    rc = pp_layers_profile_answer(&rq, a.device, &a.dev_opts, argc - optind, argv + optind, why,
                                  sizeof why);
    if (rc < 0 && why[0])
        fprintf(stderr, "powprof layers profile: %s\n", why);
    return rc == 0 ? 0 : PP_EXIT_FAILURE;
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

static int cmd_model(int argc, char **argv)
{
    const char *out = NULL;
    char def[4096];
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
    rc = pp_layers_model_build(argc - optind, argv + optind, out, json);
    return rc == 0 ? 0 : PP_EXIT_FAILURE;
}

/* ---- layers predict ----------------------------------------------------- */

static const char predict_head[] =
    "usage: powprof layers predict MODEL.json CFG... [--width W --height H] [--fps F]\n"
    "                              [--mission-s S [-c CONFIG] [--base-power-w W]\n"
    "                              [--min-soc F] [--risk upper|mean]] [--json]\n"
    "\n"
    "The cost per frame of each network CFG (never run: its cfg is read by\n"
    "powprof, darknet is not needed) under a layer model: every layer's CPU\n"
    "time, wall time and energy, with the error band of its kind, and the\n"
    "totals with the model's whole-network error band; the highest frame rate\n"
    "one core sustains (1 / CPU time); with --fps, the mean power of the device\n"
    "running the network at that rate (idle power between frames); with\n"
    "--mission-s, the highest frame rate at which the battery carries the\n"
    "mission (a plan for networks never run).\n";

static int predict_options(int argc, char **argv, pp_layers_predict_request *a)
{
    pp_mission_settings mi;
    char why[160];
    const pp_opt opts[] = {
        PP_OPT_INT(0, "width", &a->width, "W", "input width (default: the cfg's own; with "
                   "--height)", 1, 100000),
        PP_OPT_INT(0, "height", &a->height, "H", "input height (default: the cfg's own)", 1,
                   100000),
        PP_OPT_RANGE(0, "fps", &a->fps, "F", "frames per second for the mean power", 0, HUGE_VAL,
                     PP_OPT_LO_OPEN, "frames per second > 0"),
        PP_CLI_MISSION_S_ROW(&mi, "mission length in seconds"),
        PP_OPT_STRING('c', "config", &mi.config, "FILE", "battery parameters (its 'battery' "
                      "group; default the\ndrone-4s-3200 preset)"),
        PP_CLI_BASE_POWER_ROW(&mi, "constant load beside the computer (motors, ...)"),
        PP_CLI_RISK_ROW(&mi, "plan on the upper end of the cost's band (default,\nas powprof "
                        "plan) or on the predicted cost"),
        PP_CLI_MIN_SOC_ROW(&mi, "state of charge to keep (default: the battery's\nsoc_cutoff)"),
        PP_OPT_BOOL(0, "json", &a->json, "one JSON object on stdout"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"layers predict", predict_head, NULL, opts, NULL, 0};
    int rc;

    pp_mission_settings_init(&mi);
    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 1 : -1;
    if (pp_layers_predict_check(a, why, sizeof why) < 0) {
        fprintf(stderr, "powprof layers predict: %s\n", why);
        return -1;
    }
    a->mission_s = mi.mission_s;
    a->min_soc = mi.min_soc_frac;
    a->risk_mean = mi.risk_mean;
    return pp_mission_settings_battery(&mi, &a->battery);
}

static int cmd_predict(int argc, char **argv)
{
    pp_layers_predict_request a = {.min_soc = -1};
    int rc;

    if ((rc = predict_options(argc, argv, &a)) != 0)
        return rc > 0 ? 0 : PP_EXIT_USAGE;
    if (argc - optind < 2) {
        fprintf(stderr, "powprof layers predict: give a model and at least one cfg (try --help)\n");
        return PP_EXIT_USAGE;
    }
    rc = pp_layers_predict_print(argv[optind], argc - optind - 1, argv + optind + 1, &a);
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
        return cmd_predict(argc - 1, argv + 1);
    fprintf(stderr, "powprof layers: unknown command '%s' (profile, model, predict; try --help)\n",
            argv[1]);
    return PP_EXIT_USAGE;
}
