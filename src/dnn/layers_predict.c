/* Predictions of a layer model (src/dnn/layers_model.h): every layer,
 * kinds never profiled by the roofline fit, and the costs plans use. */
#include "layers_predict.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOFLINE_BAND_FACTOR 2.0
#define MAX_LAYER_S 1e6  /* per layer and frame: past it a model is broken */
#define MAX_LAYER_J 1e9

/* A Debian cfg with each kind, for a message that says what to profile. */
static const char *const has_kind[PP_LAYER_KINDS] = {
    [PP_LAYER_CONVOLUTIONAL] = "tiny", [PP_LAYER_CONNECTED] = "alexnet",
    [PP_LAYER_MAXPOOL] = "tiny",       [PP_LAYER_AVGPOOL] = "tiny",
    [PP_LAYER_ROUTE] = "yolov3-tiny",  [PP_LAYER_UPSAMPLE] = "yolov3-tiny",
    [PP_LAYER_SHORTCUT] = "resnet18",  [PP_LAYER_YOLO] = "yolov3-tiny",
    [PP_LAYER_REGION] = "yolov2-tiny", [PP_LAYER_DETECTION] = "yolov1-tiny",
    [PP_LAYER_DROPOUT] = "alexnet",    [PP_LAYER_SOFTMAX] = "tiny",
    [PP_LAYER_COST] = "darknet9000",   [PP_LAYER_REORG] = "yolov2",
    [PP_LAYER_CROP] = "strided",
};

/* The widest band (RMSPE) of the kinds profiled for q; NaN when none is known. */
static double widest_band(const pp_layer_model *m, pp_layers_quantity q)
{
    double w = NAN;

    for (int k = 0; k < PP_LAYER_KINDS; k++)
        if (m->fit[q][k].family >= 0 && isfinite(m->fit[q][k].band_frac) &&
            !(m->fit[q][k].band_frac <= w))
            w = m->fit[q][k].band_frac;
    return w;
}

double pp_layer_model_total(const pp_layer_model *m, pp_layers_quantity q, double layers_sum,
                            double flops)
{
    double w = m->net_weight[q];

    return w >= 1.0 ? layers_sum : w * layers_sum + (1.0 - w) * m->net_rate[q] * flops;
}

int pp_layer_model_layer(const pp_layer_model *m, pp_layers_quantity q, const pp_layer_desc *l,
                         double *value, double *band)
{
    const pp_layer_fit *fit = &m->fit[q][l->kind];

    if (fit->family >= 0) {
        *value = pp_lfit_eval(fit, l);
        *band = fit->band_frac * *value;
        return 0;
    }
    if (m->roofline[q].family < 0)
        return -ENOENT;
    *value = pp_lfit_eval(&m->roofline[q], l);
    *band = ROOFLINE_BAND_FACTOR * widest_band(m, q) * *value;
    return 1;
}

/* The layers predicted by the roofline, by kind, into p->note. */
static void roofline_note(const pp_network_desc *net, pp_layers_prediction *p)
{
    size_t len = 0;

    for (int k = 0; k < PP_LAYER_KINDS; k++) {
        int first = 1;
        for (size_t i = 0; i < net->n && len < sizeof p->note - 32; i++) {
            if (!p->roofline[i] || (int)net->layers[i].kind != k)
                continue;
            len += (size_t)snprintf(p->note + len, sizeof p->note - len, "%s%s%s %zu",
                                    first && len ? "; " : "", first ? pp_layer_kind_name(
                                        (pp_layer_kind)k) : ",", first ? " layer" : "", i);
            first = 0;
        }
    }
    if (len >= sizeof p->note - 32)
        snprintf(p->note + sizeof p->note - 5, 5, "...");
}

/* Kinds of the roofline layers, for "profile yolov3-tiny". */
static const char *network_to_profile(const pp_network_desc *net, const pp_layers_prediction *p)
{
    for (size_t i = 0; i < net->n; i++)
        if (p->roofline[i])
            return has_kind[net->layers[i].kind];
    return "?";
}

/* Warn about (or refuse) layers of kinds never profiled. */
static int check_roofline(const pp_layer_model *m, const pp_network_desc *net,
                          pp_layers_prediction *p)
{
    double t = 0.0;

    if (!p->n_roofline)
        return 0;
    for (size_t i = 0; i < net->n; i++)
        t += p->roofline[i] ? p->layer[i][PP_LQ_CPU] : 0.0;
    p->roofline_frac = t / p->total[PP_LQ_CPU];
    roofline_note(net, p);
    if (p->roofline_frac > PP_LAYERS_UNPROFILED_MAX_FRAC) {
        pp_log_error("%s: layers of kinds the model has no profile of (%s) would be %.1f %% of "
                     "the predicted time, more than %.0f %%: profile a network with them (e.g. "
                     "'powprof layers profile %s' beside the others) and fit the model again",
                     net->name, p->note, 100 * p->roofline_frac,
                     100 * PP_LAYERS_UNPROFILED_MAX_FRAC, network_to_profile(net, p));
        return -ENOENT;
    }
    pp_log_warn("%s: %zu layers of kinds the model has no profile of (%s), %.1f %% of the "
                "predicted time, predicted from their bytes and FLOPs (this machine's memory "
                "and compute rates over every profiled layer), with a band twice the widest "
                "kind's%s%s", net->name, p->n_roofline, p->note, 100 * p->roofline_frac,
                m->path[0] ? "; model " : "", m->path);
    return 0;
}

/* Every value finite and below the absurd: else the model is broken. */
static int check_values(const pp_layer_model *m, const pp_network_desc *net,
                        const pp_layers_prediction *p)
{
    for (size_t i = 0; i < net->n; i++)
        for (int q = 0; q < PP_LQ_COUNT; q++) {
            double v = p->layer[i][q], max = q == PP_LQ_ENERGY ? MAX_LAYER_J : MAX_LAYER_S;
            if (v >= 0 && v <= max)
                continue;
            pp_log_error("%s: layer %zu (line %d, %s) of %s: %s of %g: the model's "
                         "coefficients for its kind are out of range (fit it again)",
                         m->path[0] ? m->path : "layer model", i, net->layers[i].line,
                         pp_layer_kind_name(net->layers[i].kind), net->name,
                         pp_layers_quantity_name((pp_layers_quantity)q), v);
            return -ERANGE;
        }
    return 0;
}

static int predict_layers(const pp_layer_model *m, const pp_network_desc *net,
                          pp_layers_prediction *out)
{
    for (size_t i = 0; i < net->n; i++)
        for (int q = 0; q < PP_LQ_COUNT; q++) {
            const pp_layer_desc *l = &net->layers[i];
            double *band = &out->layer_band[i][q];
            int rc = pp_layer_model_layer(m, (pp_layers_quantity)q, l, &out->layer[i][q], band);
            if (rc < 0) {
                pp_log_error("%s: layer %zu (line %d) is %s, a kind the model has no profile "
                             "of, and the model (of an earlier version) cannot stand in for "
                             "it: fit it again with this powprof, or profile a network with one "
                             "(e.g. 'powprof layers profile %s')", net->name, i, l->line,
                             pp_layer_kind_name(l->kind), has_kind[l->kind]);
                return -ENOENT;
            }
            out->roofline[i] = rc > 0;
            out->total[q] += out->layer[i][q];
            /* profiled layers share the network's band; the others add theirs */
            out->band[q] += rc > 0 && isfinite(*band) ? *band : 0.0;
        }
    return 0;
}

static void check_pixels(const pp_layer_model *m, const pp_network_desc *net,
                         pp_layers_prediction *out)
{
    double px = (double)net->width * net->height;

    if (!(px < m->pixels_min * 0.999 || px > m->pixels_max * 1.001))
        return;
    out->outside_pixels = 1;
    pp_log_warn("%s at %dx%d: %.0f pixels, outside the profiled range (%.0f to %.0f): the model "
                "extrapolates (profile sizes around it: 'powprof layers profile --sizes')",
                net->name, net->width, net->height, px, m->pixels_min, m->pixels_max);
}

int pp_layers_predict(const pp_layer_model *m, const pp_network_desc *net,
                      pp_layers_prediction *out)
{
    int rc;

    memset(out, 0, sizeof *out);
    out->layer = calloc(net->n + 1, sizeof *out->layer);
    out->layer_band = calloc(net->n + 1, sizeof *out->layer_band);
    out->roofline = calloc(net->n + 1, 1);
    if (!out->layer || !out->layer_band || !out->roofline) {
        pp_layers_prediction_free(out);
        return -ENOMEM;
    }
    out->n = net->n;
    if ((rc = predict_layers(m, net, out)) == 0)
        rc = check_values(m, net, out);
    for (size_t i = 0; i < net->n; i++)
        out->n_roofline += out->roofline[i];
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++) { /* the layers scaled to the total */
        double scale = pp_layer_model_total(m, (pp_layers_quantity)q, out->total[q], net->flops) /
                       out->total[q];
        for (size_t i = 0; i < net->n && isfinite(scale) && scale > 0; i++) {
            out->layer[i][q] *= scale;
            out->layer_band[i][q] *= scale;
        }
        out->band[q] *= isfinite(scale) && scale > 0 ? scale : 1.0;
        out->total[q] *= isfinite(scale) && scale > 0 ? scale : 1.0;
    }
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++) {
        double roof_band = out->band[q], roof = 0.0;
        for (size_t i = 0; i < net->n; i++)
            roof += out->roofline[i] ? out->layer[i][q] : 0.0;
        out->band[q] = m->net_rms[q] * (out->total[q] - roof) + roof_band;
    }
    if (rc == 0)
        rc = check_roofline(m, net, out);
    if (rc == 0)
        check_pixels(m, net, out);
    out->max_fps = 1.0 / out->total[PP_LQ_CPU];
    if (rc < 0)
        pp_layers_prediction_free(out);
    return rc;
}

void pp_layers_prediction_free(pp_layers_prediction *p)
{
    free(p->layer);
    free(p->layer_band);
    free(p->roofline);
    memset(p, 0, sizeof *p);
}
/* ---- The hook for layer 2 and plans ------------------------------------- */

int pp_layers_cost_of(const pp_layer_model *m, const char *cfg_path, int width, int height,
                      pp_layers_cost *out)
{
    pp_network_desc *net = malloc(sizeof *net);
    pp_layers_prediction p;
    int rc = net ? pp_layers_describe_file(cfg_path, width, height, net) : -ENOMEM;

    if (rc == 0 && (rc = pp_layers_predict(m, net, &p)) == 0) {
        out->time_s = p.total[PP_LQ_CPU];
        out->time_band_s = p.band[PP_LQ_CPU];
        out->energy_j = p.total[PP_LQ_ENERGY];
        out->energy_band_j = p.band[PP_LQ_ENERGY];
        out->idle_w = m->idle_w;
        out->max_fps = p.max_fps;
        out->estimated = m->estimated;
        pp_layers_prediction_free(&p);
    }
    free(net);
    return rc;
}

int pp_layers_power_at_fps(const pp_layers_cost *c, double fps, double *power_w)
{
    if (!(fps >= 0) || fps > c->max_fps)
        return -ERANGE;
    if (!isfinite(c->idle_w))
        return -EINVAL;
    *power_w = c->idle_w + fps * (c->energy_j - c->idle_w * c->time_s);
    return 0;
}
