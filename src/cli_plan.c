/* powprof plan: the best quality of service the battery can carry through a
 * mission, from the layer-2 surface of the total mean power. */
#include "cli.h"

#include "config.h"
#include "log.h"
#include "summary.h"
#include "surface.h"
#include "util.h"

#include "battery_config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char plan_help[] =
    "usage: powprof plan RESULTS --mission-s S [--maximize NAME] [--min-soc F]\n"
    "                    [--base-power-w W] [-c CONFIG] [--schedule] [--json]\n"
    "\n"
    "Find the configuration, anywhere in the modelled space (not only the\n"
    "measured ones), with the highest value of the quality-of-service parameter\n"
    "NAME such that the battery, drained by its predicted total power plus the\n"
    "constant base load, completes a mission of S seconds with a state of charge\n"
    "of at least F and no cutoff event. Prints it with its predicted power, end\n"
    "state of charge and time to cutoff, and the runners-up. When no\n"
    "configuration completes the mission, says so, and how long the most frugal\n"
    "one lasts. --schedule: a step-down plan, the highest quality while the\n"
    "charge allows it and lower ones after, with the time of each switch.\n"
    "\n"
    "options:\n"
    "  --mission-s S          mission length in seconds (required)\n"
    "  --maximize NAME        the parameter to maximize (default: a *.fps\n"
    "                         parameter, else the first)\n"
    "  --min-soc F            state of charge to keep at the end (default: the\n"
    "                         battery's soc_cutoff)\n"
    "  --base-power-w W       constant load beside the computer (motors, ...)\n"
    "  -c, --config FILE      battery parameters (its 'battery' group; default\n"
    "                         the drone-4s-3200 preset)\n"
    "  --schedule             a step-down schedule\n"
    "  --json                 one JSON object on stdout\n"
    "  -h, --help             this help\n"
    "\n"
    "exit status: 0 with a plan, 3 when no configuration completes the mission.\n";

enum { OPT_MISSION = 8000, OPT_MAXIMIZE, OPT_MIN_SOC, OPT_BASE, OPT_SCHEDULE };

#define MAX_CANDIDATES 200000

typedef struct candidate {
    double qos, power_w;
    double raw[PP_SURFACE_MAX_DIMS];
} candidate;

/* Battery under a constant computer load for duration_s from soc_start:
 * 0 when it lasts (soc_end >= min_soc, no event). */
static int lasts(const pp_battery_params *b, double power_w, double soc_start, double duration_s,
                 double min_soc, double *soc_end, double *ttc)
{
    pp_battery_params p = *b;
    pp_battery_options o;
    pp_battery_result r;
    double t[2] = {0, duration_s}, w[2] = {power_w, power_w};
    pp_battery_load load = {.t_s = t, .p_w = w, .n = 2};

    p.soc_start_frac = soc_start;
    if (p.soc_cutoff_frac >= soc_start)
        p.soc_cutoff_frac = 0.0;
    pp_battery_options_init(&o);
    o.time_to_cutoff = ttc != NULL;
    if (pp_battery_run(&p, &load, &o, &r) < 0)
        return -1;
    if (soc_end)
        *soc_end = r.soc_end_frac;
    if (ttc)
        *ttc = r.time_to_cutoff_s;
    return r.n_events == 0 && r.soc_end_frac >= min_soc ? 0 : 1;
}

static int cmp_candidate(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->qos != y->qos)
        return x->qos < y->qos ? 1 : -1; /* highest quality first */
    return (x->power_w > y->power_w) - (x->power_w < y->power_w);
}

int pp_cmd_plan(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"mission-s", required_argument, NULL, OPT_MISSION},
        {"maximize", required_argument, NULL, OPT_MAXIMIZE},
        {"min-soc", required_argument, NULL, OPT_MIN_SOC},
        {"base-power-w", required_argument, NULL, OPT_BASE},
        {"config", required_argument, NULL, 'c'},
        {"schedule", no_argument, NULL, OPT_SCHEDULE},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    const char *maximize = NULL, *config_path = NULL, *dir;
    double mission_s = -1, min_soc = -1, base_w = -1, sigma = 0.1;
    int json = 0, schedule = 0, opt, status = PP_EXIT_USAGE, q = -1, mw;
    pp_battery_params bat;
    pp_summary sum;
    pp_surface surf;
    candidate *cand = NULL;
    size_t n_cand = 0, per_dim;
    double *y = NULL;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "hc:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(plan_help, stdout);
            return 0;
        case OPT_MISSION:
            if (pp_parse_double(optarg, &mission_s) < 0 || !(mission_s > 0)) {
                fprintf(stderr, "powprof plan: --mission-s %s: seconds > 0\n", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case OPT_MAXIMIZE:
            maximize = optarg;
            break;
        case OPT_MIN_SOC:
            if (pp_parse_double(optarg, &min_soc) < 0 || !(min_soc >= 0 && min_soc < 1)) {
                fprintf(stderr, "powprof plan: --min-soc %s: a fraction in [0, 1)\n", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case OPT_BASE:
            if (pp_parse_double(optarg, &base_w) < 0 || !(base_w >= 0)) {
                fprintf(stderr, "powprof plan: --base-power-w %s: watts >= 0\n", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case 'c':
            config_path = optarg;
            break;
        case OPT_SCHEDULE:
            schedule = 1;
            break;
        case PP_OPT_JSON:
            json = 1;
            break;
        default:
            fputs("Try 'powprof plan --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || mission_s < 0) {
        fputs("powprof plan: a results folder and --mission-s S are needed\n", stderr);
        return PP_EXIT_USAGE;
    }
    dir = argv[optind];
    pp_battery_params_default(&bat);
    if (config_path && pp_battery_params_load(config_path, &bat) < 0)
        return PP_EXIT_USAGE;
    if (base_w >= 0)
        bat.base_power_w = base_w;
    if (min_soc < 0)
        min_soc = bat.soc_cutoff_frac;
    else if (min_soc < bat.soc_start_frac)
        bat.soc_cutoff_frac = min_soc; /* the reserve of this mission replaces the battery's */
    else {
        fprintf(stderr, "powprof plan: --min-soc %g is not below the battery's start (%g)\n",
                min_soc, bat.soc_start_frac);
        return PP_EXIT_USAGE;
    }
    if (pp_summary_read(dir, &sum) < 0)
        return PP_EXIT_USAGE;
    if (sum.n_params == 0 || (mw = pp_summary_metric(&sum, "total_mean_w")) < 0) {
        fprintf(stderr, "powprof plan: %s/summary.csv has no parameters or no total_mean_w\n", dir);
        pp_summary_free(&sum);
        return PP_EXIT_USAGE;
    }
    if (maximize) {
        q = pp_summary_param(&sum, maximize);
        if (q < 0) {
            fprintf(stderr, "powprof plan: --maximize %s: no such parameter (its parameters:", maximize);
            for (size_t k = 0; k < sum.n_params; k++)
                fprintf(stderr, " %s", sum.params[k]);
            fprintf(stderr, ")\n");
            pp_summary_free(&sum);
            return PP_EXIT_USAGE;
        }
    } else {
        for (size_t k = 0; k < sum.n_params && q < 0; k++) {
            size_t n = strlen(sum.params[k]);
            if (n >= 3 && strcmp(sum.params[k] + n - 3, "fps") == 0)
                q = (int)k;
        }
        if (q < 0)
            q = 0;
    }
    if (pp_surface_init(&surf, sum.x, sum.n_rows, sum.n_params, sum.log_scale) < 0) {
        pp_summary_free(&sum);
        return PP_EXIT_USAGE;
    }
    y = malloc(sum.n_rows * sizeof *y);
    cand = malloc(MAX_CANDIDATES * sizeof *cand);
    if (!y || !cand) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    for (size_t i = 0; i < sum.n_rows; i++)
        y[i] = sum.y[i * sum.n_metrics + (size_t)mw];
    {
        pp_surface_fit fit;
        if (pp_surface_choose_sigma(&surf, y, 0, &fit) == 0)
            sigma = fit.sigma;
    }
    /* a grid over the modelled space: up to MAX_CANDIDATES points */
    per_dim = 2;
    while (pow((double)(per_dim + 1), (double)surf.d) <= MAX_CANDIDATES && per_dim < 101)
        per_dim++;
    {
        size_t idx[PP_SURFACE_MAX_DIMS] = {0};
        for (;;) {
            double xn[PP_SURFACE_MAX_DIMS];
            candidate *c = &cand[n_cand];
            for (size_t j = 0; j < surf.d; j++) {
                xn[j] = surf.k[j] > 1 ? (double)idx[j] / (double)(per_dim - 1) : 0.0;
                c->raw[j] = pp_surface_denormalize(&surf, j, xn[j]);
            }
            c->qos = c->raw[q];
            c->power_w = pp_surface_predict(&surf, y, sigma, xn);
            n_cand++;
            {
                size_t j = 0;
                while (j < surf.d) {
                    if (surf.k[j] > 1 && ++idx[j] < per_dim)
                        break;
                    idx[j] = 0;
                    j++;
                }
                if (j == surf.d || n_cand == MAX_CANDIDATES)
                    break;
            }
        }
    }
    qsort(cand, n_cand, sizeof *cand, cmp_candidate);
    {
        /* the most power the battery can give for the whole mission */
        double lo = 0, hi = 1000, p_max;
        size_t best = n_cand, frugal = 0;
        if (lasts(&bat, 0, bat.soc_start_frac, mission_s, min_soc, NULL, NULL) != 0) {
            p_max = -1; /* not even with the computer off */
        } else {
            while (lasts(&bat, hi, bat.soc_start_frac, mission_s, min_soc, NULL, NULL) == 0 && hi < 1e6)
                hi *= 2;
            for (int it = 0; it < 50; it++) {
                double mid = 0.5 * (lo + hi);
                if (lasts(&bat, mid, bat.soc_start_frac, mission_s, min_soc, NULL, NULL) == 0)
                    lo = mid;
                else
                    hi = mid;
            }
            p_max = lo;
        }
        for (size_t i = 0; i < n_cand; i++) {
            if (cand[i].power_w < cand[frugal].power_w)
                frugal = i;
            if (best == n_cand && cand[i].power_w <= p_max)
                best = i;
        }
        if (best == n_cand) {
            double ttc = NAN;
            lasts(&bat, cand[frugal].power_w, bat.soc_start_frac, mission_s, min_soc, NULL, &ttc);
            if (json) {
                printf("{\"feasible\":false,\"mission_s\":%g,\"most_frugal\":{", mission_s);
                for (size_t j = 0; j < surf.d; j++) {
                    pp_json_string(stdout, sum.params[j]);
                    printf(":%.6g,", cand[frugal].raw[j]);
                }
                printf("\"power_w\":%.6g,\"time_to_cutoff_s\":", cand[frugal].power_w);
                pp_json_number(stdout, ttc);
                printf("}}\n");
            } else {
                printf("no configuration completes a %.0f s mission with %.0f %% left (base load "
                       "%.1f W).\nThe most frugal one,", mission_s, 100 * min_soc, bat.base_power_w);
                for (size_t j = 0; j < surf.d; j++)
                    printf(" %s=%g", sum.params[j], cand[frugal].raw[j]);
                printf(" (%.3f W predicted), lasts %.0f s (%.1f min) to cutoff.\n",
                       cand[frugal].power_w, ttc, ttc / 60);
            }
            status = 3;
            goto out;
        }
        {
            double soc_end = NAN, ttc = NAN;
            size_t shown = 0;
            lasts(&bat, cand[best].power_w, bat.soc_start_frac, mission_s, min_soc, &soc_end, &ttc);
            if (json) {
                printf("{\"feasible\":true,\"mission_s\":%g,\"maximize\":", mission_s);
                pp_json_string(stdout, sum.params[q]);
                printf(",\"max_power_w\":%.6g,\"best\":{", p_max);
                for (size_t j = 0; j < surf.d; j++) {
                    pp_json_string(stdout, sum.params[j]);
                    printf(":%.6g,", cand[best].raw[j]);
                }
                printf("\"power_w\":%.6g,\"soc_end\":%.6g,\"time_to_cutoff_s\":", cand[best].power_w,
                       soc_end);
                pp_json_number(stdout, ttc);
                printf("}");
            } else {
                printf("mission %.0f s, base load %.1f W, keep %.0f %%: the battery gives at most "
                       "%.3f W to the computer\n", mission_s, bat.base_power_w, 100 * min_soc, p_max);
                printf("best: %s = %g%s", sum.params[q], cand[best].qos, surf.d > 1 ? " with" : "");
                for (size_t j = 0; j < surf.d; j++)
                    if ((int)j != q)
                        printf(" %s=%g", sum.params[j], cand[best].raw[j]);
                printf(": %.3f W predicted, %.1f %% left at the end, cutoff after %.1f min\n",
                       cand[best].power_w, 100 * soc_end, ttc / 60);
                printf("runners-up:\n");
            }
            if (json)
                printf(",\"runners_up\":[");
            for (size_t i = best + 1; i < n_cand && shown < 5; i++) {
                if (cand[i].power_w > p_max || cand[i].qos == cand[i - 1].qos)
                    continue;
                if (json) {
                    printf("%s{", shown ? "," : "");
                    for (size_t j = 0; j < surf.d; j++) {
                        pp_json_string(stdout, sum.params[j]);
                        printf(":%.6g,", cand[i].raw[j]);
                    }
                    printf("\"power_w\":%.6g}", cand[i].power_w);
                } else {
                    printf("  %s = %g%s", sum.params[q], cand[i].qos, surf.d > 1 ? " with" : "");
                    for (size_t j = 0; j < surf.d; j++)
                        if ((int)j != q)
                            printf(" %s=%g", sum.params[j], cand[i].raw[j]);
                    printf(": %.3f W\n", cand[i].power_w);
                }
                shown++;
            }
            if (json)
                printf("]");
            if (schedule) {
                /* step down: the best affordable quality at each moment,
                 * keeping enough charge to finish at the most frugal one */
                double t = 0, soc = bat.soc_start_frac, dt = mission_s / 200.0, level_q = NAN;
                size_t i = 0;
                if (json)
                    printf(",\"schedule\":[");
                else
                    printf("schedule (highest quality first, stepping down as the charge drains):\n");
                int first = 1;
                while (t < mission_s - 1e-9) {
                    double step = dt < mission_s - t ? dt : mission_s - t, s_after;
                    /* the highest-quality candidate that, run for step and then
                     * followed by the most frugal to the end, still lasts */
                    for (i = 0; i < n_cand; i++) {
                        /* one candidate per quality level: its cheapest (sorted first) */
                        if (i > 0 && cand[i].qos == cand[i - 1].qos)
                            continue;
                        if (lasts(&bat, cand[i].power_w, soc, step, 0, &s_after, NULL) != 0)
                            continue;
                        if (mission_s - t - step <= 0 ||
                            lasts(&bat, cand[frugal].power_w, s_after, mission_s - t - step,
                                  min_soc, NULL, NULL) == 0)
                            break;
                    }
                    if (i == n_cand)
                        i = frugal;
                    if (isnan(level_q) || cand[i].qos != level_q) {
                        level_q = cand[i].qos;
                        if (json) {
                            printf("%s{\"t_s\":%.1f,", first ? "" : ",", t);
                            for (size_t j = 0; j < surf.d; j++) {
                                pp_json_string(stdout, sum.params[j]);
                                printf(":%.6g,", cand[i].raw[j]);
                            }
                            printf("\"power_w\":%.6g,\"soc\":%.6g}", cand[i].power_w, soc);
                        } else {
                            printf("  at %8.1f s (%.1f %% left): %s = %g%s", t, 100 * soc,
                                   sum.params[q], cand[i].qos, surf.d > 1 ? " with" : "");
                            for (size_t j = 0; j < surf.d; j++)
                                if ((int)j != q)
                                    printf(" %s=%g", sum.params[j], cand[i].raw[j]);
                            printf(", %.3f W\n", cand[i].power_w);
                        }
                        first = 0;
                    }
                    lasts(&bat, cand[i].power_w, soc, step, 0, &s_after, NULL);
                    soc = s_after;
                    t += step;
                }
                if (json)
                    printf("],\"schedule_soc_end\":%.6g", soc);
                else
                    printf("  end at %.1f s with %.1f %% left\n", mission_s, 100 * soc);
            }
            if (json)
                printf("}\n");
        }
    }
    status = 0;
out:
    free(y);
    free(cand);
    pp_surface_free(&surf);
    pp_summary_free(&sum);
    return status;
}
