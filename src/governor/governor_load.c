/* The base loads the governor re-plans on (governor_load.h). */
#include "governor_load.h"

#include "governor.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* l's mean over bins of PP_GOV_BIN_S (the last one shorter), at the bins'
 * middles, and at 0 and duration_s the first's and the last's: into c. */
int pp_gov_coarsen(const pp_phase_load *l, double duration_s, pp_phase_load *c)
{
    size_t nb = (size_t)ceil(duration_s / PP_GOV_BIN_S - 1e-9), n = 0;

    nb = nb ? nb : 1;
    memset(c, 0, sizeof *c);
    if (!(c->t_s = malloc(2 * (nb + 2) * sizeof *c->t_s)))
        return -ENOMEM;
    c->p_w = c->t_s + nb + 2;
    for (size_t b = 0; b < nb; b++) {
        double a = (double)b * PP_GOV_BIN_S, z = fmin(a + PP_GOV_BIN_S, duration_s), e = 0;
        size_t steps = 16;
        for (size_t i = 0; i < steps; i++) /* the bin's mean (midpoints of 16 slices) */
            e += pp_phase_load_at(l, a + (z - a) * ((double)i + 0.5) / (double)steps);
        if (b == 0) {
            c->t_s[n] = 0;
            c->p_w[n++] = e / (double)steps;
        }
        if (0.5 * (a + z) > c->t_s[n - 1] + 2 * PP_BATTERY_STEP_S_MIN) {
            c->t_s[n] = 0.5 * (a + z);
            c->p_w[n++] = e / (double)steps;
        }
        if (b + 1 == nb) {
            c->t_s[n] = duration_s;
            c->p_w[n] = c->p_w[n - 1];
            n++;
        }
    }
    c->n = n;
    c->mean_w = l->mean_w;
    return 0;
}

/* src from from_s over duration_s, its times from 0, into l. */
int pp_gov_cut_load(const pp_phase_load *src, double from_s, double duration_s, pp_phase_load *l)
{
    size_t n = 0;

    pp_phase_load_free(l);
    if (!(l->t_s = malloc(2 * (src->n + 2) * sizeof *l->t_s)))
        return -ENOMEM;
    l->p_w = l->t_s + src->n + 2;
    l->t_s[n] = 0;
    l->p_w[n++] = pp_phase_load_at(src, from_s);
    for (size_t i = 0; i < src->n; i++) {
        double tau = src->t_s[i] - from_s;
        if (tau > 2 * PP_BATTERY_STEP_S_MIN && tau < duration_s - 2 * PP_BATTERY_STEP_S_MIN) {
            l->t_s[n] = tau;
            l->p_w[n++] = src->p_w[i];
        }
    }
    l->t_s[n] = duration_s;
    l->p_w[n++] = pp_phase_load_at(src, from_s + duration_s);
    l->n = n;
    l->mean_w = 0;
    for (size_t i = 1; i < n; i++)
        l->mean_w += 0.5 * (l->p_w[i] + l->p_w[i - 1]) * (l->t_s[i] - l->t_s[i - 1]) / duration_s;
    return 0;
}

