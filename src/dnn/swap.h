/* swap.h - plans with layer models, over the layer model's predictions
 * (layers_model.h) and the planner (plan.h):
 *  - networks never run swapped in for the one a profile measured (`powprof
 *    plan --network`, the rule of layers_plan.h): the measured network's
 *    plan, then one plan per network, side by side;
 *  - one network's mean power at a rate, and the highest rate a battery
 *    carries through a mission (`powprof layers predict`).
 */
#ifndef PP_LAYERS_SWAP_H
#define PP_LAYERS_SWAP_H

#include "layers_model.h"
#include "layers_plan.h"

#include "src/plan/plan.h"
#include "battery/battery.h"

#define PP_SWAP_MAX_NETWORKS 16

/* One network's plan. */
typedef struct pp_swap_row {
    const char *name;       /* the cfg as given (row 0: the measured one) */
    pp_layers_swap swap;    /* its cost against the measured network's (row 0: k = 1) */
    int planned;            /* 0: no rate whose k f lies within the measured rates */
    pp_plan_result *plan;   /* when planned (malloc'd) */
} pp_swap_row;

typedef struct pp_swap_plans {
    size_t n;               /* rows: [0] the measured network as measured, then each network */
    pp_swap_row row[PP_SWAP_MAX_NETWORKS + 1];
    int any_feasible;       /* some row's plan completes the mission */
} pp_swap_plans;

/* Plan the profile of model m (o, which must maximize a component's fps)
 * for the network it measured (measured, a cfg name or path) and for each
 * of networks[0..n) in its place, costed by the layer model of file
 * layer_model. Every cfg is read and costed before the first plan. 0, or
 * -EINVAL (logged: a plan that maximizes no fps, a bad cfg or model, more
 * than PP_SWAP_MAX_NETWORKS), -ENOMEM; out is freed on error. */
int pp_swap_plan_networks(const pp_model *m, const pp_plan_options *o, const char *layer_model,
                          const char *measured, const char *const *networks, size_t n,
                          pp_swap_plans *out);
void pp_swap_plans_free(pp_swap_plans *p);

/* A network's cost per frame from its prediction p under layer model lm. */
pp_layers_cost pp_layers_prediction_cost(const pp_layers_prediction *p, const pp_layer_model *lm);

/* The mean power at fps (NaN past the highest rate, or without idle power). */
double pp_layers_prediction_power_at(const pp_layers_prediction *p, const pp_layer_model *lm,
                                     double fps);

/* The highest rate at which battery b carries the network through a
 * mission of mission_s with min_soc_frac left (< 0: b's cutoff), planned
 * on the cost's band's upper end unless risk_mean; *core_fps (may be NULL)
 * the most one core sustains at that cost. As pp_layers_plan_fps: 0, 1
 * when not even the idle device lasts, -errno (logged). */
int pp_layers_prediction_plan(const pp_layers_prediction *p, const pp_layer_model *lm,
                              const pp_battery_params *b, double mission_s, double min_soc_frac,
                              int risk_mean, double *fps, double *soc_end_frac, double *core_fps);

#endif
