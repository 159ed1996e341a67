/* The one parser of durations (duration.h): the command line (--mission-s,
 * --budget-s) and mission files read them alike. */
#include "duration.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Seconds in unit (len letters at u); 0 when not a unit. */
static double unit_s(const char *u, size_t len)
{
    static const struct {
        const char *name;
        double s;
    } units[] = {{"h", 3600}, {"hr", 3600}, {"min", 60}, {"m", 60},
                 {"s", 1},    {"sec", 1},   {"ms", 1e-3}};

    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == len && strncmp(u, units[i].name, len) == 0)
            return units[i].s;
    return 0;
}

static const char *skip_blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A decimal number at s (digits, a point, an exponent; no sign, hex, inf
 * or nan) into *v: where it ends, or NULL. */
static const char *decimal(const char *s, double *v)
{
    char *end;

    if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
        return NULL;
    *v = strtod(s, &end);
    for (const char *c = s; c < end; c++)
        if (!isdigit((unsigned char)*c) && *c != '.' && *c != 'e' && *c != 'E' && *c != '+' &&
            *c != '-')
            return NULL; /* 0x10: strtod's hexadecimal */
    return end > s && isfinite(*v) ? end : NULL;
}

int pp_parse_duration_s(const char *s, double *out)
{
    double total = 0, last_unit = INFINITY, v;
    int parts = 0;

    if (pp_parse_double(s, out) == 0)
        return *out >= 0 ? 0 : -EINVAL;
    s = skip_blank(s);
    while (*s && *s != '\n') {
        const char *u, *end = decimal(s, &v);
        double per;
        if (!end)
            return -EINVAL;
        end = skip_blank(end);
        for (u = end; *u >= 'a' && *u <= 'z'; u++)
            ;
        per = unit_s(end, (size_t)(u - end));
        if (per == 0 || per >= last_unit) /* units given once, largest first */
            return -EINVAL;
        last_unit = per;
        total += v * per;
        parts++;
        s = skip_blank(u);
    }
    if (!parts || !isfinite(total))
        return -EINVAL;
    *out = total;
    return 0;
}

int pp_parse_duration_range(const char *s, double *out, char *why, size_t cap)
{
    double v;

    if (pp_parse_duration_s(s, &v) < 0)
        return pp_fmt(why, cap, "\"%s\" is not a duration: seconds (90, 1.5) or numbers with "
                      "units h, min (m), s, ms, largest first, each once (10min, 1h30m, 250ms)",
                      s), -EINVAL;
    if (!(v >= PP_DURATION_S_MIN && v <= PP_DURATION_S_MAX))
        return pp_fmt(why, cap, "\"%s\" is %g s, not in [%g, %g] s", s, v, PP_DURATION_S_MIN,
                      PP_DURATION_S_MAX), -EINVAL;
    *out = v;
    return 0;
}
