/* answer_phases.h - a plan per phase in words. */
#ifndef PP_ANSWER_PHASES_H
#define PP_ANSWER_PHASES_H

#include "answer.h"

/* Plan r of the mission mi in phases, with o on m, as `powprof plan
 * --mission` prints it: the loads, what was left out, the unmet bounds or
 * a row per phase, the end and the gain over one configuration held
 * throughout. */
void pp_phases_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                         const pp_mission_spec *mi, const pp_phases_plan *r);

#endif
