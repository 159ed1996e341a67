/* powprof layers predict: the cost of networks never run, from a layer
 * model; a frame rate's power, and the highest rate a battery carries
 * through a mission (src/dnn/swap.h). */
#include "cli.h"
#include "opt.h"

#include "src/base/log.h"
#include "src/dnn/layers_profile.h"
#include "src/dnn/swap.h"
#include "src/dnn/layers_json.h"
#include "src/dnn/layers_predict.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct predict_args {
    int width, height, json;
    double fps, mission_s, min_soc;
    int risk_mean; /* plan on the predicted cost, not its band's upper end */
    pp_battery_params battery;
} predict_args;

static json_t *layer_json(const pp_layer_desc *l, const double *v, const double *band)
{
    json_t *o = json_pack("{s:s,s:i,s:[i,i,i],s:[i,i,i],s:f,s:f,s:f,s:f}", "type",
                          pp_layer_kind_name(l->kind), "line", l->line, "input", l->in_w, l->in_h,
                          l->in_c, "output", l->out_w, l->out_h, l->out_c, "flops", l->flops,
                          "cpu_s", v[PP_LQ_CPU], "time_s", v[PP_LQ_WALL], "energy_j",
                          v[PP_LQ_ENERGY]);

    json_object_set_new(o, "cpu_band_s", pp_json_num(band[PP_LQ_CPU]));
    json_object_set_new(o, "energy_band_j", pp_json_num(band[PP_LQ_ENERGY]));
    return o;
}

/* The highest frame rate the battery carries through the mission; *core_fps
 * (may be NULL) the most one core sustains at the cost planned with. */
static int plan(const pp_layers_prediction *p, const pp_layer_model *m, const predict_args *a,
                double *fps, double *soc, double *core_fps)
{
    return pp_layers_prediction_plan(p, m, &a->battery, a->mission_s, a->min_soc, a->risk_mean,
                                     fps, soc, core_fps);
}

static json_t *prediction_json(const pp_network_desc *n, const pp_layers_prediction *p,
                               const pp_layer_model *m, const predict_args *a)
{
    json_t *layers = json_array();
    json_t *o = json_pack("{s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:b}", "network", n->name, "width",
                          n->width, "height", n->height, "flops", n->flops, "cpu_s",
                          p->total[PP_LQ_CPU], "time_s", p->total[PP_LQ_WALL], "energy_j",
                          p->total[PP_LQ_ENERGY], "max_fps", p->max_fps, "estimated",
                          m->estimated);

    for (size_t i = 0; i < n->n; i++)
        json_array_append_new(layers, layer_json(&n->layers[i], p->layer[i], p->layer_band[i]));
    json_object_set_new(o, "cpu_band_s", pp_json_num(p->band[PP_LQ_CPU]));
    json_object_set_new(o, "energy_band_j", pp_json_num(p->band[PP_LQ_ENERGY]));
    json_object_set_new(o, "unprofiled_frac", json_real(p->roofline_frac));
    json_object_set_new(o, "note", json_string(p->note));
    json_object_set_new(o, "outside_profiled_pixels", json_boolean(p->outside_pixels));
    if (a->fps > 0) {
        json_object_set_new(o, "fps", json_real(a->fps));
        json_object_set_new(o, "power_w", pp_json_num(pp_layers_prediction_power_at(p, m, a->fps)));
    }
    if (a->mission_s > 0) {
        double fps, soc;
        int rc = plan(p, m, a, &fps, &soc, NULL);
        json_object_set_new(o, "mission", json_pack("{s:f,s:s,s:o,s:o}", "mission_s",
                                                    a->mission_s, "risk",
                                                    a->risk_mean ? "mean" : "upper", "fps",
                                                    rc >= 0 ? json_real(fps) : json_null(),
                                                    "soc_end_frac", pp_json_num(soc)));
    }
    json_object_set_new(o, "layers", layers);
    return o;
}

static void print_prediction(const pp_network_desc *n, const pp_layers_prediction *p,
                             const pp_layer_model *m, const predict_args *a)
{
    printf("%s %dx%d: %zu layers, %.3f GFLOPs\n", n->name, n->width, n->height, n->n,
           n->flops * 1e-9);
    printf("  %5s %-14s %-16s %-16s %9s %19s %14s\n", "layer", "type", "input", "output",
           "GFLOPs", "CPU time ms", "energy mJ");
    for (size_t i = 0; i < n->n; i++) {
        const pp_layer_desc *l = &n->layers[i];
        char in[32], out[32];
        snprintf(in, sizeof in, "%dx%dx%d", l->in_w, l->in_h, l->in_c);
        snprintf(out, sizeof out, "%dx%dx%d", l->out_w, l->out_h, l->out_c);
        char band[32] = "     ?";
        if (isfinite(p->layer_band[i][PP_LQ_CPU]))
            snprintf(band, sizeof band, "%6.3f", 1e3 * p->layer_band[i][PP_LQ_CPU]);
        printf("  %5zu %-14s %-16s %-16s %9.4f %9.3f +- %s %14.3f\n", i,
               pp_layer_kind_name(l->kind), in, out, l->flops * 1e-9, 1e3 * p->layer[i][PP_LQ_CPU],
               band, 1e3 * p->layer[i][PP_LQ_ENERGY]);
    }
    printf("  total: %.4f s +- %.4f per frame on one core (%.1f fps at most), wall %.4f s here, "
           "%.4f J +- %.4f per frame%s\n", p->total[PP_LQ_CPU], p->band[PP_LQ_CPU], p->max_fps,
           p->total[PP_LQ_WALL], p->total[PP_LQ_ENERGY], p->band[PP_LQ_ENERGY],
           m->estimated ? " (ESTIMATED: the profiles had no power sensor)" : "");
    if (p->n_roofline)
        printf("  note: %zu layers of kinds never profiled (%s), %.1f %% of the time: predicted "
               "from their bytes and FLOPs, band doubled\n", p->n_roofline, p->note,
               100 * p->roofline_frac);
    if (a->fps > 0 && isfinite(pp_layers_prediction_power_at(p, m, a->fps)))
        printf("  at %g fps: %.3f W mean\n", a->fps, pp_layers_prediction_power_at(p, m, a->fps));
    else if (a->fps > 0)
        printf("  at %g fps: %s\n", a->fps, a->fps > p->max_fps ? "more than one core sustains"
                                                              : "unknown (no idle power in "
                                                                "the profiles)");
    if (a->mission_s > 0) {
        double fps, soc, core_fps;
        int rc = plan(p, m, a, &fps, &soc, &core_fps);
        if (rc == 0)
            printf("  mission of %g s, planned on the %s: up to %.2f fps%s, %.1f %% charge "
                   "left\n", a->mission_s,
                   a->risk_mean ? "predicted cost" : "upper end of the cost's band", fps,
                   fps >= core_fps * 0.999 ? " (all one core sustains)" : "", 100 * soc);
        else
            printf("  mission of %g s: %s\n", a->mission_s,
                   rc > 0 ? "the battery does not last it even idle"
                          : "cannot be planned (see the error above)");
    }
}

static int predict_options(int argc, char **argv, predict_args *a)
{
    pp_mission_settings mi;
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
    if ((a->width > 0) != (a->height > 0)) {
        fprintf(stderr, "powprof layers predict: give --width and --height together\n");
        return -1;
    }
    a->mission_s = mi.mission_s;
    a->min_soc = mi.min_soc_frac;
    a->risk_mean = mi.risk_mean;
    return pp_mission_settings_battery(&mi, &a->battery);
}

/* Predict one cfg; its JSON appended to arr, or printed. */
static int predict_one(const pp_layer_model *m, const char *name, const predict_args *a,
                       json_t *arr)
{
    char path[PP_PATH_MAX];
    pp_network_desc *n = malloc(sizeof *n);
    pp_layers_prediction p;
    int rc = n ? pp_layers_resolve_cfg(name, path, sizeof path) : -ENOMEM;

    if (rc == 0 && (rc = pp_layers_describe_file(path, a->width, a->height, n)) == 0 &&
        (rc = pp_layers_predict(m, n, &p)) == 0) {
        double fps, soc;
        json_t *o = NULL;
        if (a->mission_s > 0 && (rc = plan(&p, m, a, &fps, &soc, NULL)) > 0)
            rc = 0; /* not even idle lasts: an answer, printed below */
        if (rc == 0 && a->json &&
            (!(o = prediction_json(n, &p, m, a)) || json_array_append_new(arr, o) < 0)) {
            pp_log_error("%s: its prediction has a value JSON cannot hold", n->name);
            rc = -ERANGE;
        } else if (rc == 0 && !a->json) {
            print_prediction(n, &p, m, a);
        }
        pp_layers_prediction_free(&p);
    }
    free(n);
    return rc;
}

int pp_cli_layers_predict(int argc, char **argv)
{
    predict_args a = {.min_soc = -1};
    pp_layer_model *m;
    json_t *arr;
    int rc;

    if ((rc = predict_options(argc, argv, &a)) != 0)
        return rc > 0 ? 0 : PP_EXIT_USAGE;
    if (argc - optind < 2) {
        fprintf(stderr, "powprof layers predict: give a model and at least one cfg (try --help)\n");
        return PP_EXIT_USAGE;
    }
    if (!(m = malloc(sizeof *m)) || !(arr = json_array())) {
        free(m);
        return PP_EXIT_FAILURE;
    }
    rc = pp_layer_model_read(argv[optind], m);
    for (int i = optind + 1; i < argc && rc == 0; i++)
        rc = predict_one(m, argv[i], &a, arr);
    if (rc == 0 && a.json) {
        json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
        putchar('\n');
    }
    json_decref(arr);
    free(m);
    return rc == 0 ? 0 : PP_EXIT_FAILURE;
}

