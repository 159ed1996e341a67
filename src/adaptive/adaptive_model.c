/* adaptive_model.c - the layer-2 model as an adaptive run's predictor
 * (adaptive_model.h). */
#include "adaptive_model.h"

#include "adaptive_claim.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pp_adaptive_planning_metric(const char *name)
{
    size_t len = strlen(name);

    return strcmp(name, "total_energy_j") == 0 || strcmp(name, "total_mean_w") == 0 ||
           (len > 13 && strcmp(name + len - 13, ".achieved_fps") == 0);
}

/* The metrics to model: the planning ones, then duration_s. */
typedef struct wanted {
    char names[PP_ADAPTIVE_MAX_METRICS + 1][PP_ADAPTIVE_NAME_MAX];
    const char *only[PP_ADAPTIVE_MAX_METRICS + 2];
    size_t n_planning;
    int has_cost;
} wanted;

static int wanted_of(const char *dir, wanted *w)
{
    pp_summary sum;
    size_t n = 0;
    int rc = pp_summary_read(dir, &sum);

    memset(w, 0, sizeof *w);
    if (rc < 0)
        return rc;
    _Static_assert(PP_ADAPTIVE_NAME_MAX >= PP_SUMMARY_NAME_MAX, "a metric's name fits");
    for (size_t k = 0; k < sum.n_metrics && n < PP_ADAPTIVE_MAX_METRICS; k++)
        if (pp_adaptive_planning_metric(sum.metrics[k]))
            memcpy(w->names[n++], sum.metrics[k], sizeof sum.metrics[k]);
    w->n_planning = n;
    if (pp_summary_metric(&sum, "duration_s") >= 0) {
        memcpy(w->names[n++], "duration_s", sizeof "duration_s");
        w->has_cost = 1;
    }
    for (size_t i = 0; i < n; i++)
        w->only[i] = w->names[i];
    w->only[n] = NULL;
    pp_summary_free(&sum);
    if (w->n_planning == 0) {
        pp_log_error("%s/summary.csv: no planning metric (total_energy_j, total_mean_w, "
                     "*.achieved_fps) to model", dir);
        return -EINVAL;
    }
    return 0;
}

/* Metric k's nested error, weighted over the groups by their
 * configurations (NAN while a group has none). */
static double error_of(const pp_model *m, int k)
{
    double sum = 0, weight = 0;

    for (size_t g = 0; g < m->n_groups; g++) {
        const pp_model_group *gr = &m->groups[g];
        pp_model_point pt;
        pp_prediction p;
        memcpy(pt.raw, m->sum.x + gr->rows[0] * m->sum.n_params,
               m->sum.n_params * sizeof *pt.raw);
        if (pp_model_predict(m, (size_t)k, &pt, &p) < 0 || isnan(p.honest_mape))
            return NAN;
        sum += p.honest_mape * (double)gr->n_rows;
        weight += (double)gr->n_rows;
    }
    return weight > 0 ? sum / weight : NAN;
}

/* The one-sided 90 % upper bound of the mean of cv's errors over folds
 * (each fold one observation): NAN with fewer than 2 or no spread. */
static double upper_bound(const pp_cv *cv, size_t folds)
{
    if (cv->n == 0 || folds < 2 || isnan(cv->mape) || isnan(cv->mape_sd))
        return NAN;
    return cv->mape + pp_t90(folds - 1) * cv->mape_sd / sqrt((double)folds);
}

/* Metric k's claim: the larger of the one-sided 90 % upper bounds of its
 * nested errors between measured levels (level folds) and at them
 * (leave-one-out, whose held-out edges are extrapolations: a run leaves
 * configurations of both kinds), weighted over the groups like error_of.
 * NAN when a group has neither bound. */
static double error_hi_of(const pp_model *m, int k)
{
    double sum = 0, weight = 0;

    for (size_t g = 0; g < m->n_groups; g++) {
        const pp_model_fit *f = pp_model_fit_of(m, g, (size_t)k);
        double hi;
        if (!f || f->n_values < 2)
            return NAN;
        hi = fmax(upper_bound(&f->choice.between, f->choice.between_folds),
                  upper_bound(&f->choice.honest,
                              f->choice.folds ? f->choice.folds : f->choice.honest.n));
        if (isnan(hi))
            return NAN;
        sum += hi * (double)m->groups[g].n_rows;
        weight += (double)m->groups[g].n_rows;
    }
    return weight > 0 ? sum / weight : NAN;
}

/* Metric k's nested error at measured levels (leave-one-out), weighted
 * like error_of: a model's error where it measured includes the noise,
 * so the noise floor is never above it. NAN when unknown. */
static double at_levels_of(const pp_model *m, int k)
{
    double sum = 0, weight = 0;

    for (size_t g = 0; g < m->n_groups; g++) {
        const pp_model_fit *f = pp_model_fit_of(m, g, (size_t)k);
        if (!f || f->n_values < 2 || isnan(f->choice.honest.mape))
            return NAN;
        sum += f->choice.honest.mape * (double)m->groups[g].n_rows;
        weight += (double)m->groups[g].n_rows;
    }
    return weight > 0 ? sum / weight : NAN;
}

static int refit(void *ctx, const char *dir, pp_adaptive_fit *f)
{
    pp_adaptive_model *am = ctx;
    pp_model_options o;
    wanted w;
    int rc, d;

    memset(f, 0, sizeof *f);
    if ((rc = wanted_of(dir, &w)) < 0)
        return rc;
    if (am->open)
        pp_model_free(&am->m);
    am->open = 0;
    pp_model_options_init(&o);
    o.only = w.only; /* read while the model is built only */
    o.keep_held = 1;  /* the nested hold-outs the claim is made from */
    if ((rc = pp_model_read(dir, &o, 0, &am->m)) < 0)
        return rc;
    am->m.opts.only = NULL;
    am->open = 1;
    am->n_metrics = f->n_metrics = w.n_planning;
    am->has_cost = f->has_cost = w.has_cost;
    for (size_t i = 0; i < w.n_planning + (size_t)w.has_cost; i++)
        am->metric[i] = pp_summary_metric(&am->m.sum, w.names[i]);
    for (size_t i = 0; i < w.n_planning; i++) {
        pp_text(f->metrics[i], sizeof f->metrics[i], "%s", w.names[i]);
        f->error_pct[i] = error_of(&am->m, am->metric[i]);
        f->error_hi_pct[i] = error_hi_of(&am->m, am->metric[i]);
        f->error_left_pct[i] = NAN;
        f->noise_pct[i] = fmin(pp_adaptive_noise_pct(&am->m, (size_t)am->metric[i],
                                                     &f->noise_repeats_pct[i]),
                               at_levels_of(&am->m, am->metric[i])); /* NAN: the other */
    }
    f->n_rows = am->m.sum.n_rows;
    d = pp_summary_metric(&am->m.sum, "duration_s");
    for (size_t r = 0; d >= 0 && r < am->m.sum.n_rows; r++) {
        double v = am->m.sum.y[r * am->m.sum.n_metrics + (size_t)d];
        f->measured_s += isnan(v) ? 0 : v;
    }
    return 0;
}

static int predict(void *ctx, const pp_adaptive_space *s, size_t c, size_t k, double *value,
                   double *lo, double *hi)
{
    pp_adaptive_model *am = ctx;
    const pp_summary *sum = &am->m.sum;
    pp_model_point pt;
    pp_prediction p;
    int rc;

    *value = *lo = *hi = NAN;
    if (!am->open || k > am->n_metrics || (k == am->n_metrics && !am->has_cost) ||
        am->metric[k] < 0)
        return -EINVAL;
    for (size_t j = 0; j < s->n_params; j++) {
        int at = pp_summary_param(sum, s->names[j]);
        double v = s->raw[c * s->n_params + j];
        if (at < 0)
            return -EINVAL;
        if (s->categorical[j])
            v = pp_summary_label(sum, (size_t)at, s->labels[j][(size_t)v]);
        if (v < 0 && s->categorical[j])
            return -ENOENT; /* a label never measured */
        pt.raw[at] = v;
    }
    if ((rc = pp_model_predict(&am->m, (size_t)am->metric[k], &pt, &p)) < 0)
        return rc;
    *value = p.value;
    *lo = p.lo;
    *hi = p.hi;
    return 0;
}

/* The claim: the larger of the refit's bound of the nested errors and the
 * bound of the error estimated on the candidates left (adaptive_claim.h),
 * each the one-sided 90 % bound of an error under its own assumption (the
 * configurations left are like those held out; the error grows with the
 * distance to what was measured as the held-out ones' did), so that it
 * holds where either does; the refit's alone where the second cannot be
 * made. */
static int claim(void *ctx, const pp_adaptive_space *s, const uint8_t *chosen,
                 pp_adaptive_fit *f)
{
    pp_adaptive_model *am = ctx;

    for (size_t i = 0; am->open && i < f->n_metrics; i++) {
        double hi, est;
        int rc = pp_adaptive_claim_estimate(&am->m, (size_t)am->metric[i], s, chosen, &hi, &est);
        if (rc < 0)
            return rc;
        if (!isnan(hi)) {
            f->error_hi_pct[i] = isnan(f->error_hi_pct[i]) ? hi : fmax(f->error_hi_pct[i], hi);
            f->error_left_pct[i] = est;
        }
    }
    return 0;
}

void pp_adaptive_model_predictor(pp_adaptive_model *am, pp_adaptive_predictor *pr)
{
    memset(am, 0, sizeof *am);
    pr->ctx = am;
    pr->refit = refit;
    pr->predict = predict;
    pr->claim = claim;
}

void pp_adaptive_model_free(pp_adaptive_model *am)
{
    if (am->open)
        pp_model_free(&am->m);
    am->open = 0;
}

/* ---- the noise floor of a metric, estimated from the measured rows ---- */

#define CHI2_1_MEDIAN 0.4549      /* the median of a chi-square with 1 degree of freedom */
#define MEAN_ABS_NORMAL 0.7979    /* E|e| / sigma for a normal error: sqrt(2 / pi) */
#define SAME_COORD 1e-9           /* normalized coordinates equal within this */
#define MIN_TERMS 3

/* ln of configuration r's value in group gr (the mean of its rows), NAN
 * when not > 0. */
static double log_value(const pp_model *m, const pp_model_group *gr, size_t r, size_t k)
{
    const pp_summary *s = &m->sum;
    double sum = 0;
    size_t n = 0;

    for (size_t i = gr->member_start[r]; i < gr->member_start[r + 1]; i++) {
        double v = s->y[gr->members[i] * s->n_metrics + k];
        if (!isnan(v)) {
            sum += v;
            n++;
        }
    }
    return n && sum > 0 ? log(sum / (double)n) : NAN;
}

/* The replicates of configuration r: each row's squared deviation from
 * their mean in log units, scaled to the noise variance, into t. */
static size_t replicate_terms(const pp_model *m, const pp_model_group *gr, size_t r, size_t k,
                              double *t)
{
    const pp_summary *s = &m->sum;
    size_t a = gr->member_start[r], b = gr->member_start[r + 1], n = 0;
    double mean = 0;

    for (size_t i = a; i < b; i++) {
        double v = s->y[gr->members[i] * s->n_metrics + k];
        if (!(v > 0))
            return 0;
        mean += log(v);
    }
    if (b - a < 2)
        return 0;
    mean /= (double)(b - a);
    for (size_t i = a; i < b; i++) {
        double e = log(s->y[gr->members[i] * s->n_metrics + k]) - mean;
        t[n++] = e * e * (double)(b - a) / (double)(b - a - 1);
    }
    return n;
}

/* 1 when configurations r and q lie on one line along dimension j. */
static int on_line(const pp_surface *sf, size_t r, size_t q, size_t j)
{
    for (size_t i = 0; i < sf->d; i++)
        if (i != j && fabs(sf->x[r * sf->d + i] - sf->x[q * sf->d + i]) > SAME_COORD)
            return 0;
    return 1;
}

/* Gasser, Sroka and Jennen-Steinmetz (1986): configuration r against the
 * line through its two neighbours along dimension j, the squared
 * pseudo-residual scaled to the noise variance (NAN without both). */
static double line_term(const pp_model_group *gr, const double *ly, size_t r, size_t j)
{
    const pp_surface *sf = &gr->surf;
    size_t lo = gr->n_rows, hi = gr->n_rows;
    double xr = sf->x[r * sf->d + j], wa, wb, e;

    for (size_t q = 0; q < gr->n_rows; q++) {
        double xq = sf->x[q * sf->d + j];
        if (q == r || isnan(ly[q]) || !on_line(sf, r, q, j))
            continue;
        if (xq < xr - SAME_COORD && (lo == gr->n_rows || xq > sf->x[lo * sf->d + j]))
            lo = q;
        if (xq > xr + SAME_COORD && (hi == gr->n_rows || xq < sf->x[hi * sf->d + j]))
            hi = q;
    }
    if (lo == gr->n_rows || hi == gr->n_rows)
        return NAN;
    wa = (sf->x[hi * sf->d + j] - xr) / (sf->x[hi * sf->d + j] - sf->x[lo * sf->d + j]);
    wb = 1 - wa;
    e = ly[r] - wa * ly[lo] - wb * ly[hi];
    return e * e / (1 + wa * wa + wb * wb);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Group gr's terms into t (room for its rows x (dimensions + members)):
 * the replicates' first, counted in *n_rep, then the lines'. */
static size_t group_terms(const pp_model *m, const pp_model_group *gr, size_t k, double *t,
                          size_t *n_rep)
{
    double *ly = malloc((gr->n_rows + 1) * sizeof *ly);
    size_t n = 0;

    if (!ly)
        return 0;
    for (size_t r = 0; r < gr->n_rows; r++)
        ly[r] = log_value(m, gr, r, k);
    for (size_t r = 0; r < gr->n_rows; r++)
        n += replicate_terms(m, gr, r, k, t + n);
    *n_rep += n;
    for (size_t r = 0; r < gr->n_rows; r++) {
        for (size_t j = 0; !isnan(ly[r]) && j < gr->surf.d; j++) {
            double e = line_term(gr, ly, r, j);
            if (!isnan(e))
                t[n++] = e;
        }
    }
    free(ly);
    return n;
}

/* The noise MAPE of the median of t[0 .. n) (sorted here). */
static double mape_of(double *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_double);
    return 100 * MEAN_ABS_NORMAL *
           sqrt((n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2])) / CHI2_1_MEDIAN);
}

double pp_adaptive_noise_pct(const pp_model *m, size_t k, double *repeats_pct)
{
    size_t cap = 0, n = 0, n_rep = 0;
    double *t, *rep, v;

    for (size_t g = 0; g < m->n_groups; g++)
        cap += m->groups[g].n_rows * (m->groups[g].surf.d + 1) +
               m->groups[g].member_start[m->groups[g].n_rows];
    if (!(t = malloc((cap + 1) * sizeof *t)))
        return NAN;
    rep = malloc((cap + 1) * sizeof *rep);
    for (size_t g = 0; rep && g < m->n_groups; g++) {
        size_t at = n, before = n_rep;
        n += group_terms(m, &m->groups[g], k, t + n, &n_rep);
        memcpy(rep + before, t + at, (n_rep - before) * sizeof *rep);
    }
    *repeats_pct = rep && n_rep >= MIN_TERMS ? mape_of(rep, n_rep) : NAN;
    v = rep && n >= MIN_TERMS ? mape_of(t, n) : NAN;
    free(rep);
    free(t);
    return v;
}
