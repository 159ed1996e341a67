/* powprof run: the main job. Profile, model, plot and a short report. */
#include "cli.h"

#include "profile.h"
#include "summary.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char run_help[] =
    "usage: powprof run CONFIG [-o DIR] [--resume] [--yes]\n"
    "\n"
    "The whole method on one configuration file: `powprof profile` (every\n"
    "configuration measured), `powprof model` (the layer-2 surfaces),\n"
    "`powprof plot` (PNG plots under DIR/plots/) and a short report: the\n"
    "configurations, the cheapest in power and in energy per iteration, and,\n"
    "when CONFIG has a mission group, the plan (`powprof plan --schedule`).\n"
    "DIR defaults to results/<profile name>.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       results folder\n"
    "  --resume               continue an interrupted run\n"
    "  --yes                  no confirmation for more than 10000 configurations\n"
    "  -h, --help             this help\n";

enum { OPT_RESUME = 7000, OPT_YES };

static void report(const char *dir)
{
    static const char *const cols[] = {"total_mean_w", "total_energy_j", "energy_per_iteration_j",
                                       "soc_drain", "time_to_cutoff_s"};
    pp_summary s;
    int idx[5];
    size_t cheapest_w = 0, cheapest_it = 0;

    if (pp_summary_read(dir, &s) < 0)
        return;
    for (int c = 0; c < 5; c++)
        idx[c] = pp_summary_metric(&s, cols[c]);
    printf("\n%-5s", "id");
    for (size_t k = 0; k < s.n_params; k++)
        printf(" %16s", s.params[k]);
    printf(" %13s %13s %13s %11s %13s\n", "mean [W]", "energy [J]", "J/iteration", "drain [%]",
           "cutoff [min]");
    for (size_t i = 0; i < s.n_rows; i++) {
        double v[5];
        for (int c = 0; c < 5; c++)
            v[c] = idx[c] >= 0 ? s.y[i * s.n_metrics + (size_t)idx[c]] : NAN;
        printf("%-5ld", s.ids[i]);
        for (size_t k = 0; k < s.n_params; k++)
            printf(" %16g", s.x[i * s.n_params + k]);
        printf(" %13.4f %13.3f %13.5f %11.5f %13.1f\n", v[0], v[1], v[2], 100 * v[3], v[4] / 60);
        if (idx[0] >= 0 && v[0] < s.y[cheapest_w * s.n_metrics + (size_t)idx[0]])
            cheapest_w = i;
        if (idx[2] >= 0 && v[2] < s.y[cheapest_it * s.n_metrics + (size_t)idx[2]])
            cheapest_it = i;
    }
    if (idx[0] >= 0)
        printf("\nlowest mean power: id %ld (%.4f W)\n", s.ids[cheapest_w],
               s.y[cheapest_w * s.n_metrics + (size_t)idx[0]]);
    if (idx[2] >= 0 && !isnan(s.y[cheapest_it * s.n_metrics + (size_t)idx[2]]))
        printf("lowest energy per iteration: id %ld (%.5f J)\n", s.ids[cheapest_it],
               s.y[cheapest_it * s.n_metrics + (size_t)idx[2]]);
    if (s.n_left_out)
        printf("%zu configurations did not run to the end (status not ok): see %s/summary.csv\n",
               s.n_left_out, dir);
    pp_summary_free(&s);
}

int pp_cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"yes", no_argument, NULL, OPT_YES},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *config;
    int resume = 0, yes = 0, opt, rc;
    char dir[4096], mission[64], base[64], min_soc[64], maximize[160];
    int has_mission;
    pp_profile *p;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(run_help, stdout);
            return 0;
        case 'o':
            out = optarg;
            break;
        case OPT_RESUME:
            resume = 1;
            break;
        case OPT_YES:
            yes = 1;
            break;
        default:
            fputs("Try 'powprof run --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs("powprof run: one configuration file expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    config = argv[optind]; /* the commands called below move optind */
    p = malloc(sizeof *p);
    if (!p)
        return PP_EXIT_FAILURE;
    if (pp_profile_load(config, p) < 0) {
        free(p);
        return PP_EXIT_USAGE;
    }
    if (out)
        pp_strlcpy(dir, out, sizeof dir);
    else if (pp_path_fmt(dir, sizeof dir, "results", "%s", p->name) < 0) {
        free(p);
        return PP_EXIT_USAGE;
    }
    has_mission = p->has_mission;
    pp_fmt(mission, sizeof mission, "%.10g", p->mission_s);
    pp_fmt(base, sizeof base, "%.10g", p->mission_base_power_w);
    pp_fmt(min_soc, sizeof min_soc, "%.10g", p->mission_min_soc);
    pp_strlcpy(maximize, p->mission_maximize, sizeof maximize);
    free(p);
    {
        char *pargv[8];
        int n = 0;
        pargv[n++] = "profile";
        pargv[n++] = (char *)config;
        pargv[n++] = "-o";
        pargv[n++] = dir;
        if (resume)
            pargv[n++] = "--resume";
        if (yes)
            pargv[n++] = "--yes";
        pargv[n] = NULL;
        rc = pp_cmd_profile(n, pargv);
        if (rc != 0 && rc != 1) /* 1: some configurations failed; the rest is worth modelling */
            return rc;
    }
    printf("\n== layer 2\n");
    if (pp_model_build(dir, 0, 0, 0) != 0)
        return PP_EXIT_FAILURE;
    printf("\n== plots\n");
    {
        char *pargv[] = {"plot", dir, NULL};
        if (pp_cmd_plot(2, pargv) != 0)
            return PP_EXIT_FAILURE;
    }
    printf("\n== report");
    report(dir);
    if (has_mission) {
        char *pargv[16];
        int n = 0;
        printf("\n== mission plan\n");
        pargv[n++] = "plan";
        pargv[n++] = dir;
        pargv[n++] = "--mission-s";
        pargv[n++] = mission;
        pargv[n++] = "-c";
        pargv[n++] = (char *)config;
        if (base[0] != '-') {
            pargv[n++] = "--base-power-w";
            pargv[n++] = base;
        }
        if (min_soc[0] != '-') {
            pargv[n++] = "--min-soc";
            pargv[n++] = min_soc;
        }
        if (maximize[0]) {
            pargv[n++] = "--maximize";
            pargv[n++] = maximize;
        }
        pargv[n++] = "--schedule";
        pargv[n] = NULL;
        rc = pp_cmd_plan(n, pargv);
        if (rc != 0 && rc != 3)
            return rc;
    }
    return 0;
}
