/* powprof: the command line. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#ifndef PP_VERSION
#define PP_VERSION "unknown"
#endif

static const char main_head[] =
    "usage: powprof [--version] [--help] COMMAND [ARGS]\n"
    "\n"
    "powprof measures what software costs a battery-powered computer in power\n"
    "and energy.\n"
    "\n"
    "commands:\n";
static const char main_tail[] =
    "\n"
    "'powprof COMMAND --help' describes each command. Units: watts, joules,\n"
    "seconds. Rails marked 'estimated' are computed from CPU utilization, not\n"
    "measured.\n";

/* The commands in the order --help lists them, each with its line there. */
static const struct {
    const char *name, *what;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"run", "the main job: profile, model, plot and report a configuration file", pp_cmd_run},
    {"devices", "list the power sources of this machine and their rails", pp_cmd_devices},
    {"meter", "run a command and report its energy, like perf stat", pp_cmd_meter},
    {"battery", "drain a modelled battery with a trace: charge, voltage, time to cutoff;\n"
                "             battery fit: your pack fitted to your own flight logs",
     pp_cmd_battery},
    {"profile", "run every configuration of a profile: traces and summary rows", pp_cmd_profile},
    {"import", "read recorded power data (powprofiler, tegrastats, csv, ulog) into results",
     pp_cmd_import},
    {"merge", "combine the shards of a sweep, or the runs of several boards", pp_cmd_merge},
    {"model", "layer 2: the surface of every metric, bandwidths by cross-validation",
     pp_cmd_model},
    {"predict", "every metric at a configuration, measured or not", pp_cmd_predict},
    {"plot", "gnuplot plots of the traces and of the surfaces", pp_cmd_plot},
    {"plan", "the best quality of service a battery carries through a mission", pp_cmd_plan},
    {"govern", "re-plan in flight from the battery's readings; simulate it first", pp_cmd_govern},
    {"layers", "per-layer profiles of darknet networks; predict networks never run",
     pp_cmd_layers},
    {"ulog", "ulog info LOG: a PX4 log's topics, rates and battery instances", pp_cmd_ulog},
};

static void usage(FILE *fp)
{
    fputs(main_head, fp);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].what);
    fputs(main_tail, fp);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return PP_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
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
