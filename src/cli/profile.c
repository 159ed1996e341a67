/* powprof profile: run every configuration of a profile (the sweep's
 * progress and outcome: sweep_ui.c, shared with run), its dry run, the
 * component types. */
#include "cli.h"
#include "opt.h"
#include "profile_adaptive.h"

#include "src/results/run_json.h"
#include "src/sweep/sweep.h"
#include "src/base/util.h"

#include "components/registry.h"

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
        printf("shard %llu/%llu: %llu of the ", (unsigned long long)pp_shard_number(sh),
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

/* --repeat R into the pp_cli_sweep: 0, or -1 (said why). */
static int repeat_option(const pp_opt *row, const char *arg, const char *cmd)
{
    int64_t n;

    if (pp_parse_int64(arg, &n) < 0 || n < 1 || n > PP_SWEEP_MAX_REPEATS) {
        fprintf(stderr, "powprof %s: --repeat %s: a whole number from 1 to %d\n", cmd, arg,
                PP_SWEEP_MAX_REPEATS);
        return -1;
    }
    ((pp_cli_sweep *)row->value)->repeats = (unsigned)n;
    return 0;
}

/* Options into a; argv[optind] is then CONFIG. -1 to stop with *status. */
static int parse_args(int argc, char **argv, profile_args *a, int *status)
{
    pp_cli_sweep *rq = &a->rq;
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
                        repeat_option),
        PP_OPT_STRING(0, "node", &rq->node_name, "NAME", "the node's name in run.json and the "
                      "node column (default:\nthe host name; letters, digits and _ . - +)"),
        PP_CLI_ADAPTIVE_ROWS(&a->adaptive),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"profile", profile_head, profile_tail, rows, NULL, 0};
    int rc;

    memset(a, 0, sizeof *a);
    pp_cli_sweep_init(&a->rq, "profile");
    a->rq.adaptive = &a->adaptive;
    rc = pp_opt_parse(&c, argc, argv);
    *status = rc == 1 ? 0 : PP_EXIT_USAGE; /* usage also when the profile will not load */
    return rc != 0 ? -1 : 0;
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
