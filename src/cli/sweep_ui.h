/* sweep_ui.h - the sweep of `powprof profile` and `powprof run` on the
 * command line: the options they share, the progress drawn on stderr
 * (sweep_ui.c); what is decided and answered is the library's
 * (src/api/profile_doc.h). */
#ifndef PP_CLI_SWEEP_UI_H
#define PP_CLI_SWEEP_UI_H

#include "opt.h"

#include "src/api/profile_doc.h"

/* Callbacks of the sweep's options into row->value, a pp_sweep_ask:
 * --retry-failed (resume, and run the failed again), --keep-going (never
 * stop), --max-failures N, --repeat R, and the adaptive run's options.
 * 0, or -1 (said why). */
int pp_cli_opt_retry(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_keep_going(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_max_failures(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_repeat(const pp_opt *row, const char *arg, const char *cmd);
int pp_cli_opt_adaptive(const pp_opt *row, const char *arg, const char *cmd);

/* The rows of --adaptive and its options, into the pp_sweep_ask a. */
#define PP_CLI_ADAPTIVE_ROWS(a)                                                                 \
    PP_OPT_BOOL(0, "adaptive", &(a)->adaptive.on, "measure only what the surface needs: a "     \
                "space-filling design,\nthen rounds of the configurations the model is least "  \
                "sure of\nper predicted second (the profile's adaptive group does too)"),       \
    PP_OPT_CALLBACK(0, "target-error", a, "P", "stop when every planning metric's error "       \
                    "between levels (as\npowprof model names it) is <= P %\n(5 or 5%; "          \
                    "default 5; 0: no target)", pp_cli_opt_adaptive),                            \
    PP_OPT_CALLBACK(0, "budget-s", a, "S", "stop before the measurements pass S seconds (or "   \
                    "10min, 1h)", pp_cli_opt_adaptive),                                          \
    PP_OPT_CALLBACK(0, "max-configs", a, "N", "stop after N configurations",                     \
                    pp_cli_opt_adaptive),                                                        \
    PP_OPT_CALLBACK(0, "seed", a, "N", "the design's seed (default 1: the same choices again)", \
                    pp_cli_opt_adaptive),                                                        \
    PP_OPT_CALLBACK(0, "batch", a, "N", "configurations per round (default 2)",                 \
                    pp_cli_opt_adaptive)

/* More than PP_PROFILE_CONFIRM_ABOVE configurations and no --yes: asked
 * on a terminal, refused otherwise. 0 to go on. */
int pp_cli_sweep_confirm(const pp_sweep_ask *a, uint64_t n, int yes);

/* The sweep of p as a asks, interruptible, its progress on stderr and its
 * outcome in words; with json not NULL, *json set to the outcome document
 * (the caller frees it). Returns the exit status. */
int pp_cli_sweep_run(const pp_profile *p, pp_sweep_ask *a, json_t **json);


/* What `powprof run` was asked (run.c parses it). */
typedef struct pp_cli_run {
    pp_sweep_ask rq;          /* the sweep; its folder once resolved */
    const char *max_failures; /* as given (checked with the sweep) */
    int yes, json, dry;
} pp_cli_run;


#endif
