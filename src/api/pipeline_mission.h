/* pipeline_mission.h - the mission resolved once (issue 40): the results
 * folder's mission and battery, the file, the caller's options, in that
 * order of precedence, for plan, govern, the C API and Python. */
#ifndef PP_PIPELINE_MISSION_H
#define PP_PIPELINE_MISSION_H

#include "answer.h"
#include "pipeline.h"

/* Nothing asked: the settings as pp_mission_settings_init, no files. */
void pp_mission_ask_init(pp_mission_ask *a);

/* Which mission a flies, into r (not to be copied: it points into itself):
 * a file named is the whole mission; else the results' profile.cfg fills
 * what a does not give (battery, length, reserve, base load, maximize),
 * and its mission in phases flies when a says no constant load (no
 * length, base trace or base load). 0 or -EINVAL (logged with the file). */
int pp_mission_settle(const pp_mission_ask *a, pp_mission_resolved *r);

/* The mission r settled into o (initialized by the caller; its maximize
 * kept when set): the battery (pp_battery_choose on r->mi, unless
 * a->battery_given), the length, the reserve (it replaces the pack's
 * cutoff), the risk, the maximize (the folder's, then the file's), the
 * phases (r->spec), --work's rate. 0; -ENOENT when there is no mission
 * (no file, no length given: not logged, the caller says how to give one);
 * -EINVAL (logged with the file and line); -ENOMEM. */
int pp_mission_apply(const pp_mission_ask *a, pp_mission_resolved *r, pp_plan_options *o);

/* pp_mission_settle then pp_mission_apply. Free r with
 * pp_mission_resolved_free, also after an error. */
int pp_mission_resolve(const pp_mission_ask *a, pp_mission_resolved *r, pp_plan_options *o);

void pp_mission_resolved_free(pp_mission_resolved *r);

/* The mission of profile p as plan options (*o initialized here): its
 * duration, the parameter to maximize, the reserve, the battery of p's
 * file with the mission's base load, the schedule. Without a mission
 * group: 1 (o unused). 0, 1, or -EINVAL (logged). */
int pp_pipeline_mission(const pp_profile *p, pp_plan_options *o);

/* The mission's options of o (the rest as they are): the battery c asks
 * for (pp_battery_choose; c NULL: o's battery as it is), the mission's length, the reserve to keep
 * (min_soc_frac < 0: the pack's cutoff; else it replaces the pack's
 * cutoff), planned on the prediction (risk_mean) or its band's upper end.
 * 0 or -errno (logged). */
int pp_plan_options_mission(pp_plan_options *o, const pp_battery_choice *c, double mission_s,
                            double min_soc_frac, int risk_mean);

/* The one rule of a mission file's battery group: the mission of file into
 * spec (initialized by the caller) and, when no battery was given
 * (battery_given NULL), its battery group over b (the default pack); a
 * battery given (battery_given: the words naming it, a file or "the
 * battery given") is flown as it is, and a battery group of the file is
 * then said not to be read (a warning), never used silently. 0, or
 * -errno (logged with the file and line). */
int pp_mission_load_with(const char *file, pp_mission_spec *spec, pp_battery_params *b,
                         const char *battery_given);

/* The mission in phases of file into spec (initialized by the caller), its
 * battery group over o's battery unless battery_given names the battery
 * flown (pp_mission_load_with's rule); then what the settings mi give win
 * over the file: their base load over the file's battery's, and the
 * file's maximize is taken only when o has none. 0, or -EINVAL (logged
 * with the file and line). pp_mission_apply's phases. */
int pp_plan_options_mission_file_given(pp_plan_options *o, const pp_mission_settings *mi,
                                       const char *file, const char *battery_given,
                                       pp_mission_spec *spec);

/* --mission-s ARG of command cmd: a duration in the mission's range into
 * *out (0), or -1 said on stderr as "powprof CMD: --mission-s: why". */
int pp_mission_s_parse(const char *cmd, const char *arg, double *out);

#endif
