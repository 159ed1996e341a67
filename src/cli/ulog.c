/* powprof ulog info LOG: what a PX4 flight log holds before it is imported
 * (its topics, their rates, the battery instances powprof can use), as
 * pyulog's ulog_info lists it. Parses, calls the library, prints. */
#include "cli.h"

#include "src/api/results_doc.h"

#include <string.h>

static const char ulog_head[] =
    "usage: powprof ulog info LOG [--json]\n"
    "\n"
    "What a PX4 flight log (.ulg) holds: its version and length, every topic\n"
    "with its instance, messages and rate, and the battery_status instances\n"
    "that `powprof import ulog` makes rails of and `powprof battery fit` fits\n"
    "(samples, voltage and current ranges, cells, capacity, the autopilot's\n"
    "BATn_* parameters), before anything is imported.\n";

int pp_cmd_ulog(int argc, char **argv)
{
    int json = 0, rc;
    const pp_opt rows[] = {
        PP_OPT_BOOL(0, "json", &json, "one JSON object: file, version, messages, duration_s, "
                    "topics\n[{name, instance, messages, rate_hz, first_s, last_s}] (the\nlog's "
                    "timestamps, s), batteries [...]"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"ulog", ulog_head, NULL, rows, NULL, 10};

    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 0 : rc;
    if (argc - optind != 2 || strcmp(argv[optind], "info") != 0) {
        fputs("powprof ulog: 'info LOG' expected (powprof ulog --help)\n", stderr);
        return PP_EXIT_USAGE;
    }
    return pp_ulog_info(argv[optind + 1], json) < 0 ? PP_EXIT_USAGE : 0;
}
