/* powprof: the command line. */
#include "cli.h"

#include "src/base/log.h"

#include <stdio.h>
#include <string.h>

#ifndef PP_VERSION
#define PP_VERSION "unknown"
#endif

static const char main_help[] =
    "usage: powprof [--version] [--help] COMMAND [ARGS]\n"
    "\n"
    "powprof measures what software costs a battery-powered computer in power\n"
    "and energy.\n"
    "\n"
    "commands:\n"
    "  run        the main job: profile, model, plot and report a configuration file\n"
    "  devices    list the power sources of this machine and their rails\n"
    "  meter      run a command and report its energy, like perf stat\n"
    "  battery    drain a modelled battery with a trace: charge, voltage, time to cutoff;\n"
    "             battery fit: your pack fitted to your own flight logs\n"
    "  profile    run every configuration of a profile: traces and summary rows\n"
    "  import     read recorded power data (powprofiler, tegrastats, csv, ulog) into results\n"
    "  merge      combine the shards of a sweep, or the runs of several boards\n"
    "  model      layer 2: the surface of every metric, bandwidths by cross-validation\n"
    "  predict    every metric at a configuration, measured or not\n"
    "  plot       gnuplot plots of the traces and of the surfaces\n"
    "  plan       the best quality of service a battery carries through a mission\n"
    "  govern     re-plan in flight from the battery's readings; simulate it first\n"
    "  layers     per-layer profiles of darknet networks; predict networks never run\n"
    "  ulog       ulog info LOG: a PX4 log's topics, rates and battery instances\n"
    "\n"
    "'powprof COMMAND --help' describes each command. Units: watts, joules,\n"
    "seconds. Rails marked 'estimated' are computed from CPU utilization, not\n"
    "measured.\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"devices", pp_cmd_devices},
    {"meter", pp_cmd_meter},
    {"battery", pp_cmd_battery},
    {"profile", pp_cmd_profile},
    {"import", pp_cmd_import},
    {"merge", pp_cmd_merge},
    {"model", pp_cmd_model},
    {"predict", pp_cmd_predict},
    {"plot", pp_cmd_plot},
    {"run", pp_cmd_run},
    {"plan", pp_cmd_plan},
    {"govern", pp_cmd_govern},
    {"layers", pp_cmd_layers},
    {"ulog", pp_cmd_ulog},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(main_help, stderr);
        return PP_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(main_help, stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("powprof %s\n", PP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "powprof: unknown command '%s' (try 'powprof --help')\n", argv[1]);
    return PP_EXIT_USAGE;
}
