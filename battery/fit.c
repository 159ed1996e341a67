/* The battery model fitted to recorded flights (fit.h): Levenberg-Marquardt
 * from MINPACK (cminpack), the only file that sees it. */
#include "fit.h"

#include "src/base/log.h"

#include <cminpack.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TAU_LO_S 1.0
#define TAU_HI_S 3000.0
#define SCALE_LO 0.7
#define SCALE_HI 1.3
#define OFFSET_V 0.3
#define SOC_LO 0.02
#define SOC_HI 1.0
#define N_PACK_THEVENIN 6 /* capacity, R0, R1, tau, scale, offset */
#define N_PACK_RINT 2     /* voltage, R0 */
#define N_MAX (N_PACK_THEVENIN + PP_FIT_FLIGHTS_MAX + PP_FIT_N_KNOTS)
#define KNOT_V 0.25 /* a knot's offset in [-KNOT_V, KNOT_V] V a cell */
#define RHO_MAX 0.99 /* the residuals' lag-1 autocorrelation counted up to it */
#define LOG_CAP_LO log(1e-3) /* Ah */
#define LOG_CAP_HI log(1e4)
#define LOG_R_LO log(1e-5)   /* ohm, R0 and R1 */
#define LOG_R_HI log(10.0)

/* A value in (lo, hi) from an unbounded x, its inverse and derivative. */
static double bounded(double x, double lo, double hi) { return lo + (hi - lo) / (1 + exp(-x)); }

static double unbounded(double v, double lo, double hi)
{
    double span = hi - lo, f = (v - lo) / span;

    f = fmin(fmax(f, 1e-6), 1 - 1e-6);
    return log(f / (1 - f));
}

static double bounded_slope(double v, double lo, double hi) { return (v - lo) * (hi - v) / (hi - lo); }

typedef struct problem {
    const pp_battery_params *guess;
    const pp_fit_flight *flights;
    size_t n_flights;
    double ocv_center_v;          /* the table's mean, per cell */
    pp_battery_params pack;       /* the pack at the last x */
    double soc0[PP_FIT_FLIGHTS_MAX];
    double full[N_MAX];           /* every parameter; the held ones stay at their start */
    int free_idx[N_MAX];          /* the fitted ones: MINPACK's x[j] is full[free_idx[j]] */
    size_t n_full, n_free;
    int hold;                     /* PP_FIT_HOLD_*, PP_FIT_FREE_SHAPE */
    size_t m_data;                /* the training residuals; the knots' penalty rows follow */
    double shape_w;               /* a penalty row: its knot's offset x shape_w (the noise
                                     over PP_FIT_SHAPE_SD_V) */
    size_t skip_from, skip_to;    /* per mille of each flight's training samples whose residual
                                     is left out (a block of time; 0, 0: none) */
    double *one_minus_a;          /* 1 - exp(-h/tau) per training sample, for cached_tau_s */
    double cached_tau_s;
} problem;

static int thevenin(const problem *pb) { return pb->guess->model == PP_BATTERY_THEVENIN; }

static int shape_free(const problem *pb) { return thevenin(pb) && (pb->hold & PP_FIT_FREE_SHAPE); }

/* The index in the full vector of knot k (after the pack and the starts). */
static size_t knot_idx(const problem *pb, size_t k) { return N_PACK_THEVENIN + pb->n_flights + k; }

/* The knots' offset at charge soc (linear between knots), V a cell. */
static double knot_offset(const double *knot_v, double soc)
{
    double u = fmin(fmax(soc, 0), 1) * (PP_FIT_N_KNOTS - 1);
    size_t i = (size_t)u < PP_FIT_N_KNOTS - 1 ? (size_t)u : PP_FIT_N_KNOTS - 2;

    return knot_v[i] + (knot_v[i + 1] - knot_v[i]) * (u - (double)i);
}

/* The table p->ocv_v moved by the knots' offsets at x (PP_FIT_FREE_SHAPE)
 * and kept increasing (each point at least 0.1 mV over the one before). */
static void shape_at(const problem *pb, const double *x, pp_battery_params *p)
{
    double knot_v[PP_FIT_N_KNOTS];

    for (size_t k = 0; k < PP_FIT_N_KNOTS; k++)
        knot_v[k] = bounded(x[knot_idx(pb, k)], -KNOT_V, KNOT_V);
    for (size_t i = 0; i < p->ocv_n; i++) {
        p->ocv_v[i] += knot_offset(knot_v, p->ocv_soc[i]);
        if (i > 0 && p->ocv_v[i] < p->ocv_v[i - 1] + 1e-4)
            p->ocv_v[i] = p->ocv_v[i - 1] + 1e-4;
    }
}

static size_t n_pack_params(const problem *pb)
{
    return thevenin(pb) ? N_PACK_THEVENIN : N_PACK_RINT;
}

/* The pack and the starts at the full parameter vector x. */
static void pack_at(problem *pb, const double *x)
{
    pp_battery_params *p = &pb->pack;
    const pp_battery_params *g = pb->guess;
    size_t np = n_pack_params(pb);

    *p = *g;
    if (!thevenin(pb)) {
        p->voltage_v = exp(x[0]);
        p->r_int_ohm = exp(bounded(x[1], LOG_R_LO, LOG_R_HI));
        for (size_t f = 0; f < pb->n_flights; f++)
            pb->soc0[f] = g->soc_start_frac;
        return;
    }
    double tau = exp(bounded(x[3], log(TAU_LO_S), log(TAU_HI_S)));
    double scale = bounded(x[4], SCALE_LO, SCALE_HI), offset = bounded(x[5], -OFFSET_V, OFFSET_V);
    p->capacity_ah = exp(bounded(x[0], LOG_CAP_LO, LOG_CAP_HI));
    p->r_int_ohm = exp(bounded(x[1], LOG_R_LO, LOG_R_HI));
    p->r1_ohm = exp(bounded(x[2], LOG_R_LO, LOG_R_HI));
    p->c1_f = tau / p->r1_ohm;
    for (size_t i = 0; i < g->ocv_n; i++)
        p->ocv_v[i] = pb->ocv_center_v + scale * (g->ocv_v[i] - pb->ocv_center_v) + offset;
    if (shape_free(pb))
        shape_at(pb, x, p);
    for (size_t f = 0; f < pb->n_flights; f++)
        pb->soc0[f] = bounded(x[np + f], SOC_LO, SOC_HI);
}

/* pp_battery_ocv_v for a state of charge that moves little from one
 * sample to the next: the table's segment walked from *seg (kept), not
 * searched (the binary search was a third of a fit's time). */
static double ocv_walk(const pp_battery_params *p, double soc, size_t *seg)
{
    size_t n = p->ocv_n, i = *seg;

    if (p->model != PP_BATTERY_THEVENIN || n < 2 || soc <= p->ocv_soc[0] ||
        soc >= p->ocv_soc[n - 1])
        return pp_battery_ocv_v(p, soc);
    if (i > n - 2)
        i = n - 2;
    while (i > 0 && soc < p->ocv_soc[i])
        i--;
    while (i < n - 2 && soc >= p->ocv_soc[i + 1])
        i++;
    *seg = i;
    return p->cells * (p->ocv_v[i] + (p->ocv_v[i + 1] - p->ocv_v[i]) * (soc - p->ocv_soc[i]) /
                                         (p->ocv_soc[i + 1] - p->ocv_soc[i]));
}

/* The model over flight f's first n samples (as pp_battery_fit_voltage);
 * one_minus_a: 1 - exp(-h/tau) for each interval (k from 1) when not NULL. */
static void simulate(const pp_battery_params *p, double soc_start_frac, const pp_fit_flight *f,
                     size_t n, const double *one_minus_a, double *voltage_v, double *soc_frac)
{
    double q_c = 0, v1_v = 0, q_full_c = p->capacity_ah * 3600.0;
    double tau_s = p->r1_ohm * p->c1_f;
    int rc_pair = p->model == PP_BATTERY_THEVENIN;
    size_t seg = p->ocv_n;

    for (size_t k = 0; k < n; k++) {
        if (k > 0) {
            double h = f->t_s[k] - f->t_s[k - 1], i0 = f->current_a[k - 1], i1 = f->current_a[k];
            q_c += 0.5 * (i0 + i1) * h;
            if (rc_pair) {
                double oma = one_minus_a ? one_minus_a[k] : -expm1(-h / tau_s), a = 1 - oma;
                v1_v = a * v1_v + p->r1_ohm * (i1 - a * i0 - (i1 - i0) * tau_s / h * oma);
            }
        }
        double soc = soc_start_frac - q_c / q_full_c;
        if (voltage_v)
            voltage_v[k] = ocv_walk(p, soc, &seg) - p->r_int_ohm * f->current_a[k] - v1_v;
        if (soc_frac)
            soc_frac[k] = soc;
    }
}

void pp_battery_fit_voltage(const pp_battery_params *p, double soc_start_frac,
                            const pp_fit_flight *f, double *voltage_v, double *soc_frac)
{
    simulate(p, soc_start_frac, f, f->n, NULL, voltage_v, soc_frac);
}

double pp_battery_soc_of_ocv(const pp_battery_params *p, double ocv_v)
{
    double v = ocv_v / p->cells;
    size_t n = p->ocv_n;

    if (p->model != PP_BATTERY_THEVENIN || n < 2)
        return NAN;
    if (v <= p->ocv_v[0])
        return p->ocv_soc[0];
    if (v >= p->ocv_v[n - 1])
        return p->ocv_soc[n - 1];
    for (size_t i = 1; i < n; i++)
        if (v <= p->ocv_v[i]) {
            double dv = p->ocv_v[i] - p->ocv_v[i - 1];
            return dv > 0 ? p->ocv_soc[i - 1] + (p->ocv_soc[i] - p->ocv_soc[i - 1]) *
                                                    (v - p->ocv_v[i - 1]) / dv
                          : p->ocv_soc[i];
        }
    return p->ocv_soc[n - 1];
}

/* MINPACK's function: the training residuals, modelled - logged, V. */
static int residuals(void *ctx, int m, int n, const double *x, double *fvec, int iflag)
{
    problem *pb = ctx;
    size_t j = 0;
    double tau_s;

    (void)iflag;
    (void)m;
    for (int k = 0; k < n; k++)
        pb->full[pb->free_idx[k]] = x[k];
    pack_at(pb, pb->full);
    tau_s = pb->pack.r1_ohm * pb->pack.c1_f;
    for (size_t f = 0, off = 0; f < pb->n_flights; off += pb->flights[f++].n_train)
        for (size_t k = 1; thevenin(pb) && tau_s != pb->cached_tau_s && k < pb->flights[f].n_train; k++)
            pb->one_minus_a[off + k] = -expm1(-(pb->flights[f].t_s[k] - pb->flights[f].t_s[k - 1]) /
                                              tau_s);
    pb->cached_tau_s = tau_s; /* the Jacobian's other columns keep tau: exp once */
    for (size_t f = 0; f < pb->n_flights; f++) {
        const pp_fit_flight *fl = &pb->flights[f];
        size_t lo = fl->n_train * pb->skip_from / 1000, hi = fl->n_train * pb->skip_to / 1000;
        simulate(&pb->pack, pb->soc0[f], fl, fl->n_train, pb->one_minus_a + j, fvec + j, NULL);
        for (size_t k = 0; k < fl->n_train; k++, j++)
            fvec[j] = k >= lo && k < hi ? 0 : fvec[j] - fl->voltage_v[k];
    }
    for (size_t k = 0; shape_free(pb) && k < PP_FIT_N_KNOTS; k++)
        fvec[j + k] = pb->shape_w * bounded(pb->full[knot_idx(pb, k)], -KNOT_V, KNOT_V);
    return 0;
}

/* The charge a flight's training part draws, C. */
static double train_charge_c(const pp_fit_flight *f)
{
    double q = 0;

    for (size_t k = 1; k < f->n_train; k++)
        q += 0.5 * (f->current_a[k] + f->current_a[k - 1]) * (f->t_s[k] - f->t_s[k - 1]);
    return q;
}

/* Starting values: the guess's resistances and tau, each flight's start
 * from its first voltage through the open-circuit curve, the capacity
 * from the charge the training parts draw over the fall of that curve. */
static void initial_x(problem *pb, double *x)
{
    const pp_battery_params *g = pb->guess;
    size_t np = n_pack_params(pb);
    double r0 = g->r_int_ohm > 0 ? g->r_int_ohm : 0.008 * g->cells, cap = g->capacity_ah;
    double cap_sum = 0;
    size_t cap_n = 0;

    if (!thevenin(pb)) {
        double v0 = pb->flights[0].voltage_v[0] + r0 * pb->flights[0].current_a[0];
        x[0] = log(v0 > 0 ? v0 : g->voltage_v);
        x[1] = unbounded(log(r0), LOG_R_LO, LOG_R_HI);
        return;
    }
    x[1] = unbounded(log(r0), LOG_R_LO, LOG_R_HI);
    x[2] = unbounded(log(g->r1_ohm > 0 ? g->r1_ohm : r0 / 2), LOG_R_LO, LOG_R_HI);
    x[3] = unbounded(log(g->r1_ohm > 0 && g->c1_f > 0 ? g->r1_ohm * g->c1_f : 30.0), log(TAU_LO_S),
                     log(TAU_HI_S));
    x[4] = 0;
    x[5] = 0;
    for (size_t f = 0; f < pb->n_flights; f++) {
        const pp_fit_flight *fl = &pb->flights[f];
        size_t e = fl->n_train - 1;
        double s0 = pp_battery_soc_of_ocv(g, fl->voltage_v[0] + r0 * fl->current_a[0]);
        double s1 = pp_battery_soc_of_ocv(g, fl->voltage_v[e] + 1.5 * r0 * fl->current_a[e]);
        s0 = fmin(fmax(s0, 0.05), 0.99);
        x[np + f] = unbounded(s0, SOC_LO, SOC_HI);
        if (s0 - s1 > 0.05) {
            cap_sum += train_charge_c(fl) / 3600.0 / (s0 - s1);
            cap_n++;
        }
    }
    if (cap_n && !(pb->hold & PP_FIT_HOLD_CAPACITY))
        cap = cap_sum / (double)cap_n;
    x[0] = unbounded(log(cap > 0 ? cap : 1.0), LOG_CAP_LO, LOG_CAP_HI);
}

/* The standard deviation of full parameter j from the covariance of the
 * free ones (0 for a held one; NaN for one outside the Jacobian's rank,
 * whose variance MINPACK's covar1 sets to 0: not known to be small, not
 * known at all). */
static double sd_of(const problem *pb, const double *cov, size_t ld, size_t j)
{
    for (size_t k = 0; k < pb->n_free; k++)
        if ((size_t)pb->free_idx[k] == j)
            return cov[k * ld + k] > 0 ? sqrt(cov[k * ld + k]) : NAN;
    return 0;
}

/* Which free parameters ended at a bound: their map's fraction of its range
 * (logistic of x) within 1e-3 of an end, where the map's slope is nil and
 * the covariance says +- 0 for what the data do not determine. rint's
 * voltage (index 0) is unbounded. */
static unsigned at_bound(const problem *pb, const double *x)
{
    unsigned mask = 0;

    for (size_t k = 0; k < pb->n_free; k++) {
        size_t j = (size_t)pb->free_idx[k];
        double frac = 1 / (1 + exp(-x[j]));
        if ((thevenin(pb) || j > 0) && (!shape_free(pb) || j < knot_idx(pb, 0)) &&
            (frac < 1e-3 || frac > 1 - 1e-3))
            mask |= j < N_PACK_THEVENIN ? 1u << j : PP_FIT_P_START << (j - N_PACK_THEVENIN);
    }
    return mask;
}

/* sd, or NaN when the parameter (bit) is at a bound. */
static double unless_bound(const pp_fit_result *r, unsigned bit, double sd)
{
    return r->at_bound & bit ? NAN : sd;
}

/* Standard deviations from the covariance (of the free x) through the maps. */
static void uncertainties(const problem *pb, const double *cov, size_t ld, pp_fit_result *r)
{
    size_t np = n_pack_params(pb);
    const pp_battery_params *p = &r->pack;

    r->at_bound = at_bound(pb, pb->full);
    r->r_int_sd_ohm = unless_bound(r, PP_FIT_P_R0, p->r_int_ohm * sd_of(pb, cov, ld, 1) *
                                   bounded_slope(log(p->r_int_ohm), LOG_R_LO, LOG_R_HI));
    if (!thevenin(pb)) {
        r->voltage_sd_v = p->voltage_v * sd_of(pb, cov, ld, 0);
        return;
    }
    r->capacity_sd_ah = unless_bound(r, PP_FIT_P_CAPACITY, p->capacity_ah * sd_of(pb, cov, ld, 0) *
                                     bounded_slope(log(p->capacity_ah), LOG_CAP_LO, LOG_CAP_HI));
    r->r1_sd_ohm = unless_bound(r, PP_FIT_P_R1, p->r1_ohm * sd_of(pb, cov, ld, 2) *
                                bounded_slope(log(p->r1_ohm), LOG_R_LO, LOG_R_HI));
    r->tau_sd_s = unless_bound(r, PP_FIT_P_TAU, r->tau_s * sd_of(pb, cov, ld, 3) *
                               bounded_slope(log(r->tau_s), log(TAU_LO_S), log(TAU_HI_S)));
    r->ocv_scale_sd = unless_bound(r, PP_FIT_P_SCALE, sd_of(pb, cov, ld, 4) *
                                   bounded_slope(r->ocv_scale, SCALE_LO, SCALE_HI));
    r->ocv_offset_sd_v = unless_bound(r, PP_FIT_P_OFFSET, sd_of(pb, cov, ld, 5) *
                                      bounded_slope(r->ocv_offset_v, -OFFSET_V, OFFSET_V));
    for (size_t f = 0; f < pb->n_flights; f++)
        r->soc_start_sd_frac[f] = unless_bound(r, PP_FIT_P_START << f, sd_of(pb, cov, ld, np + f) *
                                               bounded_slope(pb->soc0[f], SOC_LO, SOC_HI));
    for (size_t k = 0; shape_free(pb) && k < PP_FIT_N_KNOTS; k++)
        r->knot_sd_v[k] = sd_of(pb, cov, ld, knot_idx(pb, k)) *
                          bounded_slope(r->knot_v[k], -KNOT_V, KNOT_V);
}

/* The delete-a-block jackknife's standard deviation of v[0..k). */
static double jackknife_sd(const double *v, size_t k)
{
    double mean = 0, ss = 0;

    for (size_t i = 0; i < k; i++)
        mean += v[i] / (double)k;
    for (size_t i = 0; i < k; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    return sqrt((double)(k - 1) / (double)k * ss);
}

/* The result at the solution x. */
static void fill_result(problem *pb, const double *x, double fsumsq, pp_fit_result *r)
{
    size_t np = n_pack_params(pb);

    pack_at(pb, x);
    r->pack = pb->pack;
    r->pack.soc_start_frac = pb->soc0[0];
    r->train_rms_v = sqrt(fsumsq / r->n_residuals);
    if (thevenin(pb)) {
        r->tau_s = r->pack.r1_ohm * r->pack.c1_f;
        r->ocv_scale = bounded(x[4], SCALE_LO, SCALE_HI);
        r->ocv_offset_v = bounded(x[5], -OFFSET_V, OFFSET_V);
    } else {
        r->ocv_scale = 1;
    }
    r->shape_free = shape_free(pb);
    for (size_t k = 0; r->shape_free && k < PP_FIT_N_KNOTS; k++)
        r->knot_v[k] = bounded(x[knot_idx(pb, k)], -KNOT_V, KNOT_V);
    for (size_t f = 0; f < pb->n_flights; f++) {
        const pp_fit_flight *fl = &pb->flights[f];
        r->soc_start_frac[f] = pb->soc0[f];
        r->soc_end_train_frac[f] = pb->soc0[f] - train_charge_c(fl) / (3600.0 * r->pack.capacity_ah);
        r->soc_span_frac = fmax(r->soc_span_frac, r->soc_start_frac[f] - r->soc_end_train_frac[f]);
    }
    (void)np;
}

static int check_flights(const pp_battery_params *g, const pp_fit_flight *fl, size_t nf,
                         size_t *m)
{
    *m = 0;
    if (nf == 0 || nf > PP_FIT_FLIGHTS_MAX) {
        pp_log_error("battery fit: %zu flights: 1 to %d", nf, PP_FIT_FLIGHTS_MAX);
        return -EINVAL;
    }
    if (g->model == PP_BATTERY_THEVENIN && (g->ocv_n < 2 || g->cells < 1)) {
        pp_log_error("battery fit: the guess has no open-circuit table or no cells");
        return -EINVAL;
    }
    for (size_t f = 0; f < nf; f++) {
        if (fl[f].n_train < 2 || fl[f].n_train > fl[f].n) {
            pp_log_error("battery fit: flight %zu has %zu training samples of %zu: 2 at least",
                         f + 1, fl[f].n_train, fl[f].n);
            return -EINVAL;
        }
        for (size_t k = 0; k < fl[f].n; k++)
            if (!isfinite(fl[f].voltage_v[k]) || !isfinite(fl[f].current_a[k]) ||
                (k && !(fl[f].t_s[k] > fl[f].t_s[k - 1]))) {
                pp_log_error("battery fit: flight %zu, sample %zu: a finite voltage and current "
                             "and a time after the one before expected", f + 1, k + 1);
                return -EINVAL;
            }
        *m += fl[f].n_train;
    }
    return 0;
}

/* The parameters fitted: all, less those held. */
static void choose_free(problem *pb)
{
    pb->n_full = n_pack_params(pb) + (thevenin(pb) ? pb->n_flights : 0) +
                 (shape_free(pb) ? PP_FIT_N_KNOTS : 0);
    pb->n_free = 0;
    for (size_t j = 0; j < pb->n_full; j++)
        if (!thevenin(pb) || !((j == 0 && (pb->hold & PP_FIT_HOLD_CAPACITY)) ||
                               ((j == 4 || j == 5) && (pb->hold & PP_FIT_HOLD_CURVE)) ||
                               ((j == 2 || j == 3) && (pb->hold & PP_FIT_HOLD_RC)) ||
                               (j == 1 && (pb->hold & PP_FIT_HOLD_R0))))
            pb->free_idx[pb->n_free++] = (int)j;
}

/* The sum of the squares of v[0..m) and their lag-1 autocorrelation. */
static double sum_squares(const double *v, size_t m, double *lag1)
{
    double ss = 0, cross = 0;

    for (size_t j = 0; j < m; j++) {
        ss += v[j] * v[j];
        cross += j ? v[j] * v[j - 1] : 0;
    }
    *lag1 = ss > 0 ? cross / ss : 0;
    return ss;
}

/* MINPACK on pb from its start: x (free), fvec (m), fjac (m x n), work. */
static int solve(problem *pb, size_t m, double *work, int *ipvt, double *fsumsq, pp_fit_result *r)
{
    size_t n = pb->n_free;
    double *x = work, *diag = x + n, *qtf = diag + n, *wa = qtf + n, *fvec = wa + 3 * n;
    double *fjac = fvec + m;
    int nfev = 0, rc, block = pb->skip_to > 0; /* a block refit: its spread matters to 1e-5 */

    for (size_t j = 0; j < n; j++)
        x[j] = pb->full[pb->free_idx[j]];
    rc = lmdif(residuals, pb, (int)m, (int)n, x, fvec, block ? 1e-7 : 1e-12, block ? 1e-5 : 1e-10,
               0,
               (pb->hold & PP_FIT_QUICK ? 40 : 100) * ((int)n + 1), 0,
               diag, 1, 100, 0, &nfev, fjac, (int)m, ipvt, qtf, wa, wa + n, wa + 2 * n,
               fjac + m * n);
    r->minpack_info = rc;
    r->n_evaluations = nfev;
    r->n_params = (int)n;
    r->n_residuals = (int)m;
    if (rc <= 0) {
        pp_log_error("battery fit: MINPACK's lmdif failed (info %d)", rc);
        return -EIO;
    }
    if (residuals(pb, (int)m, (int)n, x, fvec, 1) < 0)
        return -ENOMEM;
    r->n_residuals = (int)pb->m_data;
    *fsumsq = sum_squares(fvec, pb->m_data, &r->residual_lag1);
    fill_result(pb, pb->full, *fsumsq, r);
    rc = covar1((int)m, (int)n, shape_free(pb) ? pow(pb->shape_w * PP_FIT_SHAPE_SD_V, 2) * (double)(m - n)
                                               : *fsumsq, fjac, (int)m, ipvt, 1e-10, wa);
    r->rank = rc == 0 ? (int)n : rc;
    uncertainties(pb, fjac, m, r);
    return 0;
}

/* PP_FIT_BLOCKS: the refits with one time block of every flight's training
 * samples left out, from the solution (pb->full), the jackknife's spread
 * of the capacity and R0 into r; pb->full restored. */
static void block_spread(problem *pb, size_t m, double *work, int *ipvt, pp_fit_result *r)
{
    double saved[N_MAX], cap[PP_FIT_N_BLOCKS], r0[PP_FIT_N_BLOCKS], fsumsq;
    pp_fit_result scratch;
    size_t ok = 0;

    memcpy(saved, pb->full, sizeof saved);
    for (size_t b = 0; b < PP_FIT_N_BLOCKS; b++) {
        pb->skip_from = 1000 * b / PP_FIT_N_BLOCKS;
        pb->skip_to = 1000 * (b + 1) / PP_FIT_N_BLOCKS;
        memcpy(pb->full, saved, sizeof saved);
        memset(&scratch, 0, sizeof scratch);
        if (solve(pb, m, work, ipvt, &fsumsq, &scratch) < 0)
            continue;
        cap[ok] = scratch.pack.capacity_ah;
        r0[ok++] = scratch.pack.r_int_ohm;
    }
    pb->skip_from = pb->skip_to = 0;
    memcpy(pb->full, saved, sizeof saved);
    pack_at(pb, pb->full);
    r->n_blocks = (int)ok;
    if (ok < 3)
        return;
    r->block_capacity_sd_ah = jackknife_sd(cap, ok);
    r->block_r_int_sd_ohm = jackknife_sd(r0, ok);
    if (thevenin(pb) && !(pb->hold & PP_FIT_HOLD_CAPACITY) && isfinite(r->capacity_sd_ah))
        r->capacity_sd_ah = fmax(r->capacity_sd_ah, r->block_capacity_sd_ah);
    if (!(pb->hold & PP_FIT_HOLD_R0) && isfinite(r->r_int_sd_ohm))
        r->r_int_sd_ohm = fmax(r->r_int_sd_ohm, r->block_r_int_sd_ohm);
}

/* Starting values of the free parameters from an earlier solution
 * (thevenin); the held ones keep the guess's. */
static void x_from(problem *pb, const pp_fit_result *from, double *full)
{
    const pp_battery_params *p = &from->pack;
    size_t np = n_pack_params(pb);
    double x[N_MAX];

    x[0] = unbounded(log(p->capacity_ah), LOG_CAP_LO, LOG_CAP_HI);
    x[1] = unbounded(log(p->r_int_ohm), LOG_R_LO, LOG_R_HI);
    x[2] = unbounded(log(p->r1_ohm), LOG_R_LO, LOG_R_HI);
    x[3] = unbounded(log(from->tau_s), log(TAU_LO_S), log(TAU_HI_S));
    x[4] = unbounded(from->ocv_scale, SCALE_LO, SCALE_HI);
    x[5] = unbounded(from->ocv_offset_v, -OFFSET_V, OFFSET_V);
    for (size_t f = 0; f < pb->n_flights; f++)
        x[np + f] = unbounded(from->soc_start_frac[f], SOC_LO, SOC_HI);
    for (size_t k = 0; shape_free(pb) && k < PP_FIT_N_KNOTS; k++)
        x[knot_idx(pb, k)] = from->shape_free ? unbounded(from->knot_v[k], -KNOT_V, KNOT_V) : 0;
    for (size_t k = 0; k < pb->n_free; k++)
        full[pb->free_idx[k]] = x[pb->free_idx[k]];
}

/* PP_FIT_FREE_SHAPE: the weight of the knots' penalty rows, the noise of
 * the fit without the shape (from, else made here: its RMS times the
 * square root of its residuals' variance inflation) over
 * PP_FIT_SHAPE_SD_V. */
static int shape_weight(const problem *pb, const pp_fit_result *from, double *w)
{
    pp_fit_result held;
    double rho;
    int rc;

    if (!from || !(from->train_rms_v > 0)) {
        rc = pp_battery_fit_from(pb->guess, pb->flights, pb->n_flights,
                                 pb->hold & ~(PP_FIT_FREE_SHAPE | PP_FIT_BLOCKS), from, &held);
        if (rc < 0)
            return rc;
        from = &held;
    }
    rho = fmin(fmax(from->residual_lag1, 0), RHO_MAX);
    *w = from->train_rms_v * sqrt((1 + rho) / (1 - rho)) / PP_FIT_SHAPE_SD_V;
    return 0;
}

int pp_battery_fit(const pp_battery_params *guess, const pp_fit_flight *flights,
                   size_t n_flights, int hold, pp_fit_result *r)
{
    return pp_battery_fit_from(guess, flights, n_flights, hold, NULL, r);
}

int pp_battery_fit_from(const pp_battery_params *guess, const pp_fit_flight *flights,
                        size_t n_flights, int hold, const pp_fit_result *from,
                        pp_fit_result *r)
{
    problem pb = {.guess = guess, .flights = flights, .n_flights = n_flights,
                  .hold = hold, .cached_tau_s = NAN};
    size_t m, n;
    int rc, *ipvt;
    double *work, fsumsq = 0;

    memset(r, 0, sizeof *r);
    if ((rc = check_flights(guess, flights, n_flights, &m)) < 0)
        return rc;
    choose_free(&pb);
    n = pb.n_free;
    if (m <= n) {
        pp_log_error("battery fit: %zu training samples for %zu parameters: more needed", m, n);
        return -EINVAL;
    }
    for (size_t i = 0; i < guess->ocv_n; i++)
        pb.ocv_center_v += guess->ocv_v[i] / (double)guess->ocv_n;
    pb.m_data = m;
    if (shape_free(&pb)) {
        if ((rc = shape_weight(&pb, from, &pb.shape_w)) < 0)
            return rc;
        m += PP_FIT_N_KNOTS;
    }
    work = malloc((n * 6 + m * 3 + m * n) * sizeof *work);
    ipvt = malloc(n * sizeof *ipvt);
    if (work && ipvt) {
        pb.one_minus_a = work + n * 6 + m * 2 + m * n;
        initial_x(&pb, pb.full);
        if (from && thevenin(&pb) && from->pack.model == PP_BATTERY_THEVENIN)
            x_from(&pb, from, pb.full);
        rc = solve(&pb, m, work, ipvt, &fsumsq, r);
        if (rc == 0 && (hold & PP_FIT_BLOCKS))
            block_spread(&pb, m, work, ipvt, r);
    } else {
        rc = -ENOMEM;
    }
    r->capacity_fitted = thevenin(&pb) && !(pb.hold & PP_FIT_HOLD_CAPACITY);
    free(work);
    free(ipvt);
    return rc;
}
