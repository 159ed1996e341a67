/* The sweep as `powprof profile` and `powprof run` show it: the progress
 * on stderr, the outcome in words or as JSON, the command that continues
 * an interrupted or stopped sweep (the command's own: `powprof run ...
 * --resume` goes on through the model, the plots and the plan). */
#include "cli.h"
#include "profile_adaptive.h"

#include "src/sweep/sweep.h"
#include "src/results/folder.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Exit status of a sweep stopped after --max-failures identical failures. */
#define EXIT_STOPPED 4

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
        pp_text(buf, cap, "?");
    else if (t >= 3600)
        pp_text(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        pp_text(buf, cap, "%ld:%02ld", t / 60, t % 60);
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
        pp_text(text, sizeof text, "warning: id %llu: the procstat estimate sat at its ceiling "
                "(every core busy, %.2f cores): it measures the machine, not the workload "
                "(%.2f cores); see cpu_share and machine_cpu_share in summary.csv",
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
        pp_text(what, sizeof what, "id %llu running %s%s%s", (unsigned long long)pr->id, now,
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
    pp_text(line, sizeof line, "[%.*s%.*s] %llu/%llu  %s, ~%s left  %s", fill,
            "############", width - fill, "------------",
            (unsigned long long)pr->done, (unsigned long long)pr->total, el, left, what);
    if (strlen(line) >= cols)
        line[cols - 1] = '\0';
    fprintf(stderr, "\r%s\033[K", line);
    ui->drawn = 1;
}


/* What runs where, before it runs. */
static void announce(const pp_profile *p, const pp_cli_sweep *rq)
{
    uint64_t n = pp_profile_count(p);

    fprintf(stderr, "powprof: profile '%s': %llu configurations on %s (node %s), results in %s\n",
            p->name, (unsigned long long)n, p->device, rq->node.name, rq->out_dir);
    if (rq->shard.n > 1 || rq->repeats > 1)
        fprintf(stderr, "powprof: shard %s (%s): %llu of them, each measured %u time%s\n",
                rq->shard_text, rq->shard.from[0] ? rq->shard.from : "whole sweep",
                (unsigned long long)pp_shard_count(&rq->shard, n), rq->repeats,
                rq->repeats == 1 ? "" : "s");
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

/* The command that continues the sweep, as argv (NULL-ended, at most 16). */
static void resume_argv(const pp_cli_sweep *rq, int stopped, const char **argv)
{
    int n = 0;

    argv[n++] = "powprof";
    argv[n++] = rq->command;
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
    n = pp_cli_adaptive_argv(rq->adaptive, argv, n); /* profile --adaptive and its options */
    argv[n] = NULL;
}

static void print_resume(const pp_cli_sweep *rq, int stopped)
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
        return rc == -EEXIST || rc == -EINVAL || rc == -ENOENT || rc == -EBUSY ? PP_EXIT_USAGE
                                                                          : PP_EXIT_FAILURE;
    return st->failed ? 1 : 0;
}

/* The outcome in words: on stderr the interruption, the stop and the
 * ceiling warning; on stdout the counts (not with --json). */
static void outcome_text(const pp_cli_sweep *rq, int rc, const pp_sweep_stats *st)
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

/* The outcome as one JSON object. */
static json_t *outcome_json(const pp_profile *p, const pp_cli_sweep *rq,
                            const pp_cli_adaptive *ad, int rc, const pp_sweep_stats *st,
                            int status)
{
    char path[PP_PATH_MAX];
    const char *argv[32];
    json_t *resume = json_null(), *root;

    if (rc == -EINTR || rc == -ENOTRECOVERABLE) {
        resume = json_array();
        resume_argv(rq, rc == -ENOTRECOVERABLE, argv);
        for (int i = 0; argv[i]; i++)
            json_array_append_new(resume, json_string(argv[i]));
    }
    root = json_pack("{s:s, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:o, "
                     "s:i}",
                     "profile", p->name, "device", p->device, "output", rq->out_dir, "summary",
                     pp_fmt(path, sizeof path, "%s/summary.csv", rq->out_dir) == 0
                         ? json_string(path) : json_null(), "total", (json_int_t)st->total, "ran", (json_int_t)st->ran, "ok",
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
    pp_cli_adaptive_json(ad, root);
    return root;
}

/* The sweep into rq->out_dir, interruptible. Returns the exit status; the
 * outcome as JSON into *json when json is not NULL. */
int pp_cli_sweep_run(const pp_profile *p, const pp_cli_sweep *rq, json_t **json)
{
    pp_sweep_options so = {0};
    pp_sweep_stats st;
    struct sigaction sa, old_int, old_term;
    progress_ui ui = {isatty(2), 0, 0};
    pp_cli_adaptive none = {0}, *ad = rq->adaptive ? rq->adaptive : &none;
    int rc, status;

    if (pp_results_make_dirs(rq->out_dir) < 0)
        return PP_EXIT_USAGE;
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
    announce(p, rq);
    rc = pp_cli_profile_sweep(p, &so, rq->json, ad, &st); /* pp_sweep_run, or --adaptive's */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (ui.drawn)
        fputc('\n', stderr);
    status = exit_status(rc, &st);
    outcome_text(rq, rc, &st);
    if (json)
        *json = outcome_json(p, rq, ad, rc, &st, status);
    return status;
}

void pp_cli_sweep_init(pp_cli_sweep *rq, const char *command)
{
    memset(rq, 0, sizeof *rq);
    rq->command = command;
    rq->max_failures = 3;
    rq->repeats = 1;
}

int pp_cli_max_failures(const char *cmd, const char *arg, pp_cli_sweep *rq)
{
    int64_t n;

    if (pp_parse_int64(arg, &n) < 0 || n < 1 || n > 1000000) {
        fprintf(stderr, "powprof %s: --max-failures %s: a whole number >= 1 (--keep-going never "
                        "stops)\n", cmd, arg);
        return -1;
    }
    rq->max_failures = (unsigned)n;
    return 0;
}

int pp_cli_opt_retry(const pp_opt *row, const char *arg, const char *cmd)
{
    pp_cli_sweep *rq = row->value;

    (void)arg, (void)cmd;
    rq->retry_failed = rq->resume = 1;
    return 0;
}

int pp_cli_opt_keep_going(const pp_opt *row, const char *arg, const char *cmd)
{
    (void)arg, (void)cmd;
    ((pp_cli_sweep *)row->value)->max_failures = 0;
    return 0;
}

int pp_cli_opt_max_failures(const pp_opt *row, const char *arg, const char *cmd)
{
    return pp_cli_max_failures(cmd, arg, row->value);
}

int pp_cli_sweep_resolve(const pp_profile *p, pp_cli_sweep *rq)
{
    if (rq->shard_spec ? pp_shard_parse(rq->shard_spec, NULL, &rq->shard) < 0
                       : (pp_shard_all(&rq->shard), 0))
        return PP_EXIT_USAGE;
    if (pp_node_identify(p->sysfs_root, rq->node_name, &rq->node) < 0)
        return PP_EXIT_USAGE;
    if (pp_fmt(rq->shard_text, sizeof rq->shard_text, "%llu/%llu",
               (unsigned long long)pp_shard_number(&rq->shard),
               (unsigned long long)rq->shard.n) < 0 ||
        pp_fmt(rq->repeat_text, sizeof rq->repeat_text, "%u", rq->repeats) < 0 ||
        pp_results_dir_name(p->name, rq->out_dir, &rq->shard, rq->node.name, rq->out_buf,
                            sizeof rq->out_buf) < 0)
        return PP_EXIT_USAGE;
    rq->out_dir = rq->out_buf;
    return 0;
}

/* More than PP_PROFILE_CONFIRM_ABOVE configurations: asked on a terminal,
 * refused otherwise. 0 to go on. */
int pp_cli_sweep_confirm(const char *cmd, const char *config, uint64_t n)
{
    char answer[16] = "";

    if (!isatty(0)) {
        fprintf(stderr, "powprof %s: %s describes %llu configurations (more than %d): "
                        "check it with --dry-run, and confirm with --yes\n",
                cmd, config, (unsigned long long)n, PP_PROFILE_CONFIRM_ABOVE);
        return -1;
    }
    fprintf(stderr, "%s describes %llu configurations. Run them all? [y/N] ", config,
            (unsigned long long)n);
    if (!fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
        fprintf(stderr, "powprof %s: not run\n", cmd);
        return -1;
    }
    return 0;
}

