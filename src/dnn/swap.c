/* Plans with layer models (see swap.h). */
#include "swap.h"

#include "layers_profile.h"
#include "layers_json.h"
#include "layers_plan.h"
#include "layers_predict.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pp_swap_plans_free(pp_swap_plans *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->row[i].plan);
        p->row[i].plan = NULL;
    }
    p->n = 0;
}

/* Cost the measured network and every other one into rows 1..n (any
 * error before a plan is made). 0 or -errno. */
static int cost_networks(const char *layer_model, const char *measured,
                         const char *const *networks, size_t n, pp_swap_plans *out)
{
    char measured_path[PP_PATH_MAX], path[PP_PATH_MAX];
    pp_layer_model *lm = malloc(sizeof *lm);
    int rc = lm ? 0 : -ENOMEM;

    if (rc == 0 && (rc = pp_layer_model_read(layer_model, lm)) == 0)
        rc = pp_layers_resolve_cfg(measured, measured_path, sizeof measured_path);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        out->row[i + 1].name = networks[i];
        if ((rc = pp_layers_resolve_cfg(networks[i], path, sizeof path)) == 0)
            rc = pp_layers_swap_init(lm, measured_path, path, &out->row[i + 1].swap);
    }
    free(lm);
    return rc;
}

/* Row 0: the plan as measured; it must maximize a component's fps. */
static int plan_measured(const pp_model *m, const pp_plan_options *o, pp_swap_row *row)
{
    char rate[PP_SUMMARY_NAME_MAX + 16];
    const char *p;
    int rc;

    row->swap.time_ratio = 1.0;
    row->planned = 1;
    if (!(row->plan = malloc(sizeof *row->plan)))
        return -ENOMEM;
    if ((rc = pp_plan(m, o, row->plan)) < 0)
        return rc;
    p = m->sum.params[row->plan->maximize];
    if (!pp_plan_rate_metric(p, rate, sizeof rate)) {
        pp_log_error("network swap: the plan maximizes %s, not a component's fps", p);
        return -EINVAL;
    }
    return 0;
}

/* A network in the measured one's place: planned through the swap's
 * prediction when some rate of it lies within the measured ones. */
static int plan_swapped(const pp_model *m, pp_plan_options *o, size_t maximize, pp_swap_row *row)
{
    row->planned = pp_layers_swap_in_range(m, maximize, &row->swap);
    if (!row->planned)
        return 0;
    if (!(row->plan = malloc(sizeof *row->plan)))
        return -ENOMEM;
    o->predict = pp_layers_swap_predict;
    o->predict_ctx = &row->swap;
    return pp_plan(m, o, row->plan);
}

int pp_swap_plan_networks(const pp_model *m, const pp_plan_options *o, const char *layer_model,
                          const char *measured, const char *const *networks, size_t n,
                          pp_swap_plans *out)
{
    pp_plan_options *swapped = malloc(sizeof *swapped);
    int rc = swapped ? 0 : -ENOMEM;

    memset(out, 0, sizeof *out);
    if (n > PP_SWAP_MAX_NETWORKS) {
        pp_log_error("network swap: %zu networks, at most %d", n, PP_SWAP_MAX_NETWORKS);
        rc = -EINVAL;
    }
    out->n = rc == 0 ? n + 1 : 0;
    out->row[0].name = measured;
    if (rc == 0 && (rc = cost_networks(layer_model, measured, networks, n, out)) == 0)
        rc = plan_measured(m, o, &out->row[0]);
    if (rc == 0)
        *swapped = *o;
    for (size_t i = 1; rc == 0 && i <= n; i++)
        rc = plan_swapped(m, swapped, out->row[0].plan->maximize, &out->row[i]);
    for (size_t i = 0; rc == 0 && i <= n; i++)
        out->any_feasible |= out->row[i].planned && out->row[i].plan->feasible;
    free(swapped);
    if (rc < 0)
        pp_swap_plans_free(out);
    return rc;
}

pp_layers_cost pp_layers_prediction_cost(const pp_layers_prediction *p, const pp_layer_model *lm)
{
    pp_layers_cost c = {p->total[PP_LQ_CPU], p->band[PP_LQ_CPU], p->total[PP_LQ_ENERGY],
                        p->band[PP_LQ_ENERGY], lm->idle_w, p->max_fps, lm->estimated};
    return c;
}

double pp_layers_prediction_power_at(const pp_layers_prediction *p, const pp_layer_model *lm,
                                     double fps)
{
    pp_layers_cost c = pp_layers_prediction_cost(p, lm);
    double w = NAN;

    return pp_layers_power_at_fps(&c, fps, &w) == 0 ? w : NAN;
}

int pp_layers_prediction_plan(const pp_layers_prediction *p, const pp_layer_model *lm,
                              const pp_battery_params *b, double mission_s, double min_soc_frac,
                              int risk_mean, double *fps, double *soc_end_frac, double *core_fps)
{
    pp_layers_cost c = pp_layers_prediction_cost(p, lm);

    if (!risk_mean)
        pp_layers_cost_upper(&c);
    if (core_fps)
        *core_fps = c.max_fps;
    return pp_layers_plan_fps(&c, b, mission_s, min_soc_frac >= 0 ? min_soc_frac
                                                                  : b->soc_cutoff_frac,
                              fps, soc_end_frac);
}
