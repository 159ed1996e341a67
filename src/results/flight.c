#include "flight.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct compare {
    const pp_ulog_battery *b;
    double t0, sum2, max_dev, max_t, last_v;
    size_t i, n;
} compare;

/* The model's voltage at an output time: against the logged sample there. */
static void on_output(void *ctx, double t_s, double soc, double v, double i)
{
    compare *c = ctx;
    const pp_ulog_battery *b = c->b;

    (void)soc;
    (void)i;
    while (c->i < b->n && b->t_s[c->i] - c->t0 < t_s - 1e-9)
        c->i++;
    if (c->i >= b->n || fabs(b->t_s[c->i] - c->t0 - t_s) > 1e-9)
        return;
    double dev = v - b->voltage_v[c->i];
    c->sum2 += dev * dev;
    c->n++;
    if (fabs(dev) > fabs(c->max_dev)) {
        c->max_dev = dev;
        c->max_t = t_s;
    }
    c->last_v = v;
    c->i++;
}

/* The pack: p with the log's cells, capacity and charge at the start. */
static void pack_of(const pp_ulog_battery *b, const pp_battery_params *p, pp_flight_check *c)
{
    c->pack = *p;
    if (b->cell_count > 0 && b->cell_count != p->cells && p->cells > 0) {
        c->pack.voltage_v = p->voltage_v * b->cell_count / p->cells;
        c->pack.r_int_ohm = p->r_int_ohm * b->cell_count / p->cells;
        c->pack.cutoff_v = p->cutoff_v * b->cell_count / p->cells;
        c->pack.cells = b->cell_count;
        c->cells_from_log = 1;
    }
    if (b->capacity_mah > 0) {
        c->pack.capacity_ah = b->capacity_mah / 1000;
        c->capacity_from_log = 1;
    }
    if (b->remaining[0] > 0 && b->remaining[0] <= 1) {
        c->pack.soc_start_frac = b->remaining[0];
        c->soc_from_log = 1;
    }
    c->pack.base_power_w = 0;
    c->pack.efficiency = 1;
    c->pack.soc_cutoff_frac = 0;
}

int pp_flight_check_run(const pp_ulog_battery *b, const pp_battery_params *p,
                        pp_flight_check *c)
{
    compare cmp = {b, 0, 0, 0, 0, NAN, 0, 0};
    pp_battery_options o;
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
    pack_of(b, p, c);
    if (!(t = malloc(2 * b->n * sizeof *t)))
        return -ENOMEM;
    w = t + b->n;
    cmp.t0 = b->t_s[0];
    for (size_t i = 0; i < b->n; i++) {
        t[i] = b->t_s[i] - cmp.t0;
        w[i] = fmax(0, b->voltage_v[i] * b->current_a[i]);
    }
    pp_battery_options_init(&o);
    o.output = on_output;
    o.output_ctx = &cmp;
    rc = pp_battery_run(&c->pack, &(pp_battery_load){t, w, b->n, 0}, &o, &r);
    free(t);
    if (rc < 0)
        return rc;
    c->n = cmp.n;
    c->duration_s = b->t_s[b->n - 1] - b->t_s[0];
    c->v_rms = cmp.n ? sqrt(cmp.sum2 / (double)cmp.n) : NAN;
    c->v_max_dev = cmp.max_dev;
    c->v_max_dev_t_s = cmp.max_t;
    c->v_end_model = cmp.last_v;
    c->v_end_logged = b->voltage_v[b->n - 1];
    c->mah_model = r.soc_drained_frac * c->pack.capacity_ah * 1000;
    pp_ulog_charge_mah(b, &c->mah_current, &c->mah_logged);
    c->events = (int)r.n_events;
    return 0;
}
