/* soc_ekf.h - the state of charge from what a flight logs: an extended
 * Kalman filter over the battery model's state (SoC, and the RC voltage V1
 * of the thevenin model), driven by the measured current (coulomb
 * counting) and corrected by the measured terminal voltage through the
 * open-circuit curve and the resistances (battery.h):
 *
 *   predict  SoC' = SoC - I dt / Q
 *            V1'  = V1 e^(-dt/tau) + R1 (1 - e^(-dt/tau)) I   (tau = R1 C1)
 *   measure  V    = OCV(SoC) - V1 - R0 I
 *
 * With the rint model the open-circuit voltage does not depend on the
 * charge: the voltage says nothing of it and the filter is coulomb
 * counting from its start (pp_soc_ekf.source says which). The filter
 * starts from a measured state of charge when one is given, else from the
 * open-circuit curve inverted at the first voltage (V + R0 I, V1 = 0),
 * for rint from the pack's soc_start_frac.
 *
 * Units: s, V, A (discharge positive), SoC a fraction. Nothing allocated.
 */
#ifndef PP_SOC_EKF_H
#define PP_SOC_EKF_H

#include "battery.h"

typedef enum pp_soc_source {
    PP_SOC_NONE = 0,    /* nothing yet */
    PP_SOC_MEASURED,    /* the source's own state of charge */
    PP_SOC_EKF,         /* voltage and current through the filter */
    PP_SOC_COULOMB,     /* current integrated (rint: no voltage information) */
} pp_soc_source;

const char *pp_soc_source_name(pp_soc_source s);

typedef struct pp_soc_ekf {
    pp_battery_params pack;
    double sigma_v;          /* terminal-voltage noise, V (default 0.01) */
    double sigma_i_frac;     /* current error, fraction of the current (default 0.01) */
    double sigma_i_a;        /* ... and absolute, A (default 0.05) */
    int started;
    double t_s, current_a;   /* the last sample's */
    double x[2];             /* SoC, V1 */
    double p[2][2];          /* covariance */
    double innovation_v;     /* the last measurement's residual */
    pp_soc_source source;
} pp_soc_ekf;

/* A filter for pack (copied; its soc_start_frac is not used). 0, or
 * -EINVAL (logged) for bad parameters. */
int pp_soc_ekf_init(pp_soc_ekf *f, const pp_battery_params *pack);

/* One sample at t_s (after the last: an older or equal time is refused
 * with -EINVAL, unlogged, and changes nothing): voltage_v and current_a
 * (NaN where not measured), soc_frac the source's own (NaN where none; it
 * restarts the filter at that value when the filter has not started, and
 * is otherwise not used: call pp_soc_ekf_reset to trust it). 0, or
 * -EINVAL when nothing usable was given. */
int pp_soc_ekf_update(pp_soc_ekf *f, double t_s, double voltage_v, double current_a,
                     double soc_frac);

/* Restart at soc_frac (V1 = 0) at t_s. */
void pp_soc_ekf_reset(pp_soc_ekf *f, double t_s, double soc_frac);

/* The estimate (NaN before the first sample) and its standard deviation. */
double pp_soc_ekf_soc(const pp_soc_ekf *f);
double pp_soc_ekf_sd(const pp_soc_ekf *f);

/* The state of charge whose open-circuit voltage is ocv_v (the table
 * inverted; clamped to [0, 1]); NaN for rint. */
double pp_soc_from_ocv(const pp_battery_params *p, double ocv_v);

#endif
