/* powprof layers predict: the cost of networks never run, from a layer
 * model; a frame rate's power, and the highest rate a battery carries
 * through a mission (src/dnn/swap.h). */
#include "cli.h"

#include "src/api/layers_doc.h"

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

int pp_cli_layers_predict(int argc, char **argv)
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
