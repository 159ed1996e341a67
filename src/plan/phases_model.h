/* phases_model.h - a plan per phase (phases.h) on a layer-2 model: the
 * candidates of pp_plan, each phase's bounds and base load, the mission's
 * fixed settings, then pp_phases_solve. */
#ifndef PP_PHASES_MODEL_H
#define PP_PHASES_MODEL_H

#include "phases.h"

/* Mission mi's top-level fixed list held in o (after o's own, which win
 * for a name both give), each checked against the results s: 0, or -EINVAL
 * (logged "FILE:LINE: mission.fixed: ..." for a name that is no parameter
 * or a value that is not one of it). pp_plan_phases applies it. */
int pp_plan_fix_mission(pp_plan_options *o, const pp_mission_spec *mi, const pp_summary *s);

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
int pp_plan_phases(const pp_model *m, const pp_plan_options *o, const pp_mission_spec *mi,
                   pp_phases_plan *r);
void pp_phases_plan_free(pp_phases_plan *r);

#endif
