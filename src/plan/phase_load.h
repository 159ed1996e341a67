/* phase_load.h - the loads of a mission's phases and the battery runs over
 * them (phase_load.c): a phase's base load, constant or cut and repeated
 * from a trace, the problem a plan per phase solves (phases.h) and one
 * battery run over the whole mission. */
#ifndef PP_PHASE_LOAD_H
#define PP_PHASE_LOAD_H

#include "plan.h"

#include "battery/battery.h"
#include "src/config/mission.h"

#include <stddef.h>

#define PP_PHASES_SWITCH_S 1e-5 /* a phase's last sample before the next starts */
#define PP_PHASES_QUICK_RTOL 1e-7 /* of a quick plan's battery runs: 1e-5 points */

/* The base load of one phase over [0, duration]: samples (malloc'd). */
typedef struct pp_phase_load {
    double *t_s, *p_w;
    size_t n;
    double mean_w;
    double n_periods_averaged; /* whole periods of a trace taken at their mean (0: none) */
    double period_s;  /* a trace's period (its span and one step), 0 for a constant */
    double repeats;   /* duration / period: above 1 the trace is repeated that often */
} pp_phase_load;

/* A repeated trace takes at most this many samples; past it, its whole
 * periods are one stretch at their mean power (pp_phase_load_trace, which
 * says so). */
#define PP_PHASE_LOAD_MAX_SAMPLES 2000000.0

/* A base trace repeated more than this many times is warned about (its
 * pattern, not a flight's, then sets the load). */
#define PP_PHASE_REPEAT_WARN 3.0

/* A constant load of w over duration_s. 0 or -ENOMEM. */
int pp_phase_load_constant(double w, double duration_s, pp_phase_load *l);
/* The total power of a trace file (or of RESULTS/traces/0.csv when path is
 * a folder), from from_s on, cut or repeated (with the trace's period, as
 * the battery repeats it) to duration_s. 0, -EINVAL (logged: unreadable
 * trace, from_s past its end) or -ENOMEM. */
int pp_phase_load_trace(const char *path, double from_s, double duration_s, pp_phase_load *l);
void pp_phase_load_free(pp_phase_load *l);
/* The base load at t_s (linear between samples). */
double pp_phase_load_at(const pp_phase_load *l, double t_s);

/* The problem, independent of any model (the bench builds its own). */
typedef struct pp_phases_problem {
    size_t n_phases;
    double duration_s[PP_MISSION_MAX_PHASES];
    double weight[PP_MISSION_MAX_PHASES];
    double planned_s[PP_MISSION_MAX_PHASES]; /* > 0: the phase's own duration where
                                        duration_s budgets for an overrun declared
                                        (src/config/mission.h); 0: duration_s */
    const pp_phase_load *base;       /* n_phases */
    size_t n_cand;
    const pp_plan_choice *cand;      /* qos and planned_w are used */
    const unsigned char *allowed;    /* n_phases x n_cand: 1 where the phase admits it */
    const size_t *order;             /* NULL, or every candidate's index as pp_phases_order
                                        sorts them: the fronts built without a sort (a
                                        governor's re-plans: sorted once) */
    pp_battery_params battery;       /* soc_start, efficiency, the model; its base load
                                        and cutoff are not used */
    double min_soc_frac;             /* the reserve at the end */
    /* 1: a re-plan in flight (src/governor/governor.h), fast: every phase's
     * charge from a table of PP_PHASES_GRID powers in closed form (rint;
     * thevenin as a rint pack of its open-circuit voltage halfway through
     * the phase and R0 + R1), the choice bisected on each phase's upper
     * hull, no single configuration, floors or recorded timeline
     * (n_points 0). The confirming runs are the model's own (at a relative
     * tolerance of PP_PHASES_QUICK_RTOL), so the end reported is still one
     * battery run over the schedule. */
    int quick;
} pp_phases_problem;

/* The load of the whole mission with phase k's computer at computer_w[k]
 * (through the battery's efficiency) beside its base load: *t, *w
 * malloc'd (one block, free *t), *n samples; a phase's last sample
 * PP_PHASES_SWITCH_S before the next one's first. 0 or -ENOMEM. */
int pp_phases_mission_load(const pp_phases_problem *p, const double *computer_w, double **t,
                           double **w, size_t *n);

/* One battery run over the mission (p's battery, no cutoff) with those
 * computer powers: its end state of charge and whether an event (brown-out,
 * voltage cutoff) happened. 0 or -errno. */
int pp_phases_run(const pp_phases_problem *p, const double *computer_w, double *soc_end,
                  int *event);

#endif
