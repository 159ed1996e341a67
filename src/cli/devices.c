/* powprof devices: every power source, present or not, one reading of each
 * rail of the present ones, and the one `auto` picks. */
#include "cli.h"

#include "src/api/devices_doc.h"

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

/* The answer, as asked: the sources or the clocks, in words or one JSON
 * object. An exit status. */
static int answer(const pp_device_options *opts, int clocks, int json)
{
    json_t *doc = NULL;

    if (clocks && pp_clocks_doc(opts->sysfs_root, json ? &doc : NULL, stdout) < 0)
        return 1;
    if (!clocks && !json)
        pp_devices_text(opts, stdout);
    else if (!clocks)
        doc = pp_devices_doc(opts);
    if (!doc)
        return json && !clocks ? PP_EXIT_FAILURE : 0;
    json_dumpf(doc, stdout, JSON_COMPACT | JSON_REAL_PRECISION(clocks ? 10 : 9));
    putchar('\n');
    json_decref(doc);
    return 0;
}

int pp_cmd_devices(int argc, char **argv)
{
    pp_device_options opts;
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
    return answer(&opts, clocks, json);
}
