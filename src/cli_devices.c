/* powprof devices: every power source, present or not, one reading of each
 * rail of the present ones, and the one `auto` picks. */
#include "cli.h"

#include "clock.h"
#include "log.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static const char devices_help[] =
    "usage: powprof devices [--json] [--sysfs-root DIR] [options]\n"
    "\n"
    "List every power source powprof knows, whether this machine has it, the\n"
    "rails of each present one with one reading in watts, and which source\n"
    "'-d auto' picks (the first present one in the order listed).\n"
    "Rails marked 'estimated' are computed from a model, not measured;\n"
    "'board input' is the rail that contains all the others.\n"
    "\n"
    "options:\n"
    "  --json                 one JSON object on stdout\n" PP_CLI_DEVICE_HELP
    "  -h, --help             this help\n";

typedef struct source_report {
    const pp_device_ops *ops;
    int probe_rc;
    int read_rc;
    char why[512];
    pp_device *dev;
    double power_w[PP_DEVICE_MAX_RAILS];
} source_report;

static void examine(source_report *r, const pp_device_options *opts)
{
    r->probe_rc = r->ops->probe(opts, r->why, sizeof r->why);
    r->dev = NULL;
    r->read_rc = 0;
    if (r->probe_rc < 0)
        return;
    r->read_rc = pp_device_open(r->ops->name, opts, &r->dev);
    if (r->read_rc < 0)
        return;
    if (r->ops->flags & PP_DEVICE_INTERVAL) { /* a mean needs an interval */
        int64_t t0 = pp_clock_now_ns(&pp_clock_monotonic);
        r->read_rc = pp_device_read(r->dev, t0, r->power_w);
        if (r->read_rc == 0) {
            pp_clock_monotonic.sleep_until_ns(NULL, t0 + 250000000);
            r->read_rc = pp_device_read(r->dev, pp_clock_now_ns(&pp_clock_monotonic), r->power_w);
        }
    } else {
        r->read_rc = pp_device_read(r->dev, pp_clock_now_ns(&pp_clock_monotonic), r->power_w);
    }
}

static void print_text(const source_report *reps, size_t n, const char *pick)
{
    for (size_t i = 0; i < n; i++) {
        const source_report *r = &reps[i];
        printf("%-9s ", r->ops->name);
        if (r->probe_rc == -ENODEV) {
            printf("absent   %s\n", r->why);
            continue;
        }
        if (r->probe_rc < 0) {
            printf("unusable %s\n", r->why);
            continue;
        }
        if (r->read_rc < 0) {
            printf("error    %s (see the message above)\n", strerror(-r->read_rc));
            continue;
        }
        printf("present  %s\n", r->ops->summary);
        for (size_t k = 0; k < r->dev->n_rails; k++) {
            const pp_rail *rail = &r->dev->rails[k];
            printf("            %-20s %10.3f W", rail->name, r->power_w[k]);
            if (rail->flags & PP_RAIL_ESTIMATED)
                printf("  estimated");
            if (rail->flags & PP_RAIL_BOARD_INPUT)
                printf("  board input");
            if (rail->parent >= 0)
                printf("  (inside %s)", r->dev->rails[rail->parent].name);
            putchar('\n');
        }
        if (r->dev->n_rails > 1)
            printf("            %-20s %10.3f W  (sum of the rails no other rail contains)\n",
                   "total", pp_device_total_w(r->dev, r->power_w));
    }
    printf("auto      %s\n", pick ? pick : "(none)");
}

static void print_json(const source_report *reps, size_t n, const char *pick)
{
    printf("{\"sources\":[");
    for (size_t i = 0; i < n; i++) {
        const source_report *r = &reps[i];
        const char *status = r->probe_rc == -ENODEV ? "absent"
                             : r->probe_rc < 0      ? "unusable"
                             : r->read_rc < 0       ? "error"
                                                    : "present";
        printf("%s{\"name\":", i ? "," : "");
        pp_json_string(stdout, r->ops->name);
        printf(",\"status\":\"%s\",\"summary\":", status);
        pp_json_string(stdout, r->ops->summary);
        printf(",\"reason\":");
        if (r->probe_rc < 0)
            pp_json_string(stdout, r->why);
        else if (r->read_rc < 0)
            pp_json_string(stdout, strerror(-r->read_rc));
        else
            printf("null");
        printf(",\"rails\":[");
        if (r->dev && r->read_rc == 0) {
            for (size_t k = 0; k < r->dev->n_rails; k++) {
                const pp_rail *rail = &r->dev->rails[k];
                printf("%s{\"name\":", k ? "," : "");
                pp_json_string(stdout, rail->name);
                printf(",\"power_w\":");
                pp_json_number(stdout, r->power_w[k]);
                printf(",\"estimated\":%s,\"board_input\":%s,\"inside\":",
                       rail->flags & PP_RAIL_ESTIMATED ? "true" : "false",
                       rail->flags & PP_RAIL_BOARD_INPUT ? "true" : "false");
                if (rail->parent >= 0)
                    pp_json_string(stdout, r->dev->rails[rail->parent].name);
                else
                    printf("null");
                printf("}");
            }
        }
        printf("]");
        if (r->dev && r->read_rc == 0) {
            printf(",\"total_w\":");
            pp_json_number(stdout, pp_device_total_w(r->dev, r->power_w));
        }
        printf("}");
    }
    printf("],\"auto\":");
    if (pick)
        pp_json_string(stdout, pick);
    else
        printf("null");
    printf("}\n");
}

int pp_cmd_devices(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, PP_OPT_JSON},
        PP_CLI_DEVICE_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    source_report reps[16];
    pp_device_options opts;
    const pp_device_ops *pick = NULL;
    struct stat st;
    int json = 0, opt;

    pp_device_options_init(&opts);
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int handled = pp_cli_device_option(opt, optarg, &opts, "devices");
        if (handled < 0)
            return PP_EXIT_USAGE;
        if (handled)
            continue;
        switch (opt) {
        case 'h':
            fputs(devices_help, stdout);
            return 0;
        case PP_OPT_JSON:
            json = 1;
            break;
        default:
            fputs("Try 'powprof devices --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "powprof devices: unexpected argument '%s'\n", argv[optind]);
        return PP_EXIT_USAGE;
    }
    if (stat(opts.sysfs_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "powprof devices: --sysfs-root %s: %s\n", opts.sysfs_root,
                stat(opts.sysfs_root, &st) != 0 ? strerror(errno) : "not a directory");
        return PP_EXIT_USAGE;
    }
    for (size_t i = 0; i < pp_device_backend_count; i++) {
        reps[i].ops = pp_device_backends[i];
        examine(&reps[i], &opts);
    }
    if (pp_device_auto(&opts, &pick) < 0)
        pick = NULL;
    if (json)
        print_json(reps, pp_device_backend_count, pick ? pick->name : NULL);
    else
        print_text(reps, pp_device_backend_count, pick ? pick->name : NULL);
    for (size_t i = 0; i < pp_device_backend_count; i++)
        pp_device_close(reps[i].dev);
    return 0;
}
