/* The autopilot's battery parameters of a ULog (ulog.h): 'P' messages
 * "int32_t BAT1_N_CELLS", "float BAT1_CAPACITY", ... into f->params. */
#include "ulog_param.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { P_CELLS, P_CAP, P_EMPTY, P_CHARGED, P_RINT, N_KEYS };
static const char *const suffix[N_KEYS] = {"N_CELLS", "CAPACITY", "V_EMPTY", "V_CHARGED",
                                           "R_INTERNAL"};

static double *slot(pp_ulog_battery_params *b, int k)
{
    double *fields[N_KEYS] = {&b->n_cells, &b->capacity_mah, &b->v_empty, &b->v_charged,
                              &b->r_internal_ohm};
    return fields[k];
}

/* The value of type (len bytes of "int32_t" or "float") at v. */
static double param_value(const char *type, size_t tlen, const uint8_t *v, size_t vlen)
{
    uint32_t u;

    if (vlen < 4)
        return NAN;
    memcpy(&u, v, 4); /* little-endian, as the hosts powprof runs on */
    if (tlen == 7 && memcmp(type, "int32_t", 7) == 0)
        return (double)(int32_t)u;
    if (tlen == 5 && memcmp(type, "float", 5) == 0) {
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return NAN;
}

void pp_ulog_on_param(pp_ulog_battery_params params[PP_ULOG_MAX_BATTERIES], const uint8_t *d,
                      size_t len)
{
    size_t klen, tlen;
    const char *key, *name, *sp;
    int instance = 0, legacy = 0;
    char suf[32];

    if (len < 1 || (klen = d[0]) == 0 || 1 + klen > len)
        return;
    key = (const char *)d + 1;
    if (!(sp = memchr(key, ' ', klen)))
        return;
    tlen = (size_t)(sp - key);
    name = sp + 1;
    size_t nlen = klen - tlen - 1;
    if (nlen > 5 && memcmp(name, "BAT", 3) == 0 && name[3] >= '1' && name[3] <= '8' &&
        name[4] == '_') {
        instance = name[3] - '1';
        name += 5, nlen -= 5;
    } else if (nlen > 4 && memcmp(name, "BAT_", 4) == 0) {
        legacy = 1;
        name += 4, nlen -= 4;
    } else {
        return;
    }
    if (nlen >= sizeof suf)
        return;
    memcpy(suf, name, nlen);
    suf[nlen] = 0;
    for (int k = 0; k < N_KEYS; k++) {
        if (strcmp(suf, suffix[k]) != 0)
            continue;
        double v = param_value(key, tlen, d + 1 + klen, len - 1 - klen);
        pp_ulog_battery_params *b = &params[instance];
        if (!b->any) {
            for (int j = 0; j < N_KEYS; j++)
                *slot(b, j) = NAN;
            b->any = 1;
        }
        if (isfinite(v) && (!legacy || isnan(*slot(b, k))))
            *slot(b, k) = v;
    }
}
