/* profile_adaptive.h - powprof profile --adaptive: the options, and the
 * run in place of the plain sweep (src/sweep/adaptive.h). */
#ifndef PP_CLI_PROFILE_ADAPTIVE_H
#define PP_CLI_PROFILE_ADAPTIVE_H

#include "src/config/profile.h"
#include "src/plan/adaptive_profile.h"
#include "src/sweep/adaptive.h"
#include "src/sweep/sweep.h"

#include <jansson.h>

enum {
    PP_OPT_ADAPTIVE = 1200,
    PP_OPT_TARGET_ERROR,
    PP_OPT_BUDGET_S,
    PP_OPT_MAX_CONFIGS,
    PP_OPT_SEED,
    PP_OPT_BATCH,
};

#define PP_CLI_ADAPTIVE_LONG_OPTIONS                                                            \
    {"adaptive", no_argument, NULL, PP_OPT_ADAPTIVE},                                           \
    {"target-error", required_argument, NULL, PP_OPT_TARGET_ERROR},                             \
    {"budget-s", required_argument, NULL, PP_OPT_BUDGET_S},                                     \
    {"max-configs", required_argument, NULL, PP_OPT_MAX_CONFIGS},                               \
    {"seed", required_argument, NULL, PP_OPT_SEED},                                             \
    {"batch", required_argument, NULL, PP_OPT_BATCH}

#define PP_CLI_ADAPTIVE_HELP                                                                    \
    "  --adaptive             measure only what the surface needs: a space-filling design,\n"  \
    "                         then rounds of the configurations the model is least sure of\n"  \
    "                         per predicted second (the profile's adaptive group does too)\n"  \
    "  --target-error P       stop when every planning metric's nested error is <= P %\n"      \
    "                         (5 or 5%; default 5; 0: no target)\n"                            \
    "  --budget-s S           stop before the measurements pass S seconds (or 10min, 1h)\n"    \
    "  --max-configs N        stop after N configurations\n"                                   \
    "  --seed N               the design's seed (default 1: the same choices again)\n"         \
    "  --batch N              configurations per round (default 2)\n"

/* What the command line asked of an adaptive run, and its outcome. */
typedef struct pp_cli_adaptive {
    pp_adaptive_request rq;            /* the options given (the library's which-wins) */
    char text[PP_ADAPTIVE_GIVEN_N][32]; /* as given, for the resume command */
    int ran;                           /* res is set */
    pp_adaptive_result res;
} pp_cli_adaptive;

/* One of the options above into ad: 1. Any other option: -1 after "Try
 * 'powprof profile --help'."; a bad value: -1 (said why). */
int pp_cli_adaptive_option(pp_cli_adaptive *ad, int opt, const char *arg);

/* The options to give again to continue (after argv[0 .. n)): the new n
 * (ad NULL: none). */
int pp_cli_adaptive_argv(const pp_cli_adaptive *ad, const char **argv, int n);

/* The sweep of p with the options so: pp_sweep_run, or, with --adaptive
 * (or the profile's adaptive group), the adaptive run, whose rounds' sums
 * st gets. The adaptive run prints its rounds' progress (stderr) and,
 * without json, its end (why it stopped, what the full grid would have
 * cost). pp_sweep_run's return values. */
int pp_cli_profile_sweep(const pp_profile *p, const pp_sweep_options *so, int json,
                         pp_cli_adaptive *ad, pp_sweep_stats *st);

/* profile --json: the adaptive run's result under "adaptive" in root
 * (nothing without one). */
void pp_cli_adaptive_json(const pp_cli_adaptive *ad, json_t *root);

#endif
