/* mission_check.h - a mission's phases checked against a profile's
 * parameter space before anything is measured (`run` and `run --dry-run`
 * through pp_pipeline_check): what the planner would refuse after the
 * whole profile, refused first. */
#ifndef PP_MISSION_CHECK_H
#define PP_MISSION_CHECK_H

#include "src/config/mission.h"
#include "src/config/profile.h"

/* Every phase's bounds and base trace of mi against profile p: each bound
 * names a parameter of p; a categorical one is fixed to one of its labels,
 * a numeric one to a number; a fixed number is one of the parameter's
 * values; a min/max range holds at least one of them; a base trace can be
 * read (and, from base_trace_from_s, is not past its end). Every problem
 * is logged with the file and the bound's or phase's line; 0 or -EINVAL
 * (after checking all). */
int pp_mission_check_profile(const pp_mission_spec *mi, const pp_profile *p);

#endif
