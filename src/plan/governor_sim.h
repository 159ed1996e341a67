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
    pp_gov_options gov;
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
    size_t n;               /* timeline, one point per every_s: */
    double *t_s, *soc_frac, *qos, *est_soc_frac; /* malloc'd, one block (est: governed) */
} pp_sim_run;

typedef struct pp_sim_result {
    pp_sim_run run[PP_SIM_RUNS];
    double mission_s;
    double actual_mean_w, planned_mean_w; /* the propulsion's */
    double worst_est_err_frac;            /* governed: |estimate - truth| after 60 s */
} pp_sim_result;

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
 * the oracle plans it, against actual (from 0 to the mission's end). 0,
 * -EINVAL (logged), -ENOMEM or -EIO. Free with pp_sim_result_free. */
int pp_sim_fly(const pp_phases_problem *p, const size_t *static_choice,
               const pp_phase_load *actual, const pp_sim_options *o, pp_sim_result *r);
void pp_sim_result_free(pp_sim_result *r);

#endif
