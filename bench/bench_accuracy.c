/* Layer-2 accuracy as a user meets it (issue 20): whole values of a
 * parameter held out (train on the rest, predict them through
 * pp_model_predict, the path of `powprof predict`), for every estimator
 * and auto, on
 *   - the TX2 sets of data/tx2: matrix-exponentiation (25 configurations,
 *     size x exponent), darknet at 4 rates (one parameter);
 *   - the sweeps measured on this machine in data/local/ (each a full grid
 *     with its provenance in data/local/README.md; $POWPROF_LOCAL_DATA
 *     moves the folder), when present; --tuning-sets leaves them out;
 *   - synthetic surfaces of known shape (2 % noise): cubic x linear
 *     additive, a saturation, a step.
 * Splits per numeric parameter with 3 or more values: the inner values of
 * odd rank held out together (for sizes 256..4096: 512 and 2048), then
 * those of even rank (1024). Per split and method: energy, mean power and
 * duration MAPE; the 90 % band's coverage of the held-out values and its
 * mean width (hi - lo) / value. LOO: the nested leave-one-out error that
 * `powprof model` prints ("at measured levels") on the whole set.
 * "alone": auto with energy, power or duration derived alone
 * (pp_model_options.derivation) beside its blend of the three (issue 43:
 * the blend within 5 % of the best single derivation; --honesty pools
 * them per set).
 * Constants (exponent grid -2..3 by 0.5, residual-smoother length scales,
 * thresholds) were set on the TX2 sets and the synthetic surfaces; the
 * data/local sets were not looked at while setting them (reported only).
 * Targets (issue 20): every split energy <= 13 %, power <= 10 %, duration
 * <= 8 %; LOO energy <= 12 %; bands cover 85-95 % pooled, width <= 0.5;
 * never worse than nw (the paper's kernel average) by more than 2 points. */
#include "util.h"

#include "src/layer2/model.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static const char *bin;
static char tmp[256];

/* Run argv; its stdout into a malloc'd string (NULL on failure). */
static char *run(char *const argv[])
{
    int fd[2], st;
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    pid_t pid;
    ssize_t n;

    if (!out || pipe(fd) != 0)
        return NULL;
    if ((pid = fork()) == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    while ((n = read(fd[0], out + len, cap - len - 1)) > 0)
        if ((len += (size_t)n) + 1 == cap && !(out = realloc(out, cap *= 2)))
            return NULL;
    close(fd[0]);
    out[len] = '\0';
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench: %s %s failed\n", argv[0], argv[1]);
        free(out);
        return NULL;
    }
    return out;
}

/* powprof import powprofiler of the matrix sizes in sizes[] into dir. */
static int import_matrix(const char *dir, const int *sizes, size_t n_sizes)
{
    return pp_bench_import_tx2_matrix(bin, dir, sizes, n_sizes);
}

/* The darknet traces, one import each, their rows in one folder. */
static int import_darknet(const char *dir)
{
    return pp_bench_import_tx2_darknet(bin, dir);
}


static const char *const metric_names[] = {"total_energy_j", "total_mean_w", "duration_s"};
enum { N_MET = 3, N_METH = 4, MAX_SPLITS = 64 };
static const char *const meth_names[N_METH] = {"nw", "loclin", "boxcox", "auto"};

typedef struct acc {
    double ape[N_MET];
    size_t n[N_MET], covered, n_band;
    double width;
} acc;

typedef struct method_total {
    double worst[N_MET];
    char worst_split[N_MET][96];
    size_t covered, n_band;
    double width;
    double loo_worst;
    char loo_set[64];
} method_total;

static method_total tot[N_METH];
static double nw_split[MAX_SPLITS][N_MET];
static size_t n_split_seen;
static double worse_than_nw[N_METH];
static char worse_where[N_METH][300];

/* The band widths (hi - lo) / value of the predictions add_predictions
 * makes, kept for their median when `widths` points here (--honesty: an
 * extrapolation's band can be astronomically wide, and one of them sets
 * the mean). */
typedef struct width_list {
    double *v;
    size_t n, cap;
} width_list;

static width_list *widths;
/* --honesty, the same predictions: the factor on the band's half-width
 * (in log space) each held-out value needs to be covered (issue 43: a set
 * covered above 95 % shows whether a narrower band still covers 85 %) */
static width_list *needs;

static void keep(width_list *l, double w)
{
    if (!l)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        double *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = w;
}

/* The factor on the half-widths of a band [lo, hi] around value that
 * covers y, in log space (infinite, never covered, where a value is not
 * positive). */
static double need_of(double y, double value, double lo, double hi)
{
    if (!(y > 0 && value > 0 && lo > 0 && hi > value))
        return INFINITY;
    return y >= value ? log(y / value) / log(hi / value)
           : lo < value ? log(value / y) / log(value / lo)
                        : INFINITY;
}

static int cmp_width(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_width(width_list *l)
{
    if (!l->n)
        return NAN;
    qsort(l->v, l->n, sizeof *l->v, cmp_width);
    return l->n % 2 ? l->v[l->n / 2] : 0.5 * (l->v[l->n / 2 - 1] + l->v[l->n / 2]);
}

/* The least factor on every half-width that still covers 85 % of l's
 * values (sorted here). */
static double factor_for_85(width_list *l)
{
    size_t k = (size_t)ceil(0.85 * (double)l->n);

    if (!l->n)
        return NAN;
    qsort(l->v, l->n, sizeof *l->v, cmp_width);
    return k >= 1 && k <= l->n ? l->v[k - 1] : NAN;
}

/* dir/summary.csv less the rows where out(row) into sub (with run.json). */
static int write_subset(const char *dir, const pp_summary *s, const unsigned char *out, const char *sub)
{
    char path[1200], *text, *line, *next;
    FILE *fp;
    size_t row = 0;

    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(text = pp_read_file(path)))
        return -1;
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", sub);
    if (!(fp = fopen(path, "w"))) {
        free(text);
        return -1;
    }
    for (line = text; *line; line = next) {
        next = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line);
        if (line != text) {
            long id = strtol(line, NULL, 10);
            size_t r = 0;
            while (r < s->n_rows && s->ids[r] != id)
                r++;
            row++;
            if (r < s->n_rows && out[r])
                continue;
        }
        fwrite(line, 1, (size_t)(next - line), fp);
    }
    fclose(fp);
    free(text);
    snprintf(path, sizeof path, "%s/run.json", dir);
    if ((text = pp_read_file(path))) {
        FILE *rj;
        snprintf(path, sizeof path, "%s/run.json", sub);
        if ((rj = fopen(path, "w"))) {
            fputs(text, rj);
            fclose(rj);
        }
        free(text);
    }
    return 0;
}

/* The rows out marks predicted by m, added to a (and the predictions
 * flagged beyond the measured values to *beyond, unless NULL). */
static void add_predictions(const pp_model *m, const pp_summary *s, const unsigned char *out,
                            acc *a, size_t *beyond)
{
    for (size_t r = 0; r < s->n_rows; r++) {
        pp_model_point pt;
        if (!out[r])
            continue;
        memcpy(pt.raw, s->x + r * s->n_params, s->n_params * sizeof *pt.raw);
        for (int k = 0; k < N_MET; k++) {
            int mk = pp_summary_metric(&m->sum, metric_names[k]), sk = pp_summary_metric(s, metric_names[k]);
            double y = sk >= 0 ? s->y[r * s->n_metrics + (size_t)sk] : NAN;
            pp_prediction p;
            if (mk < 0 || isnan(y) || y == 0 || pp_model_predict(m, (size_t)mk, &pt, &p) < 0)
                continue;
            a->ape[k] += fabs(p.value - y) / fabs(y);
            a->n[k]++;
            if (beyond)
                *beyond += (size_t)p.beyond;
            if (!isnan(p.lo)) {
                a->covered += p.lo <= y && y <= p.hi;
                a->width += (p.hi - p.lo) / fabs(p.value);
                keep(widths, (p.hi - p.lo) / fabs(p.value));
                keep(needs, need_of(y, p.value, p.lo, p.hi));
                a->n_band++;
            }
        }
    }
}

/* Model sub with method (derivation: pp_model_options'), predict the
 * rows out marks, add to a (and to *beyond the predictions flagged beyond
 * the measured values, unless NULL). */
static int predict_out(const char *sub, const char *method, int derivation, const pp_summary *s,
                       const unsigned char *out, acc *a, size_t *beyond)
{
    pp_model_options o;
    pp_model m;

    pp_model_options_init(&o);
    o.only = (const char *const[]){"total_energy_j", "total_mean_w", "duration_s", NULL};
    o.derivation = derivation;
    pp_method_parse(method, &o.method);
    if (pp_model_read(sub, &o, 0, &m) < 0)
        return -1;
    add_predictions(&m, s, out, a, beyond);
    pp_model_free(&m);
    return 0;
}

/* The sorted distinct values of numeric parameter k. */
static size_t levels_of(const pp_summary *s, size_t k, double *lv)
{
    size_t n = 0;
    for (size_t r = 0; r < s->n_rows; r++) {
        double v = s->x[r * s->n_params + k];
        size_t i = 0;
        while (i < n && lv[i] != v)
            i++;
        if (i == n)
            lv[n++] = v;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && lv[j - 1] > lv[j]; j--) {
            double t = lv[j];
            lv[j] = lv[j - 1];
            lv[j - 1] = t;
        }
    return n;
}

static double pct(double sum, size_t n) { return n ? 100.0 * sum / (double)n : NAN; }

static void record(size_t mi, const char *split, const acc *a, size_t split_no)
{
    method_total *t = &tot[mi];
    for (int k = 0; k < N_MET; k++) {
        double e = pct(a->ape[k], a->n[k]);
        if (isnan(e))
            continue;
        if (e > t->worst[k]) {
            t->worst[k] = e;
            snprintf(t->worst_split[k], sizeof t->worst_split[k], "%s", split);
        }
        if (split_no < MAX_SPLITS && mi == 0)
            nw_split[split_no][k] = e;
        else if (split_no < MAX_SPLITS && e - nw_split[split_no][k] > worse_than_nw[mi]) {
            worse_than_nw[mi] = e - nw_split[split_no][k];
            snprintf(worse_where[mi], sizeof worse_where[mi], "%s %s", split,
                     metric_names[k]);
        }
    }
    t->covered += a->covered;
    t->n_band += a->n_band;
    t->width += a->width;
}

/* The worst excess of auto's blend over the best single derivation of a
 * split, per metric (issue 43: at most 5 %), and where. */
static double blend_excess[N_MET];
static char blend_excess_where[N_MET][96];

/* auto with each derivation alone on the split's rows (pp_model_options'
 * derivation): their errors, the best single one per metric, and the
 * blend's (a) against it. */
static void derivations_alone(const char *split, const char *sub, const pp_summary *s,
                              const unsigned char *out, const acc *a)
{
    double e[3][N_MET];

    for (int w = 0; w < 3; w++) {
        acc d = {0};
        predict_out(sub, "auto", w, s, out, &d, NULL);
        for (int k = 0; k < N_MET; k++)
            e[w][k] = pct(d.ape[k], d.n[k]);
    }
    printf("  %-40s alone   E/P/T derived:", split);
    for (int k = 0; k < N_MET; k++) {
        double best = fmin(e[0][k], fmin(e[1][k], e[2][k])), blend = pct(a->ape[k], a->n[k]);
        double excess = best > 0 ? 100 * (blend / best - 1) : 0;
        printf(" %s %.1f/%.1f/%.1f %% (auto %+.0f %%)", k == 0 ? "energy" : k == 1 ? "power" : "duration",
               e[0][k], e[1][k], e[2][k], excess);
        if (excess > blend_excess[k]) {
            blend_excess[k] = excess;
            snprintf(blend_excess_where[k], sizeof blend_excess_where[k], "%s", split);
        }
    }
    printf("\n");
}

/* Every split of the set in dir, every method. */
static void bench_set(const char *name, const char *dir)
{
    pp_summary s;
    double lv[256];
    unsigned char *out;

    if (pp_summary_read(dir, &s) < 0) {
        printf("%s: no summary in %s (skipped)\n", name, dir);
        return;
    }
    out = calloc(s.n_rows + 1, 1);
    for (size_t k = 0; out && k < s.n_params; k++) {
        size_t nl;
        if (s.param[k].kind == PP_PARAM_CATEGORICAL || (nl = levels_of(&s, k, lv)) < 3)
            continue;
        for (size_t parity = 1; parity <= 2 && parity + 1 < nl + (parity == 1); parity++) {
            char split[96], sub[600], held[64] = "";
            size_t used = 0;
            for (size_t r = 0; r < s.n_rows; r++) {
                double v = s.x[r * s.n_params + k];
                size_t i = 0;
                while (lv[i] != v)
                    i++;
                out[r] = i > 0 && i + 1 < nl && i % 2 == parity % 2;
            }
            for (size_t i = parity; i + 1 < nl && used + 12 < sizeof held; i += 2)
                used += (size_t)snprintf(held + used, sizeof held - used, "%s%g", used ? "," : "", lv[i]);
            snprintf(split, sizeof split, "%s %s=%s", name, s.params[k], held);
            snprintf(sub, sizeof sub, "%s/%s-%zu-%zu", tmp, name, k, parity);
            if (write_subset(dir, &s, out, sub) < 0)
                continue;
            for (size_t mi = 0; mi < N_METH; mi++) {
                acc a = {0};
                if (predict_out(sub, meth_names[mi], -1, &s, out, &a, NULL) < 0)
                    continue;
                printf("  %-40s %-7s energy %6.1f %%  power %5.1f %%  duration %5.1f %%  band %3zu/%-3zu width %.2f\n",
                       split, meth_names[mi], pct(a.ape[0], a.n[0]), pct(a.ape[1], a.n[1]),
                       pct(a.ape[2], a.n[2]), a.covered, a.n_band, a.n_band ? a.width / (double)a.n_band : NAN);
                record(mi, split, &a, n_split_seen);
                if (mi + 1 == N_METH)
                    derivations_alone(split, sub, &s, out, &a);
            }
            n_split_seen++;
        }
    }
    for (size_t mi = 0; mi < N_METH; mi++) { /* the nested LOO `powprof model` prints */
        pp_model_options o;
        pp_model m;
        double worst = 0;
        pp_model_options_init(&o);
        o.only = (const char *const[]){"total_energy_j", NULL};
        pp_method_parse(meth_names[mi], &o.method);
        if (pp_model_read(dir, &o, 0, &m) < 0)
            continue;
        for (size_t g = 0; g < m.n_groups; g++) {
            const pp_model_fit *f = pp_model_fit_of(&m, g, (size_t)pp_summary_metric(&m.sum, "total_energy_j"));
            if (f && f->n_values >= 2 && f->choice.honest.mape > worst)
                worst = f->choice.honest.mape;
        }
        printf("  %-40s %-7s LOO energy %6.1f %% (nested; worst group)\n", name, meth_names[mi], worst);
        if (worst > tot[mi].loo_worst) {
            tot[mi].loo_worst = worst;
            snprintf(tot[mi].loo_set, sizeof tot[mi].loo_set, "%s", name);
        }
        pp_model_free(&m);
    }
    free(out);
    pp_summary_free(&s);
}

static double noise(unsigned *seed)
{
    double u = 0;
    for (int i = 0; i < 12; i++) {
        *seed = *seed * 1103515245u + 12345u;
        u += (double)(*seed >> 8) / 16777216.0;
    }
    return u - 6.0;
}

/* A synthetic set: a x b grid, energy f(a, b), power g(a, b), duration
 * energy / power, each with 2 % noise. */
static int synthetic(const char *dir, const double *av, size_t na, const double *bv, size_t nb,
                     double (*e)(double, double), double (*p)(double, double))
{
    char path[600];
    FILE *fp;
    unsigned seed = 7;
    int id = 0;

    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(fp = fopen(path, "w")))
        return -1;
    fprintf(fp, "id,a,b,status,duration_s,iterations,total_mean_w,total_energy_j,reason\n");
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            double ee = e(av[i], bv[j]) * (1 + 0.02 * noise(&seed));
            double pp = p(av[i], bv[j]) * (1 + 0.02 * noise(&seed));
            fprintf(fp, "%d,%g,%g,ok,%.6g,1,%.6g,%.6g,\n", id++, av[i], bv[j], ee / pp, pp, ee);
        }
    return fclose(fp);
}

static double cubic_e(double a, double b) { return 2e-7 * a * a * a + 3.0 * b + 5.0; }
static double cubic_p(double a, double b) { return 4.0 + 1e-3 * a - 0.05 * b; }
static double sat_e(double a, double b) { return 50.0 * a / (a + 8.0) * (1.0 + 0.1 * b); }
static double sat_p(double a, double b) { return 2.0 + 6.0 * (1.0 - exp(-a / 10.0)) + 0.0 * b; }
static double step_e(double a, double b) { return (a < 5.5 ? 10.0 : 20.0) + b; }
static double step_p(double a, double b) { return (a < 5.5 ? 3.0 : 6.0) + 0.1 * b; }

/* Timing (issue 20): model (auto, every metric) on a 10 x 10 x 10 grid,
 * and pp_model_predict at 10,000 points not measured. */
static void timing(void)
{
    char dir[400], path[500];
    FILE *fp;
    unsigned seed = 3;
    double t0, t1;
    pp_model m;
    int id = 0;

    snprintf(dir, sizeof dir, "%s/time-1000", tmp);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(fp = fopen(path, "w")))
        return;
    fprintf(fp, "id,a,b,c,status,duration_s,iterations,total_mean_w,total_energy_j,reason\n");
    for (int a = 1; a <= 10; a++)
        for (int b = 1; b <= 10; b++)
            for (int c = 1; c <= 10; c++, id++) {
                double t = (0.01 * a * a * a + b + 0.5 * c) * (1 + 0.02 * noise(&seed));
                double p = (3 + 0.2 * a + 0.1 * c) * (1 + 0.02 * noise(&seed));
                fprintf(fp, "%d,%d,%d,%g,ok,%.6g,1,%.6g,%.6g,\n", id, 100 * a, b, 0.5 * c, t, p, p * t);
            }
    fclose(fp);
    t0 = pp_bench_now_s();
    if (pp_model_read(dir, NULL, 0, &m) < 0)
        return;
    t1 = pp_bench_now_s();
    printf("\nTiming: model (auto, 3 metrics) on 1,000 configurations x 3 parameters: %.2f s "
           "(target <= 2 s)\n", t1 - t0);
    t0 = pp_bench_now_s();
    for (int i = 0, bad = 0; i < 10000; i++) {
        pp_model_point pt = {{150.0 + 0.07 * i, 1.5 + (i % 80) * 0.1, 0.75 + (i % 9) * 0.5}};
        pp_prediction pr;
        if ((pp_model_predict(&m, (size_t)pp_summary_metric(&m.sum, "total_energy_j"), &pt, &pr) < 0 ||
             !(pr.lo > 0 && pr.lo <= pr.value && pr.value <= pr.hi)) && !bad++)
            printf("  predict at (%g, %g, %g): no value with a positive band\n", pt.raw[0], pt.raw[1], pt.raw[2]);
    }
    t1 = pp_bench_now_s();
    printf("  pp_model_predict with its band: %.1f us per configuration over 10,000 "
           "(target: powprof predict <= 10 ms)\n", (t1 - t0) * 1e6 / 10000);
    pp_model_free(&m);
}

/* --honesty (issue 31), auto only: per set, the between-levels error
 * `powprof model` prints against the error measured on interior values
 * held out (the splits above, pooled), the 90 % band's coverage and mean
 * width on them, and the same with the edges held out (the least and the
 * largest value of each numeric parameter, in turn): coverage, and the
 * predictions flagged beyond ten times the measured values. */
typedef struct honest_acc {
    acc in, edge;
    size_t beyond; /* edge predictions flagged beyond the measured values */
    acc alone[3];  /* interior, energy / power / duration derived alone */
} honest_acc;

/* Hold out the rows out marks, model the rest with auto, add to a; the
 * flags beyond to *beyond. */
static void honest_split(const char *dir, const char *sub, const pp_summary *s,
                         const unsigned char *out, acc *a, size_t *beyond, acc *alone)
{
    if (write_subset(dir, s, out, sub) != 0)
        return;
    predict_out(sub, "auto", -1, s, out, a, beyond);
    for (int w = 0; alone && w < 3; w++) {
        width_list *keep_w = widths, *keep_n = needs;
        widths = needs = NULL;
        predict_out(sub, "auto", w, s, out, &alone[w], NULL);
        widths = keep_w;
        needs = keep_n;
    }
}

/* The error `powprof model` prints first for metric k (between measured
 * levels; at them without level folds), pooled over the groups: each
 * group's figure weighted by its held-out pairs, so that it estimates
 * what the interior values held out measure, pooled over every row (the
 * largest group's figure would compare a worst case with a mean). */
static double printed_between(const char *dir, int k)
{
    pp_model_options o;
    pp_model m;
    double sum = 0, n = 0;

    pp_model_options_init(&o);
    o.only = (const char *const[]){"total_energy_j", "total_mean_w", "duration_s", NULL};
    if (pp_model_read(dir, &o, 0, &m) < 0)
        return NAN;
    for (size_t g = 0; g < m.n_groups; g++) {
        const pp_model_fit *f = pp_model_fit_of(&m, g, (size_t)pp_summary_metric(&m.sum,
                                                                                metric_names[k]));
        const pp_cv *c = !f || f->n_values < 2 ? NULL
                         : f->choice.between.n ? &f->choice.between : &f->choice.honest;
        if (c && c->n && !isnan(c->mape)) {
            sum += c->mape * (double)c->n;
            n += (double)c->n;
        }
    }
    pp_model_free(&m);
    return n > 0 ? sum / n : NAN;
}

static void honesty_set(const char *name, const char *dir)
{
    pp_summary s;
    double lv[256];
    unsigned char *out;
    honest_acc h = {0};
    size_t beyond_in = 0;
    width_list w_in = {0}, w_edge = {0}, need_in = {0};

    if (pp_summary_read(dir, &s) < 0)
        return;
    out = calloc(s.n_rows + 1, 1);
    for (size_t k = 0; out && k < s.n_params; k++) {
        size_t nl;
        char sub[600];
        if (s.param[k].kind == PP_PARAM_CATEGORICAL || (nl = levels_of(&s, k, lv)) < 3)
            continue;
        for (size_t split = 0; split < 4; split++) { /* odd, even interior; bottom, top */
            for (size_t r = 0; r < s.n_rows; r++) {
                double v = s.x[r * s.n_params + k];
                size_t i = 0;
                while (lv[i] != v)
                    i++;
                out[r] = split < 2 ? i > 0 && i + 1 < nl && i % 2 == (split + 1) % 2
                                   : i == (split == 2 ? 0 : nl - 1);
            }
            snprintf(sub, sizeof sub, "%s/h-%s-%zu-%zu", tmp, name, k, split);
            widths = split < 2 ? &w_in : &w_edge;
            needs = split < 2 ? &need_in : NULL;
            if (split < 2)
                honest_split(dir, sub, &s, out, &h.in, &beyond_in, h.alone);
            else
                honest_split(dir, sub, &s, out, &h.edge, &h.beyond, NULL);
            widths = NULL;
            needs = NULL;
        }
    }
    printf("  %-22s", name);
    for (int k = 0; k < N_MET; k++) {
        double printed = printed_between(dir, k), measured = pct(h.in.ape[k], h.in.n[k]);
        printf(" %s printed %5.2f / interior %5.2f %% (%+5.1f %%) |",
               k == 0 ? "E" : k == 1 ? "P" : "T", printed, measured,
               100 * (printed / measured - 1));
    }
    printf(" band interior %zu/%zu %.0f %% width %.2g (median %.2g; 85 %% at x%.2g) | edges "
           "%zu/%zu %.0f %% width %.2g (median %.2g), energy %.1f %%, beyond %zu\n", h.in.covered,
           h.in.n_band, pct((double)h.in.covered, h.in.n_band),
           h.in.n_band ? h.in.width / (double)h.in.n_band : NAN, median_width(&w_in),
           factor_for_85(&need_in),
           h.edge.covered, h.edge.n_band, pct((double)h.edge.covered, h.edge.n_band),
           h.edge.n_band ? h.edge.width / (double)h.edge.n_band : NAN, median_width(&w_edge),
           pct(h.edge.ape[0], h.edge.n[0]), h.beyond);
    printf("  %-22s alone, interior (E/P/T derived):", "");
    for (int k = 0; k < N_MET; k++) {
        double e[3], blend = pct(h.in.ape[k], h.in.n[k]);
        for (int w = 0; w < 3; w++)
            e[w] = pct(h.alone[w].ape[k], h.alone[w].n[k]);
        printf(" %s %.2f/%.2f/%.2f %% (blend %+.1f %% of the best)", k == 0 ? "E" : k == 1 ? "P" : "T",
               e[0], e[1], e[2], 100 * (blend / fmin(e[0], fmin(e[1], e[2])) - 1));
    }
    printf("\n");
    free(w_in.v);
    free(w_edge.v);
    free(need_in.v);
    free(out);
    pp_summary_free(&s);
}

static void summary_line(void)
{
    printf("\nPer method, over every split above (worst split; pooled band):\n");
    printf("  %-7s %-9s %-9s %-9s %-10s %-7s %-7s  worst energy split / LOO set / worst vs nw\n",
           "method", "energy", "power", "duration", "LOO energy", "cover", "width");
    for (size_t mi = 0; mi < N_METH; mi++) {
        method_total *t = &tot[mi];
        printf("  %-7s %6.1f %%  %6.1f %%  %6.1f %%  %6.1f %%    %5.1f %% %6.2f   %s / %s / %+.1f points (%s)\n",
               meth_names[mi], t->worst[0], t->worst[1], t->worst[2], t->loo_worst,
               pct((double)t->covered, t->n_band), t->n_band ? t->width / (double)t->n_band : NAN,
               t->worst_split[0], t->loo_set, worse_than_nw[mi], mi ? worse_where[mi] : "-");
    }
    printf("  auto's blend against the best single derivation of a split, worst: energy %+.0f %% (%s), "
           "power %+.0f %% (%s), duration %+.0f %% (%s)\n", blend_excess[0], blend_excess_where[0],
           blend_excess[1], blend_excess_where[1], blend_excess[2], blend_excess_where[2]);
    printf("targets: energy <= 13 %%, power <= 10 %%, duration <= 8 %% on every split; LOO energy "
           "<= 12 %%; band 85-95 %%, width <= 0.5; at most 2 points worse than nw on any split\n");
}

int main(int argc, char **argv)
{
    static const int all[] = {256, 512, 1024, 2048, 4096};
    static const double sizes[] = {100, 200, 300, 400, 500, 600, 700, 800}, sleeps[] = {0, 1, 2, 3, 4, 5};
    static const double rates[] = {1, 2, 4, 8, 16, 32, 64}, bs[] = {1, 2, 3, 4};
    static const double xs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    static const char *const local[] = {"matrix-cpu-size-sleep", "xz-level-lines", "darknet-fps-cfg"};
    char dir[400];

    bin = getenv("POWPROF_BIN") ? getenv("POWPROF_BIN") : "./powprof";
    snprintf(tmp, sizeof tmp, "/tmp/powprof-accuracy.XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    if (argc > 1 && strcmp(argv[1], "--honesty") == 0) {
        static const char *const names[] = {"tx2-matrix", "tx2-darknet", "syn-cubic",
                                            "syn-saturation", "syn-step"};
        printf("Printed between-levels error against interior values held out (auto; E energy, "
               "P power, T duration; the relative difference), 90 %% bands on interior and "
               "edge values held out:\n");
        snprintf(dir, sizeof dir, "%s/tx2-matrix", tmp);
        if (import_matrix(dir, all, 5) == 0)
            honesty_set(names[0], dir);
        snprintf(dir, sizeof dir, "%s/tx2-darknet", tmp);
        if (import_darknet(dir) == 0)
            honesty_set(names[1], dir);
        snprintf(dir, sizeof dir, "%s/syn-cubic", tmp);
        if (synthetic(dir, sizes, 8, sleeps, 6, cubic_e, cubic_p) == 0)
            honesty_set(names[2], dir);
        snprintf(dir, sizeof dir, "%s/syn-saturation", tmp);
        if (synthetic(dir, rates, 7, bs, 4, sat_e, sat_p) == 0)
            honesty_set(names[3], dir);
        snprintf(dir, sizeof dir, "%s/syn-step", tmp);
        if (synthetic(dir, xs, 10, bs, 4, step_e, step_p) == 0)
            honesty_set(names[4], dir);
        for (size_t i = 0; i < 3; i++) {
            const char *base = getenv("POWPROF_LOCAL_DATA") ? getenv("POWPROF_LOCAL_DATA")
                                                             : "data/local";
            snprintf(dir, sizeof dir, "%s/%s", base, local[i]);
            if (access(dir, F_OK) == 0)
                honesty_set(local[i], dir);
        }
        char *rm[] = {"/bin/rm", "-rf", tmp, NULL};
        free(run(rm));
        return 0;
    }
    printf("Whole values held out (trained on the rest, predicted by pp_model_predict):\n");
    snprintf(dir, sizeof dir, "%s/tx2-matrix", tmp);
    if (import_matrix(dir, all, 5) == 0)
        bench_set("tx2-matrix", dir);
    snprintf(dir, sizeof dir, "%s/tx2-darknet", tmp);
    if (import_darknet(dir) == 0)
        bench_set("tx2-darknet", dir);
    snprintf(dir, sizeof dir, "%s/syn-cubic", tmp);
    if (synthetic(dir, sizes, 8, sleeps, 6, cubic_e, cubic_p) == 0)
        bench_set("syn-cubic", dir);
    snprintf(dir, sizeof dir, "%s/syn-saturation", tmp);
    if (synthetic(dir, rates, 7, bs, 4, sat_e, sat_p) == 0)
        bench_set("syn-saturation", dir);
    snprintf(dir, sizeof dir, "%s/syn-step", tmp);
    if (synthetic(dir, xs, 10, bs, 4, step_e, step_p) == 0)
        bench_set("syn-step", dir);
    for (size_t i = 0; i < 3 && !(argc > 1 && strcmp(argv[1], "--tuning-sets") == 0); i++) {
        const char *base = getenv("POWPROF_LOCAL_DATA") ? getenv("POWPROF_LOCAL_DATA") : "data/local";
        snprintf(dir, sizeof dir, "%s/%s", base, local[i]);
        if (access(dir, F_OK) == 0)
            bench_set(local[i], dir);
        else
            printf("%s: not in data/local (skipped)\n", local[i]);
    }
    summary_line();
    timing();
    {
        char *rm[] = {"/bin/rm", "-rf", tmp, NULL};
        free(run(rm));
    }
    return 0;
}
