/* cli.c - what the commands share: the options several take (mission,
 * min-soc, resolution, risk), refusals said alike, numbers parsed, a
 * document printed, and what more than one command prints (run prints each
 * step as its command does). */
#include "cli.h"

#include "src/api/pipeline.h"
#include "src/api/profile_doc.h"
#include "src/api/results_doc.h"
#include "src/base/util.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

int pp_cli_parse_double(const char *cmd, const char *name, const char *arg, double *out)
{
    if (pp_parse_double(arg, out) < 0) {
        fprintf(stderr, "powprof %s: %s '%s' is not a number\n", cmd, name, arg);
        return -1;
    }
    return 0;
}

int pp_cli_refused(const char *cmd, const char *name, const char *arg, int rc, const char *why)
{
    if (rc >= 0)
        return 0;
    fprintf(stderr, "powprof %s: %s %s: %s\n", cmd, name, arg, why);
    return -1;
}

int pp_cli_opt_mission_s(const pp_opt *row, const char *arg, const char *cmd)
{
    return pp_mission_s_parse(cmd, arg, row->value);
}

int pp_cli_opt_min_soc(const pp_opt *row, const char *arg, const char *cmd)
{
    if (pp_parse_fraction(arg, row->value) < 0) {
        fprintf(stderr, "powprof %s: --min-soc %s: a fraction in [0, 1) or a percentage "
                "(20%%)\n", cmd, arg);
        return -1;
    }
    return pp_plan_check_min_soc(*(double *)row->value); /* the library's words */
}

int pp_cli_risk_parse(const char *arg, void *mean)
{
    *(int *)mean = strcmp(arg, "mean") == 0;
    return *(int *)mean || strcmp(arg, "upper") == 0 ? 0 : -1;
}

int pp_cli_opt_resolution(const pp_opt *row, const char *arg, const char *cmd)
{
    char why[160];

    return pp_cli_refused(cmd, "--resolution", arg,
                          pp_plan_resolution_parse(arg, row->value, why, sizeof why), why);
}

void pp_cli_mission_say(const pp_mission_settings *m, const pp_battery_params *b, FILE *fp)
{
    const char *file = m->battery_from_folder ? m->folder_cfg : m->config;

    fprintf(fp, "battery: %s%s (%s, %d cells, %.4g Ah); base load %.4g W (%s)\n",
            file ? file : "the default pack, drone-4s-3200",
            m->config ? "'s battery group" : "", pp_battery_model_name(b->model), b->cells,
            b->capacity_ah, b->base_power_w,
            m->base_from_folder ? "the results' mission group"
            : m->base_power_w >= 0 ? "--base-power-w"
            : m->config ? "its battery group" : "the pack's");
}

/* A document on stdout, one line (flags: jansson's), freed; NULL: nothing. */
void pp_cli_print_doc(json_t *doc, size_t flags)
{
    if (!doc)
        return;
    json_dumpf(doc, stdout, flags);
    putchar('\n');
    json_decref(doc);
}

/* ---- what several commands print (run prints each step as its command) ---- */

void pp_cli_model_print(const pp_model *m, const char *dir, int verbose)
{
    if (pp_model_rows_mixed(m))
        fprintf(stderr, "powprof model: warning: %s holds %zu rows for %zu configurations, more "
                "than its repeats and nodes explain: rows of different profiles mixed (a resume "
                "after the profile changed?); each configuration's rows are averaged\n", dir,
                m->sum.n_rows, pp_model_n_configs(m));
    pp_model_text(stdout, m, dir, verbose);
}

/* The plan in words, as `powprof plan` and `powprof run` print it. */
void pp_cli_plan_print(const pp_model *m, const pp_plan_options *o, const pp_plan_result *r)
{
    pp_plan_text(stdout, m, o, r);
}

void pp_cli_plan_phases_print(const pp_model *m, const pp_plan_options *o, const pp_mission_spec *mi,
                              const pp_phases_plan *r)
{
    pp_phases_plan_text(stdout, m, o, mi, r);
}

int pp_cli_plot_show(const char *dir, const pp_plot_options *o, const pp_plot_result *r,
                     json_t **json)
{
    if (json)
        *json = pp_plot_json(dir, o, r);
    else
        pp_plot_text(r);
    return r->n_failed && !r->gnuplot_missing ? PP_EXIT_FAILURE : 0;
}

int pp_cli_dry_run(const pp_profile *p, int json, const pp_shard *sh, json_t *more)
{
    json_t *doc = NULL;
    int rc = pp_profile_dry_run(p, sh, more, json ? &doc : NULL, stdout);

    pp_cli_print_doc(doc, JSON_COMPACT | JSON_REAL_PRECISION(15));
    return rc < 0 ? PP_EXIT_FAILURE : rc;
}
