/* profile_doc.c - what profile and run decide and answer about a sweep
 * (profile_doc.h): the options checked, the results folder resolved, the
 * sweep or the adaptive run, the exit status, the resume command, the
 * outcome as a document and in words; profile --dry-run and --types. */
#include "profile_doc.h"

#include "src/base/duration.h"
#include "src/base/util.h"
#include "src/results/folder.h"
#include "src/results/json_file.h"
#include "src/results/run_json.h"
#include "components/registry.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const option_names[] = {"--target-error", "--budget-s", "--max-configs",
                                           "--seed", "--batch"};

void pp_sweep_ask_init(pp_sweep_ask *a, const char *command)
{
    memset(a, 0, sizeof *a);
    a->command = command;
    a->max_failures = 3;
    a->repeats = 1;
}

int pp_sweep_ask_max_failures(pp_sweep_ask *a, const char *arg, char *why, size_t cap)
{
    int64_t n;

    if (pp_parse_int64(arg, &n) < 0 || n < 1 || n > 1000000) {
        pp_text(why, cap, "a whole number >= 1 (--keep-going never stops)");
        return -EINVAL;
    }
    a->max_failures = (unsigned)n;
    return 0;
}

int pp_sweep_ask_repeats(pp_sweep_ask *a, const char *arg, char *why, size_t cap)
{
    int64_t n;

    if (pp_parse_int64(arg, &n) < 0 || n < 1 || n > PP_SWEEP_MAX_REPEATS) {
        pp_text(why, cap, "a whole number from 1 to %d", PP_SWEEP_MAX_REPEATS);
        return -EINVAL;
    }
    a->repeats = (unsigned)n;
    return 0;
}

/* A percentage: 5, 5.5 or 5%. 0 or -EINVAL. */
static int parse_percent(const char *arg, double *v)
{
    if (pp_parse_fraction(arg, v) < 0)
        return -EINVAL;
    if (strchr(arg, '%'))
        *v *= 100; /* "5%" is 0.05 as a fraction */
    return 0;
}

/* Option i's value arg (option_names[i]) into *v or *n: 0, or -EINVAL
 * with what a good value is in why. */
static int adaptive_value(int i, const char *arg, double *v, int64_t *n, char *why, size_t cap)
{
    if (i == 0 ? parse_percent(arg, v) == 0 && *v >= 0 && *v <= 1e6
        : i == 1 ? pp_parse_duration_s(arg, v) == 0 && *v >= 0 && *v < 1e12
                 : pp_parse_int64(arg, n) == 0 && *n >= (i == 4) && *n <= 100000000)
        return 0;
    pp_text(why, cap, "%s", i == 0 ? "a percentage from 0 to 1e6 (5 or 5%; 0: no target)"
                            : i == 1 ? "seconds from 0 to 1e12, or a duration (90, 10min, 1h30m; 0: no "
                                       "budget)"
                            : i == 4 ? "a whole number from 1 to 1e8"
                                     : "a whole number from 0 to 1e8");
    return -EINVAL;
}

int pp_sweep_ask_adaptive(pp_sweep_ask *a, const char *option, const char *arg, char *why,
                          size_t cap)
{
    pp_adaptive_request *rq = &a->adaptive;
    int i = 0;
    double v = 0;
    int64_t n = 0;

    while (i < 4 && strcmp(option_names[i] + 2, option) != 0)
        i++;
    if (adaptive_value(i, arg, &v, &n, why, cap) < 0)
        return -EINVAL;
    if (i == 0)
        rq->o.target_error_pct = v;
    else if (i == 1)
        rq->o.budget_s = v;
    else if (i == 2)
        rq->o.max_configs = (size_t)n;
    else if (i == 3)
        rq->o.seed = (uint64_t)n;
    else
        rq->o.batch = (size_t)n;
    rq->given[i] = rq->on = 1;
    if (pp_strlcpy(a->adaptive_text[i], arg, sizeof a->adaptive_text[i]) == 0)
        return 0;
    pp_text(why, cap, "at most %zu characters", sizeof a->adaptive_text[i] - 1);
    return -EINVAL;
}

int pp_sweep_ask_resolve(const pp_profile *p, pp_sweep_ask *rq)
{
    if (rq->shard_spec ? pp_shard_parse(rq->shard_spec, NULL, &rq->shard) < 0
                       : (pp_shard_all(&rq->shard), 0))
        return -EINVAL;
    if (pp_node_identify(p->sysfs_root, rq->node_name, &rq->node) < 0)
        return -EINVAL;
    if (pp_fmt(rq->shard_text, sizeof rq->shard_text, "%llu/%llu",
               (unsigned long long)pp_shard_number(&rq->shard),
               (unsigned long long)rq->shard.n) < 0 ||
        pp_fmt(rq->repeat_text, sizeof rq->repeat_text, "%u", rq->repeats) < 0 ||
        pp_results_dir_name(p->name, rq->out_dir, &rq->shard, rq->node.name, rq->out_buf,
                            sizeof rq->out_buf) < 0)
        return -EINVAL;
    rq->out_dir = rq->out_buf;
    return 0;
}

int pp_sweep_ask_folder(const pp_sweep_ask *a)
{
    return pp_results_make_dirs(a->out_dir);
}

int pp_sweep_ask_confirm_needed(uint64_t n, int yes)
{
    return n > PP_PROFILE_CONFIRM_ABOVE && !yes;
}

void pp_sweep_ask_unconfirmed(const pp_sweep_ask *a, uint64_t n, char *why, size_t cap)
{
    pp_text(why, cap, "%s describes %llu configurations (more than %d): check it with "
            "--dry-run, and confirm with --yes", a->config, (unsigned long long)n,
            PP_PROFILE_CONFIRM_ABOVE);
}

/* A percentage, or "unknown". */
static const char *pct_text(double v, char *buf, size_t cap)
{
    return isfinite(v) ? pp_text(buf, cap, "%.2f %%", v) : "unknown";
}

/* What holds the target stop back, in words. */
static const char *hold_words(pp_adaptive_hold h)
{
    switch (h) {
    case PP_HOLD_ERROR:
        return "above the target";
    case PP_HOLD_DESIGN:
        return "held: a parameter with fewer than 3 values measured, or an end of its range "
               "not measured";
    case PP_HOLD_BANDS:
        return "held: the bands imply far more error";
    case PP_HOLD_CEILING:
        return "held: rows at the power estimate's ceiling";
    case PP_HOLD_ONE_ROUND:
        return "met: a second round must confirm it";
    default:
        return "met";
    }
}

static const char *stop_words(pp_adaptive_stop s)
{
    switch (s) {
    case PP_STOP_TARGET:
        return "the target error was reached";
    case PP_STOP_BUDGET:
        return "the budget is spent (nothing left fits in it)";
    case PP_STOP_MAX_CONFIGS:
        return "--max-configs configurations were measured";
    case PP_STOP_GRID:
        return "every configuration was measured";
    case PP_STOP_NOISE:
        return "the target is below the noise of the measurements: stopped at a multiple of "
               "their noise floor";
    default:
        return "interrupted";
    }
}

static void show_end(FILE *fp, const pp_adaptive_result *r, const char *dir)
{
    char target[64] = "no target";

    if (r->target_error_pct > 0)
        pp_text(target, sizeof target, "target %g %%", r->target_error_pct);
    fprintf(fp, "adaptive: stopped: %s (%s): %zu of %zu configurations in %zu rounds, %.1f s "
            "measured; results in %s\n", stop_words(r->stop), target, r->n_chosen,
            r->n_candidates, r->rounds, r->fit.measured_s, dir);
    for (size_t k = 0; k < r->fit.n_metrics; k++) { /* named as powprof model names it */
        char e[32], hi[32], left[32], noise[32];
        fprintf(fp, "  %-28s error between levels %s, on the configurations left %s, claimed "
                "(90 %% bound) %s, noise floor %s\n",
                r->fit.metrics[k], pct_text(r->fit.error_pct[k], e, sizeof e),
                pct_text(r->fit.error_left_pct[k], left, sizeof left),
                pct_text(r->fit.error_hi_pct[k], hi, sizeof hi),
                pct_text(r->fit.noise_pct[k], noise, sizeof noise));
    }
    if (r->target_error_pct > 0 && r->stop != PP_STOP_TARGET && r->stop != PP_STOP_NOISE)
        fprintf(fp, "  the target was not claimed: %s\n", hold_words(r->claim.hold));
    if (isnan(r->full_grid_s))
        fprintf(fp, "  the full grid's cost cannot be predicted (labels never measured)\n");
    else
        fprintf(fp, "  the full grid would have cost about %.1f s (%.1f s predicted for the %zu "
                "not measured): %.0f %% of it was spent\n", r->full_grid_s, r->unmeasured_s,
                r->n_candidates - r->n_chosen,
                r->full_grid_s > 0 ? 100 * r->fit.measured_s / r->full_grid_s : 0.0);
}

void pp_adaptive_round_text(const pp_adaptive_progress *p, char *line, size_t cap)
{
    const pp_adaptive_fit *f = p->fit;
    size_t used = 0;

    used += (size_t)snprintf(line + used, cap - used,
                             "powprof: adaptive round %zu: %zu of %zu configurations, %.1f s "
                             "measured", p->round, p->n_chosen, p->n_candidates, f->measured_s);
    if (p->budget_s > 0 && used < cap)
        used += (size_t)snprintf(line + used, cap - used, " of %.1f s budget (%.0f %%)",
                                 p->budget_s, 100 * f->measured_s / p->budget_s);
    for (size_t k = 0; k < f->n_metrics && used < cap; k++)
        used += (size_t)snprintf(line + used, cap - used,
                                 isnan(f->error_pct[k]) ? "%s %s -" : "%s %s %.1f %%",
                                 k ? "," : "; error", f->metrics[k], f->error_pct[k]);
    if (p->claim && used < cap) {
        char claim[32];
        snprintf(line + used, cap - used, "; claim %s (%s)",
                 pct_text(p->claim->claim_pct, claim, sizeof claim), hold_words(p->claim->hold));
    }
}

int pp_sweep_ask_run(const pp_profile *p, const pp_sweep_options *so, pp_sweep_ask *a,
                     void (*round)(void *ctx, const pp_adaptive_progress *pr), void *ctx,
                     FILE *words, pp_sweep_stats *st)
{
    pp_adaptive_options o;
    int rc;

    if (!a->adaptive.on && !p->adaptive.given)
        return pp_sweep_run(p, so, st);
    pp_adaptive_options_of(p, &a->adaptive, so->resume, &o);
    rc = pp_adaptive_profile(p, so, &o, round, ctx, st, &a->adaptive_res);
    a->adaptive_ran = rc == 0;
    if (rc == 0 && words)
        show_end(words, &a->adaptive_res, so->out_dir);
    return rc;
}

int pp_sweep_exit_status(int rc, const pp_sweep_stats *st)
{
    if (rc == -EINTR)
        return 130;
    if (rc == -ENOTRECOVERABLE)
        return PP_SWEEP_EXIT_STOPPED;
    if (rc < 0)
        return rc == -EEXIST || rc == -EINVAL || rc == -ENOENT || rc == -EBUSY ? 2 : 125;
    return st->failed ? 1 : 0;
}

void pp_sweep_resume_argv(const pp_sweep_ask *a, int stopped, const char **argv)
{
    int n = 0;

    argv[n++] = "powprof";
    argv[n++] = a->command;
    argv[n++] = a->config;
    argv[n++] = "-o";
    argv[n++] = a->out_dir;
    argv[n++] = "--resume";
    if (stopped)
        argv[n++] = "--retry-failed";
    if (a->shard.n > 1) {
        argv[n++] = "--shard";
        argv[n++] = a->shard_text;
    }
    if (a->repeats > 1) {
        argv[n++] = "--repeat";
        argv[n++] = a->repeat_text;
    }
    if (a->node_name) {
        argv[n++] = "--node";
        argv[n++] = a->node.name;
    }
    if (a->adaptive.on) /* profile --adaptive and its options */
        argv[n++] = "--adaptive";
    for (int i = 0; a->adaptive.on && i < PP_ADAPTIVE_GIVEN_N; i++)
        if (a->adaptive.given[i]) {
            argv[n++] = option_names[i];
            argv[n++] = a->adaptive_text[i];
        }
    argv[n] = NULL;
}

/* arg, quoted for a POSIX shell when it holds anything but [A-Za-z0-9_./:+=,@%-]. */
static void print_arg(FILE *fp, const char *arg)
{
    if (*arg && strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                            "_./:+=,@%-") == strlen(arg)) {
        fputs(arg, fp);
        return;
    }
    fputc('\'', fp);
    for (; *arg; arg++)
        fputs(*arg == '\'' ? "'\\''" : (char[]){*arg, '\0'}, fp);
    fputc('\'', fp);
}

/* The command that continues, on a line of its own. */
static void print_resume(FILE *fp, const pp_sweep_ask *a, int stopped)
{
    const char *argv[32];

    pp_sweep_resume_argv(a, stopped, argv);
    fputs("  ", fp);
    for (int i = 0; argv[i]; i++) {
        if (i)
            fputc(' ', fp);
        print_arg(fp, argv[i]);
    }
    fputc('\n', fp);
}

void pp_sweep_outcome_text(const pp_sweep_ask *a, int rc, const pp_sweep_stats *st, FILE *err,
                           FILE *out)
{
    unsigned long long saved = st->ran + st->skipped;

    if (rc == -EINTR) {
        fprintf(err, "powprof: interrupted: %llu of %llu configurations saved in %s; "
                     "continue with:\n", saved, (unsigned long long)st->total, a->out_dir);
        print_resume(err, a, 0);
    } else if (rc == -ENOTRECOVERABLE) {
        fprintf(err, "powprof: stopped: %u configurations in a row failed with the same "
                     "reason:\n  %s\n%llu of %llu configurations saved in %s. Fix the cause, "
                     "then run the failed ones again and go on with:\n", a->max_failures,
                st->stop_reason, saved, (unsigned long long)st->total, a->out_dir);
        print_resume(err, a, 1);
        fputs("(or give --keep-going to run every configuration whatever fails)\n", err);
    }
    if (st->saturated)
        fprintf(err, "powprof: warning: in %llu of %llu configurations the procstat estimate "
                     "sat at its ceiling (every core busy): it measured the whole machine, "
                     "not the workload. Compare cpu_share (the workload's cores) with "
                     "machine_cpu_share in summary.csv; stop other programs or use a power "
                     "sensor.\n", (unsigned long long)st->saturated,
                (unsigned long long)st->ran);
    if (rc == 0 && !a->json && a->shard.n > 1)
        fprintf(out, "shard %s on node %s: ", a->shard_text, a->node.name);
    if (rc == 0 && !a->json)
        fprintf(out, "%llu %s: %llu run (%llu ok, %llu failed or timed out), %llu already "
                "done; summary in %s/summary.csv\n",
                (unsigned long long)st->total, a->repeats > 1 ? "measurements" : "configurations",
                (unsigned long long)st->ran, (unsigned long long)st->ok,
                (unsigned long long)st->failed, (unsigned long long)st->skipped, a->out_dir);
}

/* The adaptive run's end, as the outcome's "adaptive". */
static json_t *adaptive_json(const pp_adaptive_result *r)
{
    json_t *errors = json_object(), *left = json_object();

    for (size_t k = 0; k < r->fit.n_metrics; k++) {
        json_object_set_new(errors, r->fit.metrics[k], pp_json_num(r->fit.error_pct[k]));
        json_object_set_new(left, r->fit.metrics[k], pp_json_num(r->fit.error_left_pct[k]));
    }
    return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "stop",
                     pp_adaptive_stop_name(r->stop), "configs", (json_int_t)r->n_chosen,
                     "grid_configs", (json_int_t)r->n_candidates, "rounds", (json_int_t)r->rounds,
                     "measured_s", pp_json_num(r->fit.measured_s), "full_grid_s",
                     pp_json_num(r->full_grid_s), "target_error_pct",
                     pp_json_num(r->target_error_pct), "error_pct", errors, "error_left_pct",
                     left, "unmeasured_predicted_s", pp_json_num(r->unmeasured_s), "claim_pct",
                     pp_json_num(r->claim.claim_pct), "held_by",
                     pp_adaptive_hold_name(r->claim.hold));
}

/* The resume command as a JSON array (null when the sweep ended). */
static json_t *resume_json(const pp_sweep_ask *a, int rc)
{
    const char *argv[32];
    json_t *resume;

    if (rc != -EINTR && rc != -ENOTRECOVERABLE)
        return json_null();
    resume = json_array();
    pp_sweep_resume_argv(a, rc == -ENOTRECOVERABLE, argv);
    for (int i = 0; argv[i]; i++)
        json_array_append_new(resume, json_string(argv[i]));
    return resume;
}

json_t *pp_sweep_outcome_doc(const pp_profile *p, const pp_sweep_ask *a, int rc,
                             const pp_sweep_stats *st, int status)
{
    char path[PP_PATH_MAX];
    json_t *root;

    root = json_pack("{s:s, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:o, "
                     "s:i}",
                     "profile", p->name, "device", p->device, "output", a->out_dir, "summary",
                     pp_fmt(path, sizeof path, "%s/summary.csv", a->out_dir) == 0
                         ? json_string(path) : json_null(), "total", (json_int_t)st->total,
                     "ran", (json_int_t)st->ran, "ok", (json_int_t)st->ok, "failed",
                     (json_int_t)st->failed, "skipped", (json_int_t)st->skipped, "saturated",
                     (json_int_t)st->saturated, "interrupted", st->interrupted, "stopped",
                     st->stopped, "stop_reason",
                     st->stopped ? json_string(st->stop_reason) : json_null(), "resume",
                     resume_json(a, rc), "exit_status", status);
    if (!root)
        return NULL;
    json_object_set_new(root, "node", json_string(a->node.name));
    json_object_set_new(root, "shard", json_pack("{s:I, s:I, s:s}", "k", (json_int_t)a->shard.k,
                                                 "n", (json_int_t)a->shard.n, "from",
                                                 a->shard.from));
    json_object_set_new(root, "repeats", json_integer(a->repeats));
    if (a->adaptive_ran)
        json_object_set_new(root, "adaptive", adaptive_json(&a->adaptive_res));
    return root;
}

/* ---- profile --dry-run and profile --types, as documents and in words ---- */

static void dry_run_text(FILE *fp, const pp_profile *p, uint64_t n, size_t n_params, double *values,
                         const pp_shard *sh)
{
    char name[160], text[PP_PARAM_LABEL_MAX];
    double total = 0.0;

    fprintf(fp, "%-6s", "id");
    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        fprintf(fp, " %14s", name);
    }
    fprintf(fp, " %12s\n", "at least [s]");
    for (uint64_t id = 0; id < n; id++) {
        double est;
        if (!pp_shard_has(sh, id))
            continue;
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        fprintf(fp, "%-6llu", (unsigned long long)id);
        for (size_t k = 0; k < n_params; k++) {
            pp_profile_value_text(p, k, values[k], text, sizeof text);
            fprintf(fp, " %14s", text);
        }
        fprintf(fp, " %12.1f\n", est);
    }
    if (sh->n > 1)
        fprintf(fp, "shard %llu/%llu: %llu of the ", (unsigned long long)pp_shard_number(sh),
               (unsigned long long)sh->n, (unsigned long long)pp_shard_count(sh, n));
    if (total > 0)
        fprintf(fp, "%llu configurations of profile '%s' on device %s; at least %.0f s (%.1f min) in "
               "all\n", (unsigned long long)n, p->name, p->device, total, total / 60.0);
    else
        fprintf(fp, "%llu configurations of profile '%s' on device %s; time unknown (components run "
               "to completion)\n", (unsigned long long)n, p->name, p->device);
}

static json_t *dry_run_json(const pp_profile *p, uint64_t n, size_t n_params, double *values,
                            int ready, const pp_shard *sh, const json_t *more)
{
    json_t *root = json_object(), *params = json_array(), *kinds = json_array();
    json_t *configs = json_array();
    char name[160];
    double total = 0.0;

    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        json_array_append_new(params, json_string(name));
        json_array_append_new(kinds, json_string(pp_run_json_kind(pp_profile_param(p, k)->kind)));
    }
    for (uint64_t id = 0; id < n; id++) {
        json_t *vals;
        double est;
        if (!pp_shard_has(sh, id))
            continue;
        vals = json_array();
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        for (size_t k = 0; k < n_params; k++) {
            const char *label = pp_profile_label(p, k, values[k]);
            json_array_append_new(vals, label ? json_string(label) : pp_run_json_number(values[k]));
        }
        json_array_append_new(configs, json_pack("{s:I, s:o, s:o}", "id", (json_int_t)id,
                                                 "values", vals, "estimate_s",
                                                 pp_run_json_number(est)));
    }
    json_object_set_new(root, "profile", json_string(p->name));
    json_object_set_new(root, "device", json_string(p->device));
    json_object_set_new(root, "params", params);
    json_object_set_new(root, "kinds", kinds);
    json_object_set_new(root, "configurations", configs);
    json_object_set_new(root, "count", json_integer((json_int_t)n));
    json_object_set_new(root, "estimate_s", pp_run_json_number(total));
    json_object_set_new(root, "ready", json_boolean(ready));
    if (more)
        json_object_update(root, (json_t *)more);
    return root;
}

int pp_profile_dry_run(const pp_profile *p, const pp_shard *sh, json_t *more, json_t **doc,
                       FILE *fp)
{
    uint64_t n = pp_profile_count(p);
    double *values = malloc(PP_PROFILE_MAX_COMPONENTS * PP_PROFILE_MAX_PARAMS * sizeof *values);
    int ready;

    if (!values) {
        json_decref(more);
        return -ENOMEM;
    }
    if (!doc)
        dry_run_text(fp, p, n, pp_profile_n_params(p), values, sh);
    fflush(fp);
    ready = pp_sweep_check(p) == 0;
    if (doc)
        *doc = dry_run_json(p, n, pp_profile_n_params(p), values, ready, sh, more);
    else if (ready)
        fprintf(fp, "ready: device %s opens and every component's check passes\n", p->device);
    else
        fprintf(fp, "not ready: the problems are listed above\n");
    json_decref(more);
    free(values);
    return ready ? 0 : 1;
}

static const char *key_kind(pp_key_kind k)
{
    return k == PP_KEY_STRINGS ? "strings" : k == PP_KEY_NUMBER ? "number" : "string";
}

static json_t *type_json(const char *name, const pp_component_ops *ops, const char *why)
{
    json_t *keys = json_array();

    for (const pp_component_key *k = ops && ops->keys ? ops->keys : NULL; k && k->name; k++) {
        json_t *choices = json_array();
        for (const char *const *c = k->choices; c && *c; c++)
            json_array_append_new(choices, json_string(*c));
        json_array_append_new(keys, json_pack("{s:s, s:s, s:b, s:o, s:s}", "name", k->name,
                                              "kind", key_kind(k->kind), "required", k->required,
                                              "choices", choices, "doc", k->doc ? k->doc : ""));
    }
    return json_pack("{s:s, s:b, s:s, s:s, s:o}", "type", name, "available", ops != NULL,
                     "summary", ops && ops->summary ? ops->summary : "", "reason", why, "keys",
                     keys);
}

static void type_text(FILE *fp, const char *name, const pp_component_ops *ops, const char *why)
{
    if (!ops) {
        fprintf(fp, "%-18s not available: %s\n", name, why);
        return;
    }
    fprintf(fp, "%-18s %s\n", name, ops->summary ? ops->summary : "");
    for (const pp_component_key *k = ops->keys; k && k->name; k++) {
        fprintf(fp, "  %-16s %s%s: %s", k->name, key_kind(k->kind), k->required ? ", required" : "",
               k->doc ? k->doc : "");
        for (const char *const *c = k->choices; c && *c; c++)
            fprintf(fp, "%s%s", c == k->choices ? " (one of: " : ", ", *c);
        fprintf(fp, "%s\n", k->choices ? ")" : "");
    }
}

json_t *pp_component_types_doc(void)
{
    char name[64], why[2048], path[PP_PATH_MAX];
    const pp_component_ops *ops;
    json_t *types = json_array();

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++)
        json_array_append_new(types, type_json(name, ops, why));
    pp_component_module_path(path, sizeof path);
    return json_pack("{s:o, s:s}", "types", types, "module_path", path);
}

void pp_component_types_text(FILE *fp)
{
    char name[64], why[2048], path[PP_PATH_MAX];
    const pp_component_ops *ops;

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++)
        type_text(fp, name, ops, why);
    pp_component_module_path(path, sizeof path);
    fprintf(fp, "every component also takes:");
    for (const char *const *k = pp_profile_component_keys; *k; k++)
        fprintf(fp, " %s", *k);
    fprintf(fp, "\nmodules are looked for in %s\n", path);
}

/* text for a Markdown table cell: '|' escaped. */
static void md_cell(FILE *fp, const char *text)
{
    for (; text && *text; text++)
        fputs(*text == '|' ? "\\|" : (char[]){*text, '\0'}, fp);
}

/* powprof profile --types --markdown: each type's keys as the reference
 * section of docs/CONFIG.md (a test checks that the file has them). */
void pp_component_types_markdown(FILE *fp)
{
    char name[64], why[2048];
    const pp_component_ops *ops;

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++) {
        fprintf(fp, "### `%s`\n\n", name);
        if (!ops) {
            fprintf(fp, "Not available here: ");
            md_cell(fp, why);
            fprintf(fp, "\n\n");
            continue;
        }
        md_cell(fp, ops->summary);
        fprintf(fp, ".\n\n");
        if (!ops->keys || !ops->keys->name) {
            fprintf(fp, "No keys of its own.\n\n");
            continue;
        }
        fprintf(fp, "| key | kind | required | what |\n|---|---|---|---|\n");
        for (const pp_component_key *k = ops->keys; k->name; k++) {
            fprintf(fp, "| `%s` | %s | %s | ", k->name, key_kind(k->kind), k->required ? "yes" : "no");
            md_cell(fp, k->doc);
            for (const char *const *c = k->choices; c && *c; c++)
                fprintf(fp, "%s`%s`", c == k->choices ? "; one of " : ", ", *c);
            fprintf(fp, " |\n");
        }
        fprintf(fp, "\n");
    }
}
