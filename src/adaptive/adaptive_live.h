/* adaptive_live.h - an adaptive run of a profile measured live: the
 * candidates are every configuration of the profile (ids as the sweep
 * numbers them, each with the profile's lower bound of its duration as a
 * prior cost), and each round is a sweep (sweep.h) of only that round's
 * configurations into the same folder, resumed from the second on. Its
 * rows are ordinary summary.csv rows, its traces ordinary traces.
 */
#ifndef PP_ADAPTIVE_LIVE_H
#define PP_ADAPTIVE_LIVE_H

#include "adaptive.h"
#include "src/sweep/sweep.h"

#define PP_ADAPTIVE_LIVE_MAX 1000000 /* configurations */

typedef struct pp_adaptive_live {
    const pp_profile *p;
    pp_sweep_options so;  /* as given; only, out_dir and resume set per round */
    uint8_t *only;
    pp_sweep_stats total; /* the rounds' sums (ran, ok, failed, saturated, stopped) */
} pp_adaptive_live;

/* The candidates of p. 0, -E2BIG (more than PP_ADAPTIVE_LIVE_MAX, logged)
 * or -ENOMEM. */
int pp_adaptive_live_space(const pp_profile *p, pp_adaptive_space *s);

/* The oracle of p with the sweep options so (copied: the progress
 * callback, interrupt, node, max_failures, resume of the first round).
 * 0 or -ENOMEM. */
int pp_adaptive_live_init(pp_adaptive_live *lv, const pp_profile *p, const pp_sweep_options *so);
void pp_adaptive_live_free(pp_adaptive_live *lv);

/* The oracle (ctx: a pp_adaptive_live): pp_sweep_run's return. */
int pp_adaptive_live_measure(void *ctx, const pp_adaptive_space *s, const size_t *cands, size_t n,
                             const char *dir);

/* The oracle's saturated(): the configurations measured by this process
 * whose procstat estimate sat at its ceiling (sweep.h). */
uint64_t pp_adaptive_live_saturated(void *ctx);

#endif
