/* adaptive_state.h - an adaptive run's state kept beside its results
 * (resumed as it was). */
#ifndef PP_ADAPTIVE_STATE_H
#define PP_ADAPTIVE_STATE_H

#include "adaptive.h"

void pp_adaptive_state_free(pp_adaptive_state *st);

/* Add a pick to round (a new round when round == n_rounds). 0 or -ENOMEM. */
int pp_adaptive_state_add(pp_adaptive_state *st, const pp_adaptive_pick *p, size_t round);

/* Read dir/adaptive.json against s: 0, 1 when there is none, -EINVAL
 * (logged: not JSON, an id not in the grid) or -ENOMEM. */
int pp_adaptive_state_read(const char *dir, const pp_adaptive_space *s, pp_adaptive_state *st);

/* Write it (atomically): the options, the rounds (picks: id, values, why,
 * score, predicted seconds; the errors after each), the metrics of fit
 * (may be NULL) and the result (NULL while running). 0 or -errno. */
int pp_adaptive_state_write(const char *dir, const pp_adaptive_space *s,
                            const pp_adaptive_options *o, const pp_adaptive_state *st,
                            const pp_adaptive_fit *fit, const pp_adaptive_result *res);

#endif
