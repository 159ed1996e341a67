/* pipeline_phases.h - the plan per phase of the main job as a document. */
#ifndef PP_PIPELINE_PHASES_H
#define PP_PIPELINE_PHASES_H

#include "pipeline.h"

/* A plan of a mission in phases (pp_plan_phases) as `powprof plan
 * --mission --json` prints it and RESULTS/plan.json keeps it
 * (pipeline_phases.c). A new reference. */
json_t *pp_phases_plan_json(const pp_model *m, const pp_plan_options *o, const pp_mission_spec *mi,
                            const pp_phases_plan *r);

#endif
