/* governor_sim.h - a mission flown in virtual time against the modelled
 * battery with an actual propulsion load that differs from the planned
 * one: the static plan made before take-off and held, the governed run
 * (governor.h, an update every every_s) and the oracle (the plan per phase
 * made knowing the actual load), side by side.
 *
 * The battery is the problem's pack, integrated here (midpoint steps of
 * step_s over its state: SoC, and V1 for thevenin) so that the governor
 * can read it as it goes: its state of charge, terminal voltage and
 * current. The computer draws the power each setting was planned with
 * (the band's upper end by default), through the converter, beside the
 * actual propulsion: the runs differ by the propulsion alone. Quality is
 * time-weighted as the planner weighs it (phase weights).
 */
#ifndef PP_GOVERNOR_SIM_H
#define PP_GOVERNOR_SIM_H

#include "governor.h"

enum { PP_SIM_STATIC = 0, PP_SIM_GOVERNED, PP_SIM_ORACLE, PP_SIM_RUNS };

typedef struct pp_sim_options {
    double every_s;     /* the governor's updates (default 5 s) */
    double step_s;      /* the integration step (default 0.25 s) */
    int measure_soc;    /* 1 (default): the governor reads the state of charge too;
                           0: voltage and current only (the filter estimates it) */
    int phase_told;     /* 1 (default): each reading says the phase flown, as a vehicle's
                           mission item does (a phase run long is seen: governor.h);
                           0: the governor keeps the plan's clock */
    pp_gov_options gov;
    /* the world flown, where it differs from the plan (the governor is not told): */
    const pp_battery_params *pack; /* the pack flown (NULL: the plan's), e.g. one fitted
                                      from the flight log flown (battery fit) */
    double pack_scale;  /* its capacity times this, (0, 10] (default 1; 0.8: 20 % smaller) */
    int stretch_phase;  /* this phase (0-based; -1 none, the default) lasts ... */
    double stretch_f;   /* ... this many times its planned duration, (0, 10] */
} pp_sim_options;

void pp_sim_options_init(pp_sim_options *o);

typedef struct pp_sim_run {
    int flown;              /* the oracle: 0 when no plan keeps the reserve knowing the load */
    double soc_end_frac, soc_min_frac;
    int reserve_held;       /* ended at or above the reserve, no brown-out */
    int floors_held;        /* every phase's setting met its bounds throughout */
    double quality;         /* time-weighted */
    size_t n_changes;       /* settings changed (phase switches included) */
    size_t n_cannot;        /* governed: decisions that found no schedule keeping the reserve */
    int brownout;
    double reserve_reached_t_s; /* when the pack flown first fell below the reserve (NaN: never) */
    double cannot_t_s;  /* governed: the first decision finding no schedule (NaN: none) ... */
    double reserve_pred_t_s; /* ... and when it said the cheapest settings reach the reserve */
    size_t n;               /* timeline, one point per every_s: */
    double *t_s, *soc_frac, *qos, *est_soc_frac; /* malloc'd, one block (est: governed) */
} pp_sim_run;

typedef struct pp_sim_result {
    pp_sim_run run[PP_SIM_RUNS];
    double mission_s;
    double actual_mean_w, planned_mean_w; /* the propulsion's */
    double worst_est_err_frac;            /* governed: |estimate - truth| after 60 s */
} pp_sim_result;

/* The world flown: p with o's pack (scaled) and stretched phase. 0 or
 * -EINVAL (logged: a scale or stretch out of range, no such phase). */
int pp_sim_world(const pp_phases_problem *p, const pp_sim_options *o, pp_phases_problem *w);

/* The actual propulsion over the mission: the planned phases' base loads
 * one after the other, times scale_f from scale_t_s on (scale_f 1: as
 * planned). 0 or -ENOMEM. */
int pp_sim_actual_planned(const pp_phases_problem *p, double scale_t_s, double scale_f,
                          pp_phase_load *actual);
/* ... or a trace's total power (a file, or a results folder: phases.h's
 * pp_phase_load_trace), cut or repeated to the mission, scaled the same
 * way. 0, -EINVAL (logged) or -ENOMEM. */
int pp_sim_actual_trace(const pp_phases_problem *p, const char *path, double scale_t_s,
                        double scale_f, pp_phase_load *actual);

/* Fly p (the plan's problem: candidates, bounds, planned base loads,
 * pack and reserve) with static_choice per phase held, governed, and as
 * the oracle plans it (knowing the world: the load, pack and durations
 * flown), against actual (from 0 to the world's mission's end: build it on
 * pp_sim_world's problem). The governor plans with p and reads the pack
 * flown by the clock of p's phases. 0,
 * -EINVAL (logged), -ENOMEM or -EIO. Free with pp_sim_result_free. */
int pp_sim_fly(const pp_phases_problem *p, const size_t *static_choice,
               const pp_phase_load *actual, const pp_sim_options *o, pp_sim_result *r);
void pp_sim_result_free(pp_sim_result *r);

#endif
