/* power_supply.h - a Linux battery's state for the governor
 * (Documentation/ABI/testing/sysfs-class-power), beside its power (the
 * "battery" back-end of power_supply.c):
 *   capacity     %  (the kernel's or the gauge's state of charge)
 *   voltage_now  uV
 *   current_now  uA (a discharge reported positive or negative by drivers:
 *                taken as its magnitude while Discharging)
 *   power_now    uW (when there is no current_now: I = P / U)
 */
#ifndef PP_POWER_SUPPLY_H
#define PP_POWER_SUPPLY_H

#include <stddef.h>

typedef struct pp_power_supply_state {
    char name[64];         /* BAT0, ... */
    double soc_frac;       /* capacity / 100; NaN without */
    double voltage_v, current_a; /* NaN without */
    char status[32];       /* Discharging, Charging, Full, ... ("" without) */
} pp_power_supply_state;

/* The state of battery name (NULL: the first BAT* with a capacity or a
 * voltage) under sysfs root root. 0; -ENODEV (logged: no such battery, it
 * names those there are); -EINVAL (logged: a value out of range or not a
 * number, with the file and the text). */
int pp_power_supply_state_read(const char *root, const char *name, pp_power_supply_state *s);

#endif
