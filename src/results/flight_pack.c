/* The pack a flight is compared with by default (flight.h): thevenin,
 * with the autopilot's battery parameters where the log has them. */
#include "flight.h"

#include <math.h>

int pp_flight_pack_for(const pp_ulog_flight *f, const pp_ulog_battery *b, pp_battery_params *p)
{
    const pp_ulog_battery_params *bp =
        b->instance >= 0 && b->instance < PP_ULOG_MAX_BATTERIES ? &f->params[b->instance] : NULL;
    int used = 0, cells;

    pp_battery_params_default(p);
    p->model = PP_BATTERY_THEVENIN;
    if (!bp || !bp->any)
        return 0;
    cells = bp->n_cells >= 1 && bp->n_cells <= 1000 ? (int)bp->n_cells : 0;
    if (cells && cells != p->cells) {
        double k = (double)cells / p->cells;
        p->voltage_v *= k, p->r_int_ohm *= k, p->r1_ohm *= k, p->c1_f /= k, p->cutoff_v *= k;
        p->cells = cells;
        used = 1;
    }
    if (bp->capacity_mah > 0 && bp->capacity_mah / 1000 <= PP_BATTERY_CAPACITY_AH_MAX) {
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
