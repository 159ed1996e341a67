/* powprof run: the main job. Profile, model, plot and a short report. */
#include "cli.h"

#include "plan.h"
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
    "`powprof plot` (PNG plots under DIR/plots/) and a short report: each\n"
    "configuration's mean power and energy (the computer's), energy per\n"
    "iteration, late frames and achieved rates (paced components), and the\n"
    "battery drained and the time to cutoff under the loads the plan counts\n"
    "(the computer through its converter plus the mission's base load, or the\n"
    "battery group's without a mission), said above the table; the cheapest in\n"
    "power and in energy per iteration; and, when CONFIG has a mission group,\n"
    "the plan (`powprof plan --schedule`). DIR defaults to results/<profile name>.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       results folder\n"
    "  --resume               continue an interrupted run\n"
    "  --yes                  no confirmation for more than 10000 configurations\n"
    "  -h, --help             this help\n";

enum { OPT_RESUME = 7000, OPT_YES };

/* Achieved-rate columns (<component>.achieved_fps / _hz) of s. */
static size_t achieved_columns(const pp_summary *s, int *col, size_t cap)
{
    size_t n = 0;

    for (size_t k = 0; k < s->n_metrics && n < cap; k++)
        if (strstr(s->metrics[k], ".achieved_"))
            col[n++] = (int)k;
    return n;
}

static void report_header(const pp_summary *s, const pp_battery_params *b, int mission,
                          const int *ach, size_t n_ach)
{
    printf("\nloads: mean and energy are the computer's (its rails counted in the total); drain "
           "and cutoff are the battery's with the computer at that mean power through its "
           "converter (efficiency %.2f) plus a base load of %.1f W (%s), the loads the plan "
           "counts.\n", b->efficiency, b->base_power_w,
           mission ? "the mission's" : "the battery group's");
    printf("%-5s", "id");
    for (size_t k = 0; k < s->n_params; k++)
        printf(" %16s", s->params[k]);
    printf(" %10s %12s %12s %6s", "mean [W]", "energy [J]", "J/iteration", "late");
    for (size_t a = 0; a < n_ach; a++)
        printf(" %*s", (int)strlen(s->metrics[ach[a]]), s->metrics[ach[a]]);
    printf(" %10s %12s\n", "drain [%]", "cutoff [min]");
}

/* One line per configuration: what was measured, and the battery under
 * the plan's loads. */
static void report(const char *dir, const pp_battery_params *b, int mission)
{
    pp_summary s;
    int w, e, it, d, ach[8];
    size_t n_ach, cheapest_w = 0, cheapest_it = 0;

    if (pp_summary_read(dir, &s) < 0)
        return;
    w = pp_summary_metric(&s, "total_mean_w");
    e = pp_summary_metric(&s, "total_energy_j");
    it = pp_summary_metric(&s, "energy_per_iteration_j");
    d = pp_summary_metric(&s, "duration_s");
    n_ach = achieved_columns(&s, ach, 8);
    report_header(&s, b, mission, ach, n_ach);
    for (size_t i = 0; i < s.n_rows; i++) {
        double mean = w >= 0 ? s.y[i * s.n_metrics + (size_t)w] : NAN, drain = NAN, ttc = NAN;
        printf("%-5ld", s.ids[i]);
        for (size_t k = 0; k < s.n_params; k++) {
            char text[PP_SUMMARY_LABEL_MAX];
            pp_summary_value_text(&s, k, s.x[i * s.n_params + k], text, sizeof text);
            printf(" %16s", text);
        }
        printf(" %10.4f %12.3f %12.5f", mean, e >= 0 ? s.y[i * s.n_metrics + (size_t)e] : NAN,
               it >= 0 ? s.y[i * s.n_metrics + (size_t)it] : NAN);
        if (s.late_frames[i] >= 0)
            printf(" %6ld", s.late_frames[i]);
        else
            printf(" %6s", "");
        for (size_t a = 0; a < n_ach; a++)
            printf(" %*.4g", (int)strlen(s.metrics[ach[a]]), s.y[i * s.n_metrics + (size_t)ach[a]]);
        if (!isnan(mean) && d >= 0 && s.y[i * s.n_metrics + (size_t)d] > 0)
            pp_plan_constant_load(b, mean, s.y[i * s.n_metrics + (size_t)d], &drain, &ttc);
        printf(" %10.5f %12.1f\n", 100 * drain, ttc / 60);
        if (w >= 0 && mean < s.y[cheapest_w * s.n_metrics + (size_t)w])
            cheapest_w = i;
        if (it >= 0 && s.y[i * s.n_metrics + (size_t)it] < s.y[cheapest_it * s.n_metrics + (size_t)it])
            cheapest_it = i;
    }
    printf("drain: over the configuration's duration; cutoff: if it ran on until the battery's "
           "cutoff\n");
    if (w >= 0)
        printf("lowest mean power: id %ld (%.4f W)\n", s.ids[cheapest_w],
               s.y[cheapest_w * s.n_metrics + (size_t)w]);
    if (it >= 0 && !isnan(s.y[cheapest_it * s.n_metrics + (size_t)it]))
        printf("lowest energy per iteration: id %ld (%.5f J)\n", s.ids[cheapest_it],
               s.y[cheapest_it * s.n_metrics + (size_t)it]);
    if (s.n_left_out)
        printf("%zu configurations did not run to the end (status not ok): see %s/summary.csv\n",
               s.n_left_out, dir);
    pp_summary_free(&s);
}

/* What the run needs of the profile, read before it runs. */
typedef struct run_settings {
    char dir[4096], mission[64], base[64], min_soc[64], maximize[160];
    int has_mission, base_given;
    pp_battery_params battery; /* the plan's loads: the mission's base load when given */
} run_settings;

static int load_settings(const char *config, const char *out, run_settings *rs)
{
    pp_profile *p = malloc(sizeof *p);

    if (!p)
        return PP_EXIT_FAILURE;
    if (pp_profile_load(config, p) < 0) {
        free(p);
        return PP_EXIT_USAGE;
    }
    if (out)
        pp_strlcpy(rs->dir, out, sizeof rs->dir);
    else if (pp_path_fmt(rs->dir, sizeof rs->dir, "results", "%s", p->name) < 0) {
        free(p);
        return PP_EXIT_USAGE;
    }
    rs->has_mission = p->has_mission;
    rs->battery = p->battery;
    rs->base_given = p->has_mission && p->mission_base_power_w >= 0;
    if (rs->base_given)
        rs->battery.base_power_w = p->mission_base_power_w;
    pp_fmt(rs->mission, sizeof rs->mission, "%.10g", p->mission_s);
    pp_fmt(rs->base, sizeof rs->base, "%.10g", p->mission_base_power_w);
    pp_fmt(rs->min_soc, sizeof rs->min_soc, "%.10g", p->mission_min_soc);
    pp_strlcpy(rs->maximize, p->mission_maximize, sizeof rs->maximize);
    free(p);
    return 0;
}

static int run_plan(const char *config, run_settings *rs)
{
    char *pargv[16];
    int n = 0, rc;

    printf("\n== mission plan\n");
    pargv[n++] = "plan";
    pargv[n++] = rs->dir;
    pargv[n++] = "--mission-s";
    pargv[n++] = rs->mission;
    pargv[n++] = "-c";
    pargv[n++] = (char *)config;
    if (rs->base_given) {
        pargv[n++] = "--base-power-w";
        pargv[n++] = rs->base;
    }
    if (rs->min_soc[0] != '-') {
        pargv[n++] = "--min-soc";
        pargv[n++] = rs->min_soc;
    }
    if (rs->maximize[0]) {
        pargv[n++] = "--maximize";
        pargv[n++] = rs->maximize;
    }
    pargv[n++] = "--schedule";
    pargv[n] = NULL;
    rc = pp_cmd_plan(n, pargv);
    return rc == 3 ? 0 : rc;
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
    char *pargv[8];
    int resume = 0, yes = 0, opt, rc, n = 0;
    run_settings rs;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(run_help, stdout);
            return 0;
        } else if (opt == 'o') {
            out = optarg;
        } else if (opt == OPT_RESUME || opt == OPT_YES) {
            *(opt == OPT_RESUME ? &resume : &yes) = 1;
        } else {
            fputs("Try 'powprof run --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs("powprof run: one configuration file expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    config = argv[optind]; /* the commands called below move optind */
    if ((rc = load_settings(config, out, &rs)) != 0)
        return rc;
    pargv[n++] = "profile";
    pargv[n++] = (char *)config;
    pargv[n++] = "-o";
    pargv[n++] = rs.dir;
    if (resume)
        pargv[n++] = "--resume";
    if (yes)
        pargv[n++] = "--yes";
    pargv[n] = NULL;
    rc = pp_cmd_profile(n, pargv);
    if (rc != 0 && rc != 1) /* 1: some configurations failed; the rest is worth modelling */
        return rc;
    printf("\n== layer 2\n");
    if (pp_model_build(rs.dir, 0, 0, 0) != 0)
        return PP_EXIT_FAILURE;
    printf("\n== plots\n");
    pargv[0] = "plot";
    pargv[1] = rs.dir;
    pargv[2] = NULL;
    if (pp_cmd_plot(2, pargv) != 0)
        return PP_EXIT_FAILURE;
    printf("\n== report");
    report(rs.dir, &rs.battery, rs.base_given);
    return rs.has_mission ? run_plan(config, &rs) : 0;
}
