/* The family of each layer kind chosen by leave-one-network-out, shrunk
 * toward the baseline; the roofline fit for kinds never profiled; the
 * model fitted (src/dnn/layers_model.h). */
#include "layers_choose.h"
#include "layers_profile.h"
#include "layers_predict.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALL_KINDS (-1)
#define MARGIN_FRAC 0.05 /* a candidate must beat the best so far by this much */

static const double weights[] = {0.25, 0.5, 0.75, 1.0};

/* The distinct network names among the runs in use. */
typedef struct name_list {
    size_t n;
    const char **name;
} name_list;

static int list_names(const pp_layers_data *d, const unsigned char *use, name_list *out)
{
    out->n = 0;
    if (!(out->name = malloc(sizeof *out->name * (d->n_networks + 1))))
        return -ENOMEM;
    for (size_t i = 0; i < d->n_networks; i++) {
        size_t k = 0;
        if (use && !use[i])
            continue;
        while (k < out->n && strcmp(out->name[k], d->networks[i].name) != 0)
            k++;
        if (k == out->n)
            out->name[out->n++] = d->networks[i].name;
    }
    return 0;
}

/* Which samples: kind (ALL_KINDS: every one), networks in use, and by
 * name: all (name NULL), all but name (keep 0), only name (keep 1). */
typedef struct selector {
    int kind;
    const unsigned char *use;
    const char *name;
    int keep;
} selector;

static size_t select_samples(const pp_layers_data *d, pp_layers_quantity q, const selector *sel,
                             size_t *idx)
{
    size_t n = 0;

    for (size_t i = 0; i < d->n_samples; i++) {
        const pp_layer_sample *s = &d->samples[i];
        const char *net = d->networks[s->net].name;
        if ((sel->use && !sel->use[s->net]) || !(s->y[q] > 0) || !isfinite(s->y[q]))
            continue;
        if (sel->kind != ALL_KINDS && (int)s->d.kind != sel->kind)
            continue;
        if (sel->name && (strcmp(net, sel->name) == 0) != sel->keep)
            continue;
        idx[n++] = i;
    }
    return n;
}

static size_t count_names_with(const pp_layers_data *d, const size_t *idx, size_t n,
                               const name_list *names)
{
    size_t count = 0;

    for (size_t g = 0; g < names->n; g++)
        for (size_t i = 0; i < n; i++)
            if (strcmp(d->networks[d->samples[idx[i]].net].name, names->name[g]) == 0) {
                count++;
                break;
            }
    return count;
}

/* What one kind's choice works on: its samples (all), and scratch. */
typedef struct kind_set {
    const pp_layers_data *d;
    const unsigned char *use;
    const name_list *names;
    int kind;
    pp_layers_quantity q;
    pp_lsamples all;
    size_t *train;     /* d->n_samples */
    double *run_err;   /* d->n_networks */
    unsigned char *run_has;
} kind_set;

/* Leave-one-network-out predictions of family f for every sample of
 * ks->all into pred (NaN where the network's fold has nothing to fit on).
 * 0, or the fit's error (the family cannot be fitted on some fold). */
static int loo_predict(const kind_set *ks, int f, double *pred)
{
    const pp_layers_data *d = ks->d;

    for (size_t i = 0; i < ks->all.n; i++)
        pred[i] = NAN;
    for (size_t g = 0; g < ks->names->n; g++) {
        selector out = {ks->kind, ks->use, ks->names->name[g], 0};
        pp_lsamples tr = {d, ks->train, select_samples(d, ks->q, &out, ks->train), ks->q};
        pp_layer_fit fit;
        int rc, any = 0;
        for (size_t i = 0; i < ks->all.n && !any; i++)
            any = strcmp(d->networks[d->samples[ks->all.idx[i]].net].name, ks->names->name[g]) == 0;
        if (!any || tr.n == 0)
            continue;
        if ((rc = pp_lfit_family(&tr, f, &fit)) < 0)
            return rc;
        for (size_t i = 0; i < ks->all.n; i++) {
            const pp_layer_sample *s = &d->samples[ks->all.idx[i]];
            if (strcmp(d->networks[s->net].name, ks->names->name[g]) == 0)
                pred[i] = pp_lfit_eval(&fit, &s->d);
        }
    }
    return 0;
}

/* The errors of w pf + (1 - w) pb: the layers' RMSPE into *layer, and the
 * choice's criterion (per run, the kind's summed error over the whole
 * network's measured value; RMS over runs) into *net. NaN where nothing
 * was predicted. */
static void errors(const kind_set *ks, const double *pf, const double *pb, double w,
                   double *layer, double *net)
{
    const pp_layers_data *d = ks->d;
    double sum = 0.0, sum_net = 0.0;
    size_t n = 0, n_net = 0;

    memset(ks->run_err, 0, sizeof *ks->run_err * d->n_networks);
    memset(ks->run_has, 0, d->n_networks);
    for (size_t i = 0; i < ks->all.n; i++) {
        const pp_layer_sample *s = &d->samples[ks->all.idx[i]];
        double v = w * pf[i] + (1.0 - w) * pb[i];
        if (!isfinite(v))
            continue;
        sum += (v / s->y[ks->q] - 1.0) * (v / s->y[ks->q] - 1.0);
        n++;
        ks->run_err[s->net] += v - s->y[ks->q];
        ks->run_has[s->net] = 1;
    }
    for (size_t r = 0; r < d->n_networks; r++) {
        double y = d->networks[r].y[ks->q];
        y = y > 0 && isfinite(y) ? y : d->networks[r].layers_y[ks->q];
        if (ks->run_has[r] && y > 0 && isfinite(y)) {
            sum_net += (ks->run_err[r] / y) * (ks->run_err[r] / y);
            n_net++;
        }
    }
    *layer = n ? sqrt(sum / (double)n) : NAN;
    *net = n_net ? sqrt(sum_net / (double)n_net) : NAN;
}

/* The choice: family and weight into fit (family, weight), every family's
 * errors into fit->loo_rmspe and loo_net, and what is used into
 * fit->band_frac. pred holds PP_LF_COUNT x n values. */
static int choose(const kind_set *ks, double *pred, pp_layer_fit *fit)
{
    const double *pb = pred + (size_t)PP_LF_RATE * ks->all.n;
    double best, layer;
    int rc;

    for (int f = 0; f < PP_LF_COUNT; f++) {
        double *pf = pred + (size_t)f * ks->all.n;
        if ((rc = loo_predict(ks, f, pf)) == -ENOSYS || rc == -ENOMEM)
            return rc;
        if (rc < 0)
            for (size_t i = 0; i < ks->all.n; i++)
                pf[i] = NAN;
        errors(ks, pf, pf, 1.0, &fit->loo_rmspe[f], &fit->loo_net[f]);
        if (rc < 0)
            fit->loo_rmspe[f] = fit->loo_net[f] = NAN;
    }
    fit->family = PP_LF_RATE;
    fit->weight = 1.0;
    best = fit->loo_net[PP_LF_RATE];
    /* a family enters only when it beats the baseline alone: shrinking it
     * toward the baseline then tempers it, but a worse one mixed in would
     * only fit the noise of the few networks the errors come from */
    for (int f = 0; f < PP_LF_RATE && !fit->thin && isfinite(best); f++)
        for (size_t k = 0; k < PP_ARRAY_SIZE(weights) &&
                           fit->loo_net[f] < fit->loo_net[PP_LF_RATE] * (1.0 - MARGIN_FRAC); k++) {
            double net;
            errors(ks, pred + (size_t)f * ks->all.n, pb, weights[k], &layer, &net);
            if (net < best * (1.0 - MARGIN_FRAC)) {
                best = net;
                fit->family = f;
                fit->weight = weights[k];
            }
        }
    errors(ks, pred + (size_t)fit->family * ks->all.n, pb, fit->weight, &fit->band_frac, &layer);
    return 0;
}

/* The fit of kind (ALL_KINDS: the roofline) for q: the family chosen (or
 * o->family, or the roofline), fitted on every sample with the baseline
 * beside it. */
static int fit_kind(kind_set *ks, const pp_layer_fit_opts *o, size_t *scratch, pp_layer_fit *fit)
{
    selector all = {ks->kind, ks->use, NULL, 0};
    double *pred = NULL;
    pp_layer_fit base;
    int rc = 0, family;
    int thin;

    ks->all = (pp_lsamples){ks->d, scratch, select_samples(ks->d, ks->q, &all, scratch), ks->q};
    memset(fit, 0, sizeof *fit);
    fit->family = -1;
    if (ks->all.n == 0)
        return 0;
    /* inside the choice of the network weight, a network fewer */
    thin = count_names_with(ks->d, scratch, ks->all.n, ks->names) <
           PP_LAYERS_MIN_CHOICE_NETS - (o->layers_only ? 1 : 0);
    for (int f = 0; f < PP_LF_COUNT; f++)
        fit->loo_rmspe[f] = fit->loo_net[f] = NAN;
    fit->band_frac = NAN;
    fit->thin = thin && o->family < 0 && ks->kind != ALL_KINDS;
    if (o->family < 0 && ks->kind != ALL_KINDS && ks->names->n > 1) {
        if (!(pred = malloc(sizeof *pred * PP_LF_COUNT * ks->all.n)))
            return -ENOMEM;
        rc = choose(ks, pred, fit);
        free(pred);
    }
    family = ks->kind == ALL_KINDS ? PP_LF_ROOFLINE : o->family >= 0 ? o->family
             : fit->family >= 0 ? fit->family : PP_LF_RATE;
    {
        pp_layer_fit chosen = *fit;
        if (rc == 0 && (rc = pp_lfit_family(&ks->all, family, fit)) == -EDOM)
            rc = pp_lfit_family(&ks->all, family = PP_LF_RATE, fit);
        if (rc == 0 && (rc = pp_lfit_family(&ks->all, PP_LF_RATE, &base)) == 0) {
            fit->base_coef = base.coef[0];
            fit->weight = family == chosen.family ? chosen.weight : 1.0;
        }
        memcpy(fit->loo_rmspe, chosen.loo_rmspe, sizeof fit->loo_rmspe);
        memcpy(fit->loo_net, chosen.loo_net, sizeof fit->loo_net);
        fit->band_frac = chosen.band_frac;
        fit->thin = chosen.thin;
    }
    fit->n_samples = ks->all.n;
    fit->n_networks = count_names_with(ks->d, scratch, ks->all.n, ks->names);
    return rc;
}

static void model_context(const pp_layers_data *d, const unsigned char *use, pp_layer_model *m)
{
    double *idle = malloc(sizeof *idle * (d->n_networks + 1));
    size_t n_idle = 0;

    m->idle_w = m->pixels_min = m->pixels_max = NAN;
    for (size_t i = 0; i < d->n_networks; i++) {
        double px = (double)d->networks[i].width * d->networks[i].height;
        if (use && !use[i])
            continue;
        m->estimated |= d->networks[i].estimated;
        if (!m->device[0])
            memcpy(m->device, d->networks[i].device, sizeof m->device);
        if (idle && isfinite(d->networks[i].idle_w))
            idle[n_idle++] = d->networks[i].idle_w;
        m->pixels_min = !(px >= m->pixels_min) ? px : m->pixels_min;
        m->pixels_max = !(px <= m->pixels_max) ? px : m->pixels_max;
    }
    if (n_idle)
        m->idle_w = pp_layers_median(idle, n_idle, NULL);
    free(idle);
}

/* ---- The whole network: the layers' sum shrunk toward the baseline ---- */

static const double net_weights[] = {0.0, 0.25, 0.5, 0.75, 1.0};

/* FLOPs x one rate over the runs in use, on relative errors. */
static double network_rate(const pp_layers_data *d, const unsigned char *use, pp_layers_quantity q)
{
    double s1 = 0.0, s2 = 0.0;

    for (size_t r = 0; r < d->n_networks; r++) {
        double y = d->networks[r].y[q], x = d->networks[r].flops / y;
        if ((!use || use[r]) && y > 0 && isfinite(x) && x > 0) {
            s1 += x;
            s2 += x * x;
        }
    }
    return s2 > 0 ? s1 / s2 : NAN;
}

static double layers_sum(const pp_layer_model *m, const pp_layers_data *d, size_t r,
                         pp_layers_quantity q)
{
    double sum = 0.0, v, band;

    for (size_t i = 0; i < d->networks[r].n_layers; i++)
        if (pp_layer_model_layer(m, q, &d->samples[d->networks[r].first + i].d, &v, &band) < 0)
            return NAN;
        else
            sum += v;
    return sum;
}

/* Network g left out: the absolute relative errors of every weight over
 * its runs added to err, their count to cnt. */
static int network_fold(const pp_layers_data *d, const unsigned char *use0, const char *g,
                        unsigned char *use, pp_layer_model *sub, double (*err)[5], size_t *cnt)
{
    pp_layer_fit_opts so = {-1, use, 1};
    int rc;

    for (size_t r = 0; r < d->n_networks; r++)
        use[r] = (!use0 || use0[r]) && strcmp(d->networks[r].name, g) != 0;
    if ((rc = pp_layer_model_fit(d, &so, sub)) < 0)
        return rc;
    for (size_t r = 0; r < d->n_networks; r++) {
        if ((use0 && !use0[r]) || strcmp(d->networks[r].name, g) != 0)
            continue;
        for (int q = 0; q < PP_LQ_COUNT; q++) {
            double y = d->networks[r].y[q], l = layers_sum(sub, d, r, (pp_layers_quantity)q);
            double b = network_rate(d, use, (pp_layers_quantity)q) * d->networks[r].flops;
            if (!(y > 0) || !isfinite(l) || !isfinite(b))
                continue;
            for (size_t k = 0; k < PP_ARRAY_SIZE(net_weights); k++)
                err[q][k] += fabs((net_weights[k] * l + (1.0 - net_weights[k]) * b) / y - 1.0);
            cnt[q]++;
        }
    }
    return 0;
}

/* m->net_rate on every run in use; m->net_weight by leave-one-network-out
 * (a weight must beat the lower ones by MARGIN_FRAC; the baseline wins
 * ties); with fewer than PP_LAYERS_MIN_CHOICE_NETS networks there is no
 * choosing: 1, the layers (whose kinds then take their baselines). */
static int choose_network_weight(const pp_layers_data *d, const unsigned char *use0,
                                 const name_list *names, pp_layer_model *m)
{
    double err[PP_LQ_COUNT][5];
    size_t cnt[PP_LQ_COUNT] = {0};
    unsigned char *use = malloc(d->n_networks + 1);
    pp_layer_model *sub = malloc(sizeof *sub);
    int rc = use && sub ? 0 : -ENOMEM;

    memset(err, 0, sizeof err);
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        m->net_rate[q] = network_rate(d, use0, (pp_layers_quantity)q);
        m->net_weight[q] = names->n >= PP_LAYERS_MIN_CHOICE_NETS ? 0.0 : 1.0;
    }
    for (size_t g = 0; g < names->n && rc == 0 && names->n >= PP_LAYERS_MIN_CHOICE_NETS; g++)
        rc = network_fold(d, use0, names->name[g], use, sub, err, cnt);
    for (int q = 0; q < PP_LQ_COUNT && rc == 0 && cnt[q]; q++) {
        size_t best = 0;
        for (size_t k = 1; k < PP_ARRAY_SIZE(net_weights); k++)
            if (err[q][k] < err[q][best] * (1.0 - MARGIN_FRAC))
                best = k;
        m->net_weight[q] = net_weights[best];
    }
    free(use);
    free(sub);
    return rc;
}

/* A fit that failed on the values: name the row to look at. */
static void fit_failed(const kind_set *ks, int rc)
{
    const pp_layers_data *d = ks->d;
    const char *kind = ks->kind == ALL_KINDS ? "every kind (roofline)"
                                             : pp_layer_kind_name((pp_layer_kind)ks->kind);
    const pp_layer_sample *s;

    if (rc == -ENOSYS) {
        pp_log_error("layer model: least squares need LAPACK (liblapacke), which could not be "
                     "loaded (apt-get install liblapacke)");
        return;
    }
    if (rc == -ENOMEM || ks->all.n == 0)
        return;
    s = &d->samples[pp_lfit_extreme(&ks->all)];
    pp_log_error("layer model: the least squares of %s (%s) failed on its values (%s); the row "
                 "farthest from the others is %s:%d (%s, %.6g FLOPs, %.6g bytes, %s %.6g)", kind,
                 pp_layers_quantity_name(ks->q),
                 rc == -EDOM ? "the SVD did not converge" : "they overflow the solver",
                 s->file < d->n_files ? d->files[s->file] : "(no file)", s->line,
                 d->networks[s->net].name, s->d.flops, s->d.in_bytes + s->d.out_bytes,
                 pp_layers_quantity_name(ks->q), s->y[ks->q]);
}

int pp_layer_model_fit(const pp_layers_data *d, const pp_layer_fit_opts *o, pp_layer_model *m)
{
    size_t *scratch = malloc(sizeof *scratch * (2 * d->n_samples + 1));
    double *run_err = malloc(sizeof *run_err * (d->n_networks + 1));
    unsigned char *run_has = malloc(d->n_networks + 1);
    name_list names = {0, NULL};
    kind_set ks = {d, o->use, &names, 0, PP_LQ_CPU, {0}, NULL, run_err, run_has};
    int rc = scratch && run_err && run_has ? list_names(d, o->use, &names) : -ENOMEM;

    memset(m, 0, sizeof *m);
    ks.train = scratch ? scratch + d->n_samples : NULL;
    if (rc == 0 && names.n == 0) {
        pp_log_error("layer model: no profiled network to fit on");
        rc = -EINVAL;
    }
    for (int q = 0; q < PP_LQ_COUNT && rc == 0; q++) {
        ks.q = (pp_layers_quantity)q;
        for (int k = 0; k < PP_LAYER_KINDS && rc == 0; k++) {
            ks.kind = k;
            rc = fit_kind(&ks, o, scratch, &m->fit[q][k]);
        }
        if (rc == 0 && (ks.kind = ALL_KINDS) == ALL_KINDS)
            rc = fit_kind(&ks, o, scratch, &m->roofline[q]);
        if (rc < 0)
            fit_failed(&ks, rc);
        m->net_mape[q] = m->net_rms[q] = NAN;
    }
    if (rc == 0 && m->fit[PP_LQ_CPU][PP_LAYER_CONVOLUTIONAL].family < 0) {
        pp_log_error("layer model: the profiles have no convolutional layer");
        rc = -EINVAL;
    }
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        m->net_weight[q] = 1.0;
        m->net_rate[q] = NAN;
    }
    if (rc == 0 && o->family < 0 && !o->layers_only)
        rc = choose_network_weight(d, o->use, &names, m);
    m->n_networks = names.n;
    model_context(d, o->use, m);
    free(scratch);
    free(run_err);
    free(run_has);
    free(names.name);
    return rc;
}

void pp_layer_fit_describe(const pp_layer_fit *f, char *buf, size_t cap)
{
    const char *name = pp_layer_family_name((pp_layer_family)f->family);

    if (f->thin)
        snprintf(buf, cap, "%s (%zu network%s: too few to choose, the baseline)", name,
                 f->n_networks, f->n_networks == 1 ? "" : "s");
    else if (f->weight < 1.0 && f->family != PP_LF_RATE)
        snprintf(buf, cap, "%s x %.2f + rate x %.2f", name, f->weight, 1.0 - f->weight);
    else
        snprintf(buf, cap, "%s", name);
}
