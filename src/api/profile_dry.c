/* profile_dry.c - profile --dry-run and profile --types, as documents and
 * in words (profile_doc.h). */
#include "profile_doc.h"

#include "src/base/util.h"
#include "src/results/run_json.h"

#include "components/registry.h"

#include <errno.h>
#include <stdlib.h>

static void dry_run_text(FILE *fp, const pp_profile *p, uint64_t n, size_t n_params, double *values,
                         const pp_shard *sh)
{
    char name[160], text[PP_PARAM_LABEL_MAX];
    double total = 0.0;

    fprintf(fp, "%-6s", "id");
    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        fprintf(fp, " %14s", name);
    }
    fprintf(fp, " %12s\n", "at least [s]");
    for (uint64_t id = 0; id < n; id++) {
        double est;
        if (!pp_shard_has(sh, id))
            continue;
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        fprintf(fp, "%-6llu", (unsigned long long)id);
        for (size_t k = 0; k < n_params; k++) {
            pp_profile_value_text(p, k, values[k], text, sizeof text);
            fprintf(fp, " %14s", text);
        }
        fprintf(fp, " %12.1f\n", est);
    }
    if (sh->n > 1)
        fprintf(fp, "shard %llu/%llu: %llu of the ", (unsigned long long)pp_shard_number(sh),
               (unsigned long long)sh->n, (unsigned long long)pp_shard_count(sh, n));
    if (total > 0)
        fprintf(fp, "%llu configurations of profile '%s' on device %s; at least %.0f s (%.1f min) in "
               "all\n", (unsigned long long)n, p->name, p->device, total, total / 60.0);
    else
        fprintf(fp, "%llu configurations of profile '%s' on device %s; time unknown (components run "
               "to completion)\n", (unsigned long long)n, p->name, p->device);
}

static json_t *dry_run_json(const pp_profile *p, uint64_t n, size_t n_params, double *values,
                            int ready, const pp_shard *sh, const json_t *more)
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
        json_object_update(root, (json_t *)more);
    return root;
}

int pp_profile_dry_run(const pp_profile *p, const pp_shard *sh, json_t *more, json_t **doc,
                       FILE *fp)
{
    uint64_t n = pp_profile_count(p);
    double *values = malloc(PP_PROFILE_MAX_COMPONENTS * PP_PROFILE_MAX_PARAMS * sizeof *values);
    int ready;

    if (!values) {
        json_decref(more);
        return -ENOMEM;
    }
    if (!doc)
        dry_run_text(fp, p, n, pp_profile_n_params(p), values, sh);
    fflush(fp);
    ready = pp_sweep_check(p) == 0;
    if (doc)
        *doc = dry_run_json(p, n, pp_profile_n_params(p), values, ready, sh, more);
    else if (ready)
        fprintf(fp, "ready: device %s opens and every component's check passes\n", p->device);
    else
        fprintf(fp, "not ready: the problems are listed above\n");
    json_decref(more);
    free(values);
    return ready ? 0 : 1;
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

static void type_text(FILE *fp, const char *name, const pp_component_ops *ops, const char *why)
{
    if (!ops) {
        fprintf(fp, "%-18s not available: %s\n", name, why);
        return;
    }
    fprintf(fp, "%-18s %s\n", name, ops->summary ? ops->summary : "");
    for (const pp_component_key *k = ops->keys; k && k->name; k++) {
        fprintf(fp, "  %-16s %s%s: %s", k->name, key_kind(k->kind), k->required ? ", required" : "",
               k->doc ? k->doc : "");
        for (const char *const *c = k->choices; c && *c; c++)
            fprintf(fp, "%s%s", c == k->choices ? " (one of: " : ", ", *c);
        fprintf(fp, "%s\n", k->choices ? ")" : "");
    }
}

json_t *pp_component_types_doc(void)
{
    char name[64], why[2048], path[PP_PATH_MAX];
    const pp_component_ops *ops;
    json_t *types = json_array();

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++)
        json_array_append_new(types, type_json(name, ops, why));
    pp_component_module_path(path, sizeof path);
    return json_pack("{s:o, s:s}", "types", types, "module_path", path);
}

void pp_component_types_text(FILE *fp)
{
    char name[64], why[2048], path[PP_PATH_MAX];
    const pp_component_ops *ops;

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++)
        type_text(fp, name, ops, why);
    pp_component_module_path(path, sizeof path);
    fprintf(fp, "every component also takes:");
    for (const char *const *k = pp_profile_component_keys; *k; k++)
        fprintf(fp, " %s", *k);
    fprintf(fp, "\nmodules are looked for in %s\n", path);
}

/* text for a Markdown table cell: '|' escaped. */
static void md_cell(FILE *fp, const char *text)
{
    for (; text && *text; text++)
        fputs(*text == '|' ? "\\|" : (char[]){*text, '\0'}, fp);
}

/* powprof profile --types --markdown: each type's keys as the reference
 * section of docs/CONFIG.md (a test checks that the file has them). */
void pp_component_types_markdown(FILE *fp)
{
    char name[64], why[2048];
    const pp_component_ops *ops;

    for (size_t i = 0; pp_component_type_at(i, name, sizeof name, &ops, why, sizeof why) == 0;
         i++) {
        fprintf(fp, "### `%s`\n\n", name);
        if (!ops) {
            fprintf(fp, "Not available here: ");
            md_cell(fp, why);
            fprintf(fp, "\n\n");
            continue;
        }
        md_cell(fp, ops->summary);
        fprintf(fp, ".\n\n");
        if (!ops->keys || !ops->keys->name) {
            fprintf(fp, "No keys of its own.\n\n");
            continue;
        }
        fprintf(fp, "| key | kind | required | what |\n|---|---|---|---|\n");
        for (const pp_component_key *k = ops->keys; k->name; k++) {
            fprintf(fp, "| `%s` | %s | %s | ", k->name, key_kind(k->kind), k->required ? "yes" : "no");
            md_cell(fp, k->doc);
            for (const char *const *c = k->choices; c && *c; c++)
                fprintf(fp, "%s`%s`", c == k->choices ? "; one of " : ", ", *c);
            fprintf(fp, " |\n");
        }
        fprintf(fp, "\n");
    }
}

