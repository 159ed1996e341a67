/* powprof merge: the library's merge (merge.h), its options and report. */
#include "cli.h"
#include "opt.h"

#include "src/results/merge.h"
#include "src/results/tmpdir.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char merge_head[] =
    "usage: powprof merge DIR... -o OUT [--json]\n"
    "\n"
    "Combine results folders of one profile into OUT: the shards of a sweep run\n"
    "on several boards (powprof profile --shard), or whole runs of several boards\n"
    "(then `powprof model OUT` reports how much the boards differ). The folders\n"
    "must be of the same profile (config_hash in run.json) with the same columns;\n"
    "a row is identified by its id, node and repeat. The same row twice (a folder\n"
    "given twice) is kept once and reported; the same id, node and repeat with\n"
    "other measurements is a conflict: reported with both files and lines, and\n"
    "nothing is written. OUT must not exist; it is written into a temporary\n"
    "folder beside it and renamed at the end, so a refusal, an error or Ctrl-C\n"
    "leaves nothing behind (a merge killed with -9 leaves its folder, which the\n"
    "next merge beside it removes). Nothing is read through a symbolic link:\n"
    "a folder received from someone else cannot make merge read outside it.\n"
    "Every row is checked as `powprof model` checks it. Traces go to OUT/traces/<node>/, and OUT/traces/<id>.csv\n"
    "links one node's; OUT/run.json lists the nodes and the sources.\n";

static const char merge_tail[] =
    "exit status: 0 merged; 2 usage, another profile, conflicting rows (nothing\n"
    "written); 125 an I/O error (nothing left behind).\n";

/* Ctrl-C, TERM or HUP: the temporary folder removed, then die of it. */
static void on_signal(int sig)
{
    pp_tmpdir_signal_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void print_report(const pp_merge_report *r, int n_src, const char *out, int json)
{
    if (json) {
        json_t *root = json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "output",
                                 out, "sources", n_src, "rows", (json_int_t)r->n_rows,
                                 "duplicates", (json_int_t)r->n_duplicates, "nodes",
                                 (json_int_t)r->n_nodes, "traces", (json_int_t)r->n_traces,
                                 "traces_missing", (json_int_t)r->n_traces_missing,
                                 "configurations", (json_int_t)r->n_configurations,
                                 "configurations_missing", (json_int_t)r->n_missing,
                                 "config_hash", r->config_hash);
        json_dumpf(root, stdout, JSON_COMPACT);
        putchar('\n');
        json_decref(root);
        return;
    }
    printf("merged %zu rows of %d folders (%zu node%s) into %s", r->n_rows, n_src, r->n_nodes,
           r->n_nodes == 1 ? "" : "s", out);
    if (r->n_duplicates)
        printf("; %zu duplicate row%s kept once", r->n_duplicates, r->n_duplicates == 1 ? "" : "s");
    printf("\n");
    if (r->n_traces_missing)
        printf("%zu rows have no trace in their folder\n", r->n_traces_missing);
    if (r->n_missing)
        fprintf(stderr, "powprof merge: warning: %llu of the profile's %llu configurations have "
                        "no row (a shard not merged yet?)\n", (unsigned long long)r->n_missing,
                (unsigned long long)r->n_configurations);
}

int pp_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    pp_merge_report r;
    int json = 0, rc;
    const pp_opt rows[] = {
        PP_OPT_STRING('o', "output", &out, "OUT", "the merged folder (required)"),
        PP_OPT_BOOL(0, "json", &json, "the report as one JSON object on stdout"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"merge", merge_head, merge_tail, rows, NULL, 0};

    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 0 : rc;
    if (optind >= argc || !out) {
        fputs("powprof merge: at least one results folder and -o OUT are needed\n", stderr);
        return PP_EXIT_USAGE;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    rc = pp_merge((const char *const *)argv + optind, (size_t)(argc - optind), out, &r);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (rc == -EINVAL || rc == -EEXIST)
        return PP_EXIT_USAGE;
    if (rc < 0)
        return PP_EXIT_FAILURE;
    print_report(&r, argc - optind, out, json);
    return 0;
}
