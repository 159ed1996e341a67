/* answer_plan.h - a plan's answers: the plan and the networks' plans in
 * words and as documents, the names --maximize, --fix and --resolution
 * checked. */
#ifndef PP_ANSWER_PLAN_H
#define PP_ANSWER_PLAN_H

#include "answer.h"

/* --maximize, --fix and --resolution name parameters of m: 0, or -EINVAL
 * with why (cap bytes) naming the option and value. */
int pp_plan_names_check(const pp_model *m, const pp_plan_options *o, char *why, size_t cap);

/* One choice c of plan r in words: the parameter maximized, what it
 * achieves (its band; "not measured"), the other settings, its power (and
 * energy per unit of work). No end of line. */
void pp_plan_choice_words(FILE *fp, const pp_model *m, const pp_plan_result *r,
                          const pp_plan_choice *c);

/* What a planner left out and by which rule (--tolerance, settings never
 * measured, --min-rate): a line each. */
void pp_plan_left_out_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                           const pp_plan_result *r);

/* The node of a fleet m is aimed at (the most power-hungry with worst), a
 * line; nothing when none. */
void pp_plan_node_text(FILE *fp, const pp_model *m, int worst);

/* Plan r with o on m as `powprof plan` prints it: the loads, the held
 * settings, what was left out, the best (or the most frugal when nothing
 * completes the mission), the runners-up, the schedule. */
void pp_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o, const pp_plan_result *r);

/* The plans sp of each network in the place of the one measured (a layer
 * model's): each in words, then side by side; and as `plan --network
 * --json` prints them: {layer_model, measured, measured_plan, networks:
 * [{network, time_ratio, time_s, energy_j, plan}]} (a new reference). */
void pp_networks_plan_text(FILE *fp, const pp_model *m, const pp_plan_options *o,
                           const char *measured, const pp_swap_plans *sp);

json_t *pp_networks_plan_json(const pp_model *m, const pp_plan_options *o, const char *layer_model,
                              const char *measured, const pp_swap_plans *sp);

#endif
