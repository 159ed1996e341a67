/* governor.h - the plan per phase (phases.h) kept up in flight: each update
 * takes the time since take-off and what is measured of the battery, and
 * says the setting to run now and the plan for the rest of the mission.
 *
 * The charge left: the source's own state of charge when it gives one (and
 * trust_soc), else an extended Kalman filter over the pack's model from
 * the terminal voltage and the current (battery/soc_ekf.h; coulomb counting
 * with rint, whose open-circuit voltage says nothing of the charge), else,
 * with nothing measured, the held plan's prediction at that time. Each
 * decision says which.
 *
 * The re-plan: the rest of the current phase (its base load from the time
 * reached) and the phases after it, solved again (pp_phases_solve, quick)
 * from the charge left, with the same candidates, bounds (floors kept),
 * reserve and planned powers (the band's upper end by default); a re-plan
 * keeps band_frac above the reserve while there is room for it. The held
 * plan is run once over the same rest (one battery run); it is replaced
 * only when it no longer ends above the reserve itself (or browns out), or when
 * the new plan's time-weighted quality over the rest is better by more
 * than margin_frac and the new plan keeps the band: no flapping on a noisy
 * reading. When no schedule keeps
 * the reserve, the cheapest settings (every phase at its least power that
 * meets its bounds) are set and the time at which they reach the reserve
 * is said, for the application to tell the autopilot.
 *
 * The base load (the propulsion) of the rest is not taken as planned:
 * over each window of PP_GOV_SLOPE_S or more, the fall of the charge
 * estimated (the source's, the filter's, the count's) through the pack's
 * voltage is the mean power drawn; less the computer's planned power over
 * the window, over the phase's mean planned base load, it is a factor (a
 * moving mean over PP_GOV_LEARN_S, within [PP_GOV_FACTOR_MIN, _MAX]) by
 * which the rest's base loads are scaled: a headwind that started is
 * expected to go on. The computer is taken to draw its planned power, so
 * a computer drawing less than its band's upper end lowers the factor.
 *
 * The re-plans see each phase's base load as its means over bins of
 * PP_GOV_BIN_S (a recorded flight's second-by-second swings cost battery
 * runs and change a plan by little): a 30-minute mission is 180 samples.
 *
 * A phase ends when its duration has passed, or earlier when the update
 * says a later phase has begun (the phases after it keep their durations).
 * An update that says the phase flown (pp_gov_reading.phase) is believed
 * over the clock: a phase still flown past its planned end runs long (an
 * overrun). Its end is not known, so the re-plan assumes it goes on for
 * as long again as it has overrun so far, and PP_GOV_OVERRUN_MIN_S at
 * least (the median of what is left of a duration of which only a lower
 * bound is known, on a scale-free prior), at the phase's mean planned base
 * load times the learnt factor; the phases after it keep their full
 * planned durations. Each update says the overrun and the time assumed.
 */
#ifndef PP_GOVERNOR_H
#define PP_GOVERNOR_H

#include "src/plan/phases.h"

#include "battery/soc_ekf.h"

#define PP_GOV_MARGIN_DEFAULT 0.02
#define PP_GOV_BAND_DEFAULT 0.005 /* half a point of charge */
#define PP_GOV_LEARN_S 30.0      /* the base factor's moving mean, s */
#define PP_GOV_BIN_S 10.0        /* the base loads re-planned on: means over bins */
#define PP_GOV_SLOPE_S 60.0      /* the learning window: the charge's fall over it */
#define PP_GOV_FACTOR_MIN 0.25
#define PP_GOV_FACTOR_MAX 4.0
/* The one range of a decision period (--every, a power_supply's reads,
 * --simulate's updates), s: 20 a second at most, one an hour at least. */
#define PP_GOV_EVERY_S_MIN 0.05
#define PP_GOV_EVERY_S_MAX 3600.0
#define PP_GOV_CURRENT_A_MAX 2000.0 /* |current| beyond: no pack's, a broken reading */
#define PP_GOV_CELL_LOW_V 2.5   /* a cell under load, V: lower, another pack was flown */
#define PP_GOV_CELL_HIGH_V 4.2  /* ... a full cell (lithium), V */
#define PP_GOV_OVERRUN_MIN_S 60.0  /* an overrun's end assumed this far ahead at least, s */
#define PP_GOV_LATE_S 3600.0        /* a reading later than the mission's end by more:
                                       a clock that jumped (epoch time), refused */

typedef struct pp_gov_options {
    double margin_frac; /* a new plan replaces a held one that still keeps the reserve when
                           its quality over the rest is better by more than this (0.02) */
    int trust_soc;      /* 1 (default): the source's state of charge is used when given;
                           0: only the filter's */
    double band_frac;   /* re-plans keep the reserve plus this (0.005), a held plan gives way
                           only below the reserve itself: a dead band against flapping */
    int learn_base;     /* 1 (default): the base load of the rest is the planned one times
                           the factor learnt from the readings (above); 0: as planned */
    double every_s;     /* > 0: a decision (a re-plan) once per every_s of the readings'
                           time (a grid from the first reading; a new phase decides at
                           once); the readings between only feed the estimate, and their
                           decisions repeat the last one (decided 0): a fast source is
                           never behind. 0 (default): every update decides */
    int reuse_runs;     /* 1 (default): a battery run whose outcome an update has already
                           (the same powers over the same rest) is not made again, and a
                           rest whose least-drawing schedule ends below the reserve is not
                           solved again without the band, and the candidates are sorted
                           by power once, not at each re-plan; 0: every run and sort made
                           (the same decisions, slower: the tests compare the two) */
} pp_gov_options;

void pp_gov_options_init(pp_gov_options *o);

/* A decision period as people write it (5, 0.5, 500ms, 1min: the one
 * duration parser, src/base/util.h) in [PP_GOV_EVERY_S_MIN,
 * PP_GOV_EVERY_S_MAX]: 0 and *s, or -EINVAL with why (the text, the range).
 * pp_gov_every_check: the same range for a number. */
int pp_gov_parse_every(const char *text, double *s, char *why, size_t cap);
int pp_gov_every_check(double every_s, char *why, size_t cap);

/* What is measured at an update; NaN where not. */
typedef struct pp_gov_reading {
    double t_s;          /* since take-off, >= the last update's */
    double soc_frac, voltage_v, current_a;
    int phase;           /* -1: by the clock; k: phase k is flown (begun: a phase ending
                            early; still flown past its planned end: an overrun) */
} pp_gov_reading;

typedef enum pp_gov_why {
    PP_GOV_HOLD = 0,     /* the held plan still keeps the reserve, none better by the margin */
    PP_GOV_FIRST,        /* the first plan */
    PP_GOV_BETTER,       /* a plan better by more than the margin */
    PP_GOV_RESERVE,      /* the held plan no longer lands above the reserve */
    PP_GOV_CANNOT,       /* no schedule keeps the reserve: the cheapest */
    PP_GOV_PHASE,        /* held, and a new phase began (its planned setting) */
    PP_GOV_DONE,         /* the mission's time is over: the last setting held */
} pp_gov_why;

const char *pp_gov_why_name(pp_gov_why w);

/* A reading in range, whatever its source (the CLI's lines, the C and
 * Python API): a finite time >= 0; a state of charge in [0, 1] (a
 * percentage refused: "a percentage? write it / 100"); a voltage in (0,
 * PP_BATTERY_VOLTAGE_V_MAX); a current within +-PP_GOV_CURRENT_A_MAX
 * (NaN: not measured; the first update needs a state of charge, or a
 * voltage and a current: pp_gov_update). 0, or -EINVAL with why. */
int pp_gov_reading_check(const pp_gov_reading *r, char *why, size_t cap);

typedef struct pp_gov_decision {
    double t_s;
    size_t phase;              /* the phase flown now */
    double phase_left_s;       /* of it (0 past its planned end) */
    double phase_overrun_s;    /* how far past its planned end it is flown (0: not) */
    double overrun_assumed_s;  /* ... and how much longer it is assumed to run (NaN: not
                                  overrunning) */
    double soc_measured_frac;  /* the source's (NaN without) */
    double soc_frac;           /* the charge the decision used */
    double soc_sd_frac;        /* its standard deviation (0 when measured, NaN: unknown) */
    const char *soc_source;    /* "measured", "ekf", "coulomb", "plan" */
    int soc_held;              /* the estimate rose: the plan's prediction used (above) */
    size_t choice;             /* the setting now: index into the problem's candidates */
    size_t plan[PP_MISSION_MAX_PHASES]; /* the held plan's choice per phase (from phase on) */
    int decided;               /* this update decided (pp_gov_options.every_s); 0: the
                                  last decision repeated over a newer estimate */
    int changed;               /* the setting differs from the last update's */
    int replanned;             /* a new plan was adopted */
    pp_gov_why why;
    int feasible;              /* the rest can be flown keeping the reserve */
    double soc_end_frac;       /* the held plan's end (one battery run over the rest) */
    double new_soc_end_frac;   /* the re-plan's, and its quality over the rest */
    double quality, new_quality; /* the held plan's and the re-plan's over the rest */
    double reserve_t_s;        /* cannot: when the cheapest settings reach the reserve
                                  (since take-off; NaN: they do not) */
    double base_factor;        /* the actual base load over the planned one, learnt */
    size_t n_battery_runs;
} pp_gov_decision;

typedef struct pp_gov pp_gov;

/* A governor over problem p (not copied: p, its loads, candidates and
 * bounds must outlive it; p->battery's soc_start_frac is the charge at
 * take-off and its model the one the filter and the re-plans use). 0 and
 * *out, -EINVAL (logged: a bad problem or battery) or -ENOMEM. */
int pp_gov_new(const pp_phases_problem *p, const pp_gov_options *o, pp_gov **out);
void pp_gov_free(pp_gov *g);

/* One update (see above) into *d. 0, -EINVAL (logged: a reading out of
 * range (pp_gov_reading_check), a voltage the planned pack cannot show
 * (below PP_GOV_CELL_LOW_V a cell, or above its full voltage by a tenth:
 * another pack flown, said with both), a time before the last update's or past
 * the mission's end by more than PP_GOV_LATE_S, a phase not after the
 * current one or past the last: the reading is refused and the governor
 * keeps its last good state), -ENOMEM or -EIO. */
int pp_gov_update(pp_gov *g, const pp_gov_reading *r, pp_gov_decision *d);

#endif
