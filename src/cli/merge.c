/* powprof merge: the library's merge (merge.h), its options and report. */
#include "cli.h"

#include "src/api/results_doc.h"

#include <errno.h>

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

int pp_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
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
    rc = pp_merge_answer((const char *const *)argv + optind, (size_t)(argc - optind), out, json);
    return rc == -EINVAL || rc == -EEXIST ? PP_EXIT_USAGE : rc < 0 ? PP_EXIT_FAILURE : 0;
}
