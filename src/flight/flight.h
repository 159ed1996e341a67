/* flight.h - the battery model against a recorded flight (ulog.h): the
 * logged power drives the model; its terminal voltage is set beside the
 * logged one, its charge drawn beside the log's.
 */
#ifndef PP_FLIGHT_H
#define PP_FLIGHT_H

#include "ulog_trace.h" /* the flight (ulog.h) and the charge it drew */

#include "battery/battery.h"

typedef struct pp_flight_check {
    int instance;
    size_t n;                     /* samples compared */
    pp_battery_params pack;       /* the pack flown: the parameters given, with the log's
                                     cell count and capacity where it has them, and its
                                     first 'remaining' as the start */
    int cells_from_log, capacity_from_log, soc_from_log;
    int cells_from_voltage;       /* the pack's cells (nor the log's) do not fit the voltage */
    char cells_note[256];         /* the cell counts passed over and why ("" none) */
    const char *cells_source;     /* pp_flight_cells's source of the cells */
    int soc_from_voltage;         /* thevenin: the start from the first sample's voltage
                                     through the pack's open-circuit curve */
    double soc_log_frac;          /* the log's first 'remaining' (NaN without) */
    double compare_from_s;        /* the figures below are over the samples from here on */
    double mah_current_all;       /* the logged current integrated over the whole flight */
    double duration_s;
    double v_rms, v_max_dev, v_max_dev_t_s;    /* modelled - logged terminal voltage */
    double v_bias, v_logged_mean;              /* the mean of modelled - logged; of logged */
    double v_end_model, v_end_logged;
    double mah_model;             /* charge the model drew */
    double mah_current;           /* the logged current integrated (trapezoids) */
    double mah_logged;            /* the log's discharged_mah, last minus first */
    int events;                   /* the model's events (brown-out, or empty: state of charge 0) */
    int event_kind;               /* the first one's pp_battery_event_kind (-1: none) */
    double event_t_s;             /* and its time */
} pp_flight_check;

/* How to set the model against the flight (pp_flight_check_with). */
typedef struct pp_flight_check_options {
    double soc_start_frac;        /* NaN: the rule of pp_flight_check_run */
    double compare_from_s;        /* figures over the samples this long after the first (0: all) */
    int pack_as_given;            /* keep p's cells and capacity (a pack fitted to this log) */
    int keep_capacity;            /* keep p's capacity (a pack the user gave: -c) */
    /* each logged sample the model reached (NULL: none): its time from the first sample,
       the model's state of charge and terminal voltage, the logged voltage and current */
    void (*sample)(void *ctx, double t_s, double soc, double v_model, double v_logged,
                   double current_a);
    void *sample_ctx;
} pp_flight_check_options;

void pp_flight_check_options_init(pp_flight_check_options *o);

/* Drive the battery p (its cells scaled to the log's cell_count, its
 * capacity the log's when given, its start the log's first remaining in
 * (0, 1]) with battery b's voltage_v x current_a over the log's times; the
 * model's terminal voltage at each sample against the logged one. 0,
 * -EINVAL (logged: fewer than 2 samples, bad parameters) or -errno. */
int pp_flight_check_run(const pp_ulog_battery *b, const pp_battery_params *p,
                        pp_flight_check *c);

/* The same with options o. The start: o's, else for thevenin from the
 * first sample's voltage (plus R0 I) through the pack's open-circuit curve
 * (the log's 'remaining' is the autopilot's estimate, often far off),
 * else the log's first 'remaining' in (0, 1], else p's. */
int pp_flight_check_with(const pp_ulog_battery *b, const pp_battery_params *p,
                         const pp_flight_check_options *o, pp_flight_check *c);

/* The pack to set against flight f's battery b when none is asked for
 * (flight.c): the thevenin model (a lithium pack's open-circuit curve
 * and RC pair: rint's constant voltage cannot follow a flight's discharge)
 * of the default preset, with, where the log has them, the autopilot's own
 * parameters BATn_N_CELLS, _CAPACITY, _R_INTERNAL (per cell) and its
 * open-circuit line from _V_EMPTY (empty) to _V_CHARGED (full), which is
 * what the autopilot's remaining assumes. Returns 1 when the log's
 * parameters were used, 0 when not. */
int pp_flight_pack_for(const pp_ulog_flight *f, const pp_ulog_battery *b, pp_battery_params *p);

/* The cells of battery b (flight f, which may be NULL, gives BATn_N_CELLS):
 * the first plausible of asked (> 0: the user's, refused when not
 * plausible), the log's cell_count, its BATn_N_CELLS, pack_cells (> 0: the
 * pack given) and, last, the highest logged voltage / 4.25 V rounded up.
 * Plausible: the highest logged voltage is 3.0 to 4.5 V a cell (a lithium
 * pack, flown from above a fifth of its charge). source: what was taken;
 * note (cap bytes): the counts passed over and why, "" when none. One rule
 * for battery LOG, battery fit and import ulog. The cells, or -EINVAL
 * (logged, naming the count asked and the voltage). */
int pp_flight_cells(const pp_ulog_flight *f, const pp_ulog_battery *b, int asked, int pack_cells,
                    const char **source, char *note, size_t cap);

#endif
