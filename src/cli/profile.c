/* powprof profile: run every configuration of a profile. */
#include "cli.h"
#include "profile_adaptive.h"

#include "src/base/log.h"
#include "src/results/node.h"
#include "src/config/profile.h"
#include "src/results/run_json.h"
#include "src/config/shard.h"
#include "src/sweep/sweep.h"
#include "src/base/util.h"

#include "components/registry.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int g_interrupt;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&g_interrupt, 1);
}

static void fmt_clock(double s, char *buf, size_t cap)
{
    long t = isfinite(s) && s >= 0 ? (long)(s + 0.5) : -1;
    if (t < 0)
        pp_fmt(buf, cap, "?");
    else if (t >= 3600)
        pp_fmt(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        pp_fmt(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

/* What the progress callback keeps between calls. */
typedef struct progress_ui {
    int tty;              /* stderr is a terminal: one line, redrawn in place */
    int drawn;            /* the bar is on the current line */
    int warned_saturated; /* the ceiling warning was given */
} progress_ui;

/* Terminal columns (80 when unknown). */
static size_t term_width(void)
{
    struct winsize ws;

    return ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10 ? ws.ws_col : 80;
}

/* " name 24.8/25 fps 3 late" for each component paced by fps. */
static size_t pace_text(const pp_sweep_progress *pr, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t c = 0; c < pr->n_components && len < cap; c++) {
        const pp_sweep_component_progress *cp = &pr->components[c];
        if (!(cp->fps > 0))
            continue;
        len += (size_t)snprintf(buf + len, cap - len, "  %s %.3g/%.3g fps", cp->name,
                                cp->achieved_fps, cp->fps);
        if (cp->late_frames && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, " %ld late", cp->late_frames);
    }
    return len < cap ? len : cap - 1;
}

/* What the configuration that just ended measured: "id 3 ok 4.00 s
 * 2.345 W", its pace, its CPU, and when it failed the reason. compact (the
 * bar): no duration, no reason (it has a line of its own). */
static void result_text(const pp_sweep_progress *pr, int compact, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "id %llu %s", (unsigned long long)pr->id, pr->status);

    if (len < cap && !compact)
        len += (size_t)snprintf(buf + len, cap - len, " %.2f s", pr->duration_s);
    if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, " %.3f W", pr->total_mean_w);
    if (len < cap)
        len += pace_text(pr, buf + len, cap - len);
    if (len < cap && isfinite(pr->cpu_share))
        len += (size_t)snprintf(buf + len, cap - len, "  cpu %.2f cores", pr->cpu_share);
    if (len < cap && !compact && strcmp(pr->status, "ok") != 0)
        len += (size_t)snprintf(buf + len, cap - len, ": %s", pr->reason);
    if (len < cap && !compact && pr->failures_in_row > 1)
        snprintf(buf + len, cap - len, " (%u in a row)", pr->failures_in_row);
}

/* A line that stays on screen (above the bar on a terminal). */
static void show_line(progress_ui *ui, const char *text)
{
    fprintf(stderr, "%spowprof: %s\n", ui->drawn ? "\r\033[K" : "", text);
    ui->drawn = 0;
}

/* The lines that stay: on a terminal a failure with its reason; the first
 * configuration whose estimate sat at its ceiling. */
static void show_events(progress_ui *ui, const pp_sweep_progress *pr, const char *result)
{
    char text[512];

    if (pr->running)
        return;
    if (ui->tty && strcmp(pr->status, "ok") != 0)
        show_line(ui, result);
    if (pr->saturated && !ui->warned_saturated) {
        pp_fmt(text, sizeof text, "warning: id %llu: the procstat estimate sat at its ceiling "
               "(every core busy, %.2f cores): it measures the machine, not the workload (%.2f "
               "cores); see cpu_share and machine_cpu_share in summary.csv",
               (unsigned long long)pr->id, pr->machine_cpu_share, pr->cpu_share);
        show_line(ui, text);
        ui->warned_saturated = 1;
    }
}

/* On a terminal: one line, redrawn in place (a bar, the running
 * configuration or the last result, the time left), cut to the width;
 * failures get a line of their own with the reason. Otherwise: a line per
 * configuration, with the reason when it failed. */
static void show_progress(void *ctx, const pp_sweep_progress *pr)
{
    progress_ui *ui = ctx;
    char el[32], left[32], now[32], est[32], what[1024], line[1200];
    int width = 12, fill = pr->total ? (int)(width * pr->done / pr->total) : width;
    size_t cols = term_width();

    fmt_clock(pr->elapsed_s, el, sizeof el);
    fmt_clock(pr->left_s, left, sizeof left);
    if (pr->running) {
        fmt_clock(pr->config_elapsed_s, now, sizeof now);
        fmt_clock(pr->config_estimate_s, est, sizeof est);
        pp_fmt(what, sizeof what, "id %llu running %s%s%s", (unsigned long long)pr->id, now,
               pr->config_estimate_s > 0 ? "/" : "", pr->config_estimate_s > 0 ? est : "");
    } else {
        result_text(pr, 0, what, sizeof what);
    }
    show_events(ui, pr, what);
    if (!ui->tty) {
        if (!pr->running)
            fprintf(stderr, "powprof: [%llu/%llu] %s  elapsed %s left ~%s\n",
                    (unsigned long long)pr->done, (unsigned long long)pr->total, what, el, left);
        return;
    }
    if (!pr->running)
        result_text(pr, 1, what, sizeof what);
    /* the times before the details: a narrow terminal cuts the details */
    pp_fmt(line, sizeof line, "[%.*s%.*s] %llu/%llu  %s, ~%s left  %s", fill,
           "############", width - fill, "------------",
           (unsigned long long)pr->done, (unsigned long long)pr->total, el, left, what);
    if (strlen(line) >= cols)
        line[cols - 1] = '\0';
    fprintf(stderr, "\r%s\033[K", line);
    ui->drawn = 1;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[4096];

    if (pp_strlcpy(buf, path, sizeof buf) < 0)
        return -ENAMETOOLONG;
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

static const char profile_help[] =
    "usage: powprof profile CONFIG [-o DIR] [--dry-run] [--resume [--retry-failed]]\n"
    "                       [--keep-going | --max-failures N] [--yes] [--json]\n"
    "                       [--shard K/N | --shard auto[/N]] [--repeat R] [--node NAME]\n"
    "       powprof profile --types [--json | --markdown]\n"
    "\n"
    "Run every configuration of the profile in CONFIG (libconfig syntax: see\n"
    "configs/*.cfg and docs/CONFIG.md) while sampling the power rails, and keep\n"
    "each one's trace and summary row in DIR (default results/<profile name>).\n"
    "Before anything runs, the device is opened and every component checked\n"
    "(its program, files, libraries, module, GPU); a problem stops the run with\n"
    "its reason. Progress goes to stderr: on a terminal one line redrawn in\n"
    "place (a bar, the configuration running, the time left), otherwise a line\n"
    "per configuration; a failure is shown with its reason.\n"
    "\n"
    "options:\n"
    "  --dry-run              list every configuration with its id and parameter\n"
    "                         values and an estimate of the total time, then make\n"
    "                         the checks; exit status 1 when one fails\n"
    "  -o, --output DIR       results folder\n"
    "  --resume               run only the configurations missing from DIR\n"
    "  --retry-failed         resume, and run the failed and timed-out ones again\n"
    "                         (their rows are replaced)\n"
    "  --max-failures N       stop when N configurations in a row fail with the same\n"
    "                         reason (numbers and labels aside; default 3)\n"
    "  --keep-going           never stop for failures\n"
    "  --yes                  no confirmation for more than 10000 configurations\n"
    "  --json                 one JSON object on stdout: the dry run, the types, or\n"
    "                         the outcome of the run (counts, resume command)\n"
    "  --types                the component types: built in, shipped as modules\n"
    "                         (installed or not), and modules of your own found in\n"
    "                         POWPROF_MODULE_PATH; each one's keys\n"
    "  --markdown             with --types: the reference of docs/CONFIG.md\n"
    "  --shard K/N            run only the configurations whose id % N == K (0 <= K < N);\n"
    "                         merge the shards with powprof merge\n"
    "  --shard auto[/N]       K and N from the launcher that started powprof: a Slurm\n"
    "                         array (SLURM_ARRAY_TASK_ID, _COUNT, _MIN), Open MPI or PMIx\n"
    "                         (OMPI_COMM_WORLD_RANK/SIZE, PMIX_RANK, PMI_RANK/SIZE), GNU\n"
    "                         parallel (PARALLEL_SEQ: give N, e.g. auto/3)\n"
    "  --repeat R             measure each configuration R times, interleaved (all once,\n"
    "                         then all again); rows carry the repeat index\n"
    "  --node NAME            the node's name in run.json and the node column (default:\n"
    "                         the host name; letters, digits and _ . - +)\n"
    PP_CLI_ADAPTIVE_HELP
    "\n"
    "DIR may hold {node} and {shard} (K), replaced by powprof: one folder per shard\n"
    "when the launcher starts every shard with the same arguments (mpirun, srun).\n"
    "With --shard and no -o: results/<profile name>-shard-K-of-N.\n"
    "  -h, --help             this help\n"
    "\n"
    "exit status: 0 every configuration ok; 1 some failed or timed out (their rows\n"
    "say why), or the dry run's checks failed; 2 usage or profile error; 4 stopped\n"
    "after --max-failures identical failures (rows kept; the resume command is\n"
    "printed); 125 powprof failed; 130 interrupted (rows kept; --resume goes on).\n";

enum {
    OPT_DRY_RUN = 3000,
    OPT_RESUME,
    OPT_YES,
    OPT_TYPES,
    OPT_MARKDOWN,
    OPT_RETRY,
    OPT_MAX_FAILURES,
    OPT_KEEP_GOING,
    OPT_SHARD,
    OPT_REPEAT,
    OPT_NODE,
};

/* Exit status of a sweep stopped after --max-failures identical failures. */
#define EXIT_STOPPED 4

static void dry_run_text(const pp_profile *p, uint64_t n, size_t n_params, double *values,
                         const pp_shard *sh)
{
    char name[160], text[PP_PARAM_LABEL_MAX];
    double total = 0.0;

    printf("%-6s", "id");
    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        printf(" %14s", name);
    }
    printf(" %12s\n", "at least [s]");
    for (uint64_t id = 0; id < n; id++) {
        double est;
        if (!pp_shard_has(sh, id))
            continue;
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        printf("%-6llu", (unsigned long long)id);
        for (size_t k = 0; k < n_params; k++) {
            pp_profile_value_text(p, k, values[k], text, sizeof text);
            printf(" %14s", text);
        }
        printf(" %12.1f\n", est);
    }
    if (sh->n > 1)
        printf("shard %llu/%llu: %llu of the ", (unsigned long long)sh->k,
               (unsigned long long)sh->n, (unsigned long long)pp_shard_count(sh, n));
    if (total > 0)
        printf("%llu configurations of profile '%s' on device %s; at least %.0f s (%.1f min) in "
               "all\n", (unsigned long long)n, p->name, p->device, total, total / 60.0);
    else
        printf("%llu configurations of profile '%s' on device %s; time unknown (components run "
               "to completion)\n", (unsigned long long)n, p->name, p->device);
}

static void dry_run_json(const pp_profile *p, uint64_t n, size_t n_params, double *values,
                         int ready, const pp_shard *sh)
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
    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(15));
    putchar('\n');
    json_decref(root);
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

static void type_text(const char *name, const pp_component_ops *ops, const char *why)
{
    if (!ops) {
        printf("%-18s not available: %s\n", name, why);
        return;
    }
    printf("%-18s %s\n", name, ops->summary ? ops->summary : "");
    for (const pp_component_key *k = ops->keys; k && k->name; k++) {
        printf("  %-16s %s%s: %s", k->name, key_kind(k->kind), k->required ? ", required" : "",
               k->doc ? k->doc : "");
        for (const char *const *c = k->choices; c && *c; c++)
            printf("%s%s", c == k->choices ? " (one of: " : ", ", *c);
        printf("%s\n", k->choices ? ")" : "");
    }
}

/* powprof profile --types: the registry's list. */
static int list_types(int json)
{
    char name[64], why[2048], path[4096];
    const pp_component_ops *ops;
    json_t *types = json_array();

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++) {
        if (json)
            json_array_append_new(types, type_json(name, ops, why));
        else
            type_text(name, ops, why);
    }
    pp_component_module_path(path, sizeof path);
    if (json) {
        json_t *root = json_pack("{s:o, s:s}", "types", types, "module_path", path);
        json_dumpf(root, stdout, JSON_COMPACT);
        putchar('\n');
        json_decref(root);
    } else {
        json_decref(types);
        printf("every component also takes:");
        for (const char *const *k = pp_profile_component_keys; *k; k++)
            printf(" %s", *k);
        printf("\nmodules are looked for in %s\n", path);
    }
    return 0;
}

/* text for a Markdown table cell: '|' escaped. */
static void md_cell(const char *text)
{
    for (; text && *text; text++)
        fputs(*text == '|' ? "\\|" : (char[]){*text, '\0'}, stdout);
}

/* powprof profile --types --markdown: each type's keys as the reference
 * section of docs/CONFIG.md (a test checks that the file has them). */
static int list_types_markdown(void)
{
    char name[64], why[2048];
    const pp_component_ops *ops;

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++) {
        printf("### `%s`\n\n", name);
        if (!ops) {
            printf("Not available here: ");
            md_cell(why);
            printf("\n\n");
            continue;
        }
        md_cell(ops->summary);
        printf(".\n\n");
        if (!ops->keys || !ops->keys->name) {
            printf("No keys of its own.\n\n");
            continue;
        }
        printf("| key | kind | required | what |\n|---|---|---|---|\n");
        for (const pp_component_key *k = ops->keys; k->name; k++) {
            printf("| `%s` | %s | %s | ", k->name, key_kind(k->kind), k->required ? "yes" : "no");
            md_cell(k->doc);
            for (const char *const *c = k->choices; c && *c; c++)
                printf("%s`%s`", c == k->choices ? "; one of " : ", ", *c);
            printf(" |\n");
        }
        printf("\n");
    }
    return 0;
}

/* More than PP_PROFILE_CONFIRM_ABOVE configurations: asked on a terminal,
 * refused otherwise. 0 to go on. */
static int confirm_many(const char *config, uint64_t n)
{
    char answer[16] = "";

    if (!isatty(0)) {
        fprintf(stderr, "powprof profile: %s describes %llu configurations (more than %d): "
                        "check it with --dry-run, and confirm with --yes\n",
                config, (unsigned long long)n, PP_PROFILE_CONFIRM_ABOVE);
        return -1;
    }
    fprintf(stderr, "%s describes %llu configurations. Run them all? [y/N] ", config,
            (unsigned long long)n);
    if (!fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
        fprintf(stderr, "powprof profile: not run\n");
        return -1;
    }
    return 0;
}

/* --dry-run: the list (this shard's), then the checks. Returns the exit
 * status. */
static int dry_run(const pp_profile *p, uint64_t n, double *values, int json, const pp_shard *sh)
{
    int ready;

    if (!json)
        dry_run_text(p, n, pp_profile_n_params(p), values, sh);
    fflush(stdout);
    ready = pp_sweep_check(p) == 0;
    if (json)
        dry_run_json(p, n, pp_profile_n_params(p), values, ready, sh);
    else if (ready)
        printf("ready: device %s opens and every component's check passes\n", p->device);
    else
        printf("not ready: the problems are listed above\n");
    return ready ? 0 : 1;
}

/* What the command line asked of a sweep. */
typedef struct sweep_request {
    const char *config, *out_dir;
    int resume, retry_failed, json;
    unsigned max_failures;
    const char *shard_spec, *node_name; /* as given (NULL: none) */
    pp_shard shard;
    unsigned repeats;
    pp_node node;
    char shard_text[48], repeat_text[16], out_buf[4096];
} sweep_request;

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

/* The command that continues the sweep, as argv (NULL-ended, at most 16). */
static void resume_argv(const sweep_request *rq, int stopped, const char **argv)
{
    int n = 0;

    argv[n++] = "powprof";
    argv[n++] = "profile";
    argv[n++] = rq->config;
    argv[n++] = "-o";
    argv[n++] = rq->out_dir;
    argv[n++] = "--resume";
    if (stopped)
        argv[n++] = "--retry-failed";
    if (rq->shard.n > 1) {
        argv[n++] = "--shard";
        argv[n++] = rq->shard_text;
    }
    if (rq->repeats > 1) {
        argv[n++] = "--repeat";
        argv[n++] = rq->repeat_text;
    }
    if (rq->node_name) {
        argv[n++] = "--node";
        argv[n++] = rq->node.name;
    }
    n = pp_cli_adaptive_argv(argv, n);
    argv[n] = NULL;
}

static void print_resume(const sweep_request *rq, int stopped)
{
    const char *argv[32];

    resume_argv(rq, stopped, argv);
    fputs("  ", stderr);
    for (int i = 0; argv[i]; i++) {
        if (i)
            fputc(' ', stderr);
        print_arg(stderr, argv[i]);
    }
    fputc('\n', stderr);
}

static int exit_status(int rc, const pp_sweep_stats *st)
{
    if (rc == -EINTR)
        return 130;
    if (rc == -ENOTRECOVERABLE)
        return EXIT_STOPPED;
    if (rc < 0)
        return rc == -EEXIST || rc == -EINVAL || rc == -ENOENT ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    return st->failed ? 1 : 0;
}

/* The outcome in words: on stderr the interruption, the stop and the
 * ceiling warning; on stdout the counts (not with --json). */
static void outcome_text(const sweep_request *rq, int rc, const pp_sweep_stats *st)
{
    unsigned long long saved = st->ran + st->skipped;

    if (rc == -EINTR) {
        fprintf(stderr, "powprof: interrupted: %llu of %llu configurations saved in %s; "
                        "continue with:\n", saved, (unsigned long long)st->total, rq->out_dir);
        print_resume(rq, 0);
    } else if (rc == -ENOTRECOVERABLE) {
        fprintf(stderr, "powprof: stopped: %u configurations in a row failed with the same "
                        "reason:\n  %s\n%llu of %llu configurations saved in %s. Fix the cause, "
                        "then run the failed ones again and go on with:\n", rq->max_failures,
                st->stop_reason, saved, (unsigned long long)st->total, rq->out_dir);
        print_resume(rq, 1);
        fputs("(or give --keep-going to run every configuration whatever fails)\n", stderr);
    }
    if (st->saturated)
        fprintf(stderr, "powprof: warning: in %llu of %llu configurations the procstat estimate "
                        "sat at its ceiling (every core busy): it measured the whole machine, "
                        "not the workload. Compare cpu_share (the workload's cores) with "
                        "machine_cpu_share in summary.csv; stop other programs or use a power "
                        "sensor.\n", (unsigned long long)st->saturated,
                (unsigned long long)st->ran);
    if (rc == 0 && !rq->json && rq->shard.n > 1)
        printf("shard %s on node %s: ", rq->shard_text, rq->node.name);
    if (rc == 0 && !rq->json)
        printf("%llu %s: %llu run (%llu ok, %llu failed or timed out), %llu already "
               "done; summary in %s/summary.csv\n",
               (unsigned long long)st->total, rq->repeats > 1 ? "measurements" : "configurations",
               (unsigned long long)st->ran, (unsigned long long)st->ok,
               (unsigned long long)st->failed, (unsigned long long)st->skipped, rq->out_dir);
}

/* The outcome as one JSON object on stdout. */
static void outcome_json(const pp_profile *p, const sweep_request *rq, int rc,
                         const pp_sweep_stats *st, int status)
{
    char path[4200];
    const char *argv[32];
    json_t *resume = json_null(), *root;

    if (rc == -EINTR || rc == -ENOTRECOVERABLE) {
        resume = json_array();
        resume_argv(rq, rc == -ENOTRECOVERABLE, argv);
        for (int i = 0; argv[i]; i++)
            json_array_append_new(resume, json_string(argv[i]));
    }
    pp_fmt(path, sizeof path, "%s/summary.csv", rq->out_dir);
    root = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:o, "
                     "s:i}",
                     "profile", p->name, "device", p->device, "output", rq->out_dir, "summary",
                     path, "total", (json_int_t)st->total, "ran", (json_int_t)st->ran, "ok",
                     (json_int_t)st->ok, "failed", (json_int_t)st->failed, "skipped",
                     (json_int_t)st->skipped, "saturated", (json_int_t)st->saturated,
                     "interrupted", st->interrupted, "stopped", st->stopped, "stop_reason",
                     st->stopped ? json_string(st->stop_reason) : json_null(), "resume",
                     resume, "exit_status", status);
    json_object_set_new(root, "node", json_string(rq->node.name));
    json_object_set_new(root, "shard", json_pack("{s:I, s:I, s:s}", "k", (json_int_t)rq->shard.k,
                                                 "n", (json_int_t)rq->shard.n, "from",
                                                 rq->shard.from));
    json_object_set_new(root, "repeats", json_integer(rq->repeats));
    pp_cli_adaptive_json(root);
    json_dumpf(root, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(root);
}

/* The sweep into rq->out_dir, interruptible. Returns the exit status. */
static int run_sweep(const pp_profile *p, uint64_t n, const sweep_request *rq)
{
    pp_sweep_options so = {0};
    pp_sweep_stats st;
    struct sigaction sa, old_int, old_term;
    progress_ui ui = {isatty(2), 0, 0};
    int rc, status;

    if (make_dirs(rq->out_dir) < 0) {
        fprintf(stderr, "powprof profile: -o %s: cannot create: %s\n", rq->out_dir,
                strerror(errno));
        return PP_EXIT_USAGE;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    so.out_dir = rq->out_dir;
    so.resume = rq->resume;
    so.retry_failed = rq->retry_failed;
    so.max_failures = rq->max_failures;
    so.tick_s = ui.tty ? 0.5 : 0.0;
    so.interrupt = &g_interrupt;
    so.progress = show_progress;
    so.progress_ctx = &ui;
    so.shard = rq->shard;
    so.repeats = rq->repeats;
    so.node = rq->node.name;
    fprintf(stderr, "powprof: profile '%s': %llu configurations on %s (node %s), results in %s\n",
            p->name, (unsigned long long)n, p->device, rq->node.name, rq->out_dir);
    if (rq->shard.n > 1 || rq->repeats > 1)
        fprintf(stderr, "powprof: shard %s (%s): %llu of them, each measured %u time%s\n",
                rq->shard_text, rq->shard.from[0] ? rq->shard.from : "whole sweep",
                (unsigned long long)pp_shard_count(&rq->shard, n), rq->repeats,
                rq->repeats == 1 ? "" : "s");
    rc = pp_cli_profile_sweep(p, &so, rq->json, &st); /* pp_sweep_run, or --adaptive's */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (ui.drawn)
        fputc('\n', stderr);
    status = exit_status(rc, &st);
    outcome_text(rq, rc, &st);
    if (rq->json)
        outcome_json(p, rq, rc, &st, status);
    return status;
}

/* The command line of powprof profile. */
typedef struct profile_args {
    sweep_request rq;
    int dry, yes, types, markdown;
} profile_args;

/* --shard, --repeat, --node into rq: 0, or -1 (said why). */
static int fleet_option(int opt, const char *arg, sweep_request *rq)
{
    int64_t n;

    if (opt == OPT_SHARD) {
        rq->shard_spec = arg;
    } else if (opt == OPT_NODE) {
        rq->node_name = arg;
    } else if (pp_parse_int64(arg, &n) < 0 || n < 1 || n > PP_SWEEP_MAX_REPEATS) {
        fprintf(stderr, "powprof profile: --repeat %s: a whole number from 1 to %d\n", arg,
                PP_SWEEP_MAX_REPEATS);
        return -1;
    } else {
        rq->repeats = (unsigned)n;
    }
    return 0;
}

/* Options into a; argv[optind] is then CONFIG. -1 to stop with *status. */
static int parse_args(int argc, char **argv, profile_args *a, int *status)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"retry-failed", no_argument, NULL, OPT_RETRY},
        {"max-failures", required_argument, NULL, OPT_MAX_FAILURES},
        {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
        {"yes", no_argument, NULL, OPT_YES},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {"types", no_argument, NULL, OPT_TYPES},
        {"markdown", no_argument, NULL, OPT_MARKDOWN},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"node", required_argument, NULL, OPT_NODE}, PP_CLI_ADAPTIVE_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    int64_t n;
    int opt;

    memset(a, 0, sizeof *a);
    a->rq.max_failures = 3;
    a->rq.repeats = 1;
    *status = PP_EXIT_USAGE;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(profile_help, stdout);
            *status = 0;
            return -1;
        case 'o':
            a->rq.out_dir = optarg;
            break;
        case OPT_RESUME:
            a->rq.resume = 1;
            break;
        case OPT_RETRY:
            a->rq.retry_failed = a->rq.resume = 1;
            break;
        case OPT_MAX_FAILURES:
            if (pp_parse_int64(optarg, &n) < 0 || n < 1 || n > 1000000) {
                fprintf(stderr, "powprof profile: --max-failures %s: a whole number >= 1 "
                                "(--keep-going never stops)\n", optarg);
                return -1;
            }
            a->rq.max_failures = (unsigned)n;
            break;
        case OPT_KEEP_GOING:
            a->rq.max_failures = 0;
            break;
        case OPT_DRY_RUN:
            a->dry = 1;
            break;
        case OPT_YES:
            a->yes = 1;
            break;
        case PP_OPT_JSON:
            a->rq.json = 1;
            break;
        case OPT_TYPES:
            a->types = 1;
            break;
        case OPT_MARKDOWN:
            a->markdown = 1;
            break;
        case OPT_SHARD:
        case OPT_REPEAT:
        case OPT_NODE:
            if (fleet_option(opt, optarg, &a->rq) < 0)
                return -1;
            break;
        default: /* --adaptive and its options, or "Try --help" */
            if (pp_cli_adaptive_option(opt, optarg) < 0)
                return -1;
            break;
        }
    }
    return 0;
}

/* DIR of -o with {node} and {shard} replaced, into rq->out_buf. 0, or -1
 * (said why). */
static int expand_out(sweep_request *rq, const char *dir)
{
    char k[32];
    const struct {
        const char *name, *with;
    } ph[] = {{"{node}", rq->node.name}, {"{shard}", k}};
    size_t len = 0, cap = sizeof rq->out_buf;

    pp_fmt(k, sizeof k, "%llu", (unsigned long long)rq->shard.k);
    for (const char *c = dir; *c && len + 1 < cap;) {
        size_t i = 0;
        while (i < 2 && strncmp(c, ph[i].name, strlen(ph[i].name)) != 0)
            i++;
        if (i < 2) {
            len += (size_t)snprintf(rq->out_buf + len, cap - len, "%s", ph[i].with);
            c += strlen(ph[i].name);
        } else if (*c == '{' && strchr(c, '}')) {
            fprintf(stderr, "powprof profile: -o %s: unknown placeholder %.*s ({node} and "
                            "{shard} are known)\n", dir, (int)(strchr(c, '}') - c + 1), c);
            return -1;
        } else {
            rq->out_buf[len++] = *c++;
        }
    }
    if (len + 1 >= cap) {
        fprintf(stderr, "powprof profile: -o %s: too long\n", dir);
        return -1;
    }
    rq->out_buf[len] = '\0';
    rq->out_dir = rq->out_buf;
    return 0;
}

/* The shard, the node and the results folder of the request, once the
 * profile is read. 0, or PP_EXIT_USAGE (said why). */
static int resolve(const pp_profile *p, sweep_request *rq)
{
    char dir[4096];
    const char *out = rq->out_dir;

    if (rq->shard_spec ? pp_shard_parse(rq->shard_spec, NULL, &rq->shard) < 0
                       : (pp_shard_all(&rq->shard), 0))
        return PP_EXIT_USAGE;
    if (pp_node_identify(p->sysfs_root, rq->node_name, &rq->node) < 0)
        return PP_EXIT_USAGE;
    pp_fmt(rq->shard_text, sizeof rq->shard_text, "%llu/%llu", (unsigned long long)rq->shard.k,
           (unsigned long long)rq->shard.n);
    pp_fmt(rq->repeat_text, sizeof rq->repeat_text, "%u", rq->repeats);
    if (!out && rq->shard.n > 1 &&
        pp_path_fmt(dir, sizeof dir, "results", "%s-shard-%llu-of-%llu", p->name,
                    (unsigned long long)rq->shard.k, (unsigned long long)rq->shard.n) < 0)
        return PP_EXIT_USAGE;
    if (!out && rq->shard.n <= 1 && pp_path_fmt(dir, sizeof dir, "results", "%s", p->name) < 0)
        return PP_EXIT_USAGE;
    return expand_out(rq, out ? out : dir) < 0 ? PP_EXIT_USAGE : 0;
}

int pp_cmd_profile(int argc, char **argv)
{
    profile_args a;
    pp_profile *p;
    double *values;
    uint64_t n;
    int status;

    if (parse_args(argc, argv, &a, &status) < 0)
        return status;
    if (a.types && optind == argc)
        return a.markdown ? list_types_markdown() : list_types(a.rq.json);
    if (optind != argc - 1) {
        fputs("powprof profile: one configuration file expected (powprof profile CONFIG)\n", stderr);
        return PP_EXIT_USAGE;
    }
    a.rq.config = argv[optind];
    p = malloc(sizeof *p);
    values = malloc(PP_PROFILE_MAX_COMPONENTS * PP_PROFILE_MAX_PARAMS * sizeof *values);
    if (!p || !values)
        status = PP_EXIT_FAILURE;
    else if (pp_profile_load(a.rq.config, p) == 0 && (status = resolve(p, &a.rq)) == 0) {
        n = pp_profile_count(p);
        if (a.dry)
            status = dry_run(p, n, values, a.rq.json, &a.rq.shard);
        else if (n <= PP_PROFILE_CONFIRM_ABOVE || a.yes || confirm_many(a.rq.config, n) == 0)
            status = run_sweep(p, n, &a.rq);
        else
            status = PP_EXIT_USAGE;
    }
    free(p);
    free(values);
    return status;
}
