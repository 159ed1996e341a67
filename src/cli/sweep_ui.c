/* The sweep as `powprof profile` and `powprof run` show it: the progress
 * drawn on stderr (on a terminal one line redrawn in place), the sweep's
 * options and the confirmation asked on a terminal. What is decided and
 * answered (the outcome, its words, the command that continues an
 * interrupted or stopped sweep) is the library's (src/api/profile_doc.h). */
#include "cli.h"
#include "sweep_ui.h"

#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
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
static void announce(const pp_profile *p, const pp_sweep_ask *rq)
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

/* An adaptive round's line (over a progress bar). */
static void show_round(void *ctx, const pp_adaptive_progress *p)
{
    char line[2048];

    (void)ctx;
    pp_adaptive_round_text(p, line, sizeof line);
    fprintf(stderr, "%s%s\n", isatty(2) ? "\r\033[K" : "", line);
}

/* The sweep into rq->out_dir, interruptible. Returns the exit status; the
 * outcome as JSON into *json when json is not NULL. */
int pp_cli_sweep_run(const pp_profile *p, pp_sweep_ask *rq, json_t **json)
{
    pp_sweep_options so = {0};
    pp_sweep_stats st;
    struct sigaction sa, old_int, old_term;
    progress_ui ui = {isatty(2), 0, 0};
    int rc, status;

    if (pp_sweep_ask_folder(rq) < 0)
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
    rc = pp_sweep_ask_run(p, &so, rq, show_round, NULL, rq->json ? NULL : stdout, &st);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (ui.drawn)
        fputc('\n', stderr);
    status = pp_sweep_exit_status(rc, &st);
    pp_sweep_outcome_text(rq, rc, &st, stderr, stdout);
    if (json)
        *json = pp_sweep_outcome_doc(p, rq, rc, &st, status);
    return status;
}

int pp_cli_opt_retry(const pp_opt *row, const char *arg, const char *cmd)
{
    pp_sweep_ask *rq = row->value;

    (void)arg, (void)cmd;
    rq->retry_failed = rq->resume = 1;
    return 0;
}

int pp_cli_opt_keep_going(const pp_opt *row, const char *arg, const char *cmd)
{
    (void)arg, (void)cmd;
    ((pp_sweep_ask *)row->value)->max_failures = 0;
    return 0;
}

int pp_cli_opt_max_failures(const pp_opt *row, const char *arg, const char *cmd)
{
    char why[256];

    return pp_cli_refused(cmd, "--max-failures", arg,
                          pp_sweep_ask_max_failures(row->value, arg, why, sizeof why), why);
}

int pp_cli_opt_repeat(const pp_opt *row, const char *arg, const char *cmd)
{
    char why[256];

    return pp_cli_refused(cmd, "--repeat", arg,
                          pp_sweep_ask_repeats(row->value, arg, why, sizeof why), why);
}

int pp_cli_opt_adaptive(const pp_opt *row, const char *arg, const char *cmd)
{
    char why[256], option[64];

    if (pp_sweep_ask_adaptive(row->value, row->long_name, arg, why, sizeof why) == 0)
        return 0;
    pp_text(option, sizeof option, "--%s", row->long_name);
    return pp_cli_refused(cmd, option, arg, -EINVAL, why);
}

int pp_cli_sweep_confirm(const pp_sweep_ask *a, uint64_t n, int yes)
{
    char answer[16] = "", why[PP_PATH_MAX + 128];

    if (!pp_sweep_ask_confirm_needed(n, yes))
        return 0;
    if (!isatty(0)) {
        pp_sweep_ask_unconfirmed(a, n, why, sizeof why);
        fprintf(stderr, "powprof %s: %s\n", a->command, why);
        return -1;
    }
    fprintf(stderr, "%s describes %llu configurations. Run them all? [y/N] ", a->config,
            (unsigned long long)n);
    if (!fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
        fprintf(stderr, "powprof %s: not run\n", a->command);
        return -1;
    }
    return 0;
}
