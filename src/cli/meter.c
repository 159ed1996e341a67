/* powprof meter: like `perf stat`, for energy. */
#include "cli.h"

#include "src/api/meter_doc.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPEAT 1000

static const char meter_head[] =
    "usage: powprof meter [-d DEVICE] [-r HZ] [-o TRACE.csv] [--repeat N] [--json]\n"
    "                     [--report FILE] [device options] -- CMD [ARGS...]\n"
    "\n"
    "Run CMD (directly, no shell), sample the power rails while it runs, and\n"
    "report its duration and the mean, minimum and maximum power and the energy\n"
    "of each rail and of the total (rails inside the board input are not added\n"
    "twice). The report goes to stderr, like perf stat's, so that CMD's own\n"
    "output stays clean. The samples are written to the trace as they are taken\n"
    "and the report is kept as running sums: a run of any length needs the same\n"
    "memory, and a trace cut short by a crash is valid up to its last line.\n";

static const char meter_tail[] =
    "A sensor reading that fails is tried again; while readings fail the trace\n"
    "has a gap (a row with the time and empty values) and the report counts the\n"
    "failed readings; sampling stops only after a second's worth of failures in\n"
    "a row (at least 10), and a run that ends while readings fail is incomplete\n"
    "(exit status 125).\n"
    "\n"
    "exit status: CMD's (128 + N when killed by signal N; with --repeat, the last\n"
    "run's); 125 when powprof itself failed (device, sampling, writing the trace:\n"
    "what was measured is still reported), 126/127 when CMD could not be run or\n"
    "found, 2 for a usage error. Ctrl-C reaches CMD; SIGTERM and SIGHUP sent to\n"
    "powprof are passed on to CMD; either way powprof then writes the trace and\n"
    "reports what it measured.\n";

typedef struct meter_args {
    const char *device, *out_path, *report_path;
    double rate_hz;
    int repeat;     /* 0: not asked for */
    int json;
    char **cmd;
} meter_args;

/* ---- Signals, options, the run ----------------------------------------------- */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    /* The terminal's Ctrl-C (and its hang-up) reach CMD's process group by
     * themselves; a signal sent to powprof alone is passed on. */
    pp_meter_signal(sig, si->si_code != SI_KERNEL);
}

static const int caught[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

static void catch_signals(struct sigaction *old)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < PP_ARRAY_SIZE(caught); i++)
        sigaction(caught[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction *old)
{
    for (size_t i = 0; i < PP_ARRAY_SIZE(caught); i++)
        sigaction(caught[i], &old[i], NULL);
}

static int rate_option(const pp_opt *row, const char *arg, const char *cmd)
{
    double *hz = row->value;
    char why[128];

    if (pp_cli_parse_double(cmd, "-r", arg, hz) < 0)
        return -1;
    return pp_cli_refused(cmd, "-r", arg, pp_meter_rate_check(*hz, why, sizeof why), why);
}

/* 1: --help was printed, 0: parsed, -1: usage error (printed). */
static int parse_args(int argc, char **argv, meter_args *a, pp_device_options *opts)
{
    const pp_opt rows[] = {
        PP_OPT_STRING('d', "device", &a->device, "NAME", "power source (see 'powprof devices'; "
                      "default auto)"),
        PP_OPT_CALLBACK('r', "rate", &a->rate_hz, "HZ", "sampling RATE, 0.01 to 10000 (default "
                        "50); not perf\nstat's -r: for repeated runs see --repeat", rate_option),
        PP_OPT_STRING('o', "output", &a->out_path, "FILE", "stream the trace to FILE: "
                      "t_s,<rail>_w,... (a FIFO\nworks too: powprof waits for its reader)"),
        PP_OPT_INT(0, "repeat", &a->repeat, "N", "run CMD N times (1 to 1000) and report the "
                   "mean,\nstandard deviation, min and max of the duration, power\nand energy, "
                   "like perf stat -r; with -o, run k writes\nFILE with .k before its extension "
                   "(t.csv: t.1.csv, ...).\nA run that fails or is interrupted ends the series.",
                   1, MAX_REPEAT),
        PP_OPT_BOOL(0, "json", &a->json, "report as one JSON object (with --repeat: each run\n"
                    "and the statistics)"),
        PP_OPT_STRING(0, "report", &a->report_path, "FILE", "write the report to FILE instead "
                      "of stderr"),
        PP_CLI_DEVICE_ROWS(opts),
        PP_OPT_HELP_END,
    };
    /* "+": stop at the first non-option, so CMD's own options stay its own. */
    const pp_command c = {"meter", meter_head, meter_tail, rows, "+", 0};
    int rc;

    memset(a, 0, sizeof *a);
    a->device = "auto";
    a->rate_hz = 50.0;
    pp_device_options_init(opts);
    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 1 : -1;
    if (optind >= argc) {
        fputs("powprof meter: no command given (powprof meter [options] -- CMD [ARGS...])\n",
              stderr);
        return -1;
    }
    a->cmd = argv + optind;
    return 0;
}

/* Run, report, and the exit status. */
static int meter_and_report(const meter_args *a, pp_device *dev, FILE *report)
{
    size_t n_runs = a->repeat ? (size_t)a->repeat : 1, n = 0;
    pp_meter_result *runs = calloc(n_runs, sizeof *runs);
    pp_meter_options mo = {a->rate_hz, a->out_path};
    pp_meter_ask ask = {a->cmd, a->out_path, a->repeat};
    struct sigaction old[PP_ARRAY_SIZE(caught)];
    int rc, status, reported;
    json_t *doc;

    if (!runs) {
        fputs("powprof meter: out of memory\n", stderr);
        return PP_EXIT_FAILURE;
    }
    pp_meter_signal_reset();
    catch_signals(old);
    rc = pp_meter_repeat(dev, &mo, a->cmd, n_runs, runs, &n);
    restore_signals(old);
    status = pp_meter_exit_status(runs, n, rc, &reported);
    if (reported && !a->json)
        pp_meter_text(report, dev, &ask, runs, n, rc);
    else if (reported && (doc = pp_meter_doc(dev, &ask, runs, n, rc))) {
        json_dumpf(doc, report, JSON_COMPACT | JSON_REAL_PRECISION(10));
        fputc('\n', report);
        json_decref(doc);
    }
    free(runs);
    return status;
}

int pp_cmd_meter(int argc, char **argv)
{
    pp_device_options opts;
    meter_args a;
    pp_device *dev = NULL;
    FILE *report = stderr;
    int rc, status;

    rc = parse_args(argc, argv, &a, &opts);
    if (rc != 0)
        return rc > 0 ? 0 : PP_EXIT_USAGE;
    if (a.report_path && !(report = fopen(a.report_path, "w"))) {
        fprintf(stderr, "powprof meter: --report %s: %s\n", a.report_path, strerror(errno));
        return PP_EXIT_USAGE;
    }
    rc = pp_device_open_with(a.device, &opts, &dev);
    if (rc < 0)
        status = rc == -ENOENT && strcmp(a.device, "auto") != 0 ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    else
        status = meter_and_report(&a, dev, report);
    pp_device_close(dev);
    if (report != stderr && fclose(report) != 0) {
        fprintf(stderr, "powprof meter: --report %s: %s\n", a.report_path, strerror(errno));
        status = PP_EXIT_FAILURE;
    }
    return status;
}
