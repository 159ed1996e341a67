/* adaptive_profile.h - a profile measured adaptively (`profile
 * --adaptive`, or a profile's adaptive group) as one library call: which
 * options win (the defaults, the profile's adaptive group over them, what
 * the caller was given over both), and the run wired up: the live sweep
 * as the oracle (src/adaptive/adaptive_live.h), the layer-2 model as the
 * predictor (adaptive_model.h). */
#ifndef PP_ADAPTIVE_PROFILE_H
#define PP_ADAPTIVE_PROFILE_H

#include "src/config/profile.h"
#include "adaptive.h"
#include "src/sweep/sweep.h"

/* The options a caller was given (a command line): given[] says which of
 * o's target_error_pct, budget_s, max_configs, seed, batch it set. */
#define PP_ADAPTIVE_GIVEN_N 5
typedef struct pp_adaptive_request {
    int on;                          /* an adaptive run was asked for */
    int given[PP_ADAPTIVE_GIVEN_N];  /* target, budget, max, seed, batch */
    pp_adaptive_options o;           /* their values */
} pp_adaptive_request;

/* The options of an adaptive run of p: the defaults, p's adaptive group
 * over them, rq's given ones (rq NULL: none) over both; resume as said. */
void pp_adaptive_options_of(const pp_profile *p, const pp_adaptive_request *rq, int resume,
                            pp_adaptive_options *o);

/* p measured adaptively with o into so->out_dir (so's folder, resume,
 * interrupt and pacing; a shard is refused: the design chooses from the
 * whole grid), the rounds' progress to progress (may be NULL). *st sums
 * what was measured, *res says why it stopped. 0, -EINVAL (logged), or
 * pp_sweep_run's errors. */
int pp_adaptive_profile(const pp_profile *p, const pp_sweep_options *so,
                        const pp_adaptive_options *o,
                        void (*progress)(void *ctx, const pp_adaptive_progress *pr), void *ctx,
                        pp_sweep_stats *st, pp_adaptive_result *res);

#endif
