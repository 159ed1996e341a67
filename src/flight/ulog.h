/* ulog.h - PX4 flight logs (ULog, PX4's "ULog File Format"): the battery
 * of a recorded flight.
 *
 * The reader follows the published specification: a 16-byte header
 * ("ULog" 0x01 0x12 0x35, version, start time in us), then messages of
 * uint16 size, uint8 type and size bytes: flag bits 'B' (only as the first
 * message; an incompatible flag other than "data appended" is refused;
 * appended data is read from each non-zero offset on, a message torn at an
 * offset left out with a warning), formats 'F' ("name:type field;..."; a
 * type is a base type, an array "float[10]" or another format, nested),
 * information 'I' / 'M', parameters 'P' / 'Q', subscriptions 'A' (multi_id,
 * msg_id, name), unsubscriptions 'R', data 'D' (msg_id, then the fields),
 * logged strings 'L' / 'C', sync 'S', dropouts 'O'. Little-endian
 * throughout. Unknown message types are skipped (counted), as the
 * specification asks. A log cut short (a flight log often ends torn) keeps
 * every complete message and warns with the offset; a corrupt message (data
 * of no subscription, a subscription of no format, data shorter than its
 * format) is skipped to the next sync marker with a warning, or ends the
 * read there when there is none. A bad header, bad flag bits or a format
 * that does not parse is an error naming the file and the offset.
 *
 * Of the battery_status topic every instance (multi_id) is kept:
 * timestamp (us, turned to s), voltage_v, current_a, discharged_mah,
 * remaining, and cell_count and capacity (mAh) when the format has them.
 * Samples with values no battery has are left out, counted by reason and
 * said in one warning per reason (a time, voltage or current not finite;
 * current_a -1, PX4's "not measured"; a voltage outside (0, 1000] V or a
 * current outside (-1, 10000] A; a time not after the one before); a
 * cell_count that is not a whole number in 1..255, or a capacity outside
 * (0, 1e7] mAh, is left out of its sample. A subscribed battery_status whose format does not parse, or has
 * no timestamp, voltage_v or current_a, is an error naming the offset of
 * its format. Formats are found through a hash index: reading is linear in
 * the log's size.
 */
#ifndef PP_ULOG_H
#define PP_ULOG_H

#include <stddef.h>
#include <stdint.h>

#include "ulog_param.h" /* PP_ULOG_MAX_BATTERIES, the batteries' parameters */
#include "ulog_topics.h" /* every topic's messages and times (ulog info) */
#include "ulog_samples.h" /* a battery's samples, pp_ulog_battery */

#define PP_ULOG_MAX_VOLTAGE_V 1000.0  /* above: no battery, a corrupt sample */
#define PP_ULOG_MAX_CURRENT_A 10000.0
#define PP_ULOG_MAX_CELLS 255         /* PX4's cell_count is a uint8 */
#define PP_ULOG_MAX_CAPACITY_MAH 1e7

typedef struct pp_ulog_flight {
    int version;
    uint64_t start_us;            /* the header's timestamp */
    int battery_defined;          /* the log has a battery_status format */
    size_t n_batteries;           /* instances with at least one sample */
    pp_ulog_battery bat[PP_ULOG_MAX_BATTERIES];
    size_t n_messages;            /* complete messages read */
    size_t n_unknown;             /* of an unknown type, skipped */
    size_t n_corrupt;             /* skipped to a sync marker (or the end) */
    size_t n_skipped;             /* battery samples the reader left out: the sum of the
                                     three below (n_unmeasured apart) */
    size_t n_nonfinite;           /* a time, voltage or current not finite */
    size_t n_implausible;         /* voltage outside (0, MAX_VOLTAGE_V], current outside
                                     [-MAX_CURRENT_A, MAX_CURRENT_A] */
    size_t n_backwards;           /* a time not after the sample before */
    size_t n_bad_cells;           /* samples kept whose cell_count or capacity was left out */
    size_t n_strings, n_dropouts, n_appended;
    int torn;                     /* the file ends inside a message */
    uint64_t torn_offset;
    pp_ulog_battery_params params[PP_ULOG_MAX_BATTERIES]; /* from 'P' messages (ulog_param.c) */
    /* Samples left out by a flight log's reader or cleaner (flight_log.h) */
    size_t n_disconnected;        /* connected = 0 */
    size_t n_unmeasured;          /* current -1 (PX4: not measured; the ULog reader counts
                                     these too) or NaN voltage or current */
    size_t n_zero_sag;            /* current 0 while the voltage sags under load */
    size_t n_duplicate;           /* a time equal to the one before */
    int from_csv;                 /* read from a ulog2csv battery_status CSV */
    pp_ulog_topics topics;        /* every subscription (a ULog's; none from a CSV) */
} pp_ulog_flight;


/* Read the battery of the ULog file at path into f (free with
 * pp_ulog_flight_free, also after an error). 0, or -EINVAL (logged with the
 * file and the offset: not a ULog file, a truncated header, unknown
 * incompatible flags, a format that does not parse), -errno. A log without
 * battery_status samples is not an error: f->n_batteries is 0. */
int pp_ulog_read_battery(const char *path, pp_ulog_flight *f);

/* The same, every battery's samples with the options clean and keep_max
 * (ulog_samples.h). */
int pp_ulog_read_battery_opt(const char *path, pp_ulog_flight *f, int clean, size_t keep_max);

/* The same from memory (name for messages). */
int pp_ulog_parse_battery(const uint8_t *buf, size_t len, const char *name, pp_ulog_flight *f);

void pp_ulog_flight_free(pp_ulog_flight *f);

/* 1 when the file at path starts with the ULog magic. */
int pp_ulog_is_ulog(const char *path);

#endif
