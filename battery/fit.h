/* fit.h - the battery model fitted to recorded flights (powprof battery fit).
 *
 * The model is battery.h's, driven by the logged current instead of a
 * power: for each flight, at each sample k,
 *     SoC_k = soc_start - q_k / (3600 capacity_ah)
 *     V_k   = OCV(SoC_k) - R0 I_k - V1_k                      (thevenin)
 *     V_k   = voltage_v - R0 I_k                              (rint)
 * with q_k the logged current integrated by trapezoids (the current taken
 * linear between samples) and V1 the RC pair's voltage, stepped exactly for
 * a current linear between samples:
 *     V1_{k+1} = a V1_k + R1 [I_{k+1} - a I_k - (I_{k+1} - I_k) tau/h (1 - a)],
 *     a = exp(-h/tau), tau = R1 C1, h the interval, V1_0 = 0 (at rest)
 * so no ODE is solved per evaluation and the discretisation adds no error
 * for the logged sampling. OCV(SoC) is the pack's table (pp_battery_ocv_v)
 * with its scale and offset fitted per cell (its shape kept unless
 * PP_FIT_FREE_SHAPE: knots' offsets added, with a prior):
 *     ocv_v[i] -> c + scale (ocv_v[i] - c) + offset,  c the table's mean.
 *
 * Least squares over the logged terminal voltage of every flight's training
 * samples, solved by MINPACK's Levenberg-Marquardt (lmdif, forward-
 * difference Jacobian). Bounds by reparametrisation: capacity, R0, R1 and
 * rint's voltage through exp; tau in [1, 3000] s, scale in [0.7, 1.3],
 * offset in [-0.3, 0.3] V per cell and each flight's start in (0.02, 1]
 * through logistic maps. Several flights share the pack, each has its own
 * start. Uncertainties: covariance s^2 (J^T J)^-1 from the Jacobian at the
 * solution (MINPACK covar1; s^2 the residual variance), mapped through the
 * reparametrisation; the residuals of a real log are correlated in time,
 * so these are lower bounds; with PP_FIT_BLOCKS, the larger of them and
 * the spread of refits with one time block of the flights left out at a
 * time (a delete-a-block jackknife: sqrt((K-1)/K sum (theta_k - mean)^2),
 * which holds for residuals correlated over less than a block).
 *
 * rint has a constant open-circuit voltage: the voltage carries nothing of
 * the state of charge, so capacity and starts are not fitted (kept from
 * the guess, capacity_fitted = 0).
 */
#ifndef PP_BATTERY_FIT_H
#define PP_BATTERY_FIT_H

#include "battery.h"

#include <stddef.h>

#define PP_FIT_FLIGHTS_MAX 16
/* PP_FIT_FREE_SHAPE: the open-circuit table's shape moves by an offset
 * per cell at PP_FIT_N_KNOTS knots evenly over the charge (0, 25 ... 100 %),
 * linear between them, each with a penalty toward the table of a prior
 * standard deviation PP_FIT_SHAPE_SD_V (a cell of one chemistry departs
 * from its chemistry's typical curve by a few tens of mV; set before the
 * study, not tuned on it): the flights move the shape where they cover
 * the charge, the rest stays the table's; the curve is kept monotone. */
#define PP_FIT_N_KNOTS 5
#define PP_FIT_SHAPE_SD_V 0.05

/* One flight: n samples, times increasing (s), terminal voltage (V) and
 * current drawn (A, > 0 discharging), all finite; samples [0, n_train)
 * are fitted, the rest held out. */
typedef struct pp_fit_flight {
    const double *t_s, *voltage_v, *current_a;
    size_t n, n_train;
} pp_fit_flight;

typedef struct pp_fit_result {
    pp_battery_params pack;       /* fitted; soc_start_frac = the first flight's start */
    double soc_start_frac[PP_FIT_FLIGHTS_MAX], soc_start_sd_frac[PP_FIT_FLIGHTS_MAX];
    double soc_end_train_frac[PP_FIT_FLIGHTS_MAX]; /* modelled, at the last fitted sample */
    double capacity_sd_ah, r_int_sd_ohm, r1_sd_ohm, tau_s, tau_sd_s, voltage_sd_v;
    double ocv_scale, ocv_scale_sd, ocv_offset_v, ocv_offset_sd_v; /* per cell */
    double train_rms_v;           /* over every flight's training samples */
    int n_blocks;                 /* PP_FIT_BLOCKS: the refits that converged (0: none made) */
    double block_capacity_sd_ah, block_r_int_sd_ohm; /* their jackknife standard deviations */
    double soc_span_frac;         /* the widest span of charge a flight's training part covers */
    unsigned at_bound;            /* the fitted parameters that ended at a bound of their
                                     range (PP_FIT_P_* bits, a flight's start PP_FIT_P_START
                                     << flight): the data do not determine them; their sd NaN */
    int capacity_fitted;          /* 0 with rint or held */
    int shape_free;               /* PP_FIT_FREE_SHAPE: the knots' offsets fitted */
    double knot_v[PP_FIT_N_KNOTS], knot_sd_v[PP_FIT_N_KNOTS]; /* per cell, at the knots */
    double residual_lag1;         /* the training residuals' lag-1 autocorrelation */
    int n_params, n_residuals, n_evaluations, minpack_info, rank;
} pp_fit_result;

/* Fit guess's model (guess->model) to the n_flights flights. guess gives
 * the cells, the OCV table's shape and the initial values (and, with rint,
 * the capacity kept). hold (thevenin; 0: nothing): PP_FIT_HOLD_* ored,
 * those parameters held at guess's (flights too short to determine them:
 * with the curve held, the capacity and the starts come from its slope and
 * level). 0, or -EINVAL (logged: no flight, fewer training
 * samples than parameters, bad samples), -ENOMEM, -EIO (MINPACK gave up:
 * improper input). */
#define PP_FIT_HOLD_CURVE 1    /* the table's scale and offset */
#define PP_FIT_HOLD_CAPACITY 2
#define PP_FIT_HOLD_RC 4       /* R1 and the time constant */
#define PP_FIT_HOLD_R0 16      /* the series resistance */
#define PP_FIT_BLOCKS 32       /* the spread over time blocks too (block_sd_*): PP_FIT_N_BLOCKS
                                  refits, each with one block of every flight's training
                                  samples left out (a delete-a-block jackknife), from the
                                  solution; each +- then the larger of the two */
#define PP_FIT_N_BLOCKS 6
#define PP_FIT_FREE_SHAPE 64   /* the shape too (not a hold: held unless asked): the
                                  penalty rows weighted by the noise of the fit without it
                                  (its RMS, times the variance inflation of its residuals'
                                  lag-1 autocorrelation rho, (1 + rho) / (1 - rho): what
                                  time-correlated residuals are worth), and the covariance
                                  scaled by that noise, so the +- carry the curve's own
                                  uncertainty (a fit with it and no earlier solution makes
                                  that one first) */
#define PP_FIT_QUICK 8         /* at most 40 (n + 1) evaluations, not 100 (n + 1): a fit
                                  converges in 10 to 30 (n + 1); beyond, it wanders */

/* The parameters (bits of pp_fit_result.at_bound). rint: PP_FIT_P_CAPACITY
 * is its voltage. */
#define PP_FIT_P_CAPACITY 1u
#define PP_FIT_P_R0 2u
#define PP_FIT_P_R1 4u
#define PP_FIT_P_TAU 8u
#define PP_FIT_P_SCALE 16u
#define PP_FIT_P_OFFSET 32u
#define PP_FIT_P_START 64u

int pp_battery_fit(const pp_battery_params *guess, const pp_fit_flight *flights,
                   size_t n_flights, int hold, pp_fit_result *r);

/* The same from the solution of an earlier fit of the same guess and
 * flights (from: its pack, curve scale and offset, time constant and
 * starts) rather than from the guess's values: a refit with other
 * parameters held or PP_FIT_BLOCKS converges in a few evaluations. */
int pp_battery_fit_from(const pp_battery_params *guess, const pp_fit_flight *flights,
                        size_t n_flights, int hold, const pp_fit_result *from,
                        pp_fit_result *r);

/* The modelled terminal voltage (and state of charge; either may be NULL)
 * of pack p at every sample of flight f driven by its logged current, from
 * soc_start_frac, as above. */
void pp_battery_fit_voltage(const pp_battery_params *p, double soc_start_frac,
                            const pp_fit_flight *f, double *voltage_v, double *soc_frac);

/* The state of charge whose open-circuit voltage (pack p) is ocv_v: the
 * table inverted (clamped to its ends; rint: NaN). */
double pp_battery_soc_of_ocv(const pp_battery_params *p, double ocv_v);

#endif
