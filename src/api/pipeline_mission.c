/* pipeline_mission.c - the mission a plan flies, resolved once (see
 * pipeline.h): for `plan`, `govern`, the C API's plan and governor and so
 * Python's plan and Governor (answer.h); a profile's mission for `run`
 * (pipeline.h). It calls nothing of pipeline.c, which calls it. */
#include "pipeline_mission.h"
#include "answer.h"
#include "pipeline.h"

#include "src/results/base_traces.h"

#include "src/base/duration.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pp_pipeline_mission(const pp_profile *p, pp_plan_options *o)
{
    pp_battery_choice c;

    if (!p->has_mission)
        return 1;
    pp_battery_choice_init(&c);
    c.file = p->path;
    c.base_given = p->mission_base_power_w >= 0;
    c.base_power_w = p->mission_base_power_w;
    c.min_soc_frac = p->mission_min_soc;
    pp_plan_options_init(o);
    o->maximize = p->mission_maximize[0] ? p->mission_maximize : NULL;
    o->schedule = 1;
    return pp_plan_options_mission(o, &c, p->mission_s, p->mission_min_soc, 0);
}

int pp_plan_options_mission(pp_plan_options *o, const pp_battery_choice *c, double mission_s,
                            double min_soc_frac, int risk_mean)
{
    int rc = c ? pp_battery_choose(c, &o->battery) : 0;

    if (rc < 0)
        return rc;
    o->mission_s = mission_s;
    o->min_soc_frac = min_soc_frac;
    o->risk = risk_mean ? PP_RISK_MEAN : PP_RISK_UPPER;
    if (min_soc_frac >= 0)
        o->battery.soc_cutoff_frac = min_soc_frac; /* the mission's reserve replaces the pack's */
    return 0;
}

int pp_mission_load_with(const char *file, pp_mission_spec *spec, pp_battery_params *b,
                         const char *battery_given)
{
    pp_battery_params scratch = *b;
    int rc = pp_mission_load(file, spec, battery_given ? &scratch : b);

    if (rc == 0 && battery_given && memcmp(&scratch, b, sizeof scratch) != 0)
        pp_log_warn("%s: its battery group is not read: %s is flown (one battery: leave the "
                    "group out, or give this file as the battery)", file, battery_given);
    return rc;
}

int pp_plan_options_mission_file_given(pp_plan_options *o, const pp_mission_settings *mi,
                                       const char *file, const char *battery_given,
                                       pp_mission_spec *spec)
{
    if (pp_mission_load_with(file, spec, &o->battery, battery_given) < 0 ||
        pp_results_base_traces_apply(file, spec) < 0) /* a results folder's copy: the traces */
        return -EINVAL;                                /* its run resolved */
    if (mi->base_power_w >= 0) /* the settings' over the file's battery */
        o->battery.base_power_w = mi->base_power_w;
    if (!o->maximize && spec->maximize[0])
        o->maximize = spec->maximize;
    return 0;
}

void pp_mission_ask_init(pp_mission_ask *a)
{
    memset(a, 0, sizeof *a);
    pp_mission_settings_init(&a->given);
}

int pp_mission_settle(const pp_mission_ask *a, pp_mission_resolved *r)
{
    const pp_mission_settings *g;

    memset(r, 0, sizeof *r);
    r->mi = a->given;
    r->file = a->file;
    if (a->file || !a->results)
        return 0; /* a mission file is the whole mission; no folder, nothing more */
    if (pp_mission_settings_from_results(&r->mi, a->results) < 0)
        return -EINVAL; /* said with the file */
    g = &r->mi;
    /* the results' own mission in phases, when nothing given says a
     * constant load (a length, a base trace, a base load) */
    if (!(g->mission_s > 0) && g->folder_phases && !a->base_trace && g->base_power_w < 0) {
        r->file = g->folder_cfg;
        r->folder_phases = 1;
    }
    return 0;
}

/* The phases of r (a file, a base trace over one phase, or one phase of a
 * constant load) into r->spec, the file's battery and maximize into o. */
static int phases(const pp_mission_ask *a, pp_mission_resolved *r, pp_plan_options *o)
{
    const char *given = a->battery_given ? a->battery_given
                        : r->mi.config && !r->mi.battery_from_folder ? r->mi.config : NULL;
    pp_mission_phase *ph;

    if (!r->file && !a->base_trace && !a->phases)
        return 0; /* a constant base load: pp_plan */
    if (!(r->spec = malloc(sizeof *r->spec)))
        return -ENOMEM;
    pp_mission_init(r->spec);
    if (r->file)
        return pp_plan_options_mission_file_given(o, &r->mi, r->file, given, r->spec);
    if (pp_mission_one_phase(r->spec, r->mi.mission_s, a->base_trace ? -1 : r->mi.base_power_w) < 0)
        return -EINVAL;
    ph = &r->spec->phase[0];
    if (!a->base_trace || pp_strlcpy(ph->base_trace, a->base_trace, sizeof ph->base_trace) == 0)
        return 0;
    pp_log_error("base trace %s: a path of at most %zu characters", a->base_trace,
                 sizeof ph->base_trace - 1);
    return -EINVAL;
}

int pp_mission_apply(const pp_mission_ask *a, pp_mission_resolved *r, pp_plan_options *o)
{
    pp_battery_choice c;
    int rc;

    if (!r->file && r->mi.mission_s < 0)
        return -ENOENT; /* no length given (one given is checked where it is planned) */
    if (!o->maximize && r->mi.maximize[0])
        o->maximize = r->mi.maximize; /* the results' mission group's */
    if (!a->battery_given) /* else o's battery as the caller set it (its reserve checked by
                              the caller: pp_plan_check_min_soc) */
        pp_mission_settings_choice(&r->mi, &c);
    if (pp_plan_options_mission(o, a->battery_given ? NULL : &c, r->mi.mission_s,
                                r->mi.min_soc_frac, r->mi.risk_mean) < 0)
        return -EINVAL;
    if ((rc = phases(a, r, o)) < 0)
        return rc;
    if (a->work_units > 0) /* N units within the mission: a rate to keep up */
        o->min_rate_per_s = fmax(o->min_rate_per_s, a->work_units / (r->spec ? pp_mission_duration_s(r->spec)
                                                                            : o->mission_s));
    return 0;
}

int pp_mission_resolve(const pp_mission_ask *a, pp_mission_resolved *r, pp_plan_options *o)
{
    int rc = pp_mission_settle(a, r);

    return rc < 0 ? rc : pp_mission_apply(a, r, o);
}

void pp_mission_resolved_free(pp_mission_resolved *r)
{
    free(r->spec);
    r->spec = NULL;
}

int pp_mission_s_parse(const char *cmd, const char *arg, double *out)
{
    char why[300];

    if (pp_parse_duration_range(arg, out, why, sizeof why) == 0)
        return 0;
    fprintf(stderr, "powprof %s: --mission-s: %s\n", cmd, why);
    return -1;
}
