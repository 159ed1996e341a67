/* flight_fit.h - the pack fitted to a pilot's own flight logs (powprof
 * battery fit): the logs read (src/flight/flight_log.h), the battery model
 * fitted on the first part of each flight (battery/fit.h), and checked on
 * the rest the way `powprof battery FLIGHT` checks a pack (flight.h: the
 * logged power drives the model, CVODE), beside the pack it replaces.
 */
#ifndef PP_FLIGHT_FIT_H
#define PP_FLIGHT_FIT_H

#include "flight.h"

#include "battery/fit.h"
#include "ulog.h"


typedef struct pp_flight_fit_options {
    pp_battery_model model;       /* the model fitted (thevenin by default) */
    double train_frac;            /* of each flight's duration fitted, (0, 1]; 1: nothing held out */
    double train_s;               /* > 0: the first train_s seconds of each flight instead */
    int instance;                 /* the battery instance of each log; -1: the first with samples */
    int cells;                    /* > 0: the pack's cells (else the log's, else from the voltage) */
    const char *ocv;              /* the open-circuit curve's shape: "pack" (start's table),
                                     "lipo", "liion", or "auto" (default: the pack's and
                                     liion's, the one closer on the validation part) */
    pp_battery_params start;      /* the pack the fit starts from and is compared with, when
                                     start_given (-c, --preset) */
    int start_given;              /* 0: the pack `battery LOG` uses (flight.h) instead */
    int capacity_unstated;        /* 1: start is given, but not its capacity (a -c file with
                                     neither capacity_ah nor a preset: the default's), which
                                     is then no one's word (capacity_guessed) */
} pp_flight_fit_options;

void pp_flight_fit_options_init(pp_flight_fit_options *o);

/* A capacity whose 90 % interval (+- 1.645 sd; sd the larger of the
 * covariance's and the spread over time blocks, fit.h) is wider than +-30 %
 * of it is undetermined (issue 41: "undetermined where the interval would
 * be wider than +-30 %"; the sd itself over 30 % until h-fit2). */
#define PP_FIT_UNDETERMINED_REL (0.30 / 1.645)
/* A flight of more samples is fitted and checked on bin averages of this
 * many at most (an hour at 10 Hz is 36,000), binned as it is read
 * (ulog_samples.h: the bin doubles each time this many are held, so
 * 20,000 to 40,000 stay): a day-long log in seconds and a few MB. */
#define PP_FIT_SAMPLES_MAX 40000
/* A fit is written (without --force) only where, fitted on the first half
 * of each training part, its RMS over the second half is under this
 * fraction of the prior's there: decisively better as far ahead of its
 * data as the held-out part is (issue 41: never worse than the prior). */
#define PP_FIT_DECISIVE 0.5
/* The log's discharged_mah and the logged current integrated may differ by
 * this fraction (the autopilot integrates at its own rate) before it is said. */
#define PP_FIT_CHARGE_GAP 0.05
/* Fitted parts over this fraction of the charge can pin the capacity. */
#define PP_FIT_PINNED_SPAN_FRAC 0.30

/* One flight: its samples (owned), how it was split and checked. */
typedef struct pp_flight_fit_flight {
    char path[4096];
    int instance;
    size_t n, n_train;
    double *t_s, *voltage_v, *current_a; /* t_s from the first sample, s */
    double *model_v;              /* the fitted pack's terminal voltage (its fit's equations) */
    double duration_s, split_s;
    double soc_start_frac, soc_start_sd_frac, soc_end_train_frac, soc_log_frac;
    double held_rms_v, held_max_dev_v; /* the fit's equations over the held-out part */
    pp_flight_check fitted, before; /* the CVODE check over the held-out part (whole flight
                                       when nothing is held out): the fitted pack, the one
                                       it replaces */
    char left_out[512];           /* samples the reader left out, said ("" none) */
    double charge_current_mah, charge_logged_mah; /* over the whole flight, every sample
                                     kept: the logged current integrated (what the fit counts)
                                     and the log's discharged_mah, last less first (NaN: none) */
    size_t n_logged, bin;         /* the samples logged; averaged in bins of bin (1: none)
                                     to at most PP_FIT_SAMPLES_MAX */
} pp_flight_fit_flight;

typedef struct pp_flight_fit {
    pp_fit_result fit;
    size_t n_flights;
    pp_flight_fit_flight fl[PP_FIT_FLIGHTS_MAX];
    const char *cells_source;     /* pp_flight_cells's source: "asked" (--cells), the log's... */
    char cells_note[256];         /* the log's cell counts passed over and why ("" none) */
    const char *capacity_source;  /* rint: where the capacity kept comes from */
    int held_out;                 /* some samples held out */
    int capacity_pinned;          /* thevenin: span >= 30 % and capacity within 5 % */
    double capacity_rel_sd;       /* of the capacity fitted (held: of the first try's) */
    int curve_held;               /* the flights could not determine the capacity (under 10 %
                                     of the charge, worse than 25 %, or a rank-deficient fit)
                                     with the curve free: the curve's scale and offset held at
                                     the table's, the rest fitted again */
    int curve_kept;               /* the table's scale and offset kept though the flights could
                                     fit them: fitted, they came no 10 % closer on the
                                     validation part */
    double free_curve_capacity_ah; /* curve_kept: the capacity with them fitted (on the first
                                     four fifths of each training part; NaN: none) */
    int capacity_held;            /* nor with the curve held, and the log gives a capacity:
                                     the capacity held at the log's */
    int capacity_from_log;        /* the log gives a capacity (cell 'capacity', BAT_CAPACITY) */
    int prior_asked;              /* the pack replaced was asked (-c, --preset): its capacity
                                     is the user's word */
    int capacity_guessed;         /* the flights leave the capacity undetermined (held at the
                                     prior's, or its 90 % interval over +-30 %) and neither the
                                     log nor a pack asked gives it: not written without --force */
    int capacity_undetermined;    /* nor with the curve held, and no capacity in the log: the
                                     capacity stays fitted, its +- large */
    double first_capacity_ah, first_capacity_sd_ah, first_span_frac; /* the first try's */
    const char *ocv_curve;        /* the curve kept: "the pack's", "lipo", "liion" */
    double ocv_kept_rms_v;        /* its RMS on the validation part (validated), else training */
    double ocv_other_rms_v;       /* auto: the other curve's, alike (NaN: one tried) */
    const char *ocv_why;          /* auto: why the curve kept was kept (NULL: one tried) */
    pp_battery_params prior;      /* the pack the fit replaces: -c's or --preset's as given,
                                     else the one `battery LOG` uses; at the log's cells */
    int validated;                /* the choices were made on a validation part: the last
                                     fifth of each training part, fitted without it */
    double validation_fit_rms_v;  /* there: the chosen fit (fitted without it) */
    double validation_prior_rms_v; /* there: the prior, started from the first voltage */
    int beats_prior;              /* 1, 0 (the fit is no better than the prior there: not
                                     written without --force), -1 not judged (no part) */
    double ahead_fit_rms_v, ahead_prior_rms_v; /* the same curve and holds fitted on the
                                     first half of each training part, over the second half:
                                     the fit's RMS there and the prior's (NaN: no such part) */
    int curves_apart;             /* --ocv auto: 1, the flights told the curve kept from the
                                     other (the other's RMS on the validation part at least
                                     twice the kept one's, or its fit degenerate); 0, not: the
                                     charge not flown follows either table, the fit runs on
                                     one (not written without --force); -1 one curve tried
                                     or no validation part */
    int curve_beaten;             /* --ocv auto: the other curve's fit ran a parameter to a
                                     bound, yet its RMS on the validation part is under half
                                     the kept one's: the kept curve's shape is not this pack's
                                     either (not written without --force) */
    int decisive;                 /* 1: ahead_fit_rms_v < PP_FIT_DECISIVE x ahead_prior_rms_v;
                                     0: not (not written without --force); -1 not judged */
    double train_i_lo_a, train_i_hi_a; /* the current's range over the training parts */
    int r0_held;                  /* no load step there: R0 and the RC pair held at the prior's */
    int fit_hold;                 /* the PP_FIT_HOLD_* of the fit reported */
    double window_capacity_ah;    /* the capacity fitted on the first four fifths of the
                                     training parts (NaN: not fitted there) */
    double other_curve_capacity_ah; /* curve held, --ocv auto: the capacity with the other
                                     curve held instead (NaN: none) */
    double shape_capacity_ah, shape_capacity_sd_ah; /* the capacity and its +- with the
                                     curve's shape free too (fit.h, PP_FIT_FREE_SHAPE; NaN:
                                     none): the capacity's +- at least these */
    double table_capacity_sd_ah;  /* the capacity's +- before the shape-free refit widened it */
    double other_shape_capacity_ah; /* the same with the other curve (--ocv auto), where the
                                     flights did not tell the two apart (the other's RMS on
                                     the validation part under twice the kept one's; NaN:
                                     none): the +- at least its distance */
    int degenerate;               /* a pack parameter, or a start at its lower end, at a
                                     bound of its range: undetermined, not to be written
                                     without --force */
    int rc_held;                  /* held too: the RC pair (undetermined or at a bound of its
                                     time constant, 1 to 3000 s) */
    double ocv_span_v;            /* the fitted pack's open-circuit voltage, full less empty */
    int off_log;                  /* the fit's RMS over its training samples exceeds
                                     ocv_span_v: the model does not follow the log (a current
                                     or a voltage the pack cannot give), not to be written
                                     without --force */
    double charge_ratio;          /* the flights' discharged_mah over their logged current
                                     integrated, summed (NaN: no discharged_mah) */
    int charge_disagrees;         /* it is off 1 by more than PP_FIT_CHARGE_GAP: the charge
                                     counted, and the capacity, as far off if the log is right */
} pp_flight_fit;

/* Read the logs at paths (ULog or ulog2csv CSV), fit and check. 0, or
 * -EINVAL (logged with the file: a log without battery samples, too few
 * samples, bad options), -ENOMEM, -EIO. Free r with pp_flight_fit_free
 * (also after an error). */
int pp_flight_fit_run(const char *const *paths, size_t n_paths, const pp_flight_fit_options *o,
                      pp_flight_fit *r);

void pp_flight_fit_free(pp_flight_fit *r);

/* Why r is not to be written without --force (the model does not follow the
 * log, a degenerate fit, no better than the prior on the validation part,
 * not decisively better ahead, curves not told apart, a capacity no one
 * gives, the curve kept beaten by the other), or NULL: it may be written. The CLI, the C
 * API and Python refuse with it. */
const char *pp_flight_fit_refusal(const pp_flight_fit *r);

#endif
