/* powprof profile: run every configuration of a profile. */
#include "cli.h"

#include "log.h"
#include "profile.h"
#include "run_json.h"
#include "sweep.h"
#include "util.h"

#include "../components/registry.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int g_interrupt;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&g_interrupt, 1);
}

static void fmt_clock(double s, char *buf, size_t cap)
{
    long t = isfinite(s) && s >= 0 ? (long)(s + 0.5) : -1;
    if (t < 0)
        pp_fmt(buf, cap, "?");
    else if (t >= 3600)
        pp_fmt(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        pp_fmt(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

/* A bar on a terminal, a line per configuration otherwise. */
static void show_progress(void *ctx, const pp_sweep_progress *pr)
{
    int tty = *(int *)ctx;
    char el[32], left[32];

    fmt_clock(pr->elapsed_s, el, sizeof el);
    fmt_clock(pr->left_s, left, sizeof left);
    if (tty) {
        int width = 30, fill = pr->total ? (int)(width * pr->done / pr->total) : width;
        fprintf(stderr, "\r[%.*s%*s] %llu/%llu  id %llu %s  elapsed %s  left ~%s   ", fill,
                "##############################", width - fill, "",
                (unsigned long long)pr->done, (unsigned long long)pr->total,
                (unsigned long long)pr->id, pr->status, el, left);
        if (pr->done == pr->total)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "powprof: [%llu/%llu] id %llu %s %.2f s %.3f W  elapsed %s left ~%s\n",
                (unsigned long long)pr->done, (unsigned long long)pr->total,
                (unsigned long long)pr->id, pr->status, pr->duration_s, pr->total_mean_w, el,
                left);
    }
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[4096];

    if (pp_strlcpy(buf, path, sizeof buf) < 0)
        return -ENAMETOOLONG;
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

static const char profile_help[] =
    "usage: powprof profile CONFIG [-o DIR] [--dry-run] [--resume] [--yes] [--json]\n"
    "       powprof profile --types [--json]\n"
    "\n"
    "Run every configuration of the profile in CONFIG (libconfig syntax: see\n"
    "configs/*.cfg) while sampling the power rails, and keep each one's trace\n"
    "and summary row in DIR (default results/<profile name>). Before anything\n"
    "runs, the device is opened and every component checked (its program,\n"
    "files, libraries, module, GPU); a problem stops the run with its reason.\n"
    "\n"
    "options:\n"
    "  --dry-run              list every configuration with its id and parameter\n"
    "                         values and an estimate of the total time, then make\n"
    "                         the checks; exit status 1 when one fails\n"
    "  -o, --output DIR       results folder\n"
    "  --resume               run only the configurations missing from DIR\n"
    "  --yes                  no confirmation for more than 10000 configurations\n"
    "  --json                 with --dry-run or --types: one JSON object\n"
    "  --types                the component types: built in, shipped as modules\n"
    "                         (installed or not), and modules of your own found in\n"
    "                         POWPROF_MODULE_PATH; each one's keys\n"
    "  -h, --help             this help\n";

enum { OPT_DRY_RUN = 3000, OPT_RESUME, OPT_YES, OPT_TYPES };

static void dry_run_text(const pp_profile *p, uint64_t n, size_t n_params, double *values)
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
    if (total > 0)
        printf("%llu configurations of profile '%s' on device %s; at least %.0f s (%.1f min) in "
               "all\n", (unsigned long long)n, p->name, p->device, total, total / 60.0);
    else
        printf("%llu configurations of profile '%s' on device %s; time unknown (components run "
               "to completion)\n", (unsigned long long)n, p->name, p->device);
}

static void dry_run_json(const pp_profile *p, uint64_t n, size_t n_params, double *values,
                         int ready)
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
        json_t *vals = json_array();
        double est;
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
    char name[64], why[2048], path[4096];
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

/* More than PP_PROFILE_CONFIRM_ABOVE configurations: asked on a terminal,
 * refused otherwise. 0 to go on. */
static int confirm_many(const char *config, uint64_t n)
{
    char answer[16] = "";

    if (!isatty(0)) {
        fprintf(stderr, "powprof profile: %s describes %llu configurations (more than %d): "
                        "check it with --dry-run, and confirm with --yes\n",
                config, (unsigned long long)n, PP_PROFILE_CONFIRM_ABOVE);
        return -1;
    }
    fprintf(stderr, "%s describes %llu configurations. Run them all? [y/N] ", config,
            (unsigned long long)n);
    if (!fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
        fprintf(stderr, "powprof profile: not run\n");
        return -1;
    }
    return 0;
}

/* --dry-run: the list, then the checks. Returns the exit status. */
static int dry_run(const pp_profile *p, uint64_t n, double *values, int json)
{
    int ready;

    if (!json)
        dry_run_text(p, n, pp_profile_n_params(p), values);
    fflush(stdout);
    ready = pp_sweep_check(p) == 0;
    if (json)
        dry_run_json(p, n, pp_profile_n_params(p), values, ready);
    else if (ready)
        printf("ready: device %s opens and every component's check passes\n", p->device);
    else
        printf("not ready: the problems are listed above\n");
    return ready ? 0 : 1;
}

/* The sweep into out_dir, interruptible. Returns the exit status. */
static int run_sweep(const pp_profile *p, uint64_t n, const char *config, const char *out_dir,
                     int resume)
{
    pp_sweep_options so = {0};
    pp_sweep_stats st;
    struct sigaction sa, old_int, old_term;
    int tty = isatty(2), rc;

    if (make_dirs(out_dir) < 0) {
        fprintf(stderr, "powprof profile: -o %s: cannot create: %s\n", out_dir, strerror(errno));
        return PP_EXIT_USAGE;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    so.out_dir = out_dir;
    so.resume = resume;
    so.interrupt = &g_interrupt;
    so.progress = show_progress;
    so.progress_ctx = &tty;
    fprintf(stderr, "powprof: profile '%s': %llu configurations on %s, results in %s\n", p->name,
            (unsigned long long)n, p->device, out_dir);
    rc = pp_sweep_run(p, &so, &st);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (tty && st.ran && st.ran + st.skipped < st.total)
        fputc('\n', stderr);
    if (rc == -EINTR) {
        fprintf(stderr, "powprof: interrupted: %llu of %llu configurations saved in %s; "
                        "continue with: powprof profile %s -o %s --resume\n",
                (unsigned long long)(st.ran + st.skipped), (unsigned long long)st.total, out_dir,
                config, out_dir);
        return 130;
    }
    if (rc < 0)
        return rc == -EEXIST || rc == -EINVAL || rc == -ENOENT ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    printf("%llu configurations: %llu run (%llu ok, %llu failed or timed out), %llu already "
           "done; summary in %s/summary.csv\n",
           (unsigned long long)st.total, (unsigned long long)st.ran, (unsigned long long)st.ok,
           (unsigned long long)st.failed, (unsigned long long)st.skipped, out_dir);
    return st.failed ? 1 : 0;
}

int pp_cmd_profile(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"yes", no_argument, NULL, OPT_YES},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {"types", no_argument, NULL, OPT_TYPES},
        {NULL, 0, NULL, 0},
    };
    int dry = 0, json = 0, yes = 0, resume = 0, types = 0, opt, status = PP_EXIT_USAGE;
    const char *out_dir = NULL;
    char default_dir[4096];
    pp_profile *p;
    double *values;
    uint64_t n;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(profile_help, stdout);
            return 0;
        case 'o':
            out_dir = optarg;
            break;
        case OPT_RESUME:
            resume = 1;
            break;
        case OPT_DRY_RUN:
            dry = 1;
            break;
        case OPT_YES:
            yes = 1;
            break;
        case PP_OPT_JSON:
            json = 1;
            break;
        case OPT_TYPES:
            types = 1;
            break;
        default:
            fputs("Try 'powprof profile --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (types && optind == argc)
        return list_types(json);
    if (optind != argc - 1) {
        fputs("powprof profile: one configuration file expected (powprof profile CONFIG)\n", stderr);
        return PP_EXIT_USAGE;
    }
    p = malloc(sizeof *p);
    values = malloc(PP_PROFILE_MAX_COMPONENTS * PP_PROFILE_MAX_PARAMS * sizeof *values);
    if (!p || !values)
        status = PP_EXIT_FAILURE;
    else if (pp_profile_load(argv[optind], p) == 0) {
        n = pp_profile_count(p);
        if (dry)
            status = dry_run(p, n, values, json);
        else if (n <= PP_PROFILE_CONFIRM_ABOVE || yes || confirm_many(argv[optind], n) == 0) {
            if (!out_dir && pp_fmt(default_dir, sizeof default_dir, "results/%s", p->name) == 0)
                out_dir = default_dir;
            status = run_sweep(p, n, argv[optind], out_dir, resume);
        }
    }
    free(p);
    free(values);
    return status;
}
