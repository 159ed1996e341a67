/* battery fit's uncertainties on synthetic flights with a known truth
 * (issue 41): N flights (default 100) of a 4S 5.0 Ah thevenin pack
 * (Li-ion curve, R0 45 mOhm, an RC pair of 40 s), each drained by the
 * project's own battery model (pp_battery_run, CVODE) from a start of 80
 * to 100 % under a quadcopter's power (ground, take-off, cruise with
 * gusts, loiter, landing) scaled so that the flights go 15 to 85 % deep,
 * logged every 0.5 s with time-correlated noise on the voltage (AR(1),
 * phi 0.95, 10 mV stationary) and 1 % on the current, written as
 * pyulog's ulog2csv CSV without a capacity column, and fitted by
 * `battery fit` (pp_flight_fit_run, defaults: the first half fitted).
 *
 * Figures: of the flights whose capacity is given (not "undetermined",
 * +- within 30 %), the share whose 90 % interval (+- 1.645 sd) covers the
 * truth (target 85-95 %); how many are undetermined; the held-out voltage
 * RMS of the fit against the pack it replaces (the default `battery LOG`
 * pack: never worse is the target), and the median capacity error.
 * Usage: bench_fit_synthetic [N] [DIR] [all | K | SCALE OFFSET [BUMP [KNEE]]]
 * (DIR: a scratch folder, default /tmp). The truth's curve: the Li-ion
 * table by default; "all": the study for each of five truths (the table,
 * and four curves that are no table's, in level, scale and shape:
 * truths[] below), a row each; K: the K-th of them alone; SCALE OFFSET
 * BUMP KNEE: the table scaled about its mean, shifted (V a cell), a bump
 * of BUMP V at 55 % of the charge, KNEE V less at empty (truth_pack).
 */
#include "util.h"

#include "battery/battery.h"
#include "src/flight/flight_fit.h"
#include "src/flight/flight_log.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PP_FIT_UNDETERMINED_REL /* the build before issue 41 */
#define PP_FIT_UNDETERMINED_REL 0.30
#endif

#define DT_S 0.5
#define DURATION_S 1200.0
#define AR_PHI 0.95
#define AR_SD_V 0.010
#define TRUTH_AH 5.0

typedef struct series {
    double *t, *v, *i;
    size_t n, cap;
} series;

static void on_sample(void *ctx, double t, double soc, double v, double i)
{
    series *s = ctx;

    (void)soc;
    if (s->n == s->cap || (s->n && t <= s->t[s->n - 1]))
        return;
    s->t[s->n] = t;
    s->v[s->n] = v;
    s->i[s->n++] = i;
}

static double power_w(double t, double scale_w, uint64_t *s)
{
    double w;

    if (t < 20)
        w = 8;
    else if (t < 40)
        w = 1.6 * scale_w;
    else if (t < 0.7 * DURATION_S)
        w = scale_w * (1.0 + 0.15 * sin(t / 7.0) + 0.05 * pp_bench_gauss(s));
    else if (t < DURATION_S - 30)
        w = scale_w * (0.8 + 0.05 * sin(t / 11.0) + 0.03 * pp_bench_gauss(s));
    else
        w = 0.5 * scale_w;
    return fmax(w, 1);
}

/* The truth's open-circuit curve, per cell: the Li-ion table (resampled
 * every 5 % of the charge) scaled about its mean by scale and shifted by
 * offset_v, plus a bump (bump_v at 55 % of the charge, 12 % wide: a
 * plateau that is no table's) and a knee (knee_v less at empty, fading
 * over 8 % of the charge: a steeper end than any table's). */
typedef struct truth {
    const char *name;
    double scale, offset_v, bump_v, knee_v;
} truth;

static truth g_truth = {"the table", 1, 0, 0, 0};

static void truth_pack(pp_battery_params *p, double soc0)
{
    pp_battery_params table;
    double mean = 0;

    pp_battery_params_default(p);
    p->model = PP_BATTERY_THEVENIN;
    table = *p;
    pp_battery_ocv_curve("liion", &table);
    table.cells = 1;
    p->ocv_n = 21;
    for (size_t k = 0; k < p->ocv_n; k++) {
        p->ocv_soc[k] = 0.05 * (double)k;
        p->ocv_v[k] = pp_battery_ocv_v(&table, p->ocv_soc[k]);
        mean += p->ocv_v[k] / (double)p->ocv_n;
    }
    for (size_t k = 0; k < p->ocv_n; k++) {
        double s = p->ocv_soc[k], d = (s - 0.55) / 0.12;
        p->ocv_v[k] = mean + g_truth.scale * (p->ocv_v[k] - mean) + g_truth.offset_v +
                      g_truth.bump_v * exp(-d * d) - g_truth.knee_v * exp(-s / 0.08);
    }
    p->capacity_ah = TRUTH_AH;
    p->r_int_ohm = 0.045;
    p->r1_ohm = 0.025;
    p->c1_f = 40.0 / p->r1_ohm;
    p->soc_start_frac = soc0;
    p->soc_cutoff_frac = 0;
    p->cutoff_v = 0;
}

/* Flight k written as a CSV at path: 0, or -1. */
static int make_flight(uint64_t seed, const char *path, double *depth)
{
    size_t n = (size_t)(DURATION_S / DT_S) + 1;
    double *t = malloc(n * sizeof *t), *w = malloc(n * sizeof *w), ar = 0;
    series s = {malloc(n * sizeof(double)), malloc(n * sizeof(double)),
                malloc(n * sizeof(double)), 0, n};
    uint64_t g = seed;
    double soc0 = 0.8 + 0.2 * pp_bench_uniform(&g), target = 0.15 + 0.7 * pp_bench_uniform(&g);
    double scale_w = target * TRUTH_AH * 3600 * 14.8 / DURATION_S;
    pp_battery_params p;
    pp_battery_options o;
    pp_battery_result r;
    FILE *fp;
    int rc = -1;

    truth_pack(&p, soc0);
    for (size_t k = 0; k < n; k++) {
        t[k] = (double)k * DT_S;
        w[k] = power_w(t[k], scale_w, &g);
    }
    pp_battery_options_init(&o);
    o.time_to_cutoff = 0;
    o.output = on_sample;
    o.output_ctx = &s;
    if (pp_battery_run(&p, &(pp_battery_load){t, w, n, 0}, &o, &r) == 0 && s.n > 100 &&
        (fp = fopen(path, "w"))) {
        fputs("timestamp,voltage_v,current_a\n", fp);
        for (size_t k = 0; k < s.n; k++) {
            ar = AR_PHI * ar + AR_SD_V * sqrt(1 - AR_PHI * AR_PHI) * pp_bench_gauss(&g);
            fprintf(fp, "%.0f,%.5f,%.5f\n", 1e6 + s.t[k] * 1e6, s.v[k] + ar,
                    s.i[k] * (1 + 0.01 * pp_bench_gauss(&g)));
        }
        rc = fclose(fp) == 0 ? 0 : -1;
        *depth = soc0 - r.soc_end_frac;
    }
    free(t), free(w), free(s.t), free(s.v), free(s.i);
    return rc;
}

/* Whether -o would refuse the pack without --force (the build before
 * issue 41 wrote every pack: 0). */
static int not_written(const pp_flight_fit *r)
{
#ifdef PP_FIT_DECISIVE
    return pp_flight_fit_refusal(r) != NULL;
#elif defined PP_FIT_BLOCKS
    return r->degenerate || r->beats_prior == 0;
#else
    (void)r;
    return 0;
#endif
}

/* What `battery LOG` gives over the held-out part (from split_s on) with no
 * pack asked: the default pack (pp_flight_pack_for). NaN on error. */
static double default_rms(const char *path, double split_s)
{
    pp_ulog_flight f;
    pp_battery_params p;
    pp_flight_check_options co;
    pp_flight_check c;
    double v = NAN;

    if (pp_flight_log_read(path, &f) == 0 && f.n_batteries == 1) {
        pp_flight_pack_for(&f, &f.bat[0], &p);
        pp_flight_check_options_init(&co);
        co.compare_from_s = split_s;
        if (pp_flight_check_with(&f.bat[0], &p, &co, &c) == 0)
            v = c.v_rms;
    }
    pp_ulog_flight_free(&f);
    return v;
}

/* The squared deviations of a check over its held-out part (from from_s). */
typedef struct devs {
    double from_s, *d2;
    size_t n, cap;
} devs;

static void on_dev(void *ctx, double t_s, double soc, double v_model, double v_logged, double i)
{
    devs *d = ctx;

    (void)soc, (void)i;
    if (t_s >= d->from_s - 1e-9 && d->n < d->cap)
        d->d2[d->n++] = (v_model - v_logged) * (v_model - v_logged);
}

/* The held-out RMS of the fit and of the prior over the samples both
 * modelled (a pack run empty is compared no further: a prior that runs
 * empty first is otherwise judged over fewer, earlier samples) into
 * rms[0], rms[1]; the share of the held-out samples that is. */
static double common_rms(const char *path, const pp_flight_fit *r, double *rms)
{
    pp_ulog_flight f;
    pp_flight_check_options co;
    pp_flight_check c;
    devs d[2] = {{0}};
    size_t m;
    double share = NAN;

    rms[0] = rms[1] = NAN;
    if (pp_flight_log_read(path, &f) < 0 || f.n_batteries != 1) {
        pp_ulog_flight_free(&f);
        return NAN;
    }
    for (int k = 0; k < 2; k++) {
        d[k].from_s = r->fl[0].t_s[r->fl[0].n_train];
        d[k].cap = f.bat[0].n;
        d[k].d2 = calloc(d[k].cap, sizeof(double));
        pp_flight_check_options_init(&co);
        co.compare_from_s = d[k].from_s;
        co.soc_start_frac = k == 0 ? r->fl[0].soc_start_frac : NAN;
        co.pack_as_given = k == 0;
        co.sample = on_dev;
        co.sample_ctx = &d[k];
        pp_flight_check_with(&f.bat[0], k == 0 ? &r->fit.pack : &r->prior, &co, &c);
    }
    m = d[0].n < d[1].n ? d[0].n : d[1].n;
    for (int k = 0; k < 2 && m; k++) {
        double s = 0;
        for (size_t j = 0; j < m; j++)
            s += d[k].d2[j];
        rms[k] = sqrt(s / (double)m);
    }
    if (f.bat[0].n > r->fl[0].n_train)
        share = (double)m / (double)(f.bat[0].n - r->fl[0].n_train);
    free(d[0].d2), free(d[1].d2);
    pp_ulog_flight_free(&f);
    return share;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* PP_BENCH_VERBOSE: the fit's parameters and choices, a line. */
static void verbose(const pp_flight_fit *r)
{
#ifdef PP_FIT_DECISIVE
    if (getenv("PP_BENCH_VERBOSE"))
        printf("    start %.3f, R0 %.4f%s, R1 %.4f tau %.1f%s, scale %.3f offset %.3f, "
               "bound %#x, train rms %.4f, val %.4f/%.4f, span %.2f, ahead %.4f/%.4f, "
               "table sd %.3f, shape %.3f +- %.3f Ah%s, other shape %.3f, curves %.4f/%.4f (%s)\n",
               r->fit.soc_start_frac[0], r->fit.pack.r_int_ohm, r->r0_held ? " held" : "",
               r->fit.pack.r1_ohm, r->fit.tau_s, r->rc_held ? " held" : "", r->fit.ocv_scale,
               r->fit.ocv_offset_v, r->fit.at_bound, r->fit.train_rms_v,
               r->validation_fit_rms_v, r->validation_prior_rms_v, r->fit.soc_span_frac,
               r->ahead_fit_rms_v, r->ahead_prior_rms_v, r->table_capacity_sd_ah,
               r->shape_capacity_ah, r->shape_capacity_sd_ah,
               r->curve_kept ? ", table kept" : "", r->other_shape_capacity_ah, r->ocv_kept_rms_v,
               r->ocv_other_rms_v, r->ocv_why ? r->ocv_why : "");
#else
    (void)r;
#endif
}

/* The study's figures over the flights of one truth. */
typedef struct tally {
    int n, given, covered, undetermined, worse, failed, refused, worse_written, worse_default;
    int n_prior, worse_common, worse_common_written;
    double *err, fit_sum, prior_sum, dflt_sum;
} tally;

/* Flight k of the study fitted and counted into t (its line printed). */
static void one_flight(int k, const char *dir, tally *t)
{
    char path[4096];
    const char *paths[1] = {path};
    pp_flight_fit_options o;
    pp_flight_fit r;
    double depth = NAN, cap, sd, dflt, both[2], share;
    int given;

    snprintf(path, sizeof path, "%s/pp-synth-%d-%d.csv", dir, (int)getpid(), k);
    if (make_flight(0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1), path, &depth) < 0) {
        t->failed++;
        return;
    }
    pp_flight_fit_options_init(&o);
    if (pp_flight_fit_run(paths, 1, &o, &r) < 0) {
        t->failed++;
        pp_flight_fit_free(&r);
        unlink(path);
        return;
    }
    cap = r.fit.pack.capacity_ah;
    sd = r.fit.capacity_sd_ah;
    given = r.fit.capacity_fitted && sd <= PP_FIT_UNDETERMINED_REL * cap;
    if (!given) {
        t->undetermined++;
    } else {
        t->covered += fabs(cap - TRUTH_AH) <= 1.645 * sd;
        t->err[t->given++] = fabs(cap / TRUTH_AH - 1);
    }
    t->fit_sum += r.fl[0].fitted.v_rms;
    if (isfinite(r.fl[0].before.v_rms)) /* 'none': a pack that compared nothing */
        t->prior_sum += r.fl[0].before.v_rms, t->n_prior++;
    t->worse += r.fl[0].fitted.v_rms > r.fl[0].before.v_rms;
    dflt = default_rms(path, r.fl[0].t_s[r.fl[0].n_train]);
    t->dflt_sum += dflt;
    t->worse_default += r.fl[0].fitted.v_rms > dflt;
    t->refused += not_written(&r);
    t->worse_written += r.fl[0].fitted.v_rms > r.fl[0].before.v_rms && !not_written(&r);
    share = common_rms(path, &r, both);
    t->worse_common += both[0] > both[1];
    t->worse_common_written += both[0] > both[1] && !not_written(&r);
    printf("flight %3d depth %4.1f %%: capacity %.3f +- %.3f Ah%s, held-out RMS %.4f V "
           "(prior %.4f V; over the samples both model, %.0f %%: %.4f / %.4f V) [%s%s%s%s]\n",
           k + 1, 100 * depth, cap, sd, given ? "" : " (undetermined)", r.fl[0].fitted.v_rms,
           r.fl[0].before.v_rms, 100 * share, both[0], both[1],
           r.ocv_curve, r.curve_held ? " curve held" : "", r.capacity_held ? " cap held" : "",
           not_written(&r) ? ", not written" : "");
    verbose(&r);
    pp_flight_fit_free(&r);
    if (!getenv("PP_BENCH_KEEP")) /* PP_BENCH_KEEP: the flights' CSVs kept in DIR */
        unlink(path);
}

/* The study of n flights of truth g_truth: its summary printed, one row
 * for bench/README.md's table returned in row. */
static void study(int n, const char *dir, char *row, size_t cap)
{
    tally t = {.n = n, .err = calloc((size_t)n + 1, sizeof(double))};
    double med;

    for (int k = 0; k < n; k++)
        if (!getenv("PP_BENCH_ONLY") || atoi(getenv("PP_BENCH_ONLY")) == k + 1)
            one_flight(k, dir, &t); /* PP_BENCH_ONLY=K: flight K alone, to look at */
    qsort(t.err, (size_t)t.given, sizeof *t.err, cmp);
    med = t.given ? 100 * t.err[t.given / 2] : NAN;
    printf("\n%s: %d flights (%d failed): capacity given in %d, its 90 %% interval covers the "
           "truth in %d (%.0f %%); undetermined in %d; median |error| %.1f %%\n", g_truth.name, n,
           t.failed, t.given, t.covered, t.given ? 100.0 * t.covered / t.given : NAN,
           t.undetermined, med);
    printf("held-out voltage RMS, mean: fit %.4f V, the pack it replaces %.4f V (over the %d "
           "where it compared any); the fit worse in %d of %d; not written without --force "
           "(refused by the library) %d; worse and written %d\n", t.fit_sum / (n - t.failed),
           t.prior_sum / t.n_prior, t.n_prior, t.worse, n - t.failed, t.refused, t.worse_written);
    printf("against battery LOG's default pack (%.4f V mean): the fit worse in %d of %d\n",
           t.dflt_sum / (n - t.failed), t.worse_default, n - t.failed);
    printf("over the samples both packs model (neither run empty): the fit worse in %d, "
           "worse and written %d\n", t.worse_common, t.worse_common_written);
    snprintf(row, cap, "| %s | %.0f %% of %d | %d | %.1f %% | %.4f / %.4f V | %d / %d | %d / %d "
             "| %d |", g_truth.name, t.given ? 100.0 * t.covered / t.given : NAN, t.given,
             t.undetermined, med, t.fit_sum / (n - t.failed), t.prior_sum / t.n_prior, t.worse,
             t.worse_written, t.worse_common, t.worse_common_written, t.refused);
    free(t.err);
}

static const truth truths[] = {
    {"the table", 1, 0, 0, 0},
    {"scale 1.05, +0.03 V a cell", 1.05, 0.03, 0, 0},
    {"scale 0.95, -0.03 V a cell", 0.95, -0.03, 0, 0},
    {"a bump, +0.04 V at 55 %", 1, 0, 0.04, 0},
    {"a steeper knee, -0.1 V at empty", 1, 0, 0, 0.10},
};

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    size_t n_truths = sizeof truths / sizeof truths[0], first = 0, last = 1;
    char rows[sizeof truths / sizeof truths[0]][256];

    if (argc > 4) {
        g_truth = (truth){"asked", atof(argv[3]), atof(argv[4]), 0, 0};
        if (argc > 5)
            g_truth.bump_v = atof(argv[5]);
        if (argc > 6)
            g_truth.knee_v = atof(argv[6]);
    } else if (argc > 3 && strcmp(argv[3], "all") == 0) {
        last = n_truths;
    } else if (argc > 3) {
        first = (size_t)atoi(argv[3]) % n_truths, last = first + 1;
    }
    for (size_t k = first; k < last; k++) {
        if (argc <= 4)
            g_truth = truths[k];
        study(n, dir, rows[k], sizeof rows[k]);
    }
    printf("\n| truth's curve | covers / given | undetermined | median error | held-out RMS fit / "
           "prior | worse held out / written so | the same over the samples both model | refused |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (size_t k = first; k < last; k++)
        printf("%s\n", rows[k]);
    return 0;
}
