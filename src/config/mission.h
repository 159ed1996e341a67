/* mission.h - a mission as it is flown: phases in order, each with its
 * duration, the base load beside the computer (motors: a constant, or a
 * recorded flight's power) and bounds on the configuration for that phase;
 * a reserve at the end. Read from the group "mission" of a configuration
 * file (a profile, or a small mission file for `powprof plan --mission`):
 *
 *   mission = {
 *     min_soc = 0.2;                 (optional: the battery's soc_cutoff)
 *     maximize = "det.fps";          (optional)
 *     phases = (
 *       { name = "takeoff"; duration = "1min"; base_power_w = 400.0; },
 *       { name = "transit"; duration = "12min"; base_trace = "flight.csv";
 *         max = { det = { fps = 5.0; }; }; },
 *       { name = "landing"; duration = "2min"; base_power_w = 300.0;
 *         min = { det = { fps = 15.0; }; }; weight = 2.0; }
 *     );
 *   };
 *
 * or, the one-phase shorthand of earlier versions,
 *   mission = { duration_s = 600.0; base_power_w = 150.0; min_soc = 0.2; };
 *
 * A phase: name (letters, digits, _ . - +), duration with its unit ("90s",
 * "12min", "1h", "1min30s") or duration_s as a number, at most one of
 * base_power_w (W, >= 0) and base_trace (a powprof trace file, or a results
 * folder of `powprof import`, whose total power is cut or repeated to the
 * phase's duration; a relative path is taken from the file's folder;
 * base_trace_from_s skips the start of it); neither: the battery's
 * base_power_w. weight (> 0, default 1) weighs the phase's time in the
 * quality. overrun (a fraction in [0, PP_MISSION_OVERRUN_MAX], default 0):
 * the phase may run that much longer than its duration (0.3: 30 %); the
 * plan and the governor budget the charge for the longest (its base load
 * over it), and the governor spends what is left when it ends sooner.
 * work (>= 0, units of work: iterations, files) asks the phase to
 * finish that many: only configurations that keep up work / duration units
 * a second are admitted. min, max and fixed bound parameters named as in summary.csv:
 * "det = { fps = 15.0; }" is det.fps, "fps = 15.0" an imported folder's fps;
 * fixed takes a number or a label. Errors name the file, the line and the
 * key: unknown keys, a duration without a number or unit, a minimum above a
 * maximum, a parameter both fixed and bounded, a phase named twice.
 */
#ifndef PP_MISSION_H
#define PP_MISSION_H

#include "config.h"
#include "mission_fixed.h"

#include "src/base/util.h"

#include "battery/battery.h"

#include <stddef.h>

#define PP_MISSION_MAX_PHASES 32
#define PP_MISSION_MAX_BOUNDS 16
#define PP_MISSION_NAME_MAX 64
#define PP_MISSION_PARAM_MAX 160
#define PP_MISSION_OVERRUN_MAX 10.0

typedef struct pp_mission_bound {
    char param[PP_MISSION_PARAM_MAX]; /* "det.fps" */
    double min, max;                  /* -INFINITY / INFINITY where none */
    char label[64];                   /* fixed to a label ("" when not) */
    int line;                         /* in the file, for messages */
} pp_mission_bound;

typedef struct pp_mission_phase {
    char name[PP_MISSION_NAME_MAX];
    double duration_s;                /* > 0 */
    double base_power_w;              /* < 0: the battery's (when no trace) */
    char base_trace[PP_PATH_MAX];            /* "" when none; resolved from the file's folder */
    double base_trace_from_s;         /* skipped at the trace's start */
    double weight;                    /* of its time in the quality (default 1) */
    double overrun_frac;              /* may run this much longer: budgeted (default 0) */
    double work_units;                /* work = N: units of work (iterations: files,
                                         frames) to finish within it; 0: none */
    size_t n_bounds;
    pp_mission_bound bound[PP_MISSION_MAX_BOUNDS];
    int line;
} pp_mission_phase;

typedef struct pp_mission_spec {
    char path[PP_PATH_MAX];           /* the file read ("" when built in code) */
    size_t n_fixed;                   /* the top-level fixed list, in order */
    pp_mission_fixed fixed[PP_MISSION_MAX_FIXED];
    double min_soc_frac;              /* < 0: the battery's soc_cutoff */
    char maximize[PP_MISSION_PARAM_MAX]; /* "" when not given */
    int shorthand;                    /* duration_s, not phases */
    size_t n_phases;
    pp_mission_phase phase[PP_MISSION_MAX_PHASES];
} pp_mission_spec;

/* An empty mission (no phases, no reserve, nothing maximized). */
void pp_mission_init(pp_mission_spec *m);

/* One phase of duration_s with a constant base load (< 0: the battery's),
 * as --mission-s and --base-power-w say. 0 or -EINVAL (logged). */
int pp_mission_one_phase(pp_mission_spec *m, double duration_s, double base_power_w);

/* The sum of the phases' durations, s. */
double pp_mission_duration_s(const pp_mission_spec *m);

/* Read the group "mission" of cfg into m (its fixed list included): 0, 1 when cfg has none (m
 * empty), -EINVAL (logged with the file, line and key). */
int pp_mission_from_config(const pp_config *cfg, pp_mission_spec *m);

/* The mission and battery groups of the file at path (b starts as given:
 * the battery group, when there is one, is read over it). 0, -ENOENT
 * (logged: the file has no mission group) or -EINVAL / -errno (logged). */
int pp_mission_load(const char *path, pp_mission_spec *m, pp_battery_params *b);

/* A duration with its units ("90s", "12min", "1.5h", "1min30s", "250ms")
 * into *s. 0, or -EINVAL with why (no number, no unit, an unknown unit,
 * not > 0). */
int pp_mission_parse_duration(const char *text, double *s, char *why, size_t cap);

/* The bounds of phase ph as text ("det.fps >= 15, size = 512"; "" when
 * none) into buf (cap bytes, truncated). */
void pp_mission_bounds_text(const pp_mission_phase *ph, char *buf, size_t cap);

#endif
