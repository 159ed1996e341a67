/* powprof devices: every power source, present or not, one reading of each
 * rail of the present ones, and the one `auto` picks. */
#include "cli.h"
#include "devices_clocks.h"

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/results/run_json.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

static const char devices_head[] =
    "usage: powprof devices [--clocks] [--json] [--sysfs-root DIR] [options]\n"
    "\n"
    "List every power source powprof knows, whether this machine has it, the\n"
    "rails of each present one with one reading in watts, and which source\n"
    "'-d auto' picks (the first present one in the order listed).\n"
    "Rails marked 'estimated' are computed from a model, not measured;\n"
    "'board input' is the rail that contains all the others.\n"
    "It only reads, with one exception: an ODROID's INA231 sensors that are off\n"
    "are switched on (1 written to their 'enable' files, which needs root), as\n"
    "for any measurement, and each one switched is said on stderr.\n"
    "\n"
    "With --clocks: the clocks a profile can set instead (clocks = { ... } in\n"
    "docs/CONFIG.md): per CPU, GPU and memory-controller clock its governor, its\n"
    "frequency now, its available frequencies, how powprof sets it and whether\n"
    "this user may (else the file that needs root); the nvpmodel power modes.\n";

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

static json_t *rails_json(const source_report *r)
{
    json_t *rails = json_array();

    for (size_t k = 0; r->dev && r->read_rc == 0 && k < r->dev->n_rails; k++) {
        const pp_rail *rail = &r->dev->rails[k];
        json_array_append_new(
            rails, json_pack("{s:s, s:o, s:b, s:b, s:o}", "name", rail->name, "power_w",
                             pp_run_json_number(r->power_w[k]), "estimated",
                             (rail->flags & PP_RAIL_ESTIMATED) != 0, "board_input",
                             (rail->flags & PP_RAIL_BOARD_INPUT) != 0, "inside",
                             rail->parent >= 0 ? json_string(r->dev->rails[rail->parent].name)
                                               : json_null()));
    }
    return rails;
}

static void print_json(const source_report *reps, size_t n, const char *pick)
{
    json_t *sources = json_array(), *root;

    for (size_t i = 0; i < n; i++) {
        const source_report *r = &reps[i];
        const char *status = r->probe_rc == -ENODEV ? "absent"
                             : r->probe_rc < 0      ? "unusable"
                             : r->read_rc < 0       ? "error"
                                                    : "present";
        json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", r->ops->name, "status", status,
                              "summary", r->ops->summary, "reason",
                              r->probe_rc < 0  ? json_string(r->why)
                              : r->read_rc < 0 ? json_string(strerror(-r->read_rc))
                                               : json_null(),
                              "rails", rails_json(r));
        if (r->dev && r->read_rc == 0)
            json_object_set_new(o, "total_w",
                                pp_run_json_number(pp_device_total_w(r->dev, r->power_w)));
        json_array_append_new(sources, o);
    }
    root = json_pack("{s:o, s:o}", "sources", sources, "auto",
                     pick ? json_string(pick) : json_null());
    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(9));
    putchar('\n');
    json_decref(root);
}

int pp_cmd_devices(int argc, char **argv)
{
    source_report reps[16];
    pp_device_options opts;
    const pp_device_ops *pick = NULL;
    struct stat st;
    int json = 0, clocks = 0, rc;
    const pp_opt rows[] = {
        PP_OPT_BOOL(0, "clocks", &clocks, "the clocks and power modes, not the power sources"),
        PP_OPT_BOOL(0, "json", &json, "one JSON object on stdout"),
        PP_CLI_DEVICE_ROWS(&opts),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"devices", devices_head, NULL, rows, NULL, 0};

    pp_device_options_init(&opts);
    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 0 : rc;
    if (optind < argc) {
        fprintf(stderr, "powprof devices: unexpected argument '%s'\n", argv[optind]);
        return PP_EXIT_USAGE;
    }
    if (stat(opts.sysfs_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "powprof devices: --sysfs-root %s: %s\n", opts.sysfs_root,
                stat(opts.sysfs_root, &st) != 0 ? strerror(errno) : "not a directory");
        return PP_EXIT_USAGE;
    }
    if (clocks)
        return pp_cli_devices_clocks(opts.sysfs_root, json);
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
