/* flight.c - a recorded flight against the battery model (flight.h): the
 * pack a flight is compared with by default, and the comparison. */
#include "flight.h"
#include "ulog_trace.h"

#include "battery/fit.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct compare {
    const pp_ulog_battery *b;
    const pp_flight_check_options *o;
    double t0, sum2, max_dev, max_t, last_v, sum, sum_logged;
    size_t i, n;
    double from_s, soc_from, soc_last; /* the compared part: from_s on */
} compare;

/* The model's voltage at an output time: against the logged sample there. */
static void on_output(void *ctx, double t_s, double soc, double v, double i)
{
    compare *c = ctx;
    const pp_ulog_battery *b = c->b;

    (void)i;
    while (c->i < b->n && b->t_s[c->i] - c->t0 < t_s - 1e-9)
        c->i++;
    if (c->i >= b->n || fabs(b->t_s[c->i] - c->t0 - t_s) > 1e-9)
        return;
    c->soc_last = soc;
    if (c->o->sample)
        c->o->sample(c->o->sample_ctx, t_s, soc, v, b->voltage_v[c->i], b->current_a[c->i]);
    if (t_s < c->from_s - 1e-9) {
        c->i++;
        return;
    }
    if (c->n == 0)
        c->soc_from = soc;
    double dev = v - b->voltage_v[c->i];
    c->sum2 += dev * dev;
    c->sum += dev;
    c->sum_logged += b->voltage_v[c->i];
    c->n++;
    if (fabs(dev) > fabs(c->max_dev)) {
        c->max_dev = dev;
        c->max_t = t_s;
    }
    c->last_v = v;
    c->i++;
}

/* The start of the flight: o's, from the first voltage (thevenin), the
 * log's remaining, or p's. */
static void start_of(const pp_ulog_battery *b, const pp_flight_check_options *o,
                     pp_flight_check *c)
{
    pp_battery_params *p = &c->pack;
    double s = pp_battery_soc_of_ocv(p, b->voltage_v[0] + p->r_int_ohm * b->current_a[0]);

    c->soc_log_frac = b->remaining[0] > 0 && b->remaining[0] <= 1 ? b->remaining[0] : NAN;
    if (isfinite(o->soc_start_frac)) {
        p->soc_start_frac = o->soc_start_frac;
    } else if (p->model == PP_BATTERY_THEVENIN && isfinite(s)) {
        p->soc_start_frac = fmin(fmax(s, 1e-3), 1);
        c->soc_from_voltage = 1;
    } else if (isfinite(c->soc_log_frac)) {
        p->soc_start_frac = c->soc_log_frac;
        c->soc_from_log = 1;
    }
}

/* The pack: p with the log's cells and capacity (unless o keeps p's). */
static void pack_of(const pp_ulog_battery *b, const pp_battery_params *p,
                    const pp_flight_check_options *o, pp_flight_check *c)
{
    const char *from = "";
    int cells = o->pack_as_given ? p->cells
                                 : pp_flight_cells(NULL, b, 0, p->cells, &from, c->cells_note,
                                                   sizeof c->cells_note);

    c->pack = *p;
    c->cells_source = o->pack_as_given ? "the pack given" : from;
    if (cells > 0 && cells != p->cells && p->cells > 0) { /* the log's, or its voltage's */
        double k = (double)cells / p->cells;
        c->pack.voltage_v = p->voltage_v * k;
        c->pack.r_int_ohm = p->r_int_ohm * k;
        c->pack.r1_ohm = p->r1_ohm * k; /* the same time constant */
        c->pack.c1_f = p->c1_f / k;
        c->pack.cutoff_v = p->cutoff_v * k;
        c->pack.cells = cells;
        c->cells_from_log = strncmp(from, "the log", 7) == 0;
        c->cells_from_voltage = !c->cells_from_log;
    }
    if (!o->pack_as_given && !o->keep_capacity && b->capacity_mah > 0) {
        c->pack.capacity_ah = b->capacity_mah / 1000;
        c->capacity_from_log = 1;
    }
    start_of(b, o, c);
    c->pack.base_power_w = 0;
    c->pack.efficiency = 1;
    c->pack.soc_cutoff_frac = 0;
    c->pack.cutoff_v = 0; /* the flight is compared to its end: a cutoff would stop the model */
}

void pp_flight_check_options_init(pp_flight_check_options *o)
{
    *o = (pp_flight_check_options){.soc_start_frac = NAN};
}

int pp_flight_check_run(const pp_ulog_battery *b, const pp_battery_params *p,
                        pp_flight_check *c)
{
    pp_flight_check_options o;

    pp_flight_check_options_init(&o);
    return pp_flight_check_with(b, p, &o, c);
}

/* The logged current integrated from from_s after the first sample, mAh. */
static double current_mah_from(const pp_ulog_battery *b, double from_s)
{
    double q = 0;

    for (size_t i = 1; i < b->n; i++)
        if (b->t_s[i - 1] - b->t_s[0] >= from_s - 1e-9)
            q += 0.5 * (b->current_a[i] + b->current_a[i - 1]) * (b->t_s[i] - b->t_s[i - 1]);
    return q / 3.6;
}

int pp_flight_check_with(const pp_ulog_battery *b, const pp_battery_params *p,
                         const pp_flight_check_options *o, pp_flight_check *c)
{
    compare cmp = {.b = b, .o = o, .last_v = NAN, .from_s = o->compare_from_s, .soc_from = NAN,
                   .soc_last = NAN};
    pp_battery_options bo;
    pp_battery_result r;
    double *t, *w;
    int rc;

    memset(c, 0, sizeof *c);
    c->instance = b->instance;
    if (b->n < 2) {
        pp_log_error("flight: battery %d has %zu sample%s: 2 at least", b->instance, b->n,
                     b->n == 1 ? "" : "s");
        return -EINVAL;
    }
    pack_of(b, p, o, c);
    c->compare_from_s = o->compare_from_s;
    if (!(t = malloc(2 * b->n * sizeof *t)))
        return -ENOMEM;
    w = t + b->n;
    cmp.t0 = b->t_s[0];
    for (size_t i = 0; i < b->n; i++) {
        t[i] = b->t_s[i] - cmp.t0;
        w[i] = fmax(0, b->voltage_v[i] * b->current_a[i]);
    }
    pp_battery_options_init(&bo);
    bo.time_to_cutoff = 0; /* the flight alone */
    bo.output = on_output;
    bo.output_ctx = &cmp;
    rc = pp_battery_run(&c->pack, &(pp_battery_load){t, w, b->n, 0}, &bo, &r);
    free(t);
    if (rc < 0)
        return rc;
    c->n = cmp.n;
    c->duration_s = b->t_s[b->n - 1] - b->t_s[0];
    c->v_rms = cmp.n ? sqrt(cmp.sum2 / (double)cmp.n) : NAN;
    c->v_max_dev = cmp.max_dev;
    c->v_bias = cmp.n ? cmp.sum / (double)cmp.n : NAN;
    c->v_logged_mean = cmp.n ? cmp.sum_logged / (double)cmp.n : NAN;
    c->v_max_dev_t_s = cmp.max_t;
    c->v_end_model = cmp.last_v;
    c->v_end_logged = b->voltage_v[b->n - 1];
    c->mah_model = (cmp.soc_from - cmp.soc_last) * c->pack.capacity_ah * 1000;
    pp_ulog_charge_mah(b, &c->mah_current_all, &c->mah_logged);
    c->mah_current = current_mah_from(b, o->compare_from_s);
    c->events = (int)r.n_events;
    c->event_kind = r.n_events ? (int)r.events[0].kind : -1;
    c->event_t_s = r.n_events ? r.events[0].t_s : NAN;
    return 0;
}

/* ---- the pack a flight is compared with by default: thevenin, with the
 * autopilot's battery parameters where the log has them ---- */

#define CELL_V_LO 3.0 /* the highest voltage a cell of a flown lithium pack shows, V */
#define CELL_V_HI 4.5

/* p scaled to cells (the same time constant). */
static void scale_cells(pp_battery_params *p, int cells)
{
    double k = (double)cells / p->cells;

    p->voltage_v *= k, p->r_int_ohm *= k, p->r1_ohm *= k, p->c1_f /= k, p->cutoff_v *= k;
    p->cells = cells;
}

int pp_flight_pack_for(const pp_ulog_flight *f, const pp_ulog_battery *b, pp_battery_params *p)
{
    const pp_ulog_battery_params *bp =
        b->instance >= 0 && b->instance < PP_ULOG_MAX_BATTERIES ? &f->params[b->instance] : NULL;
    const char *from;
    char note[256];
    int used = 0, cells;

    pp_battery_params_default(p);
    p->model = PP_BATTERY_THEVENIN;
    cells = pp_flight_cells(f, b, 0, 0, &from, note, sizeof note);
    if (cells > 0 && cells != p->cells && strncmp(from, "the log", 7) == 0) {
        scale_cells(p, cells); /* the log's battery_status cell_count or BATn_N_CELLS */
        used = 1;
    }
    if (b->capacity_mah > 0 && b->capacity_mah / 1000 <= PP_BATTERY_CAPACITY_AH_MAX) {
        p->capacity_ah = b->capacity_mah / 1000; /* battery_status's own */
        used = 1;
    }
    if (!bp || !bp->any)
        return used;
    if (!(b->capacity_mah > 0) && bp->capacity_mah > 0 &&
        bp->capacity_mah / 1000 <= PP_BATTERY_CAPACITY_AH_MAX) {
        p->capacity_ah = bp->capacity_mah / 1000;
        used = 1;
    }
    if (bp->r_internal_ohm > 0 && bp->r_internal_ohm < 1) {
        p->r_int_ohm = bp->r_internal_ohm * p->cells;
        p->r1_ohm = p->r_int_ohm / 2;
        p->c1_f = 30.0 / p->r1_ohm;
        used = 1;
    }
    if (bp->v_empty > 1 && bp->v_charged > bp->v_empty && bp->v_charged < 5) {
        p->ocv_n = 2;
        p->ocv_soc[0] = 0, p->ocv_soc[1] = 1;
        p->ocv_v[0] = bp->v_empty, p->ocv_v[1] = bp->v_charged;
        p->cutoff_v = fmin(p->cutoff_v, 0.95 * bp->v_empty * p->cells);
        used = 1;
    }
    return used;
}

/* Whether cells fit the highest voltage vmax_v; the reason into note when not. */
static int plausible(int cells, double vmax_v, const char *what, char *note, size_t cap)
{
    size_t n = strlen(note);
    double per = vmax_v / cells;

    if (per >= CELL_V_LO && per <= CELL_V_HI)
        return 1;
    if (n < cap)
        pp_text(note + n, cap - n, "%s%s %d gives %.2f V a cell at most, outside a lithium "
                "pack's %.1f to %.1f V", n ? "; " : "", what, cells, per, CELL_V_LO, CELL_V_HI);
    return 0;
}

int pp_flight_cells(const pp_ulog_flight *f, const pp_ulog_battery *b, int asked, int pack_cells,
                    const char **source, char *note, size_t cap)
{
    const pp_ulog_battery_params *bp =
        f && b->instance >= 0 && b->instance < PP_ULOG_MAX_BATTERIES ? &f->params[b->instance]
                                                                    : NULL;
    double vmax = 0;
    int by_voltage;

    for (size_t k = 0; k < b->n; k++)
        vmax = fmax(vmax, b->voltage_v[k]);
    by_voltage = (int)fmin(fmax(ceil(vmax / 4.25 - 1e-9), 1), PP_ULOG_MAX_CELLS);
    note[0] = 0;
    if (asked > 0 && !plausible(asked, vmax, "the cells asked,", note, cap)) {
        pp_log_error("battery %d: %s (the voltage says %d cells): give the pack's cells",
                     b->instance, note, by_voltage);
        return -EINVAL;
    }
    *source = "asked";
    if (asked > 0)
        return asked;
    *source = "the log's cell_count";
    if (b->cell_count > 0 && plausible(b->cell_count, vmax, "the log's cell_count", note, cap))
        return b->cell_count;
    *source = "the log's BAT_N_CELLS";
    if (bp && bp->any && bp->n_cells >= 1 && bp->n_cells <= PP_ULOG_MAX_CELLS &&
        plausible((int)bp->n_cells, vmax, "the log's BAT_N_CELLS", note, cap))
        return (int)bp->n_cells;
    *source = "the pack given";
    if (pack_cells > 0 && plausible(pack_cells, vmax, "the pack's cells", note, cap))
        return pack_cells;
    *source = "the highest voltage / 4.25 V";
    return by_voltage;
}
