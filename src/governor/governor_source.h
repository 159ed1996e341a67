/* governor_source.h - where the governor's readings come from (`powprof
 * govern --source`):
 *   stdin             one reading per line: "t_s soc_frac", "t_s voltage_v
 *                     current_a", or a JSON object {"t_s": .., "soc": ..,
 *                     "voltage_v": .., "current_a": .., "phase": ..} (any of
 *                     soc, voltage_v + current_a; phase optional; other keys
 *                     ignored): what a small MAVLink or ROS bridge writes.
 *                     Blank lines and lines from '#' are skipped; any other
 *                     line that does not read is refused (logged with its
 *                     line number and text) and the source goes on.
 *   power_supply[:NAME]  a Linux battery (devices/power_supply.h) read every
 *                     every_s on the monotonic clock, t_s from the first read.
 *   FILE.ulg, FILE.csv  a recorded flight (a PX4 ULog, or the battery_status
 *                     CSV of pyulog's ulog2csv: src/flight/flight_log.h, which
 *                     leaves out what is no measurement): its first battery
 *                     with samples (or FILE:N for instance N), replayed at
 *                     its own pace times speed (0: at once), t_s from its
 *                     first sample.
 *   FILE              any other file (a named pipe a bridge writes): lines as
 *                     stdin's, its name in the messages.
 */
#ifndef PP_GOVERNOR_SOURCE_H
#define PP_GOVERNOR_SOURCE_H

#include "governor.h"

#include "src/flight/ulog.h"

#include <stdio.h>

#define PP_GOV_SPEED_MIN 1e-3 /* a log replayed this much slower at most... */
#define PP_GOV_SPEED_MAX 1e6  /* ... this much faster (0: at once) */

typedef enum pp_gov_source_kind {
    PP_GOV_SOURCE_STDIN = 0,
    PP_GOV_SOURCE_POWER_SUPPLY,
    PP_GOV_SOURCE_ULOG,
} pp_gov_source_kind;

typedef struct pp_gov_source {
    pp_gov_source_kind kind;
    char spec[4200];
    FILE *in;                 /* stdin, or a file of lines: */
    FILE *own_in;             /* ... opened here */
    size_t line;
    char *buf;                /* the line read (malloc'd) */
    size_t cap;
    const char *root;         /* power_supply: the sysfs root */
    char name[64];            /* ... the battery ("" the first) */
    double every_s, speed;
    double t0_mono_s, next_s; /* deadlines on the monotonic clock */
    size_t n_read;
    pp_ulog_flight *flight;   /* ulog (malloc'd) */
    const pp_ulog_battery *bat;
    size_t i;
} pp_gov_source;

/* Open spec ("stdin" reading in, "power_supply[:NAME]" under root, a
 * .ulg file, a file of lines) with every_s (power_supply; in
 * pp_gov_every_check's range) and speed (ulog: 0, or in [PP_GOV_SPEED_MIN,
 * PP_GOV_SPEED_MAX]). 0, or -EINVAL / -ENODEV / -errno (logged: an unknown
 * source, a folder, no such battery, a log that does not read or has no
 * battery samples; nothing is left open). A line longer than a reading is
 * refused; one without an end in PP_FILE_LINE_MAX bytes ends the source
 * (-EINVAL from pp_gov_source_next). */
int pp_gov_source_open(const char *spec, FILE *in, const char *root, double every_s, double speed,
                       pp_gov_source *s);
/* The next reading into *r (phase -1 unless a JSON line names one),
 * waiting for it (power_supply: the next deadline; ulog: the log's pace).
 * 0 a reading; 1 the end (stdin closed, the log's end); 2 a line refused
 * (logged); -EINTR when a signal interrupted the wait; -errno. */
int pp_gov_source_next(pp_gov_source *s, pp_gov_reading *r);
void pp_gov_source_close(pp_gov_source *s);

/* Remove the temporary files a killed writer of the state file at path
 * left beside it (PATH.tmp.XXXXXX, pp_atomic_file): how many. */
size_t pp_gov_state_stale_remove(const char *path);

/* One line of the stdin source into *r: 0, 1 for a line to skip (blank,
 * comment), -EINVAL with why. */
int pp_gov_parse_line(const char *line, pp_gov_reading *r, char *why, size_t cap);

#endif
