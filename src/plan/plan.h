/* plan.h - mission planning on a layer-2 model (model.h): the
 * configuration with the best quality of service whose predicted power the
 * battery carries through a mission, and a step-down schedule.
 *
 * Candidates are real settings: each parameter takes the values of its
 * resolution over its measured range (a resolution given by name; else a
 * linear range's step from run.json; else 1 when every value is an integer;
 * else 400 steps over the range, on its scale), a categorical one each
 * label; combinations never measured together are not candidates. Each is
 * predicted through pp_model_predict: the computer's total mean power
 * (total_mean_w) with its 90 % band, and, when the maximized parameter is a
 * component's fps and summary.csv has its achieved rate
 * (<component>.achieved_fps), the achieved rate. The quality maximized is
 * the achieved rate where there is one, else the parameter's value; a
 * candidate whose achieved rate falls short of the requested one by more
 * than the tolerance is left out (and counted). The power planned with is
 * the band's upper end (risk upper, the default) or the prediction itself
 * (risk mean).
 *
 * The battery (battery.h) carries the computer's power (through its
 * converter's efficiency) and base_power_w (motors, ...) from the pack;
 * the mission is feasible for a power when it ends above the state of
 * charge to keep, without a cutoff or brown-out event.
 *
 * The schedule starts at the highest quality the charge allows and steps
 * down, never below the best plan's, whose configuration it keeps to the
 * end: it spends the charge the best plan would leave above the reserve.
 * Its end state of charge is that of one battery run over the whole
 * schedule; with one step it is the best plan, and ends where it ends.
 */
#ifndef PP_PLAN_H
#define PP_PLAN_H

#include "src/base/duration.h"
#include "src/base/util.h"
#include "src/layer2/model.h"

#include "battery/battery.h"

#include <stddef.h>

typedef enum pp_plan_risk { PP_RISK_UPPER = 0, PP_RISK_MEAN } pp_plan_risk;

#define PP_PLAN_MAX_CANDIDATES 50000
/* The values one parameter may take in a plan (its range over its step):
 * a finer step is refused, with the step that would fit. */
#define PP_PLAN_MAX_VALUES PP_PLAN_MAX_CANDIDATES
/* A mission, in seconds: a second to about four months (its plot runs to
 * 1.2 times it, within what the battery model integrates, battery.h). */
#define PP_PLAN_MISSION_S_MIN PP_DURATION_S_MIN /* one range: src/base/util.h */
#define PP_PLAN_MISSION_S_MAX PP_DURATION_S_MAX
#define PP_PLAN_RUNNERS 5
#define PP_PLAN_MAX_STEPS 64
#define PP_PLAN_POWER_METRIC "total_mean_w"

typedef struct pp_plan_resolution {
    char name[PP_SUMMARY_NAME_MAX];
    double step; /* > 0, in the parameter's units; 0 with measured */
    int measured; /* 1: the levels measured, nothing between (a rate a camera runs at) */
} pp_plan_resolution;


/* A parameter held at one value (an input that is not a knob: the input
 * size, another component's setting): a number, or a categorical label. */
typedef struct pp_plan_fixed {
    char name[PP_SUMMARY_NAME_MAX];
    char value[PP_SUMMARY_LABEL_MAX];
} pp_plan_fixed;

struct pp_plan_choice;

/* A candidate's prediction in place of the model's own (a network swapped
 * in by a layer model: src/dnn/layers_plan.c): fills c->power and c->achieved
 * (NaN without a rate) for c->point, maximize being the parameter
 * maximized and achieved_metric its rate's metric (-1: none). 0, 1 to leave
 * the candidate out (no prediction there), or -errno (logged). */
typedef int (*pp_plan_predict_fn)(void *ctx, const pp_model *m, size_t power_metric,
                                  int achieved_metric, size_t maximize,
                                  struct pp_plan_choice *c);

typedef struct pp_plan_options {
    double mission_s;             /* > 0 */
    const char *maximize;         /* a parameter; NULL: the first named *fps, else the
                                     first numeric one */
    double min_soc_frac;          /* to keep at the end; < 0: the battery's soc_cutoff */
    pp_battery_params battery;    /* its base_power_w is the load beside the computer */
    pp_plan_risk risk;            /* default upper */
    double tolerance_frac;        /* of the requested rate (default 0.05) */
    size_t n_resolutions;
    pp_plan_resolution resolution[PP_SUMMARY_MAX_PARAMS];
    size_t n_fixed;               /* parameters held at one value (the others move) */
    pp_plan_fixed fixed[PP_SUMMARY_MAX_PARAMS];
    int schedule;                 /* also the step-down schedule */
    double min_rate_per_s;        /* > 0: leave out what keeps up fewer units of work per
                                     second (--min-rate; --work N: N / mission_s) */
    pp_plan_predict_fn predict;   /* NULL: pp_plan_predict_at */
    void *predict_ctx;
} pp_plan_options;

/* Defaults: risk upper, tolerance 5 %, the default battery, no schedule. */
void pp_plan_options_init(pp_plan_options *o);

/* "NAME=STEP" (a step > 0) or "NAME=measured" (the levels measured) added
 * to o's resolutions (the one parser of plan's and govern's --resolution):
 * 0, or -EINVAL with why. */
int pp_plan_resolution_parse(const char *arg, pp_plan_options *o, char *why, size_t cap);

typedef struct pp_plan_choice {
    pp_model_point point;   /* every parameter (a categorical one: the label's index) */
    double qos;             /* what is maximized: the achieved rate, else the parameter */
    pp_prediction power;    /* the computer's total mean power, W */
    pp_prediction achieved; /* the achieved rate (NaN without one) */
    double planned_w;       /* the power planned with (risk) */
    double energy_per_unit_j; /* predicted energy per unit of work (an iteration), J; NaN:
                                 the results count none */
    double rate_per_s;      /* units of work per second it keeps up: power / energy per
                               unit (NaN as above) */
} pp_plan_choice;

typedef struct pp_plan_step {
    double t_s, soc_frac;   /* when it starts, and the charge then */
    pp_plan_choice c;
} pp_plan_step;

typedef struct pp_plan_result {
    int feasible;
    size_t maximize;             /* the parameter maximized */
    int achieved_metric;         /* its achieved rate's metric, -1 without */
    double min_soc_frac;         /* kept at the end */
    double max_power_w;          /* the most the computer may draw through the mission
                                    (< 0: not even 0 W lasts) */
    double step[PP_SUMMARY_MAX_PARAMS]; /* each parameter's resolution (0: labels, or
                                           continuous) */
    size_t n_candidates;
    size_t n_short_of_rate;      /* left out: achieved rate short of the requested */
    size_t n_below_min_rate;     /* left out: fewer units of work per second than asked */
    int unit_metric;             /* energy per unit of work's metric, -1 without */
    pp_plan_choice short_example;/* the highest request left out so */
    size_t n_gave_way;           /* left out: never measured, gain over a measured setting
                                    that costs no more within its own band (every planner) */
    pp_plan_choice gave_way_example; /* the highest quality left out so */
    pp_plan_choice best;         /* when feasible */
    int measured_preferred;      /* best is a measured setting chosen over an unmeasured
                                    one (interpolated) whose quality it reaches within
                                    the latter's band */
    pp_plan_choice interpolated;
    int indistinct;              /* best and the first runner-up: their qualities' bands
                                    overlap (noise: --repeat tells them apart) */
    double best_soc_end_frac, best_time_to_cutoff_s;
    /* what the band costs: the highest quality among the candidates whose
     * power band's upper end (qos_upper) or prediction (qos_mean) lasts
     * the mission, whatever the risk planned with (NaN: none lasts) */
    double qos_upper, qos_mean;
    size_t n_runners;            /* the next lower requests that are feasible */
    pp_plan_choice runners[PP_PLAN_RUNNERS];
    pp_plan_choice frugal;       /* the least planned power */
    double frugal_time_to_cutoff_s;
    double frugal_soc_end_frac;  /* the most frugal at the mission's end (below the reserve
                                    when nothing is feasible) */
    size_t n_steps;              /* the schedule (when asked and feasible) */
    pp_plan_step steps[PP_PLAN_MAX_STEPS];
    double schedule_soc_end_frac;
} pp_plan_result;

/* The model's own prediction of a candidate at pt: *power (total mean
 * power) and, with achieved_metric >= 0, *achieved (NaN where the model has
 * none). 0, or 1 when there is no power prediction at pt. */
int pp_plan_predict_at(const pp_model *m, size_t power_metric, int achieved_metric,
                       const pp_model_point *pt, pp_prediction *power, pp_prediction *achieved);

/* The achieved rate's metric of a parameter: 1 when param is a component's
 * frame rate (<component>.fps), buf then its achieved rate's metric
 * (<component>.achieved_fps); 0 otherwise. The one rule of the planner,
 * `plan` and the network swap. */
int pp_plan_rate_metric(const char *param, char *buf, size_t cap);

/* Candidate c's parameters as "name=value name=value ..." (labels as
 * text) into buf. */
void pp_plan_choice_text(const pp_model *m, const pp_plan_choice *c, char *buf, size_t cap);

/* Plan on model m. Returns 0 (r->feasible says whether anything completes
 * the mission), -EINVAL (logged: no total_mean_w, no such parameter to
 * maximize, a resolution for no parameter, bad options) or -ENOMEM. */
int pp_plan(const pp_model *m, const pp_plan_options *o, pp_plan_result *r);

/* The candidates pp_plan weighs, highest quality first, into *out
 * (malloc'd: free it), with r's maximize, achieved_metric, step,
 * n_candidates and n_short_of_rate (r is cleared first; the mission's
 * fields are left). 0, -EINVAL (logged, as pp_plan) or -ENOMEM. */
int pp_plan_candidates(const pp_model *m, const pp_plan_options *o, pp_plan_result *r,
                       pp_plan_choice **out);

#endif
