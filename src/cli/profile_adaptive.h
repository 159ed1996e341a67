/* profile_adaptive.h - powprof profile --adaptive: the options, and the
 * run in place of the plain sweep (src/adaptive/adaptive.h). */
#ifndef PP_CLI_PROFILE_ADAPTIVE_H
#define PP_CLI_PROFILE_ADAPTIVE_H

#include "opt.h"

#include "src/config/profile.h"
#include "src/adaptive/adaptive_profile.h"
#include "src/adaptive/adaptive.h"
#include "src/sweep/sweep.h"

#include <jansson.h>

/* The rows of --adaptive and its options, into the pp_cli_adaptive ad. */
#define PP_CLI_ADAPTIVE_ROWS(ad)                                                                \
    PP_OPT_BOOL(0, "adaptive", &(ad)->rq.on, "measure only what the surface needs: a "           \
                "space-filling design,\nthen rounds of the configurations the model is least "  \
                "sure of\nper predicted second (the profile's adaptive group does too)"),       \
    PP_OPT_CALLBACK(0, "target-error", ad, "P", "stop when every planning metric's error "      \
                    "between levels (as\npowprof model names it) is <= P %\n(5 or 5%; "          \
                    "default 5; 0: no target)", pp_cli_adaptive_option),                         \
    PP_OPT_CALLBACK(0, "budget-s", ad, "S", "stop before the measurements pass S seconds (or "  \
                    "10min, 1h)", pp_cli_adaptive_option),                                       \
    PP_OPT_CALLBACK(0, "max-configs", ad, "N", "stop after N configurations",                    \
                    pp_cli_adaptive_option),                                                     \
    PP_OPT_CALLBACK(0, "seed", ad, "N", "the design's seed (default 1: the same choices again)",\
                    pp_cli_adaptive_option),                                                     \
    PP_OPT_CALLBACK(0, "batch", ad, "N", "configurations per round (default 2)",                \
                    pp_cli_adaptive_option)

/* What the command line asked of an adaptive run, and its outcome. */
typedef struct pp_cli_adaptive {
    pp_adaptive_request rq;            /* the options given (the library's which-wins) */
    char text[PP_ADAPTIVE_GIVEN_N][32]; /* as given, for the resume command */
    int ran;                           /* res is set */
    pp_adaptive_result res;
} pp_cli_adaptive;

/* One of the options above (but --adaptive) into row->value, a
 * pp_cli_adaptive: 0, or -1 (said why). */
int pp_cli_adaptive_option(const pp_opt *row, const char *arg, const char *cmd);

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
