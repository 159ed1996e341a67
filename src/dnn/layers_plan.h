/* layers_plan.h - a network never run, planned on a measured profile: the
 * profile ran network M in a darknet component at swept frame rates; a
 * layer model (layers_model.h) costs M and another network N, and the
 * plan (plan.h) predicts each candidate as if N ran in M's place.
 *
 * The rule: a frame of N takes k = t_N / t_M times the CPU time of a frame
 * of M (the layer model's latencies). N requested at f fps asks for the CPU
 * time M asked for at f' = k f, so it meets what M met there: the measured
 * surface at f' gives the power P and M's achieved rate a_M, and N achieves
 * a_N = a_M / k. The power is P with M's frames taken out and N's put in:
 * P + a_N e_N - a_M e_M, where e is a frame's energy above idle. The band
 * is the surface's widened by a_N band(e_N) + a_M band(e_M) (the two
 * errors added, not assumed to cancel). A candidate
 * whose f' falls outside the measured rates is left out: nothing is
 * extrapolated. With N the cfg file of M the plan is the measured one.
 */
#ifndef PP_LAYERS_PLAN_H
#define PP_LAYERS_PLAN_H

#include "layers_model.h"
#include "src/plan/plan.h"

typedef struct pp_layers_swap {
    pp_layers_cost measured; /* M, the network the profile ran */
    pp_layers_cost network;  /* N, the one planned for */
    double time_ratio;       /* k = t_N / t_M */
    int same;                /* N is M's cfg file: the measured plan itself */
} pp_layers_swap;

/* Cost M (measured_cfg) and N (network_cfg), both paths, at their cfgs'
 * own sizes, under model lm into *s. 0, or -errno (logged: a bad cfg, a
 * kind never profiled, a model without idle power). */
int pp_layers_swap_init(const pp_layer_model *lm, const char *measured_cfg,
                        const char *network_cfg, pp_layers_swap *s);

/* A pp_plan_predict_fn (plan.h) with ctx a pp_layers_swap: the rule above. */
int pp_layers_swap_predict(void *ctx, const pp_model *m, size_t power_metric,
                           int achieved_metric, size_t maximize, pp_plan_choice *c);

/* Whether some rate f of parameter maximize, within its measured range,
 * has k f within it too: 0 when N is too slow or too fast for any
 * candidate. */
int pp_layers_swap_in_range(const pp_model *m, size_t maximize, const pp_layers_swap *s);

/* The pessimistic end of a cost, what a plan that must not fall short
 * uses (as `powprof plan --risk upper`): time and energy per frame at the
 * upper end of their bands, and the highest frame rate that slower frame
 * sustains. Unknown bands (NaN) leave a figure as it is. */
void pp_layers_cost_upper(pp_layers_cost *c);

/* The highest frame rate, up to c->max_fps, at which battery p (its
 * base_power_w beside the device's power at that rate) carries a mission
 * of mission_s with at least min_soc_frac left and no cutoff event
 * (src/dnn/layers_plan.c). 0 with *fps and the state of charge at the end; 1
 * when not even the idle device lasts (*fps = 0); -errno (logged: bad
 * battery parameters; -EINVAL without idle power). */
int pp_layers_plan_fps(const pp_layers_cost *c, const struct pp_battery_params *p,
                       double mission_s, double min_soc_frac, double *fps, double *soc_end_frac);

#endif
