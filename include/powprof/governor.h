/* powprof/governor.h - re-plan a mission in flight: at each reading of the
 * battery, the rest of the mission is planned again from the charge that
 * is actually left, and the setting to run now is said, as `powprof
 * govern` does it (man powprof, govern).
 *
 * Built from a results folder's model (powprof/model.h), a battery
 * (powprof/battery.h; a fitted pack is an ordinary battery group) and a
 * mission in phases (a file's mission group, as `powprof plan --mission`
 * reads it) or one phase of a length. Each update takes the time since
 * take-off and what is measured of the battery (state of charge, terminal
 * voltage, current: any may be NAN). The charge: the state of charge given
 * (unless ignore_soc), else an extended Kalman filter over the pack's
 * model from voltage and current (coulomb counting with the rint model),
 * else the held plan's prediction; the decision says which. A plan is held
 * unless the new one is better by more than margin_frac or the held one no
 * longer ends above the reserve; the base load (motors) of the rest is
 * scaled by what the charge's fall says of it. When nothing keeps the
 * reserve, the cheapest settings and the time they reach it are said.
 *
 * Units: seconds, volts, amperes (discharge positive), state of charge as
 * a fraction. Nothing is printed; errors are logged (powprof/log.h).
 *
 * Threads (powprof.h): one call at a time on a pp_governor, and none on its
 * model while an update runs (an update reads the model).
 */
#ifndef POWPROF_GOVERNOR_H
#define POWPROF_GOVERNOR_H

#include "deprecated.h"
#include "battery.h"
#include "model.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_governor pp_governor;

typedef struct pp_governor_options {
    const char *mission_file; /* a file with a mission group in phases (its battery group is
                                 not read: the battery given is flown); NULL: one phase */
    double duration_s;        /* without a file: the phase's length (> 0), its base load the
                                 battery's base power */
    const char *maximize;     /* NULL: the mission's, else the first *fps parameter */
    double min_soc_frac;      /* the reserve in [0, 1); -1: the mission's, else the battery's
                                 cutoff; another value is refused (-EINVAL: 20 for 0.2 is) */
    int plan_on_mean;         /* 1: plan with the prediction, not its band's upper end */
    double margin_frac;       /* in [0, 10); -1: 0.02; another value is refused */
    int ignore_soc;           /* 1: estimate the charge from voltage and current only */
    double every_s;           /* > 0: a decision per every_s of the readings' time (in [0.05,
                                 3600]), the updates between feeding the estimate (their
                                 decisions repeat the last; "decided" false); 0: each update */
    const char *resolution;   /* NULL, or "NAME=STEP NAME=measured ...": the settings a
                                 parameter may take, as plan's --resolution */
} pp_governor_options;

/* No file, no length, the defaults. */
void pp_governor_options_init(pp_governor_options *o);

typedef struct pp_governor_reading {
    double t_s;               /* since take-off, never before the last update's */
    double soc_frac, voltage_v, current_a; /* NAN where not measured */
    int phase;                /* -1: by the clock; k: phase k is flown: begun (one ending
                                 early), or flown past its planned end (run long: the
                                 JSON decision's phase_overrun_s, overrun_assumed_s) */
} pp_governor_reading;

typedef struct pp_governor_decision {
    double t_s;
    size_t phase;             /* flown now, its name and the time left in it */
    char phase_name[64];
    double phase_left_s;
    double soc_frac;          /* the charge the decision used, and which estimate: */
    const char *soc_source;   /* "measured", "ekf", "coulomb" or "plan" (static strings) */
    char settings[1024];      /* the setting to run now: "name=value name=value ..." */
    double value;             /* the maximized parameter's value in it */
    double quality;           /* its quality: the achieved rate, else the value */
    int changed;              /* differs from the last update's */
    const char *why;          /* "first", "hold", "better", "reserve", "cannot", "phase", "done" */
    int feasible;             /* 0: no setting keeps the reserve to the end */
    double soc_end_frac;      /* the plan held: the charge at the end */
    double reserve_t_s;       /* not feasible: when the cheapest settings reach the reserve
                                 (since take-off; NAN: never) */
} pp_governor_decision;

/* A governor for model m (not copied: it must outlive the governor), the
 * battery b (copied; its soc_start_frac is the charge at take-off) and o.
 * 0 and *out (free it with pp_governor_close), or -errno (logged): -EINVAL
 * for a bad mission, battery or options, a model without total_mean_w, no
 * such parameter; -ENOENT for a file without a mission group; -ENOMEM. */
int pp_governor_new(const pp_model *m, const pp_battery_params *b, const pp_governor_options *o,
                    pp_governor **out);

/* One update into *d. 0, or -EINVAL (logged: a reading out of range, a
 * percentage for a state of charge among them, a time before the last
 * update's, a phase not after the current one: the reading is refused
 * and the governor keeps its last good state), -ENOMEM, -EIO. */
int pp_governor_update(pp_governor *g, const pp_governor_reading *r, pp_governor_decision *d);

/* The same update, the decision as the one JSON document `powprof govern`
 * prints (its keys: man powprof, govern; src/api/governor_doc.h): 0 and
 * *json_out (free it with pp_free), or as pp_governor_update. */
int pp_governor_update_json(pp_governor *g, const pp_governor_reading *r, char **json_out);

/* The mission g plans flown in virtual time, as `powprof govern RESULTS
 * --mission FILE --simulate ACTUAL --json` prints it: static, governed and
 * oracle runs against actual ("planned": the phases' own base loads; a
 * power trace; or a flight log, whose pack is then fitted and flown), its
 * load times scale_f from scale_t_s on (scale_f 1: as it is). g's
 * updates are not touched. 0 and *json_out (free it with pp_free), or
 * -EINVAL (logged: the plan does not keep the reserve, an actual that does
 * not read, a scale out of range), -ENOMEM. */
int pp_governor_simulate_json(const pp_governor *g, const char *actual, double scale_t_s,
                              double scale_f, char **json_out);

void pp_governor_close(pp_governor *g);
/* 0.1's name of pp_governor_close. */
void pp_governor_free(pp_governor *g) PP_DEPRECATED("pp_governor_close");

#ifdef __cplusplus
}
#endif

#endif
