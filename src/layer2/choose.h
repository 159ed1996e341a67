/* choose.h - the choice of a layer-2 estimator for one metric (choose.c):
 * boxcox, local-linear where boxcox cannot be scored, its errors nested. */
#ifndef PP_CHOOSE_H
#define PP_CHOOSE_H

#include "band.h"
#include "est.h"
#include "surface.h"

/* What pp_choose may try. */
typedef struct pp_choose_options {
    pp_method method;     /* a method, or auto */
    double h;             /* < 0: tuned; else fixed (not with auto) */
    int value_space;      /* -1 chosen by leave-one-out, 0 linear, 1 log */
    /* Replicates (NULL: none): sample i is the mean of the measurements
     * rep_value[rep_start[i] .. rep_start[i + 1]) (NaN skipped); the band's
     * residuals are every measurement's against its sample's held-out
     * prediction (the band covers a new measurement), the errors stay the
     * means'. */
    const size_t *rep_start;
    const double *rep_value;
    int choice_only;      /* 1: only the choice (spec, loo); honest = loo, no band */
    int keep_held;        /* 1: keep the nested predictions (held_at, held_between) */
} pp_choose_options;

void pp_choose_options_init(pp_choose_options *o);

/* Choose the estimator of y. auto is a rule, not a competition (issue
 * 43): boxcox, tuned in each value space allowed, the least error over
 * the level folds kept (leave-one-out without them); local-linear (tuned
 * likewise) only where boxcox cannot be scored (too few samples for a fit
 * without each fold: one parameter with 2 samples, so that with 3 the
 * nested errors and the band are local-linear's). A method o names is
 * tuned alone. Nested errors
 * re-make the choice, by the same rule, inside each fold: between (the
 * level fold groups) and honest (leave-one-out up to PP_NESTED_LOO_MAX
 * samples, 10 folds up to PP_CHOOSE_SUB, 5 above). 0, -EINVAL (fewer
 * than 2 samples, nothing applicable) or -ENOMEM; free with
 * pp_choice_free. */
#define PP_NESTED_LOO_MAX 20
/* above this many samples the candidates are tuned and compared on this
 * many, the winner fitted on all: the choice's cost stops growing (on 64
 * rather than 100, at most 0.2 points worse: bench/README.md) */
#define PP_CHOOSE_SUB 64
int pp_choose(const pp_surface *s, const double *y, const pp_choose_options *o, pp_choice *c);

#endif
