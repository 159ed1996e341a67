/* The pack a flight is compared with by default (flight.h): thevenin,
 * with the autopilot's battery parameters where the log has them. */
#include "flight.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>

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
