/* The pack fitted to flight logs and checked on their held-out parts
 * (flight_fit.h). */
#include "flight_fit.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "flight_fit_parts.h"
#include "flight_log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PINNED_REL_SD 0.05
#define HOLD_SPAN_FRAC 0.10
#define OCV_SWITCH_FRAC 0.9 /* another curve kept only when it fits 10 % closer */
#define HOLD_REL_SD 0.25
#define VALIDATION_FRAC 0.2 /* the last fifth of each training part: choices made there */
#define AHEAD_FRAC 0.5     /* the write decision: fitted on the first half, run over the rest */
#define KEEP_TABLE_FRAC 0.9 /* a fitted scale and offset kept only when 10 % closer */
#define LOAD_STEP_V 0.05    /* a current range x R0 below it: no load step */

void pp_flight_fit_options_init(pp_flight_fit_options *o)
{
    memset(o, 0, sizeof *o);
    o->model = PP_BATTERY_THEVENIN;
    o->train_frac = 0.5;
    o->instance = -1;
    o->ocv = "auto";
    pp_battery_params_default(&o->start);
}

void pp_flight_fit_free(pp_flight_fit *r)
{
    for (size_t f = 0; f < PP_FIT_FLIGHTS_MAX; f++)
        free(r->fl[f].t_s);
    memset(r, 0, sizeof *r);
}

/* The battery of log f to fit: the instance asked, or the first. */
static const pp_ulog_battery *battery_of(const pp_ulog_flight *f, const char *path, int instance)
{
    for (size_t b = 0; b < f->n_batteries; b++)
        if (instance < 0 || f->bat[b].instance == instance)
            return &f->bat[b];
    if (f->n_batteries == 0)
        pp_log_error("%s: %s", path, f->battery_defined
                                         ? "no battery_status sample with a measured voltage and "
                                           "current: nothing to fit"
                                         : "the log has no battery_status topic: nothing to fit");
    else
        pp_log_error("%s: no battery instance %d (the log has %d%s)", path, instance,
                     f->bat[0].instance, f->n_batteries > 1 ? " and others" : "");
    return NULL;
}

/* Flight fl's samples from battery b, split at the training part. */
static int take(const pp_ulog_battery *b, const pp_flight_fit_options *o, pp_flight_fit_flight *fl)
{
    size_t n = b->n;

    if (n < 3) {
        pp_log_error("%s: battery %d has %zu samples: 3 at least to fit", fl->path, b->instance, n);
        return -EINVAL;
    }
    if (!(fl->t_s = malloc(4 * n * sizeof *fl->t_s)))
        return -ENOMEM;
    fl->voltage_v = fl->t_s + n;
    fl->current_a = fl->voltage_v + n;
    fl->model_v = fl->current_a + n;
    fl->n = n;
    fl->instance = b->instance;
    for (size_t k = 0; k < n; k++) {
        fl->t_s[k] = b->t_s[k] - b->t_s[0];
        fl->voltage_v[k] = b->voltage_v[k];
        fl->current_a[k] = b->current_a[k];
    }
    fl->duration_s = fl->t_s[n - 1];
    double q = 0;
    for (size_t k = 1; k < n; k++)
        q += 0.5 * (fl->current_a[k] + fl->current_a[k - 1]) * (fl->t_s[k] - fl->t_s[k - 1]);
    if (!(q > 0)) {
        pp_log_error("%s: battery %d: the logged current draws %.3g mAh over the flight: a "
                     "discharge is positive (a current sensor counting the other way, or a pack "
                     "charging, is not a flight to fit)", fl->path, b->instance, q / 3.6);
        return -EINVAL;
    }
    fl->split_s = o->train_s > 0 ? o->train_s : o->train_frac * fl->duration_s;
    fl->n_train = 0;
    while (fl->n_train < n && fl->t_s[fl->n_train] <= fl->split_s + 1e-9)
        fl->n_train++;
    if (fl->n_train < 3) {
        pp_log_error("%s: the training part (%.1f s) holds %zu samples: 3 at least", fl->path,
                     fl->split_s, fl->n_train);
        return -EINVAL;
    }
    fl->soc_log_frac = b->remaining[0] > 0 && b->remaining[0] <= 1 ? b->remaining[0] : NAN;
    return 0;
}

/* p scaled to cells (the same time constant). */
static void to_cells(pp_battery_params *p, int cells)
{
    double k = (double)cells / p->cells;

    p->voltage_v *= k, p->r_int_ohm *= k, p->r1_ohm *= k, p->c1_f /= k, p->cutoff_v *= k;
    p->cells = cells;
}

/* The pack the fit replaces (its prior, and what it is compared with): the
 * one asked (-c, --preset) as given, else the one `battery LOG` uses (the
 * thevenin preset with the log's own battery parameters, flight.h), scaled
 * to the cells. The fit starts from it, in o's model. */
static void prior_pack(const pp_ulog_flight *f, const pp_ulog_battery *b,
                       const pp_flight_fit_options *o, int cells, pp_battery_params *g,
                       pp_flight_fit *r)
{
    const pp_ulog_battery_params *bp = b->instance >= 0 && b->instance < PP_ULOG_MAX_BATTERIES
                                           ? &f->params[b->instance] : NULL;

    r->capacity_source = "the pack it replaces";
    r->prior_asked = o->start_given && !o->capacity_unstated;
    if (o->start_given) {
        *g = o->start;
    } else {
        pp_flight_pack_for(f, b, g);
        r->capacity_from_log = b->capacity_mah > 0 || (bp && bp->any && bp->capacity_mah > 0);
        r->capacity_source = b->capacity_mah > 0 ? "the log's capacity"
                             : r->capacity_from_log ? "the log's BAT_CAPACITY"
                                                    : r->capacity_source;
    }
    if (g->cells != cells)
        to_cells(g, cells);
    r->prior = *g;
    g->model = o->model;
}

/* The cells: o's, the log's, or from the highest voltage (pp_flight_cells). */
static int cells_of(const pp_ulog_flight *f, const pp_ulog_battery *b,
                    const pp_flight_fit_options *o, pp_flight_fit *r)
{
    return pp_flight_cells(f, b, o->cells, 0, &r->cells_source, r->cells_note,
                           sizeof r->cells_note);
}

/* The fitted pack against flight i's held-out part: the fit's equations
 * and the CVODE check, beside the pack it replaces. */
static int check_flight(const pp_ulog_battery *b, pp_flight_fit *r, size_t i)
{
    pp_flight_fit_flight *fl = &r->fl[i];
    pp_fit_flight ff = {fl->t_s, fl->voltage_v, fl->current_a, fl->n, fl->n_train};
    pp_flight_check_options co;
    double sum2 = 0;
    size_t m = 0;
    int rc;

    fl->soc_start_frac = r->fit.soc_start_frac[i];
    fl->soc_start_sd_frac = r->fit.soc_start_sd_frac[i];
    fl->soc_end_train_frac = r->fit.soc_end_train_frac[i];
    pp_battery_fit_voltage(&r->fit.pack, fl->soc_start_frac, &ff, fl->model_v, NULL);
    fl->held_max_dev_v = 0;
    for (size_t k = fl->n_train; k < fl->n; k++, m++) {
        double d = fl->model_v[k] - fl->voltage_v[k];
        sum2 += d * d;
        if (fabs(d) > fabs(fl->held_max_dev_v))
            fl->held_max_dev_v = d;
    }
    fl->held_rms_v = m ? sqrt(sum2 / (double)m) : NAN;
    pp_flight_check_options_init(&co);
    co.compare_from_s = fl->n_train < fl->n ? fl->t_s[fl->n_train] : 0;
    co.soc_start_frac = fl->soc_start_frac;
    co.pack_as_given = 1;
    if ((rc = pp_flight_check_with(b, &r->fit.pack, &co, &fl->fitted)) < 0)
        return rc;
    co.soc_start_frac = NAN;
    return pp_flight_check_with(b, &r->prior, &co, &fl->before);
}

static int check_options(const pp_flight_fit_options *o, size_t n_paths)
{
    if (n_paths == 0 || n_paths > PP_FIT_FLIGHTS_MAX) {
        pp_log_error("battery fit: %zu logs: 1 to %d", n_paths, PP_FIT_FLIGHTS_MAX);
        return -EINVAL;
    }
    if (!(o->train_frac > 0 && o->train_frac <= 1) || !(o->train_s >= 0 && o->train_s <= 1e8)) {
        pp_log_error("battery fit: the training part (fraction %g, seconds %g) must be a "
                     "fraction in (0, 1] or seconds in (0, 1e8]", o->train_frac, o->train_s);
        return -EINVAL;
    }
    if (o->instance < -1 || o->instance > 255 || o->cells < 0 || o->cells > 1000) {
        pp_log_error("battery fit: instance %d (0 to 255) or cells %d (1 to 1000) out of range",
                     o->instance, o->cells);
        return -EINVAL;
    }
    if (o->ocv && strcmp(o->ocv, "auto") != 0 && strcmp(o->ocv, "pack") != 0 &&
        pp_battery_ocv_curve(o->ocv, &(pp_battery_params){0}) < 0) {
        pp_log_error("battery fit: ocv %s: auto, pack, lipo or liion", o->ocv);
        return -EINVAL;
    }
    return 0;
}

/* Whether flights a and b hold the same samples (a log given twice, or a
 * .ulg and its ulog2csv CSV): the same count, times, voltages and currents
 * to a float's precision. */
static int same_flight(const pp_flight_fit_flight *a, const pp_flight_fit_flight *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t k = 0; k < a->n; k++)
        if (fabs(a->t_s[k] - b->t_s[k]) > 1e-6 ||
            fabs(a->voltage_v[k] - b->voltage_v[k]) > 1e-6 * fabs(a->voltage_v[k]) ||
            fabs(a->current_a[k] - b->current_a[k]) > 1e-6 * fabs(a->current_a[k]) + 1e-9)
            return 0;
    return 1;
}

/* Read log i into logs[i] and r->fl[i]; the cells of the first log. A
 * flight given twice is refused: fitted as two, it would shrink every +-
 * by 1/sqrt(2) and weigh that flight double. */
static int read_one(const char *path, const pp_flight_fit_options *o, pp_ulog_flight *log,
                    const pp_ulog_battery **bat, pp_flight_fit *r, size_t i, int *cells)
{
    pp_flight_fit_flight *fl = &r->fl[i];
    int rc, c;

    if (pp_path_copy(fl->path, path, sizeof fl->path) < 0)
        return -ENAMETOOLONG;
    if ((rc = pp_flight_log_read_max(path, log, PP_FIT_SAMPLES_MAX / 2)) < 0)
        return rc; /* a day-long log in bounded memory: binned as it is read */
    pp_flight_log_left_out(log, fl->left_out, sizeof fl->left_out);
    if (!(*bat = battery_of(log, path, o->instance)))
        return -EINVAL;
    fl->n_logged = (*bat)->n_logged;
    pp_ulog_charge_mah(*bat, &fl->charge_current_mah, &fl->charge_logged_mah);
    fl->bin = (*bat)->bin > 1 ? (*bat)->bin : 1;
    if ((rc = take(*bat, o, fl)) < 0)
        return rc;
    for (size_t j = 0; j < i; j++)
        if (same_flight(&r->fl[j], fl)) {
            pp_log_error("%s: the same flight as %s (%zu samples alike, battery %d): give each "
                         "flight once (a .ulg and its ulog2csv CSV are one flight)", path,
                         r->fl[j].path, fl->n, fl->instance);
            return -EINVAL;
        }
    if ((c = cells_of(log, *bat, o, r)) < 0) {
        pp_log_error("%s: the cells asked (--cells %d) do not fit the logged voltage", path,
                     o->cells);
        return -EINVAL;
    }
    if (i == 0)
        *cells = c;
    else if (c != *cells && o->cells <= 0) {
        pp_log_error("%s: %d cells (%s) where the first log has %d: flights of one pack "
                     "expected (--cells N to say)", path, c, r->cells_source, *cells);
        return -EINVAL;
    }
    return 0;
}

/* Whether the capacity is determined: the fitted parts cover HOLD_SPAN_FRAC
 * of the charge, the capacity known to HOLD_REL_SD, the Jacobian of full rank. */
static int determined(const pp_fit_result *f)
{
    return f->soc_span_frac >= HOLD_SPAN_FRAC && f->rank == f->n_params &&
           f->capacity_sd_ah <= HOLD_REL_SD * f->pack.capacity_ah;
}

/* The fit of everything (alt: another curve, abandoned, 1, when that fit
 * does not converge); when the flights cannot determine the capacity,
 * again with the curve's scale and offset held (the capacity and starts
 * then from its slope and level); when still not and the log gives a
 * capacity, with it held too (a preset's is never held: it may be ten
 * times off; the capacity then stays fitted, said undetermined); and the RC pair held when it is
 * undetermined or at a bound of its time constant. */
static int cascade(const pp_battery_params *guess, const pp_fit_flight *ff, size_t n, int hold0,
                   pp_flight_fit *r)
{
    int rc, hold = PP_FIT_HOLD_CURVE | hold0;

    memset(&r->fit, 0, sizeof r->fit);
    r->curve_held = r->capacity_held = 0;
    r->rc_held = (hold0 & PP_FIT_HOLD_RC) != 0;
    r->fit_hold = hold0;
    rc = pp_battery_fit(guess, ff, n, hold0, &r->fit);
    if (rc < 0 || guess->model != PP_BATTERY_THEVENIN || determined(&r->fit))
        return rc;
    r->first_capacity_ah = r->fit.pack.capacity_ah;
    r->first_capacity_sd_ah = r->fit.capacity_sd_ah;
    r->first_span_frac = r->fit.soc_span_frac;
    r->curve_held = 1;
    r->fit_hold = hold;
    if ((rc = pp_battery_fit(guess, ff, n, hold, &r->fit)) < 0)
        return rc;
    if (!determined(&r->fit)) { /* the prior's: the log's, -c's, else the preset's */
        r->capacity_held = 1;
        r->fit_hold = hold |= PP_FIT_HOLD_CAPACITY;
        if ((rc = pp_battery_fit(guess, ff, n, hold, &r->fit)) < 0)
            return rc;
    }
    if (r->rc_held || (r->fit.rank == r->fit.n_params && r->fit.tau_s > 1.02 * 1.0 &&
                       r->fit.tau_s < 0.98 * 3000.0))
        return 0;
    r->rc_held = 1; /* the RC pair at a bound, or undetermined: the pack's */
    r->fit_hold = hold | PP_FIT_HOLD_RC;
    return pp_battery_fit(guess, ff, n, r->fit_hold, &r->fit);
}

/* Whether the fitted parts hold a load step: the current's range there
 * times the prior's R0 at least LOAD_STEP_V (else idle or hover: nothing
 * tells the resistances from the curve). The range into r. */
static int load_step(const pp_fit_flight *ff, size_t n, const pp_battery_params *prior,
                     pp_flight_fit *r)
{
    r->train_i_lo_a = INFINITY;
    r->train_i_hi_a = -INFINITY;
    for (size_t f = 0; f < n; f++)
        for (size_t k = 0; k < ff[f].n_train; k++) {
            r->train_i_lo_a = fmin(r->train_i_lo_a, ff[f].current_a[k]);
            r->train_i_hi_a = fmax(r->train_i_hi_a, ff[f].current_a[k]);
        }
    return (r->train_i_hi_a - r->train_i_lo_a) * prior->r_int_ohm >= LOAD_STEP_V;
}

/* The capacity's +- widened to what the data cannot tell apart: the
 * capacity fitted on the first four fifths of the training parts (a
 * sub-window: the scale of the curve and the capacity trade against each
 * other over a part of the charge); the capacity and its +- with the
 * curve's shape free too (fit.h's PP_FIT_FREE_SHAPE: the table's own
 * error, which the fit on a table leaves out, carried by its prior); and
 * with the curve held, the capacity the other curve gives (other, NULL:
 * none): the table's own shape is not known to be this pack's. */
static void widen(const pp_battery_params *other,
                  const pp_fit_flight *ff, size_t n, pp_flight_fit *r)
{
    pp_fit_result *alt;
    double cap = r->fit.pack.capacity_ah, *sd = &r->fit.capacity_sd_ah;

    r->other_curve_capacity_ah = NAN;
    if (!r->fit.capacity_fitted || !isfinite(*sd))
        return;
    if (isfinite(r->window_capacity_ah))
        *sd = fmax(*sd, fabs(r->window_capacity_ah - cap));
    if (!r->curve_held || !other || !(alt = malloc(sizeof *alt)))
        return;
    if (pp_battery_fit(other, ff, n, r->fit_hold, alt) == 0 && alt->capacity_fitted &&
        isfinite(alt->pack.capacity_ah)) {
        r->other_curve_capacity_ah = alt->pack.capacity_ah;
        *sd = fmax(*sd, fabs(alt->pack.capacity_ah - cap));
    }
    free(alt);
}

/* The capacity's +- widened by the curve's own error, which a fit on a
 * table leaves out: the fit again with the curve's shape free too (fit.h,
 * PP_FIT_FREE_SHAPE, its prior carrying what the flights do not cover);
 * the +- at least its +- and its distance from the capacity reported.
 * Only the +- (and so "undetermined"): the capacity stays the table's fit
 * (a shape moved where the flights cover it and held where they do not
 * extrapolates no better to the part not flown). */
static int shape_widen(const pp_battery_params *g, const pp_battery_params *other,
                       const pp_fit_flight *ff, size_t n, pp_flight_fit *r)
{
    pp_fit_result *alt;
    double cap = r->fit.pack.capacity_ah, *sd = &r->fit.capacity_sd_ah;
    int rc, hold = (r->fit_hold & ~PP_FIT_BLOCKS) | PP_FIT_FREE_SHAPE; /* its scale and offset
                                                    as the fit had them: free if fitted */

    r->shape_capacity_ah = r->shape_capacity_sd_ah = NAN;
    r->table_capacity_sd_ah = *sd;
    if (!r->fit.capacity_fitted || !isfinite(*sd))
        return 0;
    if (!(alt = malloc(sizeof *alt)))
        return -ENOMEM;
    rc = pp_battery_fit_from(g, ff, n, hold, &r->fit, alt);
    if (rc == 0 && alt->capacity_fitted && isfinite(alt->capacity_sd_ah)) {
        r->shape_capacity_ah = alt->pack.capacity_ah;
        r->shape_capacity_sd_ah = alt->capacity_sd_ah;
        *sd = fmax(*sd, fmax(alt->capacity_sd_ah, fabs(alt->pack.capacity_ah - cap)));
    }
    r->other_shape_capacity_ah = NAN;
    if (rc == 0 && other && r->curves_apart == 0 &&
        (rc = pp_battery_fit(other, ff, n, hold, alt)) == 0 && alt->capacity_fitted) {
        r->other_shape_capacity_ah = alt->pack.capacity_ah; /* the curves not told apart */
        *sd = fmax(*sd, fabs(alt->pack.capacity_ah - cap));
    }
    free(alt);
    return rc;
}

/* The fit reported again with its spread over time blocks (fit.h,
 * PP_FIT_BLOCKS); a capacity that spread leaves undetermined (+- over
 * PP_FIT_UNDETERMINED_REL) held at the prior's, with the prior's curve
 * (prior_curve: the curve asked, or the pack's under auto). */
static int spread(const pp_battery_params *g, const pp_battery_params *other,
                  const pp_battery_params *prior_curve, const char *prior_name,
                  const pp_fit_flight *ff, size_t n, pp_flight_fit *r)
{
    pp_fit_result *prev;
    int rc;

    if (g->model != PP_BATTERY_THEVENIN)
        return 0;
    if (!(prev = malloc(sizeof *prev)))
        return -ENOMEM;
    *prev = r->fit;
    rc = pp_battery_fit_from(g, ff, n, r->fit_hold | PP_FIT_BLOCKS, prev, &r->fit);
    free(prev);
    if (rc < 0)
        return rc;
    widen(other, ff, n, r);
    if (!r->fit.capacity_fitted ||
        r->fit.capacity_sd_ah <= PP_FIT_UNDETERMINED_REL * r->fit.pack.capacity_ah)
        return shape_widen(g, other, ff, n, r);
    if (!r->curve_held) {
        r->first_capacity_ah = r->fit.pack.capacity_ah;
        r->first_capacity_sd_ah = r->fit.capacity_sd_ah;
        r->first_span_frac = r->fit.soc_span_frac;
    }
    r->curve_held = r->capacity_held = 1;
    r->fit_hold |= PP_FIT_HOLD_CURVE | PP_FIT_HOLD_CAPACITY;
    r->ocv_curve = prior_name; /* the prior's capacity goes with the prior's curve */
    return pp_battery_fit(prior_curve, ff, n, r->fit_hold | PP_FIT_BLOCKS, &r->fit);
}

/* The fit kept, judged as far ahead of its data as the held-out part is
 * (the validation part, a fifth, is too near: a wrong curve or capacity
 * drifts off later): the same curve and holds fitted on the first half of
 * each training part and run over the second, beside the prior there;
 * decisive where its RMS there is under PP_FIT_DECISIVE of the prior's. */
static int ahead(const pp_battery_params *g, const pp_fit_flight *ff, size_t n, pp_flight_fit *r)
{
    pp_fit_flight c[PP_FIT_FLIGHTS_MAX];
    pp_fit_result *t;
    int rc;

    r->decisive = -1;
    r->ahead_fit_rms_v = r->ahead_prior_rms_v = NAN;
    if (!pp_fit_cut(ff, n, AHEAD_FRAC, c))
        return 0;
    if (!(t = malloc(sizeof *t)))
        return -ENOMEM;
    rc = pp_battery_fit(g, c, n, r->fit_hold & ~PP_FIT_BLOCKS, t);
    if (rc == 0) {
        r->ahead_fit_rms_v = pp_fit_validation_rms(&t->pack, t->soc_start_frac, ff, c, n);
        r->ahead_prior_rms_v = pp_fit_prior_validation_rms(&r->prior, ff, c, n);
        r->decisive = r->ahead_fit_rms_v < PP_FIT_DECISIVE * r->ahead_prior_rms_v;
    }
    free(t);
    return rc;
}

/* Whether the table's own scale and offset do as well ahead as the fitted
 * ones: the fit of g on the cut flights c (its holds in r) again with the
 * curve held, judged on the validation part; kept (*kept 1, its RMS and
 * capacity into *rms and *window) unless the fitted curve comes
 * KEEP_TABLE_FRAC closer there. A curve fitted over part of the charge
 * trades its level against each start and the capacity (a start too low
 * and a curve too high fit the part seen alike and part ways after it). */
static int keep_table(const pp_battery_params *g, const pp_fit_flight *ff,
                      const pp_fit_flight *c, size_t n, const pp_flight_fit *r, double *rms,
                      double *window, int *kept, double *free_capacity_ah)
{
    pp_fit_result *t = malloc(sizeof *t);
    double v;
    int rc;

    *free_capacity_ah = r->fit.capacity_fitted ? r->fit.pack.capacity_ah : NAN;
    if (!t)
        return -ENOMEM;
    rc = pp_battery_fit(g, c, n, r->fit_hold | PP_FIT_HOLD_CURVE, t);
    if (rc == 0 && !pp_fit_degenerate(t, n) &&
        (v = pp_fit_validation_rms(&t->pack, t->soc_start_frac, ff, c, n)) * KEEP_TABLE_FRAC <= *rms) {
        *rms = v;
        *window = t->capacity_fitted ? t->pack.capacity_ah : NAN;
        *kept = 1;
    }
    free(t);
    return rc;
}

/* How much closer another curve must come to replace the prior's: any
 * closer where the flights fit the curve; with the curve held, twice as
 * close over at least HOLD_SPAN_FRAC of the charge (the shape then shows);
 * over less, never (0: the curve's level at one charge tells no shape). */
static double shape_margin(const pp_flight_fit *r)
{
    if (!r->curve_held)
        return 1;
    return r->fit.soc_span_frac >= HOLD_SPAN_FRAC ? 0.5 : 0;
}

/* The curves to try (o->ocv; auto: the pack's and Li-ion's) into g and
 * names: how many. */
static size_t curves(const pp_battery_params *guess, const pp_flight_fit_options *o,
                     pp_battery_params *g, const char **names)
{
    g[0] = g[1] = *guess;
    names[0] = "the pack's", names[1] = "liion";
    if (!o->ocv || strcmp(o->ocv, "pack") == 0)
        return 1;
    if (strcmp(o->ocv, "auto") != 0) {
        names[0] = o->ocv;
        pp_battery_ocv_curve(o->ocv, &g[0]);
        return 1;
    }
    return guess->model == PP_BATTERY_THEVENIN && pp_battery_ocv_curve("liion", &g[1]) == 0 ? 2
                                                                                             : 1;
}

/* The fit with each curve asked, the choice made on data the fit did not
 * see: each candidate fitted on the first part of each training part and
 * judged on the rest (forward validation, as a flight unfolds; the
 * held-out part stays unseen), every candidate run to MINPACK's full
 * budget (none lost to a limit); the chosen one fitted again on the whole
 * training part. Without a validation part (too few samples), the lower
 * training RMS, another curve only when 10 % lower. Another curve is
 * taken where the flights do not determine it (held) unless the prior's
 * curve leaves the fit degenerate (it cannot reach the logged voltage):
 * else the prior's stays. The prior's RMS on the
 * same validation part says whether the fit beats it. */
/* Why the curve kept (best of two) was kept, in words. */
static const char *kept_why(const double *rms, const int *deg, size_t best)
{
    int other_deg = deg[1 - best] && !deg[best];

    if (!(rms[best] > rms[1 - best]))
        return other_deg ? "the lower RMS (and the other's fit ran a parameter to a bound)"
                         : "the lower RMS";
    if (other_deg)
        return "the other's fit ran a parameter to a bound";
    if (deg[best])
        return "both fits ran a parameter to a bound: the pack's curve stays";
    return "the pack's curve stays unless another comes decisively closer where the flights "
           "show the curve's shape";
}

static int fit(const pp_battery_params *guess, const pp_flight_fit_options *o,
               const pp_fit_flight *ff, size_t n, pp_flight_fit *r)
{
    const char *names[2];
    pp_battery_params g[2];
    pp_fit_flight c[PP_FIT_FLIGHTS_MAX];
    size_t n_try = curves(guess, o, g, names), best = 0;
    int validate = pp_fit_cut(ff, n, VALIDATION_FRAC, c), rc = 0;
    int hold0 = load_step(ff, n, &r->prior, r) ? 0 : PP_FIT_HOLD_R0 | PP_FIT_HOLD_RC;
    double rms[2] = {NAN, NAN}, window[2] = {NAN, NAN};
    int deg[2] = {0, 0}, kept[2] = {0, 0};
    double free_cap[2] = {NAN, NAN};

    r->r0_held = hold0 != 0;
    r->validated = validate;
    for (size_t k = 0; k < n_try && rc == 0; k++) {
        double margin;
        if ((rc = cascade(&g[k], validate ? c : ff, n, hold0, r)) < 0)
            break;
        rms[k] = validate ? pp_fit_validation_rms(&r->fit.pack, r->fit.soc_start_frac, ff, c, n)
                          : r->fit.train_rms_v;
        window[k] = validate && r->fit.capacity_fitted ? r->fit.pack.capacity_ah : NAN;
        deg[k] = pp_fit_degenerate(&r->fit, n);
        margin = (validate ? 1 : OCV_SWITCH_FRAC) * shape_margin(r);
        if (validate && !r->curve_held && !deg[k] && (rc = keep_table(&g[k], ff, c, n, r, &rms[k],
                                                                     &window[k], &kept[k], &free_cap[k])) < 0)
            break;
        if (k > 0 && ((deg[best] && !deg[k]) || (deg[best] == deg[k] && rms[k] < rms[best] * margin)))
            best = k; /* another curve where the flights determine it, or tell it apart
                         decisively, or where the prior's cannot follow them: else the prior's */
    }
    if (rc < 0)
        return rc;
    r->ocv_curve = names[best];
    r->ocv_other_rms_v = n_try > 1 ? rms[1 - best] : NAN;
    r->ocv_kept_rms_v = rms[best];
    r->ocv_why = n_try > 1 ? kept_why(rms, deg, best) : NULL;
    r->curves_apart = n_try < 2 || !validate ? -1
                      : (deg[1 - best] && !deg[best]) || rms[1 - best] >= 2 * rms[best];
    r->curve_beaten = n_try > 1 && validate && deg[1 - best] && !deg[best] &&
                      rms[1 - best] < 0.5 * rms[best];
    r->validation_fit_rms_v = validate ? rms[best] : NAN;
    r->validation_prior_rms_v = validate ? pp_fit_prior_validation_rms(&r->prior, ff, c, n) : NAN;
    r->beats_prior = !validate ? -1 : r->validation_fit_rms_v < r->validation_prior_rms_v;
    if ((rc = cascade(&g[best], ff, n, hold0 | (kept[best] ? PP_FIT_HOLD_CURVE : 0), r)) < 0)
        return rc;
    r->curve_kept = kept[best];
    r->free_curve_capacity_ah = kept[best] ? free_cap[best] : NAN;
    r->window_capacity_ah = window[best];
    if ((rc = spread(&g[best], n_try > 1 ? &g[1 - best] : NULL, &g[0], names[0], ff, n, r)) < 0)
        return rc;
    return ahead(r->ocv_curve == names[0] ? &g[0] : &g[best], ff, n, r);
}

/* The log's own count of the charge (discharged_mah) beside the fit's, the
 * logged current integrated: their ratio over the flights that have it. */
static void charge_check(pp_flight_fit *r)
{
    double logged = 0, current = 0;

    for (size_t i = 0; i < r->n_flights; i++)
        if (isfinite(r->fl[i].charge_logged_mah) && r->fl[i].charge_logged_mah > 0) {
            logged += r->fl[i].charge_logged_mah;
            current += r->fl[i].charge_current_mah;
        }
    r->charge_ratio = logged > 0 && current > 0 ? logged / current : NAN;
    r->charge_disagrees = fabs(r->charge_ratio - 1) > PP_FIT_CHARGE_GAP; /* NaN: 0 */
}

static void pinned(pp_flight_fit *r)
{
    charge_check(r);
    r->degenerate = pp_fit_degenerate(&r->fit, r->n_flights);
    r->ocv_span_v = pp_battery_ocv_v(&r->fit.pack, 1) - pp_battery_ocv_v(&r->fit.pack, 0);
    r->off_log = !(r->fit.train_rms_v <= r->ocv_span_v); /* NaN too */
    r->capacity_rel_sd = r->fit.capacity_fitted ? r->fit.capacity_sd_ah / r->fit.pack.capacity_ah
                         : r->capacity_held ? r->first_capacity_sd_ah / r->first_capacity_ah
                                            : NAN;
    r->capacity_undetermined = r->fit.capacity_fitted &&
                               ((r->curve_held && !determined(&r->fit)) ||
                                !(r->capacity_rel_sd <= PP_FIT_UNDETERMINED_REL));
    r->capacity_pinned = r->fit.capacity_fitted && r->fit.soc_span_frac >= PP_FIT_PINNED_SPAN_FRAC &&
                         r->capacity_rel_sd <= PINNED_REL_SD;
    r->capacity_guessed = !r->capacity_from_log && !r->prior_asked &&
                          (r->capacity_held || r->capacity_undetermined);
}

int pp_flight_fit_run(const char *const *paths, size_t n_paths, const pp_flight_fit_options *o,
                      pp_flight_fit *r)
{
    pp_ulog_flight *logs = NULL;
    const pp_ulog_battery *bat[PP_FIT_FLIGHTS_MAX];
    pp_fit_flight ff[PP_FIT_FLIGHTS_MAX];
    pp_battery_params guess;
    int rc, cells = 0;

    memset(r, 0, sizeof *r);
    if ((rc = check_options(o, n_paths)) < 0)
        return rc;
    if (!(logs = calloc(n_paths, sizeof *logs)))
        return -ENOMEM;
    for (size_t i = 0; i < n_paths && rc == 0; i++) {
        rc = read_one(paths[i], o, &logs[i], &bat[i], r, i, &cells);
        r->n_flights = i + 1;
    }
    if (rc == 0) {
        prior_pack(&logs[0], bat[0], o, cells, &guess, r);
        for (size_t i = 0; i < n_paths; i++) {
            pp_flight_fit_flight *fl = &r->fl[i];
            ff[i] = (pp_fit_flight){fl->t_s, fl->voltage_v, fl->current_a, fl->n, fl->n_train};
            r->held_out |= fl->n_train < fl->n;
        }
        rc = fit(&guess, o, ff, n_paths, r);
        if (rc == 0 && r->fit.pack.model == PP_BATTERY_THEVENIN) /* for rint, if chosen later */
            r->fit.pack.voltage_v = pp_battery_ocv_v(&r->fit.pack, 0.5);
    }
    for (size_t i = 0; i < n_paths && rc == 0; i++)
        rc = check_flight(bat[i], r, i);
    if (rc == 0)
        pinned(r);
    for (size_t i = 0; i < n_paths; i++)
        pp_ulog_flight_free(&logs[i]);
    free(logs);
    return rc;
}

const char *pp_flight_fit_refusal(const pp_flight_fit *r)
{
    if (r->off_log)
        return "the model does not follow the log (its RMS exceeds the pack's whole "
               "open-circuit span)";
    if (r->degenerate)
        return "the fit is degenerate (a parameter at a bound of its range)";
    if (r->beats_prior == 0)
        return "the fit does not beat the pack it replaces on the validation part";
    if (r->decisive == 0)
        return "the fit is not decisively better than the pack it replaces as far ahead as "
               "the part held out (fitted on the first half of each fitted part, its RMS "
               "over the second half is not under half the pack's)";
    if (r->curves_apart == 0)
        return "the flights do not tell the open-circuit curves apart (the other's RMS on the "
               "validation part is not twice the kept one's), and the charge not flown follows "
               "either";
    if (r->capacity_guessed)
        return "the flights do not determine the capacity (held at the preset's, or its 90 % "
               "interval over +-30 %) and nothing else gives it (no capacity in the log, no pack "
               "given by -c or --preset): the pack written would run on a guess, its starts and "
               "resistances fitted to suit it; give the capacity (-c FILE with capacity_ah, or a "
               "log with BAT1_CAPACITY) or fly to below 40 %";
    if (r->curve_beaten)
        return "the other open-circuit curve follows the validation part in under half the "
               "kept one's RMS (its fit ran a parameter to a bound, so it is not kept): the "
               "kept curve's shape is not this pack's; keep the pack it replaces, or fly "
               "deeper";
    return NULL;
}
