/* answer.h - the answers of `powprof model`, `predict` and `plan` as the
 * library gives them: each a document (JSON, the keys Python reads) and
 * the words a person reads, written on the FILE given, so that the
 * command line only parses and prints, and every face says the same.
 *
 *   mission   what plan and govern fly, resolved once: pp_mission_resolve
 *             (pipeline_mission.c)
 *   model     pp_model_text (model.json itself: pp_model_dump)
 *   predict   pp_prediction_json, pp_prediction_text (answer_model.c)
 *   plan      pp_plan_json (pipeline.h), pp_plan_text; the networks never
 *             run in a measured one's place: pp_networks_plan_json,
 *             pp_networks_plan_text (answer_plan.c)
 *   phases    pp_phases_plan_json (pipeline.h), pp_phases_plan_text
 *             (answer_phases.c)
 */
#ifndef PP_API_ANSWER_H
#define PP_API_ANSWER_H

#include "src/config/mission_settings.h"
#include "src/dnn/swap.h"
#include "src/layer2/model.h"
#include "src/plan/phases_model.h"
#include "src/plan/plan.h"

#include <jansson.h>
#include <stdio.h>

/* ---- the mission a plan flies, resolved once (pipeline_mission.c) ---- */

/* What a caller gives of its mission: `plan` and `govern` their options,
 * the C API (so Python's plan and Governor) a battery, a file or a length. */
typedef struct pp_mission_ask {
    pp_mission_settings given; /* -c, --mission-s, --min-soc, --base-power-w, --risk */
    const char *results;       /* a results folder: its profile.cfg says what is not
                                  given, unless a file is (NULL: none) */
    const char *file;          /* a mission in phases (--mission FILE; NULL: none) */
    const char *base_trace;    /* one phase of given.mission_s whose base load is this
                                  trace, a flight log or a folder (NULL: none) */
    double work_units;         /* N units of work to finish within the mission (0: none) */
    int phases;                /* 1: a length flies as one phase (govern), not as pp_plan's
                                  constant load */
    const char *battery_given; /* the plan options' battery is the caller's, flown as it is
                                  (the words naming it; a file's battery group is then not
                                  read: pp_mission_load_with); NULL: chosen from given */
} pp_mission_ask;

/* The mission resolved: what chose the battery, the phases flown. */
typedef struct pp_mission_resolved {
    pp_mission_settings mi; /* given, with the results folder's profile.cfg filled in */
    const char *file;       /* the phases' file: the one asked for, or the folder's */
    int folder_phases;      /* file is the results' own mission in phases */
    pp_mission_spec *spec;  /* the phases (malloc'd); NULL: one constant base load (pp_plan) */
} pp_mission_resolved;

/* declared beside their files (check-layout's rule 4), here for every
 * caller of this header */
#include "answer_model.h"
#include "answer_phases.h"
#include "answer_plan.h"
#include "pipeline_mission.h"

#endif
