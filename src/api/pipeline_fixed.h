/* pipeline_fixed.h - a profile's mission's fixed settings held in the plan. */
#ifndef PP_PIPELINE_FIXED_H
#define PP_PIPELINE_FIXED_H

#include "pipeline.h"

/* The mission group's fixed = ["NAME=VALUE", ...] (parameters held at one
 * value, as plan --fix) added to o (pp_pipeline_mission leaves them out;
 * the checks before a run call this too), each name a parameter of p and each
 * value one of its own (pipeline_fixed.c). 0, or -EINVAL (logged with the
 * file's line). */
int pp_pipeline_mission_fixed(const pp_profile *p, pp_plan_options *o);

#endif
