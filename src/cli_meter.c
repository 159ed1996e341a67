/* powprof meter: like `perf stat`, for energy. */
#include "cli.h"

#include "log.h"
#include "meter.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static const char meter_help[] =
    "usage: powprof meter [-d DEVICE] [-r HZ] [-o TRACE.csv] [--json] [--report FILE]\n"
    "                     [device options] -- CMD [ARGS...]\n"
    "\n"
    "Run CMD (directly, no shell), sample the power rails while it runs, and\n"
    "report its duration and the mean power and energy of each rail and of the\n"
    "total (rails inside the board input are not added twice). The report goes\n"
    "to stderr, like perf stat's, so that CMD's own output stays clean.\n"
    "\n"
    "options:\n"
    "  -d, --device NAME      power source (see 'powprof devices'; default auto)\n"
    "  -r, --rate HZ          sampling rate, 0.01 to 10000 (default 50)\n"
    "  -o, --output FILE      write the trace: t_s,<rail>_w,... (written even when\n"
    "                         sampling fails part-way)\n"
    "  --json                 report as one JSON object\n"
    "  --report FILE          write the report to FILE instead of stderr\n" PP_CLI_DEVICE_HELP
    "  -h, --help             this help\n"
    "\n"
    "exit status: CMD's (128 + N when killed by signal N); 125 when powprof\n"
    "itself failed (device, sampling, writing), 126/127 when CMD could not be\n"
    "run or found, 2 for a usage error. Ctrl-C reaches CMD; powprof then\n"
    "reports what it measured.\n";

static void print_text(FILE *fp, char **cmd, const pp_device *dev, const pp_meter_result *res,
                       const char *trace_path, int rc)
{
    const pp_trace *t = &res->trace;
    const pp_sampler_stats *st = &res->stats;
    double total_j = 0.0;

    fprintf(fp, "\n powprof meter:");
    for (char **a = cmd; *a; a++)
        fprintf(fp, " %s", *a);
    fprintf(fp, "\n\n");
    fprintf(fp, "   device       %s%s\n", dev->ops->name,
            pp_device_is_estimated(dev) ? "  (rails ESTIMATED from a model, not measured)" : "");
    fprintf(fp, "   exit status  %d\n", res->exit_status);
    fprintf(fp, "   duration     %.3f s\n", res->duration_s);
    fprintf(fp, "   samples      %llu at %.2f Hz (requested %g Hz), %llu deadlines missed, "
                "lateness p50 %.0f us p99 %.0f us\n",
            (unsigned long long)st->n_samples, st->achieved_hz, st->requested_hz,
            (unsigned long long)st->n_missed, st->jitter_p50_us, st->jitter_p99_us);
    fprintf(fp, "   sampler CPU  %.3f s (%.2f%% of one core)\n", st->cpu_s, 100.0 * st->cpu_share);
    if (trace_path)
        fprintf(fp, "   trace        %s\n", trace_path);
    if (rc < 0)
        fprintf(fp, "   error        sampling stopped early: %s\n", strerror(-rc));
    fprintf(fp, "\n   %-24s %12s %12s\n", "rail", "mean power", "energy");
    for (size_t r = 0; r < t->n_rails; r++) {
        double e = pp_trace_energy_j(t, r);
        const pp_rail *rail = &dev->rails[r];
        if (rail->parent < 0)
            total_j += e;
        fprintf(fp, "   %-24s %10.3f W %10.3f J%s%s\n", t->names[r], pp_trace_mean_w(t, r), e,
                rail->flags & PP_RAIL_ESTIMATED ? "  estimated" : "",
                rail->flags & PP_RAIL_BOARD_INPUT ? "  board input" : "");
    }
    if (t->n_rails > 1)
        fprintf(fp, "   %-24s %10.3f W %10.3f J\n", "total",
                pp_trace_duration_s(t) > 0 ? total_j / pp_trace_duration_s(t) : 0.0, total_j);
    fputc('\n', fp);
}

static void print_json(FILE *fp, char **cmd, const pp_device *dev, const pp_meter_result *res,
                       const char *trace_path, int rc)
{
    const pp_trace *t = &res->trace;
    const pp_sampler_stats *st = &res->stats;
    double total_j = 0.0, span = pp_trace_duration_s(t);

    fprintf(fp, "{\"command\":[");
    for (char **a = cmd; *a; a++) {
        if (a != cmd)
            fputc(',', fp);
        pp_json_string(fp, *a);
    }
    fprintf(fp, "],\"device\":");
    pp_json_string(fp, dev->ops->name);
    fprintf(fp, ",\"estimated\":%s,\"exit_status\":%d,\"duration_s\":",
            pp_device_is_estimated(dev) ? "true" : "false", res->exit_status);
    pp_json_number(fp, res->duration_s);
    pp_json_field(fp, "trace_span_s", span);
    fprintf(fp, ",\"samples\":%llu,\"requested_hz\":", (unsigned long long)st->n_samples);
    pp_json_number(fp, st->requested_hz);
    pp_json_field(fp, "achieved_hz", st->achieved_hz);
    fprintf(fp, ",\"missed_deadlines\":%llu,\"jitter_p50_us\":", (unsigned long long)st->n_missed);
    pp_json_number(fp, st->jitter_p50_us);
    pp_json_field(fp, "jitter_p99_us", st->jitter_p99_us);
    pp_json_field(fp, "sampler_cpu_s", st->cpu_s);
    fprintf(fp, ",\"rails\":[");
    for (size_t r = 0; r < t->n_rails; r++) {
        const pp_rail *rail = &dev->rails[r];
        double e = pp_trace_energy_j(t, r);
        if (rail->parent < 0)
            total_j += e;
        fprintf(fp, "%s{\"name\":", r ? "," : "");
        pp_json_string(fp, t->names[r]);
        pp_json_field(fp, "mean_w", pp_trace_mean_w(t, r));
        pp_json_field(fp, "energy_j", e);
        fprintf(fp, ",\"estimated\":%s,\"board_input\":%s}",
                rail->flags & PP_RAIL_ESTIMATED ? "true" : "false",
                rail->flags & PP_RAIL_BOARD_INPUT ? "true" : "false");
    }
    fprintf(fp, "],\"total_energy_j\":");
    pp_json_number(fp, total_j);
    pp_json_field(fp, "total_mean_w", span > 0 ? total_j / span : 0.0);
    fprintf(fp, ",\"trace\":");
    if (trace_path)
        pp_json_string(fp, trace_path);
    else
        fprintf(fp, "null");
    fprintf(fp, ",\"error\":");
    if (rc < 0)
        pp_json_string(fp, strerror(-rc));
    else
        fprintf(fp, "null");
    fprintf(fp, "}\n");
}

int pp_cmd_meter(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"device", required_argument, NULL, 'd'},
        {"rate", required_argument, NULL, 'r'},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {"report", required_argument, NULL, PP_OPT_REPORT},
        PP_CLI_DEVICE_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    pp_device_options opts;
    const char *device = "auto", *out_path = NULL, *report_path = NULL;
    double rate_hz = 50.0;
    int json = 0, opt, rc, status;
    pp_device *dev = NULL;
    pp_meter_result res;
    struct sigaction ign, old_int, old_quit;
    FILE *report = stderr;

    pp_device_options_init(&opts);
    optind = 1;
    /* "+": stop at the first non-option, so CMD's own options stay its own. */
    while ((opt = getopt_long(argc, argv, "+hd:r:o:", longopts, NULL)) != -1) {
        int handled = pp_cli_device_option(opt, optarg, &opts, "meter");
        if (handled < 0)
            return PP_EXIT_USAGE;
        if (handled)
            continue;
        switch (opt) {
        case 'h':
            fputs(meter_help, stdout);
            return 0;
        case 'd':
            device = optarg;
            break;
        case 'r':
            if (pp_cli_parse_double("meter", "-r", optarg, &rate_hz) < 0)
                return PP_EXIT_USAGE;
            if (!(rate_hz >= PP_SAMPLER_MIN_HZ && rate_hz <= PP_SAMPLER_MAX_HZ)) {
                fprintf(stderr, "powprof meter: -r %s: the rate must be between %g and %g Hz\n",
                        optarg, PP_SAMPLER_MIN_HZ, PP_SAMPLER_MAX_HZ);
                return PP_EXIT_USAGE;
            }
            break;
        case 'o':
            out_path = optarg;
            break;
        case PP_OPT_JSON:
            json = 1;
            break;
        case PP_OPT_REPORT:
            report_path = optarg;
            break;
        default:
            fputs("Try 'powprof meter --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fputs("powprof meter: no command given (powprof meter [options] -- CMD [ARGS...])\n",
              stderr);
        return PP_EXIT_USAGE;
    }
    if (report_path && !(report = fopen(report_path, "w"))) {
        fprintf(stderr, "powprof meter: --report %s: %s\n", report_path, strerror(errno));
        return PP_EXIT_USAGE;
    }
    rc = pp_device_open(device, &opts, &dev);
    if (rc < 0) {
        status = rc == -ENOENT && strcmp(device, "auto") != 0 ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
        goto out;
    }
    /* Ctrl-C goes to CMD (same process group); powprof stays to report. */
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    rc = pp_meter_run(dev, rate_hz, argv + optind, &res);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (rc < 0 && res.trace.n_rails == 0) { /* nothing was measured */
        status = res.exit_status ? res.exit_status : PP_EXIT_FAILURE;
        pp_meter_result_free(&res);
        goto out;
    }
    status = res.exit_status;
    if (rc < 0)
        status = PP_EXIT_FAILURE;
    if (out_path && pp_trace_write_csv(&res.trace, out_path) < 0) {
        status = PP_EXIT_FAILURE;
        out_path = NULL;
    }
    if (json)
        print_json(report, argv + optind, dev, &res, out_path, rc);
    else
        print_text(report, argv + optind, dev, &res, out_path, rc);
    pp_meter_result_free(&res);
out:
    pp_device_close(dev);
    if (report != stderr && fclose(report) != 0) {
        fprintf(stderr, "powprof meter: --report %s: %s\n", report_path, strerror(errno));
        status = PP_EXIT_FAILURE;
    }
    return status;
}
