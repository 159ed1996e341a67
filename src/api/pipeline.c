/* The method's steps as library calls (see pipeline.h): the checks before
 * a run, the model kept, the plots, the report. The plan's steps are in
 * pipeline_plan.c. */
#include "pipeline.h"

#include "src/results/base_traces.h"

#include "src/config/config.h"
#include "src/layer2/variability.h"
#include "src/plan/mission_check.h"
#include "src/plan/plan_battery.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- before anything runs ------------------------------------------- */

int pp_plan_check_min_soc(double frac)
{
    if (frac >= 0 && frac < 1)
        return 0;
    pp_log_error("min soc %g: the charge to keep is a fraction in [0, 1) (%s)", frac,
                 frac > 1 && frac <= 100 ? "a percentage? write it / 100" : "20 % is 0.2");
    return -EINVAL;
}

/* mission.maximize names a numeric parameter of p, or (not given) p has
 * one the planner can choose. 0, or -EINVAL (logged with the line). */
static int check_maximize(const pp_profile *p, const pp_config *cfg, const pp_config_setting *g)
{
    const char *want = p->mission_maximize[0] ? p->mission_maximize : NULL;
    char name[160], known[2048] = "";
    size_t len = 0, n = pp_profile_n_params(p);
    int found = -1, numeric = 0;

    for (size_t k = 0; k < n; k++) {
        int categorical = pp_profile_param(p, k)->kind == PP_RANGE_CATEGORICAL;
        pp_profile_param_name(p, k, name, sizeof name);
        if (len < sizeof known)
            len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", k ? ", " : "", name);
        if (want && strcmp(name, want) == 0)
            found = (int)k;
        numeric |= !categorical;
    }
    if (want && found < 0)
        return pp_config_error(cfg, g, "maximize", "'%s' is no parameter of the profile (its "
                               "parameters: %s)", want, n ? known : "none");
    if (found >= 0 && pp_profile_param(p, (size_t)found)->kind == PP_RANGE_CATEGORICAL)
        return pp_config_error(cfg, g, "maximize", "'%s' is categorical: a plan maximizes a "
                               "number (numeric parameters: %s)", want, known);
    if (!want && !numeric)
        return pp_config_error(cfg, g, NULL, "nothing numeric to maximize (parameters: %s)",
                               n ? known : "none");
    return 0;
}

/* The mission group of p's file, checked against the profile and the
 * battery. 0 or -EINVAL (logged with the line). */
static int check_mission(const pp_profile *p)
{
    const pp_config_setting *g = NULL;
    pp_plan_options *o;
    pp_config *cfg;
    int rc;

    if (!p->has_mission)
        return 0;
    if ((rc = pp_config_load(p->path, &cfg)) < 0)
        return rc;
    if (pp_config_get_group(cfg, pp_config_root(cfg), "mission", &g) != 0 || !g)
        rc = -EINVAL;
    else if (p->mission_min_soc >= p->battery.soc_start_frac)
        rc = pp_config_error(cfg, g, "min_soc", "%g is not below the battery's start "
                             "(soc_start %g)", p->mission_min_soc, p->battery.soc_start_frac);
    else
        rc = check_maximize(p, cfg, g);
    pp_config_free(cfg);
    if (pp_mission_check_profile(&p->mission, p) < 0) /* the phases' bounds, base traces */
        rc = -EINVAL;
    if (rc == 0 && !(o = malloc(sizeof *o)))
        rc = -ENOMEM;
    else if (rc == 0) {
        rc = pp_pipeline_mission(p, o) < 0 ? -EINVAL : 0; /* the battery with the base load */
        rc = rc == 0 ? pp_pipeline_mission_fixed(p, o) : rc;
        free(o);
    }
    return rc;
}

/* dir, or the folder that will hold it, can be written. */
static int check_folder(const char *dir)
{
    char at[PP_PATH_MAX];
    char *slash;
    struct stat sb;

    if (pp_strlcpy(at, dir, sizeof at) < 0) {
        pp_log_error("results folder %s: too long", dir);
        return -EINVAL;
    }
    while (access(at, F_OK) != 0 && (slash = strrchr(at, '/')) != NULL)
        *(slash == at ? slash + 1 : slash) = '\0';
    if (access(at, F_OK) != 0)
        memcpy(at, ".", sizeof "."); /* fits */
    if (stat(at, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        pp_log_error("results folder %s: %s is not a folder", dir, at);
        return -EINVAL;
    }
    if (access(at, W_OK | X_OK) != 0) {
        pp_log_error("results folder %s: %s is not writable", dir, at);
        return -EINVAL;
    }
    return 0;
}

int pp_pipeline_check(const pp_profile *p, const char *dir)
{
    const char *key;
    char why[256];
    int rc = 0;

    if (pp_battery_params_check(&p->battery, &key, why, sizeof why) < 0) {
        pp_log_error("%s: battery.%s: %s", p->path, key, why);
        rc = -EINVAL;
    }
    if (check_mission(p) < 0)
        rc = -EINVAL;
    if (check_folder(dir) < 0)
        rc = -EINVAL;
    return rc;
}

/* ---- layer 2 ---------------------------------------------------------- */

int pp_pipeline_model_keep(pp_model *m, const char *dir)
{
    int rc;

    if ((m->sum.n_nodes > 1 || m->sum.max_repeat > 0) && !m->fleet) {
        if (!(m->fleet = calloc(1, sizeof *m->fleet)))
            return -ENOMEM;
        if ((rc = pp_fleet_measure(m, 1, m->fleet)) < 0)
            return rc;
    }
    if ((rc = pp_model_save(m, dir)) < 0)
        return rc;
    return pp_model_write_grids(m, dir);
}

int pp_pipeline_model(const char *dir, const pp_model_options *o, pp_model *m)
{
    int rc = pp_model_read(dir, o, 0, m);

    if (rc < 0)
        return rc;
    if ((rc = pp_pipeline_model_keep(m, dir)) < 0)
        pp_model_free(m);
    return rc;
}

int pp_model_metric_repeats(const pp_summary *s, size_t k, size_t *of)
{
    int is_end = strcmp(s->metrics[k], "soc_end") == 0;

    for (size_t j = 0; j < s->n_metrics; j++) {
        size_t i = 0;
        if (j == k || (strncmp(s->metrics[j], "total_", 6) != 0 && !is_end))
            continue;
        if (is_end && strcmp(s->metrics[j], "soc_drain") != 0)
            continue;
        while (i < s->n_rows) {
            double a = s->y[i * s->n_metrics + k], b = s->y[i * s->n_metrics + j];
            if (is_end ? fabs(a + b - 1) > 1e-6 : !(a == b || (isnan(a) && isnan(b))))
                break;
            i++;
        }
        /* two total_* columns equal in every row (an imported rail named
         * total_w, renamed total_rail): one of them is shown, the shorter
         * name (then the first), not neither */
        if (i == s->n_rows && !is_end && strncmp(s->metrics[k], "total_", 6) == 0 &&
            (strlen(s->metrics[k]) < strlen(s->metrics[j]) ||
             (strlen(s->metrics[k]) == strlen(s->metrics[j]) && k < j)))
            continue;
        if (i == s->n_rows) {
            *of = j;
            return 1;
        }
    }
    return 0;
}

void pp_model_advise(const pp_model *m, size_t g, const int *shown, pp_model_advice *a)
{
    const pp_summary *s = &m->sum;

    *a = (pp_model_advice){.worst = -1, .worst_pct = NAN, .n_short = s->n_short,
                           .n_rows = s->n_rows};
    for (size_t k = 0; k < s->n_metrics; k++) {
        const pp_model_fit *f = pp_model_fit_of(m, g, k);
        /* between measured levels where there are levels, as model prints first */
        const pp_cv *h = f->choice.between.n ? &f->choice.between : &f->choice.honest;
        if (!shown[k] || f->n_values < 2 || !(h->mape > 10))
            continue;
        if (a->worst < 0 || h->mape > a->worst_pct) {
            a->worst = (int)k;
            a->worst_pct = h->mape;
        }
        if (!(h->mape_inner > 10))
            a->edges = 1;
        else
            a->middle = 1;
    }
}

json_t *pp_model_summary_json(const char *dir)
{
    char path[PP_PATH_MAX];
    json_t *model, *groups, *g, *out;
    size_t i, j;

    if (pp_fmt(path, sizeof path, "%s/model.json", dir) < 0 ||
        !(model = json_load_file(path, 0, NULL)))
        return json_null();
    out = json_array();
    groups = json_object_get(model, "groups");
    json_array_foreach(groups, i, g) {
        json_t *metrics = json_array(), *mt;
        json_array_foreach(json_object_get(g, "metrics"), j, mt)
            json_array_append_new(metrics, json_pack("{s:O?, s:O?, s:O?, s:O?}", "name",
                json_object_get(mt, "name"), "method", json_object_get(mt, "method"), "values",
                json_object_get(mt, "values"), "typical_error_pct",
                json_object_get(json_object_get(mt, "honest"), "mape_pct")));
        json_array_append_new(out, json_pack("{s:O?, s:O?, s:o}", "labels", json_object_get(g, "labels"),
                                             "rows", json_object_get(g, "rows"), "metrics", metrics));
    }
    g = json_pack("{s:s, s:O?, s:O?, s:o}", "file", path, "rows", json_object_get(model, "rows"),
                  "params", json_object_get(model, "params"), "groups", out);
    json_decref(model);
    return g;
}

/* ---- plots ------------------------------------------------------------ */

int pp_pipeline_plots(const char *dir, const pp_plot_options *o, pp_plot_result *r)
{
    char path[4400];
    pp_summary s;
    pp_model m;
    int rc;
    size_t n_params;

    memset(r, 0, sizeof *r);
    if (pp_summary_read(dir, &s) < 0)
        return -EINVAL;
    n_params = s.n_params;
    pp_summary_free(&s);
    if (pp_fmt(path, sizeof path, "%s/model.json", dir) < 0)
        return -ENAMETOOLONG; /* never: summary.csv, longer, was read there */
    if (n_params > 0 && access(path, R_OK) != 0) {
        if ((rc = pp_pipeline_model(dir, NULL, &m)) < 0)
            return rc == -ENOMEM ? rc : -EIO; /* the model, not the input: logged */
        pp_model_free(&m);
    }
    if ((rc = pp_plot_write(dir, o, r)) < 0)
        return rc;
    return pp_plot_render(o, r);
}

/* ---- the report of `run` ---------------------------------------------- */

double pp_run_report_value(const pp_run_report *r, size_t i, int k)
{
    return k >= 0 ? r->sum.y[i * r->sum.n_metrics + (size_t)k] : NAN;
}

/* The achieved-rate metrics (<component>.achieved_fps / _hz). */
static void rate_metrics(pp_run_report *r)
{
    for (size_t k = 0; k < r->sum.n_metrics && r->n_rates < PP_RUN_REPORT_MAX_RATES; k++)
        if (strstr(r->sum.metrics[k], ".achieved_"))
            r->rate[r->n_rates++] = (int)k;
}

int pp_run_report_make(const char *dir, const pp_battery_params *b, pp_run_report *r)
{
    const pp_summary *s = &r->sum;
    int rc;

    memset(r, 0, sizeof *r);
    if ((rc = pp_summary_read(dir, &r->sum)) < 0)
        return rc;
    r->mean_w = pp_summary_metric(s, "total_mean_w");
    r->energy_j = pp_summary_metric(s, "total_energy_j");
    r->per_iteration_j = pp_summary_metric(s, "energy_per_iteration_j");
    r->duration_s = pp_summary_metric(s, "duration_s");
    rate_metrics(r);
    r->drain_frac = malloc((s->n_rows + 1) * sizeof *r->drain_frac);
    r->cutoff_s = malloc((s->n_rows + 1) * sizeof *r->cutoff_s);
    if (!r->drain_frac || !r->cutoff_s) {
        pp_run_report_free(r);
        return -ENOMEM;
    }
    for (size_t i = 0; i < s->n_rows; i++) {
        double mean = pp_run_report_value(r, i, r->mean_w);
        double duration = pp_run_report_value(r, i, r->duration_s);
        r->drain_frac[i] = r->cutoff_s[i] = NAN;
        if (!isnan(mean) && duration > 0)
            pp_plan_constant_load(b, mean, duration, &r->drain_frac[i], &r->cutoff_s[i]);
        if (mean < pp_run_report_value(r, r->cheapest_w, r->mean_w))
            r->cheapest_w = i;
        if (pp_run_report_value(r, i, r->per_iteration_j) <
            pp_run_report_value(r, r->cheapest_per_iteration, r->per_iteration_j))
            r->cheapest_per_iteration = i;
    }
    return 0;
}

void pp_run_report_free(pp_run_report *r)
{
    pp_summary_free(&r->sum);
    free(r->drain_frac);
    free(r->cutoff_s);
    r->drain_frac = r->cutoff_s = NULL;
}
