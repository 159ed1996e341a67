/* Leave-one-network-out evaluation of layer models (src/dnn/layers_model.h). */
#include "layers_eval.h"
#include "layers_choose.h"
#include "layers_predict.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAJOR_FRAC 0.01
#define VARIANTS (PP_LF_COUNT + 1) /* the chosen family, then each family alone */

/* Sums of squared (and absolute) relative errors, turned into stats at the end. */
typedef struct accum {
    double layer, major, flops, net_abs, net_sq, net_max;
    size_t n_layer, n_major, n_flops, n_net;
} accum;

static void add_layer(accum *a, double rel, int major, int has_flops)
{
    if (!isfinite(rel))
        return;
    a->layer += rel * rel;
    a->n_layer++;
    if (major) {
        a->major += rel * rel;
        a->n_major++;
    }
    if (has_flops) {
        a->flops += rel * rel;
        a->n_flops++;
    }
}

static void add_net(accum *a, double rel)
{
    if (!isfinite(rel))
        return;
    a->net_abs += fabs(rel);
    a->net_sq += rel * rel;
    a->net_max = fabs(rel) > a->net_max ? fabs(rel) : a->net_max;
    a->n_net++;
}

static double root_mean(double sum, size_t n) { return n ? sqrt(sum / (double)n) : NAN; }

static void finish(const accum *a, pp_layers_eval_stats *s)
{
    s->layer_rmspe = root_mean(a->layer, a->n_layer);
    s->layer_rmspe_major = root_mean(a->major, a->n_major);
    s->layer_rmspe_flops = root_mean(a->flops, a->n_flops);
    s->net_mape = a->n_net ? a->net_abs / (double)a->n_net : NAN;
    s->net_rms = root_mean(a->net_sq, a->n_net);
    s->net_max = a->n_net ? a->net_max : NAN;
    s->n_layers = a->n_layer;
    s->n_major = a->n_major;
    s->n_flops = a->n_flops;
    s->n_runs = a->n_net;
}

/* The runs of d whose network is called name (keep 1) or not (keep 0). */
static void mark(const pp_layers_data *d, const char *name, int keep, unsigned char *use)
{
    for (size_t i = 0; i < d->n_networks; i++)
        use[i] = (strcmp(d->networks[i].name, name) == 0) == keep;
}

/* Predict run r with m; accumulate its layers' and its total's errors.
 * The total is NaN when a layer cannot be predicted. */
static void score_run(const pp_layers_data *d, size_t r, const pp_layer_model *m, accum *acc,
                      double *pred)
{
    const pp_network_sample *net = &d->networks[r];

    for (int q = 0; q < PP_LQ_COUNT; q++) {
        double total = 0.0;
        for (size_t i = 0; i < net->n_layers; i++) {
            const pp_layer_sample *s = &d->samples[net->first + i];
            double v, band;
            if (pp_layer_model_layer(m, (pp_layers_quantity)q, &s->d, &v, &band) < 0) {
                total = NAN;
                continue;
            }
            total += v;
            if (s->y[q] > 0)
                add_layer(&acc[q], v / s->y[q] - 1.0, s->y[q] >= MAJOR_FRAC * net->y[q],
                          s->d.flops > 0);
        }
        pred[q] = pp_layer_model_total(m, (pp_layers_quantity)q, total, net->flops);
        add_net(&acc[q], pred[q] / net->y[q] - 1.0);
    }
}

/* Rate minimizing the relative errors of rate x over the pairs: sum(x/y) / sum((x/y)^2). */
typedef struct rate_fit {
    double s1, s2;
} rate_fit;

static void rate_add(rate_fit *f, double x, double y)
{
    if (x > 0 && y > 0 && isfinite(y)) {
        f->s1 += x / y;
        f->s2 += (x / y) * (x / y);
    }
}

static double rate_of(const rate_fit *f) { return f->s2 > 0 ? f->s1 / f->s2 : NAN; }

/* The baseline for the runs outside use (left out): rates fitted on use. */
static void score_baseline(const pp_layers_data *d, const unsigned char *use, accum *acc,
                           double (*base)[PP_LQ_COUNT])
{
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        rate_fit net_rate = {0, 0}, layer_rate = {0, 0};
        for (size_t i = 0; i < d->n_samples; i++)
            if (use[d->samples[i].net] && d->samples[i].d.flops > 0)
                rate_add(&layer_rate, d->samples[i].d.flops, d->samples[i].y[q]);
        for (size_t r = 0; r < d->n_networks; r++)
            if (use[r])
                rate_add(&net_rate, d->networks[r].flops, d->networks[r].y[q]);
        for (size_t r = 0; r < d->n_networks; r++) {
            const pp_network_sample *net = &d->networks[r];
            if (use[r])
                continue;
            base[r][q] = rate_of(&net_rate) * net->flops;
            add_net(&acc[q], base[r][q] / net->y[q] - 1.0);
            for (size_t i = 0; i < net->n_layers; i++) {
                const pp_layer_sample *s = &d->samples[net->first + i];
                if (s->d.flops > 0 && s->y[q] > 0)
                    add_layer(&acc[q], rate_of(&layer_rate) * s->d.flops / s->y[q] - 1.0,
                              s->y[q] >= MAJOR_FRAC * net->y[q], 1);
            }
        }
    }
}

/* Leave network name out: fit every variant on the others, score its runs. */
static int fold(const pp_layers_data *d, const char *name, unsigned char *use,
                accum (*acc)[PP_LQ_COUNT], accum *base_acc, pp_layers_eval *e)
{
    pp_layer_model *m = malloc(sizeof *m);
    double scratch[PP_LQ_COUNT];
    int rc = m ? 0 : -ENOMEM;

    mark(d, name, 0, use);
    for (int v = 0; v < VARIANTS && rc == 0; v++) {
        pp_layer_fit_opts o = {v - 1, use, 0};
        if ((rc = pp_layer_model_fit(d, &o, m)) < 0)
            break;
        for (size_t r = 0; r < d->n_networks; r++)
            if (!use[r])
                score_run(d, r, m, acc[v], v == 0 ? e->pred[r] : scratch);
    }
    if (rc == 0)
        score_baseline(d, use, base_acc, e->base);
    free(m);
    return rc;
}

int pp_layers_evaluate(const pp_layers_data *d, pp_layers_eval *e)
{
    accum acc[VARIANTS][PP_LQ_COUNT], base_acc[PP_LQ_COUNT];
    unsigned char *use = calloc(d->n_networks + 1, 1), *done = calloc(d->n_networks + 1, 1);
    int rc = use && done ? 0 : -ENOMEM;

    memset(e, 0, sizeof *e);
    memset(acc, 0, sizeof acc);
    memset(base_acc, 0, sizeof base_acc);
    e->n_runs = d->n_networks;
    e->pred = calloc(d->n_networks + 1, sizeof *e->pred);
    e->base = calloc(d->n_networks + 1, sizeof *e->base);
    if (!e->pred || !e->base)
        rc = -ENOMEM;
    for (size_t r = 0; r < d->n_networks && rc == 0; r++) {
        if (done[r])
            continue;
        for (size_t k = r; k < d->n_networks; k++)
            done[k] |= strcmp(d->networks[k].name, d->networks[r].name) == 0;
        e->n_networks++;
        rc = fold(d, d->networks[r].name, use, acc, base_acc, e);
    }
    if (rc == 0 && e->n_networks < 2) {
        pp_log_error("layer model evaluation: needs at least two networks (has %zu)",
                     e->n_networks);
        rc = -EINVAL;
    }
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++) {
        finish(&acc[0][q], &e->model[q]);
        for (int f = 0; f < PP_LF_COUNT; f++)
            finish(&acc[f + 1][q], &e->family[f][q]);
        finish(&base_acc[q], &e->baseline[q]);
    }
    free(use);
    free(done);
    if (rc < 0)
        pp_layers_eval_free(e);
    return rc;
}

void pp_layers_eval_free(pp_layers_eval *e)
{
    free(e->pred);
    free(e->base);
    memset(e, 0, sizeof *e);
}
