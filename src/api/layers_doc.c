/* The answers of `powprof layers` (layers_doc.h): profile, model and
 * predict, their text and their JSON. */
#include "layers_doc.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/dnn/swap.h"
#include "src/dnn/layers_choose.h"
#include "src/dnn/layers_data.h"
#include "src/dnn/layers_eval.h"
#include "src/dnn/layers_json.h"
#include "src/dnn/layers_predict.h"
#include "src/results/json_file.h"
#include "src/sweep/sampler.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- layers profile ----------------------------------------------------- */

int pp_layers_sizes_parse(const char *arg, int *w, int *h, int cap)
{
    char buf[512], *tok, *save = NULL;
    int n = 0;

    if (pp_strlcpy(buf, arg, sizeof buf) < 0)
        return -1;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *x = strchr(tok, 'x');
        int64_t a, b;
        if (n < cap && strcmp(tok, "own") == 0) { /* the cfg's own size */
            w[n] = h[n] = 0;
            n++;
            continue;
        }
        if (x)
            *x = '\0';
        if (n == cap || pp_parse_int64(tok, &a) < 0 || pp_parse_int64(x ? x + 1 : tok, &b) < 0 ||
            a < 1 || b < 1 || a > 8192 || b > 8192)
            return -1;
        w[n] = (int)a;
        h[n++] = (int)b;
    }
    return n > 0 ? n : -1;
}

int pp_layers_rate_parse(const char *arg, double *hz)
{
    if (pp_parse_double(arg, hz) < 0)
        return -EINVAL;
    return pp_sampler_check_rate(*hz, "--rate") < 0 ? -ERANGE : 0;
}

static void print_result(const pp_layers_result *r)
{
    const pp_network_desc *d = r->desc;

    printf("%-16s %4dx%-4d %3zu layers %7.3f GFLOPs  whole %8.4f s (iqr %.4f, CPU %.4f s)  "
           "layers' sum %+.2f %% (CPU %+.2f %%)  %7.3f J%s\n",
           d->name, d->width, d->height, d->n, d->flops * 1e-9, r->whole.time_s,
           r->whole.time_iqr_s, r->whole.cpu_s,
           100.0 * (r->layers_sum.time_s / r->whole.time_s - 1),
           100.0 * (r->layers_sum.cpu_s / r->whole.cpu_s - 1), r->whole.energy_j,
           r->estimated ? " (estimated)" : "");
    fflush(stdout);
}

int pp_layers_profile_answer(const pp_layers_run_request *rq, const char *device,
                             const pp_device_options *dev_opts, int n_cfgs, char *const *cfgs,
                             char *why, size_t cap)
{
    char (*paths)[PP_PATH_MAX] = calloc((size_t)n_cfgs, sizeof *paths);
    pp_layers_result *res = NULL;
    pp_device *dev = NULL;
    size_t n = 0;
    int rc;

    why[0] = '\0';
    if (!paths)
        return -ENOMEM;
    if ((rc = pp_layers_check_cfgs(n_cfgs, cfgs, paths)) < 0)
        goto out;
    if (mkdir(rq->out_dir, 0755) < 0 && errno != EEXIST) {
        rc = -errno;
        pp_text(why, cap, "%s: %s", rq->out_dir, strerror(errno));
        goto out;
    }
    if ((rc = pp_device_open_with(device, dev_opts, &dev)) < 0)
        goto out;
    rc = pp_layers_run(rq, n_cfgs, paths, dev, &res, &n);
    for (size_t k = 0; rc == 0 && k < n; k++)
        print_result(&res[k]);
    pp_layers_results_free(res, n);
    pp_device_close(dev);
out:
    free(paths);
    return rc;
}

/* ---- layers model ------------------------------------------------------- */

static void print_fits(const pp_layer_model *m)
{
    printf("leave-one-network-out RMSPE per layer kind (chosen family marked *):\n");
    printf("  %-9s %-14s %7s %4s  %9s %9s %9s %9s %9s\n", "quantity", "kind", "layers", "nets",
           "linear", "step", "terms", "power", "rate");
    for (int q = 0; q < PP_LQ_COUNT; q++)
        for (int k = 0; k <= PP_LAYER_KINDS; k++) {
            const pp_layer_fit *f = k < PP_LAYER_KINDS ? &m->fit[q][k] : &m->roofline[q];
            char why[160];
            if (f->family < 0)
                continue;
            printf("  %-9s %-14s %7zu %4zu ", pp_layers_quantity_name((pp_layers_quantity)q),
                   k < PP_LAYER_KINDS ? pp_layer_kind_name((pp_layer_kind)k) : "(roofline)",
                   f->n_samples, f->n_networks);
            for (int fam = 0; fam < PP_LF_COUNT; fam++) {
                const char *mark = fam == f->family ? "*" : " ";
                if (isfinite(f->loo_rmspe[fam]))
                    printf(" %7.1f%%%s", 100 * f->loo_rmspe[fam], mark);
                else
                    printf(" %8s%s", "-", mark);
            }
            pp_layer_fit_describe(f, why, sizeof why);
            printf("  %s\n", why);
        }
}

static void print_stats_row(const char *name, const pp_layers_eval_stats *s)
{
    printf("  %-10s %8.1f%% %8.1f%% %8.1f%%   %8.1f%% %8.1f%% %8.1f%%\n", name,
           100 * s->layer_rmspe, 100 * s->layer_rmspe_major, 100 * s->layer_rmspe_flops,
           100 * s->net_mape, 100 * s->net_rms, 100 * s->net_max);
}

static void print_eval(const pp_layers_eval *e)
{
    printf("\nnetworks left out (%zu networks, %zu runs): per-layer RMSPE (all layers, layers of "
           ">= 1 %% of their network, layers with FLOPs) and whole-network errors\n",
           e->n_networks, e->n_runs);
    for (int q = 0; q < PP_LQ_COUNT; q++) {
        printf("  %-10s %9s %9s %9s   %9s %9s %9s\n", pp_layers_quantity_name((pp_layers_quantity)q),
               "all", ">=1%", "FLOPs", "MAPE", "RMS", "max");
        print_stats_row("chosen", &e->model[q]);
        for (int f = 0; f < PP_LF_COUNT; f++)
            print_stats_row(pp_layer_family_name((pp_layer_family)f), &e->family[f][q]);
        print_stats_row("FLOPs*rate", &e->baseline[q]);
    }
}

static json_t *stats_json(const pp_layers_eval_stats *s)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:I}", "layer_rmspe", s->layer_rmspe,
                     "layer_rmspe_major", s->layer_rmspe_major, "layer_rmspe_flops",
                     s->layer_rmspe_flops, "net_mape", s->net_mape, "net_rms", s->net_rms,
                     "net_max", s->net_max, "layers", (json_int_t)s->n_layers, "runs",
                     (json_int_t)s->n_runs);
}

json_t *pp_layers_eval_json(const pp_layers_eval *e, const char *path)
{
    json_t *root = json_pack("{s:s,s:I,s:I}", "model", path, "networks",
                             (json_int_t)e->n_networks, "runs", (json_int_t)e->n_runs);
    for (int q = 0; root && q < PP_LQ_COUNT; q++) {
        json_t *o = json_pack("{s:o,s:o}", "chosen", stats_json(&e->model[q]), "baseline",
                              stats_json(&e->baseline[q]));
        for (int f = 0; f < PP_LF_COUNT; f++)
            json_object_set_new(o, pp_layer_family_name((pp_layer_family)f),
                                stats_json(&e->family[f][q]));
        json_object_set_new(root, pp_layers_quantity_name((pp_layers_quantity)q), o);
    }
    return root;
}

/* doc on stdout with flags, then a newline; doc released. */
static void print_json(json_t *doc, size_t flags)
{
    json_dumpf(doc, stdout, flags);
    putchar('\n');
    json_decref(doc);
}

/* Fit, evaluate and write; prints unless json. */
static int build_model(const pp_layers_data *d, const char *out, int json)
{
    pp_layer_model *m = malloc(sizeof *m);
    pp_layer_fit_opts o = {-1, NULL, 0};
    pp_layers_eval e;
    int rc = m ? pp_layer_model_fit(d, &o, m) : -ENOMEM;

    if (rc == 0 && m->n_networks < 2) {
        pp_log_warn("layer model: one network profiled: no leave-one-network-out error, and "
                    "predictions carry no band (profile another network)");
        if ((rc = pp_layer_model_write(m, out)) == 0 && !json)
            print_fits(m);
    } else if (rc == 0 && (rc = pp_layers_evaluate(d, &e)) == 0) {
        for (int q = 0; q < PP_LQ_COUNT; q++) {
            m->net_mape[q] = e.model[q].net_mape;
            m->net_rms[q] = e.model[q].net_rms;
        }
        if ((rc = pp_layer_model_write(m, out)) == 0 && json)
            print_json(pp_layers_eval_json(&e, out), JSON_INDENT(1) | JSON_REAL_PRECISION(6));
        if (rc == 0 && !json) {
            print_fits(m);
            print_eval(&e);
            printf("whole networks: the layers' sum x %.2f + FLOPs x one rate x %.2f (cpu_s; "
                   "chosen leave-one-network-out)\n", m->net_weight[PP_LQ_CPU],
                   1.0 - m->net_weight[PP_LQ_CPU]);
            printf("\nmodel: %s%s\n", out, m->estimated ? " (energies ESTIMATED)" : "");
        }
        pp_layers_eval_free(&e);
    }
    free(m);
    return rc;
}

int pp_layers_model_build(int n, char *const *dirs, const char *out, int json)
{
    pp_layers_data d = {0};
    int rc = 0;

    for (int i = 0; i < n && rc == 0; i++)
        rc = pp_layers_data_read(dirs[i], &d);
    if (rc == 0)
        rc = build_model(&d, out, json);
    pp_layers_data_free(&d);
    return rc;
}

/* ---- layers predict ----------------------------------------------------- */

static json_t *layer_json(const pp_layer_desc *l, const double *v, const double *band)
{
    json_t *o = json_pack("{s:s,s:i,s:[i,i,i],s:[i,i,i],s:f,s:f,s:f,s:f}", "type",
                          pp_layer_kind_name(l->kind), "line", l->line, "input", l->in_w, l->in_h,
                          l->in_c, "output", l->out_w, l->out_h, l->out_c, "flops", l->flops,
                          "cpu_s", v[PP_LQ_CPU], "time_s", v[PP_LQ_WALL], "energy_j",
                          v[PP_LQ_ENERGY]);

    json_object_set_new(o, "cpu_band_s", pp_json_num(band[PP_LQ_CPU]));
    json_object_set_new(o, "energy_band_j", pp_json_num(band[PP_LQ_ENERGY]));
    return o;
}

/* The highest frame rate the battery carries through the mission; *core_fps
 * (may be NULL) the most one core sustains at the cost planned with. */
static int plan(const pp_layers_prediction *p, const pp_layer_model *m,
                const pp_layers_predict_request *a, double *fps, double *soc, double *core_fps)
{
    return pp_layers_prediction_plan(p, m, &a->battery, a->mission_s, a->min_soc, a->risk_mean,
                                     fps, soc, core_fps);
}

static json_t *prediction_json(const pp_network_desc *n, const pp_layers_prediction *p,
                               const pp_layer_model *m, const pp_layers_predict_request *a)
{
    json_t *layers = json_array();
    json_t *o = json_pack("{s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:b}", "network", n->name, "width",
                          n->width, "height", n->height, "flops", n->flops, "cpu_s",
                          p->total[PP_LQ_CPU], "time_s", p->total[PP_LQ_WALL], "energy_j",
                          p->total[PP_LQ_ENERGY], "max_fps", p->max_fps, "estimated",
                          m->estimated);

    for (size_t i = 0; i < n->n; i++)
        json_array_append_new(layers, layer_json(&n->layers[i], p->layer[i], p->layer_band[i]));
    json_object_set_new(o, "cpu_band_s", pp_json_num(p->band[PP_LQ_CPU]));
    json_object_set_new(o, "energy_band_j", pp_json_num(p->band[PP_LQ_ENERGY]));
    json_object_set_new(o, "unprofiled_frac", json_real(p->roofline_frac));
    json_object_set_new(o, "note", json_string(p->note));
    json_object_set_new(o, "outside_profiled_pixels", json_boolean(p->outside_pixels));
    if (a->fps > 0) {
        json_object_set_new(o, "fps", json_real(a->fps));
        json_object_set_new(o, "power_w", pp_json_num(pp_layers_prediction_power_at(p, m, a->fps)));
    }
    if (a->mission_s > 0) {
        double fps, soc;
        int rc = plan(p, m, a, &fps, &soc, NULL);
        json_object_set_new(o, "mission", json_pack("{s:f,s:s,s:o,s:o}", "mission_s",
                                                    a->mission_s, "risk",
                                                    a->risk_mean ? "mean" : "upper", "fps",
                                                    rc >= 0 ? json_real(fps) : json_null(),
                                                    "soc_end_frac", pp_json_num(soc)));
    }
    json_object_set_new(o, "layers", layers);
    return o;
}

static void print_prediction(const pp_network_desc *n, const pp_layers_prediction *p,
                             const pp_layer_model *m, const pp_layers_predict_request *a)
{
    printf("%s %dx%d: %zu layers, %.3f GFLOPs\n", n->name, n->width, n->height, n->n,
           n->flops * 1e-9);
    printf("  %5s %-14s %-16s %-16s %9s %19s %14s\n", "layer", "type", "input", "output",
           "GFLOPs", "CPU time ms", "energy mJ");
    for (size_t i = 0; i < n->n; i++) {
        const pp_layer_desc *l = &n->layers[i];
        char in[32], out[32];
        snprintf(in, sizeof in, "%dx%dx%d", l->in_w, l->in_h, l->in_c);
        snprintf(out, sizeof out, "%dx%dx%d", l->out_w, l->out_h, l->out_c);
        char band[32] = "     ?";
        if (isfinite(p->layer_band[i][PP_LQ_CPU]))
            snprintf(band, sizeof band, "%6.3f", 1e3 * p->layer_band[i][PP_LQ_CPU]);
        printf("  %5zu %-14s %-16s %-16s %9.4f %9.3f +- %s %14.3f\n", i,
               pp_layer_kind_name(l->kind), in, out, l->flops * 1e-9, 1e3 * p->layer[i][PP_LQ_CPU],
               band, 1e3 * p->layer[i][PP_LQ_ENERGY]);
    }
    printf("  total: %.4f s +- %.4f per frame on one core (%.1f fps at most), wall %.4f s here, "
           "%.4f J +- %.4f per frame%s\n", p->total[PP_LQ_CPU], p->band[PP_LQ_CPU], p->max_fps,
           p->total[PP_LQ_WALL], p->total[PP_LQ_ENERGY], p->band[PP_LQ_ENERGY],
           m->estimated ? " (ESTIMATED: the profiles had no power sensor)" : "");
    if (p->n_roofline)
        printf("  note: %zu layers of kinds never profiled (%s), %.1f %% of the time: predicted "
               "from their bytes and FLOPs, band doubled\n", p->n_roofline, p->note,
               100 * p->roofline_frac);
    if (a->fps > 0 && isfinite(pp_layers_prediction_power_at(p, m, a->fps)))
        printf("  at %g fps: %.3f W mean\n", a->fps, pp_layers_prediction_power_at(p, m, a->fps));
    else if (a->fps > 0)
        printf("  at %g fps: %s\n", a->fps, a->fps > p->max_fps ? "more than one core sustains"
                                                              : "unknown (no idle power in "
                                                                "the profiles)");
    if (a->mission_s > 0) {
        double fps, soc, core_fps;
        int rc = plan(p, m, a, &fps, &soc, &core_fps);
        if (rc == 0)
            printf("  mission of %g s, planned on the %s: up to %.2f fps%s, %.1f %% charge "
                   "left\n", a->mission_s,
                   a->risk_mean ? "predicted cost" : "upper end of the cost's band", fps,
                   fps >= core_fps * 0.999 ? " (all one core sustains)" : "", 100 * soc);
        else
            printf("  mission of %g s: %s\n", a->mission_s,
                   rc > 0 ? "the battery does not last it even idle"
                          : "cannot be planned (see the error above)");
    }
}

/* Predict one cfg; its JSON appended to arr, or printed. */
static int predict_one(const pp_layer_model *m, const char *name,
                       const pp_layers_predict_request *a, json_t *arr)
{
    char path[PP_PATH_MAX];
    pp_network_desc *n = malloc(sizeof *n);
    pp_layers_prediction p;
    int rc = n ? pp_layers_resolve_cfg(name, path, sizeof path) : -ENOMEM;

    if (rc == 0 && (rc = pp_layers_describe_file(path, a->width, a->height, n)) == 0 &&
        (rc = pp_layers_predict(m, n, &p)) == 0) {
        double fps, soc;
        json_t *o = NULL;
        if (a->mission_s > 0 && (rc = plan(&p, m, a, &fps, &soc, NULL)) > 0)
            rc = 0; /* not even idle lasts: an answer, printed below */
        if (rc == 0 && a->json &&
            (!(o = prediction_json(n, &p, m, a)) || json_array_append_new(arr, o) < 0)) {
            pp_log_error("%s: its prediction has a value JSON cannot hold", n->name);
            rc = -ERANGE;
        } else if (rc == 0 && !a->json) {
            print_prediction(n, &p, m, a);
        }
        pp_layers_prediction_free(&p);
    }
    free(n);
    return rc;
}

int pp_layers_predict_check(const pp_layers_predict_request *rq, char *why, size_t cap)
{
    why[0] = '\0';
    if ((rq->width > 0) != (rq->height > 0)) {
        pp_text(why, cap, "give --width and --height together");
        return -EINVAL;
    }
    return 0;
}

int pp_layers_predict_print(const char *model_path, int n, char *const *cfgs,
                            const pp_layers_predict_request *a)
{
    pp_layer_model *m = malloc(sizeof *m);
    json_t *arr = json_array();
    int rc = m && arr ? pp_layer_model_read(model_path, m) : -ENOMEM;

    for (int i = 0; i < n && rc == 0; i++)
        rc = predict_one(m, cfgs[i], a, arr);
    if (rc == 0 && a->json)
        print_json(json_incref(arr), JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    json_decref(arr);
    free(m);
    return rc;
}
