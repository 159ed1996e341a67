/* powprof profile: run every configuration of a profile (the sweep's
 * progress and outcome: sweep_ui.c, shared with run), its dry run, the
 * component types. */
#include "cli.h"
#include "sweep_ui.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char profile_head[] =
    "usage: powprof profile CONFIG [-o DIR] [--dry-run] [--resume [--retry-failed]]\n"
    "                       [--keep-going | --max-failures N] [--yes] [--json]\n"
    "                       [--shard K/N | --shard auto[/N]] [--repeat R] [--node NAME]\n"
    "       powprof profile --types [--json | --markdown]\n"
    "\n"
    "Run every configuration of the profile in CONFIG (libconfig syntax: see\n"
    "configs/*.cfg and docs/CONFIG.md) while sampling the power rails, and keep\n"
    "each one's trace and summary row in DIR (default results/<profile name>).\n"
    "Before anything runs, the device is opened and every component checked\n"
    "(its program, files, libraries, module, GPU); a problem stops the run with\n"
    "its reason. Progress goes to stderr: on a terminal one line redrawn in\n"
    "place (a bar, the configuration running, the time left), otherwise a line\n"
    "per configuration; a failure is shown with its reason.\n";

static const char profile_tail[] =
    "DIR may hold {node} and {shard} (K), replaced by powprof: one folder per shard\n"
    "when the launcher starts every shard with the same arguments (mpirun, srun).\n"
    "With --shard and no -o: results/<profile name>-shard-K-of-N.\n"
    "\n"
    "exit status: 0 every configuration ok; 1 some failed or timed out (their rows\n"
    "say why), or the dry run's checks failed; 2 usage or profile error; 4 stopped\n"
    "after --max-failures identical failures (rows kept; the resume command is\n"
    "printed); 125 powprof failed; 130 interrupted (rows kept; --resume goes on).\n";

/* The command line of powprof profile. */
typedef struct profile_args {
    pp_sweep_ask rq;
    int dry, yes, types, markdown;
} profile_args;

/* Options into a; argv[optind] is then CONFIG. -1 to stop with *status. */
static int parse_args(int argc, char **argv, profile_args *a, int *status)
{
    pp_sweep_ask *rq = &a->rq;
    const pp_opt rows[] = {
        PP_OPT_BOOL(0, "dry-run", &a->dry, "list every configuration with its id and parameter\n"
                    "values and an estimate of the total time, then make\nthe checks; exit status "
                    "1 when one fails"),
        PP_OPT_STRING('o', "output", &rq->out_dir, "DIR", "results folder"),
        PP_OPT_BOOL(0, "resume", &rq->resume, "run only the configurations missing from DIR"),
        PP_OPT_CALLBACK(0, "retry-failed", rq, NULL, "resume, and run the failed and timed-out "
                        "ones again\n(their rows are replaced)", pp_cli_opt_retry),
        PP_OPT_CALLBACK(0, "max-failures", rq, "N", "stop when N configurations in a row fail "
                        "with the same\nreason (numbers and labels aside; default 3)",
                        pp_cli_opt_max_failures),
        PP_OPT_CALLBACK(0, "keep-going", rq, NULL, "never stop for failures",
                        pp_cli_opt_keep_going),
        PP_OPT_BOOL(0, "yes", &a->yes, "no confirmation for more than 10000 configurations"),
        PP_OPT_BOOL(0, "json", &rq->json, "one JSON object on stdout: the dry run, the types, "
                    "or\nthe outcome of the run (counts, resume command)"),
        PP_OPT_BOOL(0, "types", &a->types, "the component types: built in, shipped as modules\n"
                    "(installed or not), and modules of your own found in\nPOWPROF_MODULE_PATH; "
                    "each one's keys"),
        PP_OPT_BOOL(0, "markdown", &a->markdown, "with --types: the reference of docs/CONFIG.md"),
        PP_OPT_STRING(0, "shard", &rq->shard_spec, "K/N|auto[/N]", "run only the configurations "
                      "whose id % N == K - 1: K from\n1 to N, as Slurm array ids and GNU "
                      "parallel's {#};\nmerge the shards with powprof merge. auto: K and N from "
                      "the\nlauncher that started powprof: a Slurm array\n(SLURM_ARRAY_TASK_ID, "
                      "_COUNT, _MIN), Open MPI or PMIx\n(OMPI_COMM_WORLD_RANK/SIZE, PMIX_RANK, "
                      "PMI_RANK/SIZE), GNU\nparallel (PARALLEL_SEQ: give N, e.g. auto/3)"),
        PP_OPT_CALLBACK(0, "repeat", rq, "R", "measure each configuration R times, interleaved "
                        "(all once,\nthen all again); rows carry the repeat index",
                        pp_cli_opt_repeat),
        PP_OPT_STRING(0, "node", &rq->node_name, "NAME", "the node's name in run.json and the "
                      "node column (default:\nthe host name; letters, digits and _ . - +)"),
        PP_CLI_ADAPTIVE_ROWS(rq),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"profile", profile_head, profile_tail, rows, NULL, 0};
    int rc;

    memset(a, 0, sizeof *a);
    pp_sweep_ask_init(&a->rq, "profile");
    rc = pp_opt_parse(&c, argc, argv);
    *status = rc == 1 ? 0 : PP_EXIT_USAGE; /* usage also when the profile will not load */
    return rc != 0 ? -1 : 0;
}

/* doc on stdout, one line (freed). */
/* profile --types: the component types, in words, as JSON or Markdown. */
static int types(int json, int markdown)
{
    if (markdown)
        pp_component_types_markdown(stdout);
    else if (json)
        pp_cli_print_doc(pp_component_types_doc(), JSON_COMPACT);
    else
        pp_component_types_text(stdout);
    return 0;
}

int pp_cmd_profile(int argc, char **argv)
{
    profile_args a;
    pp_profile *p;
    json_t *json = NULL;
    int status;

    if (parse_args(argc, argv, &a, &status) < 0)
        return status;
    if (a.types && optind == argc)
        return types(a.rq.json, a.markdown);
    if (optind != argc - 1) {
        fputs("powprof profile: one configuration file expected (powprof profile CONFIG)\n", stderr);
        return PP_EXIT_USAGE;
    }
    a.rq.config = argv[optind];
    if (!(p = malloc(sizeof *p)))
        status = PP_EXIT_FAILURE;
    else if (pp_profile_load(a.rq.config, p) == 0 &&
             (status = pp_sweep_ask_resolve(p, &a.rq) < 0 ? PP_EXIT_USAGE : 0) == 0) {
        if (a.dry)
            status = pp_cli_dry_run(p, a.rq.json, &a.rq.shard, NULL);
        else if (pp_cli_sweep_confirm(&a.rq, pp_profile_count(p), a.yes) == 0)
            status = pp_cli_sweep_run(p, &a.rq, a.rq.json ? &json : NULL);
        else
            status = PP_EXIT_USAGE;
    }
    pp_cli_print_doc(json, JSON_COMPACT);
    free(p);
    return status;
}
