/* adaptive_run.h - an adaptive run: rounds of refits and picks until the
 * stop rule (adaptive.h) holds. */
#ifndef PP_ADAPTIVE_RUN_H
#define PP_ADAPTIVE_RUN_H

#include "adaptive.h"

/* The adaptive run into dir (created by the oracle). progress may be NULL.
 * interrupt (may be NULL) is checked between rounds. 0 when it stopped by
 * a rule (res->stop), -EINTR when interrupted, -EEXIST (dir has an
 * adaptive.json and resume is not set), another -errno on errors. */
int pp_adaptive_run(const pp_adaptive_space *s, const pp_adaptive_options *o,
                    const pp_adaptive_predictor *pr, const pp_adaptive_oracle *orc,
                    const char *dir, void (*progress)(void *ctx, const pp_adaptive_progress *p),
                    void *progress_ctx, const atomic_int *interrupt, pp_adaptive_result *res);

#endif
