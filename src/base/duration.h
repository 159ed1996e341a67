/* duration.h - durations as people write them (10min, 1h30m), parsed
 * strictly, and the one range of a mission's or a phase's duration. */
#ifndef PP_DURATION_H
#define PP_DURATION_H

#include <stddef.h>

/* A duration as people write it (the one parser of durations: the
 * command line and mission files): seconds (90, 1.5), or
 * decimal numbers with units h (hr), min (m), s (sec), ms, largest first,
 * each once: 10min, 1h30m, 1h 30min 10s, 250ms. No hexadecimal, inf, nan
 * or sign. 0 with *out in seconds (>= 0), or -EINVAL. */
int pp_parse_duration_s(const char *s, double *out);

/* The range of a mission's or a phase's duration, s (one range for the
 * command line and the files). */
#define PP_DURATION_S_MIN 1.0
#define PP_DURATION_S_MAX 1e7

/* pp_parse_duration_s, then in [PP_DURATION_S_MIN, PP_DURATION_S_MAX]:
 * 0, or -EINVAL with why (the text, what is wrong, the range). */
int pp_parse_duration_range(const char *s, double *out, char *why, size_t cap);

#endif
