/* powprof/plan.h - plan a mission on a layer-2 model (powprof/model.h) and
 * a battery (powprof/battery.h): the configuration with the best quality of
 * service whose predicted power the battery carries through the mission,
 * as `powprof plan` finds it. The battery's base power (motors) is drawn
 * beside the computer's. The power planned with is the upper end of the
 * prediction's 90 % band unless plan_on_mean is set; where summary.csv has
 * a component's achieved frame rate, the achieved rate is what is
 * maximized, and a configuration that fell short of the requested rate is
 * never chosen.
 *
 * Threads (powprof.h): a plan uses its model and battery as one call on
 * each of them.
 */
#ifndef POWPROF_PLAN_H
#define POWPROF_PLAN_H

#include "battery.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_mission {
    double duration_s;     /* > 0 */
    const char *maximize;  /* a parameter (e.g. "darknet.fps"); NULL: the first *fps one,
                              else the first numeric one */
    double min_soc_frac;   /* charge to keep at the end, in [0, 1); -1: the battery's cutoff;
                              another value is refused (-EINVAL) */
    int plan_on_mean;      /* 1: plan with the prediction itself, not its band's upper end */
} pp_mission;

typedef struct pp_mission_plan {
    int feasible;              /* 0: no configuration completes the mission */
    double max_power_w;        /* the most the computer may draw throughout (< 0: not even 0 W) */
    char settings[1024];       /* the best configuration: "name=value name=value ..." */
    double quality;            /* what was maximized: the achieved rate, else the parameter */
    double power_w, power_lo_w, power_hi_w; /* its predicted total power and 90 % band */
    double planned_w;          /* the power planned with */
    double soc_end_frac;       /* the battery at the end of the mission */
    double time_to_cutoff_s;   /* if the configuration went on (NAN: none in 48 h) */
} pp_mission_plan;

/* A mission's duration as the command line and mission files write it:
 * seconds ("90", "1.5") or numbers with units h, min (m), s, ms, largest
 * first ("20min", "1h30m", "250ms"), in 1 s .. 1e7 s. 0 with *seconds, or
 * -EINVAL (logged: the text and what is expected). */
int pp_mission_duration_parse(const char *text, double *seconds);

/* Plan mission on model m with battery b (a reserve min_soc_frac >= 0
 * replaces the battery's cutoff, as in `powprof plan --min-soc`). 0 (out->feasible says whether
 * anything completes it), or -errno (logged): -EINVAL for a bad mission or
 * battery, a model without total_mean_w, no such parameter to maximize;
 * -ENOMEM. */
int pp_mission_plan_best(const pp_model *m, const pp_battery_params *b, const pp_mission *mission,
                         pp_mission_plan *out);

/* The same plan as `powprof plan RESULTS --mission-s S --json` prints it
 * (best, runners_up, most_frugal, max_power_w, battery, loads; the keys of
 * `man powprof`), every number with 17 significant digits. 0 and
 * *json_out (free it with pp_free; "feasible" says whether anything
 * completes the mission), or -errno as pp_mission_plan_best. */
int pp_mission_plan_json(const pp_model *m, const pp_battery_params *b, const pp_mission *mission,
                         char **json_out);

/* A mission in phases, as `powprof plan RESULTS --mission FILE --json`
 * prints its plan: the mission group of the configuration file
 * mission_file (its phases: durations, base loads, bounds; docs/CONFIG.md),
 * flown with b (a battery group in the file is not read: a warning says
 * so; give the file to pp_battery_new to fly it); a configuration per phase, the document of that command (phases,
 * timeline, the best single configuration, ...). mission may be NULL; else
 * its maximize is taken over the file's, its min_soc_frac where the file
 * gives none (as plan --min-soc), its plan_on_mean; its duration_s is not
 * used. 0 and *json_out (free it with pp_free; "feasible" says whether the
 * plan completes the mission), or -errno (logged with the file and line). */
int pp_mission_plan_file_json(const pp_model *m, const pp_battery_params *b,
                              const char *mission_file, const pp_mission *mission,
                              char **json_out);

#ifdef __cplusplus
}
#endif

#endif
