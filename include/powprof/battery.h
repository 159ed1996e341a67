/* powprof/battery.h - drain a modelled battery with a load: the state of
 * charge at the end, the lowest voltage, and how long the battery lasts if
 * the load goes on (the trace repeated) until its cutoff.
 *
 * Models and parameters are those of `powprof battery` (SUNDIALS CVODE):
 * presets "drone-4s-3200" (the default), "drone-3s-2200", "drone-6s-10000",
 * or the battery group of a configuration file (configs/drone-4s.cfg
 * documents every key). Units: seconds, watts, joules, volts; state of
 * charge as a fraction (1 = full).
 *
 * Threads (powprof.h): one call at a time on a pp_battery_params (and on
 * a pp_trace drained); calls on other handles meanwhile.
 */
#ifndef POWPROF_BATTERY_H
#define POWPROF_BATTERY_H

#include "trace.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_battery_params pp_battery_params;

/* A battery from a preset name or a configuration file's path (NULL: the
 * default preset). 0 and *out (free it with pp_battery_free), or -errno:
 * -ENOENT for an unknown preset or a missing file, -EINVAL for bad keys
 * (logged with the file and line). */
int pp_battery_new(const char *preset_or_file, pp_battery_params **out);
void pp_battery_free(pp_battery_params *b);

/* A constant load beside the trace, drawn from the pack (the motors). 0, or
 * -EINVAL when negative or not finite. */
int pp_battery_set_base_power(pp_battery_params *b, double base_power_w);

typedef struct pp_battery_summary {
    double duration_s;        /* one pass of the load */
    double energy_j;          /* drawn from the battery over that pass */
    double soc_start_frac, soc_end_frac, soc_drained_frac;
    double min_voltage_v;     /* lowest terminal voltage */
    double time_to_cutoff_s;  /* the load repeated until a cutoff; NAN when none in 48 h */
    int brownout;             /* 1 when the load asked for more than the battery can give */
} pp_battery_summary;

/* Drain b with n samples of load: times t_s (seconds, increasing) and power
 * p_w (watts, >= 0, linear between samples). 0 or -errno (logged). */
int pp_battery_drain(const pp_battery_params *b, const double *t_s, const double *p_w, size_t n,
                     pp_battery_summary *out);

/* The same with a trace's total power (the rails no other rail contains). */
int pp_battery_drain_trace(const pp_battery_params *b, const pp_trace *t,
                           pp_battery_summary *out);

#ifdef __cplusplus
}
#endif

#endif
