/* profile_doc.h - what `powprof profile` and `powprof run` decide and
 * answer about a sweep, so that the command line only parses and draws:
 *
 *   pp_sweep_ask           what was asked (the results folder, resume, the
 *                          failures to stop after, shard, repeats, node,
 *                          --adaptive and its options), checked option by
 *                          option and resolved once the profile is read
 *   pp_sweep_ask_run       the sweep: pp_sweep_run, or the adaptive run
 *   pp_sweep_exit_status   the exit status of its outcome
 *   pp_sweep_resume_argv   the command that continues it
 *   pp_sweep_outcome_doc   the outcome document (`profile --json`, run's
 *                          "profile"): profile, device, output, summary,
 *                          total, ran, ok, failed, skipped, saturated,
 *                          interrupted, stopped, stop_reason, resume (argv
 *                          or null), exit_status, node, shard {k, n, from},
 *                          repeats, and adaptive {stop, configs,
 *                          grid_configs, rounds, measured_s, full_grid_s,
 *                          target_error_pct, error_pct, error_left_pct,
 *                          unmeasured_predicted_s, claim_pct, held_by}
 *                          when an adaptive run ended
 *   pp_sweep_outcome_text  the same in words
 *   pp_profile_dry_run     --dry-run: the configurations, their estimated
 *                          times and the checks (document or words)
 *   pp_component_types_*   --types: the component types and their keys
 */
#ifndef PP_API_PROFILE_DOC_H
#define PP_API_PROFILE_DOC_H

#include "src/adaptive/adaptive_profile.h"
#include "src/config/profile.h"
#include "src/config/shard.h"
#include "src/results/node.h"
#include "src/sweep/sweep.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of a sweep stopped after max_failures identical failures. */
#define PP_SWEEP_EXIT_STOPPED 4

typedef struct pp_sweep_ask {
    const char *command;                /* "profile" or "run": the command that continues it */
    const char *config, *out_dir;       /* -o as given; the folder once resolved */
    int resume, retry_failed, json;
    unsigned max_failures;              /* 0: never stop */
    const char *shard_spec, *node_name; /* as given (NULL: none) */
    pp_shard shard;
    unsigned repeats;
    pp_node node;
    char shard_text[48], repeat_text[16], out_buf[PP_PATH_MAX];
    pp_adaptive_request adaptive;       /* --adaptive and its options (a profile's
                                           adaptive group runs without them too) */
    char adaptive_text[PP_ADAPTIVE_GIVEN_N][32]; /* as given, for the resume command */
    int adaptive_ran;                   /* adaptive_res holds an adaptive run's end */
    pp_adaptive_result adaptive_res;
} pp_sweep_ask;

/* Defaults: stop after 3 identical failures, each configuration once. */
void pp_sweep_ask_init(pp_sweep_ask *a, const char *command);

/* The options whose value is checked here, each into a: --max-failures N,
 * --repeat R, and the adaptive run's (option: "target-error",
 * "budget-s", "max-configs", "seed" or "batch"; each asks for an
 * adaptive run). 0, or -EINVAL with why (what a good value is) in why. */
int pp_sweep_ask_max_failures(pp_sweep_ask *a, const char *arg, char *why, size_t cap);
int pp_sweep_ask_repeats(pp_sweep_ask *a, const char *arg, char *why, size_t cap);
int pp_sweep_ask_adaptive(pp_sweep_ask *a, const char *option, const char *arg, char *why,
                          size_t cap);

/* The shard, the node and the results folder, once the profile p is
 * read. 0, or -EINVAL (logged). */
int pp_sweep_ask_resolve(const pp_profile *p, pp_sweep_ask *a);

/* The results folder made (pp_results_make_dirs) before the sweep: 0, or
 * -errno (logged). */
int pp_sweep_ask_folder(const pp_sweep_ask *a);

/* Whether n configurations need the user's confirmation (more than
 * PP_PROFILE_CONFIRM_ABOVE, and yes not given). */
int pp_sweep_ask_confirm_needed(uint64_t n, int yes);

/* The refusal when no one can confirm: the words into why. */
void pp_sweep_ask_unconfirmed(const pp_sweep_ask *a, uint64_t n, char *why, size_t cap);

/* The sweep of p with the options so: pp_sweep_run, or, with --adaptive
 * (or the profile's adaptive group), the adaptive run, whose rounds go to
 * round (may be NULL) and whose rounds' sums st gets; its end is kept in a
 * and, with words not NULL, said there (why it stopped, what the full grid
 * would have cost). pp_sweep_run's return values. */
int pp_sweep_ask_run(const pp_profile *p, const pp_sweep_options *so, pp_sweep_ask *a,
                     void (*round)(void *ctx, const pp_adaptive_progress *pr), void *ctx,
                     FILE *words, pp_sweep_stats *st);

/* An adaptive round in one line (its errors, the budget used, the claim). */
void pp_adaptive_round_text(const pp_adaptive_progress *pr, char *line, size_t cap);

/* The exit status of a sweep that returned rc with st: 0 all ok, 1 some
 * failed, 2 usage, 4 stopped, 125 failed, 130 interrupted. */
int pp_sweep_exit_status(int rc, const pp_sweep_stats *st);

/* The command that continues the sweep (stopped: after identical
 * failures, so --retry-failed), as argv: NULL-ended, at most 32 entries. */
void pp_sweep_resume_argv(const pp_sweep_ask *a, int stopped, const char **argv);

/* The outcome of the sweep of p asked by a (rc, st, its exit status). A new
 * reference. */
json_t *pp_sweep_outcome_doc(const pp_profile *p, const pp_sweep_ask *a, int rc,
                             const pp_sweep_stats *st, int status);

/* The same in words: on err the interruption, the stop (each with the
 * command that continues) and the ceiling warning; on out the counts
 * (not when a->json). */
void pp_sweep_outcome_text(const pp_sweep_ask *a, int rc, const pp_sweep_stats *st, FILE *err,
                           FILE *out);

/* --dry-run of p (the configurations of shard sh with their estimated
 * times, then the checks of the device and the components): with doc not
 * NULL the document into *doc (more's members added), else words on fp.
 * more is freed. 0 ready, 1 not, -ENOMEM. */
int pp_profile_dry_run(const pp_profile *p, const pp_shard *sh, json_t *more, json_t **doc,
                       FILE *fp);

/* profile --types: the component types (built in, modules installed or
 * not) and their keys: the document {types: [{type, available, summary,
 * reason, keys: [{name, kind, required, choices, doc}]}], module_path}; in
 * words; as the Markdown reference of docs/CONFIG.md. */
json_t *pp_component_types_doc(void);
void pp_component_types_text(FILE *fp);
void pp_component_types_markdown(FILE *fp);

#endif
