/* powprof profile: run every configuration of a profile (the sweep's
 * progress and outcome: sweep_ui.c, shared with run), its dry run, the
 * component types. */
#include "cli.h"
#include "profile_adaptive.h"

#include "src/results/run_json.h"
#include "src/sweep/sweep.h"
#include "src/base/util.h"

#include "components/registry.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char profile_help[] =
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
    "per configuration; a failure is shown with its reason.\n"
    "\n"
    "options:\n"
    "  --dry-run              list every configuration with its id and parameter\n"
    "                         values and an estimate of the total time, then make\n"
    "                         the checks; exit status 1 when one fails\n"
    "  -o, --output DIR       results folder\n"
    "  --resume               run only the configurations missing from DIR\n"
    "  --retry-failed         resume, and run the failed and timed-out ones again\n"
    "                         (their rows are replaced)\n"
    "  --max-failures N       stop when N configurations in a row fail with the same\n"
    "                         reason (numbers and labels aside; default 3)\n"
    "  --keep-going           never stop for failures\n"
    "  --yes                  no confirmation for more than 10000 configurations\n"
    "  --json                 one JSON object on stdout: the dry run, the types, or\n"
    "                         the outcome of the run (counts, resume command)\n"
    "  --types                the component types: built in, shipped as modules\n"
    "                         (installed or not), and modules of your own found in\n"
    "                         POWPROF_MODULE_PATH; each one's keys\n"
    "  --markdown             with --types: the reference of docs/CONFIG.md\n"
    "  --shard K/N            run only the configurations whose id % N == K (0 <= K < N);\n"
    "                         merge the shards with powprof merge\n"
    "  --shard auto[/N]       K and N from the launcher that started powprof: a Slurm\n"
    "                         array (SLURM_ARRAY_TASK_ID, _COUNT, _MIN), Open MPI or PMIx\n"
    "                         (OMPI_COMM_WORLD_RANK/SIZE, PMIX_RANK, PMI_RANK/SIZE), GNU\n"
    "                         parallel (PARALLEL_SEQ: give N, e.g. auto/3)\n"
    "  --repeat R             measure each configuration R times, interleaved (all once,\n"
    "                         then all again); rows carry the repeat index\n"
    "  --node NAME            the node's name in run.json and the node column (default:\n"
    "                         the host name; letters, digits and _ . - +)\n"
    PP_CLI_ADAPTIVE_HELP
    "\n"
    "DIR may hold {node} and {shard} (K), replaced by powprof: one folder per shard\n"
    "when the launcher starts every shard with the same arguments (mpirun, srun).\n"
    "With --shard and no -o: results/<profile name>-shard-K-of-N.\n"
    "  -h, --help             this help\n"
    "\n"
    "exit status: 0 every configuration ok; 1 some failed or timed out (their rows\n"
    "say why), or the dry run's checks failed; 2 usage or profile error; 4 stopped\n"
    "after --max-failures identical failures (rows kept; the resume command is\n"
    "printed); 125 powprof failed; 130 interrupted (rows kept; --resume goes on).\n";

enum {
    OPT_TYPES = 3000,
    OPT_MARKDOWN,
    OPT_SHARD,
    OPT_REPEAT,
    OPT_NODE,
};

static void dry_run_text(const pp_profile *p, uint64_t n, size_t n_params, double *values,
                         const pp_shard *sh)
{
    char name[160], text[PP_PARAM_LABEL_MAX];
    double total = 0.0;

    printf("%-6s", "id");
    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        printf(" %14s", name);
    }
    printf(" %12s\n", "at least [s]");
    for (uint64_t id = 0; id < n; id++) {
        double est;
        if (!pp_shard_has(sh, id))
            continue;
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        printf("%-6llu", (unsigned long long)id);
        for (size_t k = 0; k < n_params; k++) {
            pp_profile_value_text(p, k, values[k], text, sizeof text);
            printf(" %14s", text);
        }
        printf(" %12.1f\n", est);
    }
    if (sh->n > 1)
        printf("shard %llu/%llu: %llu of the ", (unsigned long long)sh->k,
               (unsigned long long)sh->n, (unsigned long long)pp_shard_count(sh, n));
    if (total > 0)
        printf("%llu configurations of profile '%s' on device %s; at least %.0f s (%.1f min) in "
               "all\n", (unsigned long long)n, p->name, p->device, total, total / 60.0);
    else
        printf("%llu configurations of profile '%s' on device %s; time unknown (components run "
               "to completion)\n", (unsigned long long)n, p->name, p->device);
}

static void dry_run_json(const pp_profile *p, uint64_t n, size_t n_params, double *values,
                         int ready, const pp_shard *sh, json_t *more)
{
    json_t *root = json_object(), *params = json_array(), *kinds = json_array();
    json_t *configs = json_array();
    char name[160];
    double total = 0.0;

    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        json_array_append_new(params, json_string(name));
        json_array_append_new(kinds, json_string(pp_run_json_kind(pp_profile_param(p, k)->kind)));
    }
    for (uint64_t id = 0; id < n; id++) {
        json_t *vals;
        double est;
        if (!pp_shard_has(sh, id))
            continue;
        vals = json_array();
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        for (size_t k = 0; k < n_params; k++) {
            const char *label = pp_profile_label(p, k, values[k]);
            json_array_append_new(vals, label ? json_string(label) : pp_run_json_number(values[k]));
        }
        json_array_append_new(configs, json_pack("{s:I, s:o, s:o}", "id", (json_int_t)id,
                                                 "values", vals, "estimate_s",
                                                 pp_run_json_number(est)));
    }
    json_object_set_new(root, "profile", json_string(p->name));
    json_object_set_new(root, "device", json_string(p->device));
    json_object_set_new(root, "params", params);
    json_object_set_new(root, "kinds", kinds);
    json_object_set_new(root, "configurations", configs);
    json_object_set_new(root, "count", json_integer((json_int_t)n));
    json_object_set_new(root, "estimate_s", pp_run_json_number(total));
    json_object_set_new(root, "ready", json_boolean(ready));
    if (more)
        json_object_update(root, more);
    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(15));
    putchar('\n');
    json_decref(root);
}

static const char *key_kind(pp_key_kind k)
{
    return k == PP_KEY_STRINGS ? "strings" : k == PP_KEY_NUMBER ? "number" : "string";
}

static json_t *type_json(const char *name, const pp_component_ops *ops, const char *why)
{
    json_t *keys = json_array();

    for (const pp_component_key *k = ops && ops->keys ? ops->keys : NULL; k && k->name; k++) {
        json_t *choices = json_array();
        for (const char *const *c = k->choices; c && *c; c++)
            json_array_append_new(choices, json_string(*c));
        json_array_append_new(keys, json_pack("{s:s, s:s, s:b, s:o, s:s}", "name", k->name,
                                              "kind", key_kind(k->kind), "required", k->required,
                                              "choices", choices, "doc", k->doc ? k->doc : ""));
    }
    return json_pack("{s:s, s:b, s:s, s:s, s:o}", "type", name, "available", ops != NULL,
                     "summary", ops && ops->summary ? ops->summary : "", "reason", why, "keys",
                     keys);
}

static void type_text(const char *name, const pp_component_ops *ops, const char *why)
{
    if (!ops) {
        printf("%-18s not available: %s\n", name, why);
        return;
    }
    printf("%-18s %s\n", name, ops->summary ? ops->summary : "");
    for (const pp_component_key *k = ops->keys; k && k->name; k++) {
        printf("  %-16s %s%s: %s", k->name, key_kind(k->kind), k->required ? ", required" : "",
               k->doc ? k->doc : "");
        for (const char *const *c = k->choices; c && *c; c++)
            printf("%s%s", c == k->choices ? " (one of: " : ", ", *c);
        printf("%s\n", k->choices ? ")" : "");
    }
}

/* powprof profile --types: the registry's list. */
static int list_types(int json)
{
    char name[64], why[2048], path[PP_PATH_MAX];
    const pp_component_ops *ops;
    json_t *types = json_array();

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++) {
        if (json)
            json_array_append_new(types, type_json(name, ops, why));
        else
            type_text(name, ops, why);
    }
    pp_component_module_path(path, sizeof path);
    if (json) {
        json_t *root = json_pack("{s:o, s:s}", "types", types, "module_path", path);
        json_dumpf(root, stdout, JSON_COMPACT);
        putchar('\n');
        json_decref(root);
    } else {
        json_decref(types);
        printf("every component also takes:");
        for (const char *const *k = pp_profile_component_keys; *k; k++)
            printf(" %s", *k);
        printf("\nmodules are looked for in %s\n", path);
    }
    return 0;
}

/* text for a Markdown table cell: '|' escaped. */
static void md_cell(const char *text)
{
    for (; text && *text; text++)
        fputs(*text == '|' ? "\\|" : (char[]){*text, '\0'}, stdout);
}

/* powprof profile --types --markdown: each type's keys as the reference
 * section of docs/CONFIG.md (a test checks that the file has them). */
static int list_types_markdown(void)
{
    char name[64], why[2048];
    const pp_component_ops *ops;

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++) {
        printf("### `%s`\n\n", name);
        if (!ops) {
            printf("Not available here: ");
            md_cell(why);
            printf("\n\n");
            continue;
        }
        md_cell(ops->summary);
        printf(".\n\n");
        if (!ops->keys || !ops->keys->name) {
            printf("No keys of its own.\n\n");
            continue;
        }
        printf("| key | kind | required | what |\n|---|---|---|---|\n");
        for (const pp_component_key *k = ops->keys; k->name; k++) {
            printf("| `%s` | %s | %s | ", k->name, key_kind(k->kind), k->required ? "yes" : "no");
            md_cell(k->doc);
            for (const char *const *c = k->choices; c && *c; c++)
                printf("%s`%s`", c == k->choices ? "; one of " : ", ", *c);
            printf(" |\n");
        }
        printf("\n");
    }
    return 0;
}

int pp_cli_dry_run(const pp_profile *p, int json, const pp_shard *sh, json_t *more)
{
    uint64_t n = pp_profile_count(p);
    double *values = malloc(PP_PROFILE_MAX_COMPONENTS * PP_PROFILE_MAX_PARAMS * sizeof *values);
    int ready;

    if (!values) {
        json_decref(more);
        return PP_EXIT_FAILURE;
    }
    if (!json)
        dry_run_text(p, n, pp_profile_n_params(p), values, sh);
    fflush(stdout);
    ready = pp_sweep_check(p) == 0;
    if (json)
        dry_run_json(p, n, pp_profile_n_params(p), values, ready, sh, more);
    else if (ready)
        printf("ready: device %s opens and every component's check passes\n", p->device);
    else
        printf("not ready: the problems are listed above\n");
    json_decref(more);
    free(values);
    return ready ? 0 : 1;
}

/* The command line of powprof profile. */
typedef struct profile_args {
    pp_cli_sweep rq;
    pp_cli_adaptive adaptive; /* --adaptive and its options (rq.adaptive points here) */
    int dry, yes, types, markdown;
} profile_args;

/* --shard, --repeat, --node into rq: 0, or -1 (said why). */
static int fleet_option(int opt, const char *arg, pp_cli_sweep *rq)
{
    int64_t n;

    if (opt == OPT_SHARD) {
        rq->shard_spec = arg;
    } else if (opt == OPT_NODE) {
        rq->node_name = arg;
    } else if (pp_parse_int64(arg, &n) < 0 || n < 1 || n > PP_SWEEP_MAX_REPEATS) {
        fprintf(stderr, "powprof profile: --repeat %s: a whole number from 1 to %d\n", arg,
                PP_SWEEP_MAX_REPEATS);
        return -1;
    } else {
        rq->repeats = (unsigned)n;
    }
    return 0;
}

/* -o, --resume, --retry-failed, --max-failures, --keep-going: 1 when opt
 * was one of them, 0 when not, -1 on a bad value (said why). */
static int sweep_option(int opt, const char *arg, pp_cli_sweep *rq)
{
    switch (opt) {
    case 'o':
        rq->out_dir = arg;
        return 1;
    case PP_OPT_RESUME:
        rq->resume = 1;
        return 1;
    case PP_OPT_RETRY:
        rq->retry_failed = rq->resume = 1;
        return 1;
    case PP_OPT_MAX_FAILURES:
        return pp_cli_max_failures("profile", arg, rq) < 0 ? -1 : 1;
    case PP_OPT_KEEP_GOING:
        rq->max_failures = 0;
        return 1;
    default:
        return 0;
    }
}

/* --dry-run, --yes, --json, --types, --markdown and the fleet's options:
 * 0, or -1 (said why). */
static int mode_option(int opt, const char *arg, profile_args *a)
{
    switch (opt) {
    case PP_OPT_DRY_RUN:
        a->dry = 1;
        return 0;
    case PP_OPT_YES:
        a->yes = 1;
        return 0;
    case PP_OPT_JSON:
        a->rq.json = 1;
        return 0;
    case OPT_TYPES:
        a->types = 1;
        return 0;
    case OPT_MARKDOWN:
        a->markdown = 1;
        return 0;
    case OPT_SHARD:
    case OPT_REPEAT:
    case OPT_NODE:
        return fleet_option(opt, arg, &a->rq);
    default: /* --adaptive and its options, or "Try --help" */
        return pp_cli_adaptive_option(&a->adaptive, opt, arg) < 0 ? -1 : 0;
    }
}

/* Options into a; argv[optind] is then CONFIG. -1 to stop with *status. */
static int parse_args(int argc, char **argv, profile_args *a, int *status)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        PP_CLI_SWEEP_LONG_OPTIONS,
        {"json", no_argument, NULL, PP_OPT_JSON},
        {"types", no_argument, NULL, OPT_TYPES},
        {"markdown", no_argument, NULL, OPT_MARKDOWN},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"node", required_argument, NULL, OPT_NODE}, PP_CLI_ADAPTIVE_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    int opt, rc;

    memset(a, 0, sizeof *a);
    pp_cli_sweep_init(&a->rq, "profile");
    a->rq.adaptive = &a->adaptive;
    *status = PP_EXIT_USAGE;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(profile_help, stdout);
            *status = 0;
            return -1;
        }
        if ((rc = sweep_option(opt, optarg, &a->rq)) == 0)
            rc = mode_option(opt, optarg, a);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int pp_cmd_profile(int argc, char **argv)
{
    profile_args a;
    pp_profile *p;
    json_t *json = NULL;
    uint64_t n;
    int status;

    if (parse_args(argc, argv, &a, &status) < 0)
        return status;
    if (a.types && optind == argc)
        return a.markdown ? list_types_markdown() : list_types(a.rq.json);
    if (optind != argc - 1) {
        fputs("powprof profile: one configuration file expected (powprof profile CONFIG)\n", stderr);
        return PP_EXIT_USAGE;
    }
    a.rq.config = argv[optind];
    if (!(p = malloc(sizeof *p)))
        status = PP_EXIT_FAILURE;
    else if (pp_profile_load(a.rq.config, p) == 0 && (status = pp_cli_sweep_resolve(p, &a.rq)) == 0) {
        n = pp_profile_count(p);
        if (a.dry)
            status = pp_cli_dry_run(p, a.rq.json, &a.rq.shard, NULL);
        else if (n <= PP_PROFILE_CONFIRM_ABOVE || a.yes ||
                 pp_cli_sweep_confirm("profile", a.rq.config, n) == 0)
            status = pp_cli_sweep_run(p, &a.rq, a.rq.json ? &json : NULL);
        else
            status = PP_EXIT_USAGE;
    }
    if (json) {
        json_dumpf(json, stdout, JSON_COMPACT);
        putchar('\n');
        json_decref(json);
    }
    free(p);
    return status;
}
