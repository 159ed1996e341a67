/* ulog_param.h - the autopilot's battery parameters in a ULog's parameter
 * messages (ulog_param.c), kept apart from the reader (ulog.c) that calls
 * it, so that neither file needs the other's. */
#ifndef PP_ULOG_PARAM_H
#define PP_ULOG_PARAM_H

#include <stddef.h>
#include <stdint.h>

#define PP_ULOG_MAX_BATTERIES 8

/* The autopilot's parameters of one battery, BATn_* (n = instance + 1;
 * the older BAT_* for instance 0 where BAT1_* is absent): NaN where the
 * log does not have them (PX4 writes -1 for "not set": kept as read). */
typedef struct pp_ulog_battery_params {
    double n_cells, capacity_mah, v_empty, v_charged, r_internal_ohm; /* volts and ohms per cell */
    int any;                      /* at least one read */
} pp_ulog_battery_params;

/* A parameter message ('P': uint8 key length, "type name", value, len
 * bytes at d) into params[instance] when it is one of BATn_N_CELLS,
 * _CAPACITY, _V_EMPTY, _V_CHARGED, _R_INTERNAL; other messages ignored. */
void pp_ulog_on_param(pp_ulog_battery_params params[PP_ULOG_MAX_BATTERIES], const uint8_t *d,
                      size_t len);

#endif
