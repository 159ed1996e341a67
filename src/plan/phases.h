/* phases.h - a plan per phase of a mission (src/config/mission.h): the
 * configuration of each phase that maximizes the quality over the whole
 * mission while the battery, run over the whole mission, ends above the
 * reserve.
 *
 * Quality: sum_k w_k d_k q_k over the phases (w_k the phase's weight, d_k
 * its duration, q_k its configuration's quality as plan.h defines it: the
 * achieved rate where there is one), reported divided by sum_k w_k d_k (the
 * time-weighted mean rate). Each phase draws from the pack its computer's
 * planned power (the band's upper end by default) through the converter,
 * plus its base load: P(t) = computer_k / efficiency + base_k(t).
 *
 * How, and why it is fast: a phase's configurations are reduced to their
 * Pareto front (more quality costs more power). The charge phase k drains
 * at computer power P is tabulated on a grid of powers (PP_PHASES_GRID
 * battery runs of the phase alone, or the rint model's closed form) and
 * interpolated; the budget (start - reserve) is split among the phases by a
 * Lagrange multiplier (each phase maximizes w d q - lambda x charge,
 * lambda bisected until the sum fits), what is left of the budget is spent
 * greedily on the best upgrades, and one battery run over the whole
 * mission confirms the schedule (a shortfall tightens the budget and it is
 * chosen again). The end state of charge reported is that run's.
 *
 * The best single configuration held through every phase (one meeting
 * every phase's bounds) is planned the same way for comparison.
 */
#ifndef PP_PHASES_H
#define PP_PHASES_H

#include "phase_load.h"
#include "plan.h"

#include "src/config/mission.h"

#include <stddef.h>

#define PP_PHASES_GRID 33

typedef struct pp_phases_phase {
    int met;                 /* a candidate meets the phase's bounds */
    size_t choice;           /* index into cand (when feasible) */
    double start_s;
    double soc_start_frac, soc_end_frac; /* from the confirming run */
    double base_mean_w;
    double min_w;            /* the least planned power that meets its bounds */
    double free_min_w;       /* ... and without them */
    double floor_drain_frac; /* charge the bounds cost at least (min_w over free_min_w) */
    int floor_binds;         /* chosen at its least power, which the bounds raise */
} pp_phases_phase;

typedef struct pp_phases_result {
    int feasible;
    double quality;          /* sum w d q / sum w d */
    double soc_end_frac;     /* one battery run over the schedule */
    double need_frac;        /* infeasible: the charge the cheapest schedule lacks */
    size_t n_battery_runs;
    pp_phases_phase phase[PP_MISSION_MAX_PHASES];
    /* the best single configuration held throughout */
    int single_exists;       /* one meets every phase's bounds */
    int single_feasible;
    size_t single;
    double single_quality, single_soc_end_frac;
    /* when none held throughout keeps the reserve: the cheapest meeting
     * every phase's bounds reaches the reserve this far into the mission */
    double single_reserve_t_s;
    /* the confirming run: the state of charge and the loads at each sample */
    size_t n_points;
    double *t_s, *soc_frac, *base_w, *computer_w; /* malloc'd (one block) */
} pp_phases_result;

/* Solve p into r (free with pp_phases_result_free). 0 (r->feasible says
 * whether a schedule keeps the reserve), -EINVAL (logged: bad problem) or
 * -ENOMEM / -EIO. */
int pp_phases_solve(const pp_phases_problem *p, pp_phases_result *r);

/* p's candidates by planned power ascending (more quality first, then the
 * lower index), for pp_phases_problem.order: *order malloc'd. 0 or -ENOMEM. */
int pp_phases_order(const pp_phases_problem *p, size_t **order);
void pp_phases_result_free(pp_phases_result *r);

#endif
