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

#include "plan.h"

#include "src/config/mission.h"

#include <stddef.h>

#define PP_PHASES_GRID 33
#define PP_PHASES_SWITCH_S 1e-5 /* a phase's last sample before the next starts */

/* The base load of one phase over [0, duration]: samples (malloc'd). */
typedef struct pp_phase_load {
    double *t_s, *p_w;
    size_t n;
    double mean_w;
    double period_s;  /* a trace's period (its span and one step), 0 for a constant */
    double repeats;   /* duration / period: above 1 the trace is repeated that often */
} pp_phase_load;

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
    const pp_phase_load *base;       /* n_phases */
    size_t n_cand;
    const pp_plan_choice *cand;      /* qos and planned_w are used */
    const unsigned char *allowed;    /* n_phases x n_cand: 1 where the phase admits it */
    pp_battery_params battery;       /* soc_start, efficiency, the model; its base load
                                        and cutoff are not used */
    double min_soc_frac;             /* the reserve at the end */
} pp_phases_problem;

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
void pp_phases_result_free(pp_phases_result *r);

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

/* ---- on a model -------------------------------------------------------- */

typedef struct pp_phases_plan {
    pp_plan_result head;     /* maximize, achieved_metric, n_candidates, n_short_of_rate */
    pp_phases_problem problem;
    pp_phases_result res;
    pp_plan_choice *cand;    /* malloc'd */
    unsigned char *allowed;
    pp_phase_load base[PP_MISSION_MAX_PHASES];
    double min_soc_frac;
} pp_phases_plan;

/* Plan mission mi on model m with o's maximize, risk, tolerance,
 * resolutions and battery (o->mission_s is not used; a phase without a base
 * load takes o->battery.base_power_w; the reserve is mi's min_soc, else
 * o->min_soc_frac, else the battery's soc_cutoff). 0, -EINVAL (logged: a
 * bound naming no parameter, a label not among the parameter's, a trace
 * that does not read, ...), -ENOMEM. Free with pp_phases_plan_free. */
int pp_plan_phases(const pp_model *m, const pp_plan_options *o, const pp_mission *mi,
                   pp_phases_plan *r);
void pp_phases_plan_free(pp_phases_plan *r);

#endif
