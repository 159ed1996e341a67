/* flight.h - the battery model against a recorded flight (ulog.h): the
 * logged power drives the model; its terminal voltage is set beside the
 * logged one, its charge drawn beside the log's.
 */
#ifndef PP_FLIGHT_H
#define PP_FLIGHT_H

#include "src/traces/ulog.h"

#include "battery/battery.h"

typedef struct pp_flight_check {
    int instance;
    size_t n;                     /* samples compared */
    pp_battery_params pack;       /* the pack flown: the parameters given, with the log's
                                     cell count and capacity where it has them, and its
                                     first 'remaining' as the start */
    int cells_from_log, capacity_from_log, soc_from_log;
    double duration_s;
    double v_rms, v_max_dev, v_max_dev_t_s;    /* modelled - logged terminal voltage */
    double v_end_model, v_end_logged;
    double mah_model;             /* charge the model drew */
    double mah_current;           /* the logged current integrated (trapezoids) */
    double mah_logged;            /* the log's discharged_mah, last minus first */
    int events;                   /* the model's cutoff or brown-out events */
} pp_flight_check;

/* Drive the battery p (its cells scaled to the log's cell_count, its
 * capacity the log's when given, its start the log's first remaining in
 * (0, 1]) with battery b's voltage_v x current_a over the log's times; the
 * model's terminal voltage at each sample against the logged one. 0,
 * -EINVAL (logged: fewer than 2 samples, bad parameters) or -errno. */
int pp_flight_check_run(const pp_ulog_battery *b, const pp_battery_params *p,
                        pp_flight_check *c);

#endif
