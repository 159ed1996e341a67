/* ulog_samples.h - a logged battery's samples as a reader appends them
 * (ulog.c, flight_log.c), in the order they were logged.
 *
 * Two options, set on the battery before its first sample:
 *  - clean: the current-sensor dropout rule of flight_log.h applied as the
 *    samples come (a current of 0 while the voltage is more than 2 % below
 *    the highest voltage of the 60 s before: left out), with a window of
 *    the last 60 s only;
 *  - keep_max > 0: consecutive samples averaged in bins (time, voltage and
 *    current their means, discharged_mah and remaining the last), the bin
 *    doubled whenever 2 x keep_max values are held, so that at most
 *    2 x keep_max + 1 stay: a day-long log read in bounded memory. Every
 *    value is the mean of bin samples but the last, of the rest (fewer).
 * Without either, every sample is stored as it came.
 */
#ifndef PP_ULOG_SAMPLES_H
#define PP_ULOG_SAMPLES_H

#include <stddef.h>

struct pp_ulog_stream; /* the window and the open bin (ulog_samples.c) */

typedef struct pp_ulog_battery {
    int instance;                 /* the subscription's multi_id */
    size_t n, cap;
    double *t_s;                  /* the log's timestamp, us / 1e6 */
    double *voltage_v, *current_a, *discharged_mah, *remaining; /* NaN where absent */
    int cell_count;               /* the last sample's (0 without) */
    double capacity_mah;          /* the last sample's (0 without) */
    int clean;                    /* option: the dropout rule applied (above) */
    size_t keep_max;              /* option: > 0 bins the samples (above) */
    size_t bin;                   /* samples per stored value (0 or 1: as logged) */
    size_t n_logged;              /* samples taken (after the rule), before bins */
    double last_t_s;              /* the last sample given's time (before bins) */
    struct pp_ulog_stream *stream;
} pp_ulog_battery;

/* The sample (t_s, voltage, current, discharged_mah, remaining) appended
 * to b after the one before: 0 taken, 1 left out by the dropout rule,
 * -ENOMEM. */
int pp_ulog_samples_add(pp_ulog_battery *b, const double s[5]);

/* The samples all given: the open bin stored and the window freed.
 * 0 or -ENOMEM. */
int pp_ulog_samples_end(pp_ulog_battery *b);

/* Free b's samples and stream; b zeroed. */
void pp_ulog_samples_free(pp_ulog_battery *b);

#endif
