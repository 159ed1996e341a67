/* governor_doc.h - the one decision document of the governor: what `powprof
 * govern` prints (one JSON line per decision, the --state file) and what
 * pp_governor_update_json (Python's Governor.update) returns: the same
 * keys everywhere.
 *
 *   t_s, decided        the reading's time; whether it decided (--every: the
 *                       readings between repeat the last decision)
 *   phase, phase_index, phase_left_s   the phase flown (name, index) and its time left
 *   phase_overrun_s, overrun_assumed_s   how far past its planned end it is flown
 *                       (0: not), and how much longer it is assumed to run
 *                       (null: not overrunning; src/governor/governor.h)
 *   soc_measured, soc, soc_sd, soc_source, soc_held   the charge (fractions)
 *   setting             the parameters to run now {name: value} (labels for
 *                       categorical ones), nothing else
 *   maximized, value    the parameter maximized and its value in the setting
 *   quality, power_w, planned_w, measured   the setting's quality, predicted
 *                       and planned power, whether it was measured
 *   changed, replanned, why, feasible
 *   soc_end, plan_quality   the plan held: its end charge, its quality over the rest
 *   new_soc_end, new_plan_quality   the re-plan's
 *   reserve_t_s         not feasible: when the cheapest settings reach the
 *                       reserve (since take-off; null: never)
 *   base_factor         the actual base load over the planned one, learnt
 *   plan                [{phase, <maximized>: value}] from the phase flown on
 * NaN is null. */
#ifndef PP_API_GOVERNOR_DOC_H
#define PP_API_GOVERNOR_DOC_H

#include "src/governor/governor.h"
#include "src/plan/phases_model.h"
#include "src/governor/governor_sim.h"
#include "src/governor/governor_source.h"
#include "src/layer2/model.h"
#include "plots/plot.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>

/* Decision d of a governor over plan r (from model m, mission mi). A new
 * reference, NULL without memory. */
json_t *pp_gov_decision_doc(const pp_model *m, const pp_phases_plan *r, const pp_mission_spec *mi,
                            const pp_gov_decision *d);

/* Decision doc as one line for a person: what is set (the maximized
 * parameter's value, and from what when it changed), why, the charge left
 * and which estimate, where the plan ends, and when nothing keeps the
 * reserve the time to it: "12.0 min, survey: fps 25 -> 10 (reserve: the
 * held plan ends below it); charge 61.0 % (measured), ends 20.4 %". Into
 * buf (cap bytes). prev: the value set before (NaN: none). */
void pp_gov_decision_text(const json_t *doc, double prev, char *buf, size_t cap);

/* govern --state FILE: the governor's state written whole (atomically,
 * the format `govern` reads back). 0 or -errno (logged with the file). */
int pp_gov_state_save(const char *path, const json_t *state);

/* ---- govern: the readings flown ---------------------------------------- */

/* What a governed flight did. */
typedef struct pp_gov_flight {
    size_t decisions, refused, taken; /* decisions made; readings refused, taken */
    int feasible;                     /* the last decision kept the reserve (1 before any) */
    int failed;                       /* the source failed, or on_decision stopped it */
} pp_gov_flight;

/* The readings of src to the decisions of governor g over plan r (of
 * model m, mission mi) until the source ends, *stop is set (a signal) or
 * a read is interrupted (EINTR): each decision's document
 * (pp_gov_decision_doc) to on_decision(ctx, doc, first), which returns 0
 * to go on, < 0 to stop (a failure); the readings between two decisions
 * (--every) feed the estimate only; a reading that does not read, or that
 * the governor refuses, is counted (said on stderr by the library). */
void pp_gov_fly(const pp_model *m, const pp_phases_plan *r, const pp_mission_spec *mi, pp_gov *g,
                pp_gov_source *src, const volatile sig_atomic_t *stop,
                int (*on_decision)(void *ctx, const json_t *doc, int first), void *ctx,
                pp_gov_flight *out);

/* declared beside their files (check-layout's rule 4), here for every
 * caller of this header */
#include "sim_doc.h"

#endif
