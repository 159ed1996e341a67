/* choose.h - the choice of a layer-2 estimator for one metric (choose.c):
 * every candidate tuned and compared on the level folds, its errors nested. */
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
    /* Replicates (NULL: each sample is one measurement): when sample i is
     * the mean of several measurements (repeats, nodes of a fleet), they
     * are rep_value[rep_start[i] .. rep_start[i + 1]) (NaN skipped). The
     * band's residuals are then those of every measurement against the
     * held-out prediction of its sample, so that the band covers a new
     * measurement, its scatter between repeats and boards included, not
     * only the mean; band_n counts measurements. The errors (honest, loo)
     * stay those of the means. */
    const size_t *rep_start;
    const double *rep_value;
    int choice_only;      /* 1: only the choice (spec, loo); honest = loo, no band */
    int keep_held;        /* 1: keep the nested predictions (held_at, held_between) */
} pp_choose_options;

void pp_choose_options_init(pp_choose_options *o);

/* Choose the estimator of y. Every candidate o allows (auto: every method
 * in every value space allowed, log needing every y > 0) is tuned (the
 * kernels' bandwidths on the level folds when there are any, else by
 * leave-one-out, boxcox's exponents by the
 * criterion below), and the one with the least criterion kept: the error
 * over the level folds (pp_level_folds) when there are any, else
 * leave-one-out. Nested errors re-make the choice inside each fold:
 * between (every level fold) and honest (leave-one-out up to
 * PP_NESTED_LOO_MAX samples with a value, 10 folds up to PP_CHOOSE_SUB, 5
 * above: each fold costs a whole choice, and a fifth of a design larger
 * than the choice's subsample still holds more than it). Between levels
 * a parameter with more than PP_FOLD_SINGLE_MAX interior levels has its
 * levels left out PP_FOLD_GROUPS at a time (pp_level_fold_groups). Returns
 * 0, -EINVAL (fewer than 2 samples, or nothing applicable) or -ENOMEM;
 * free with pp_choice_free. */
#define PP_NESTED_LOO_MAX 20
/* above this many samples with a value, the candidates are tuned and
 * compared on this many of them, and the winner fitted on all (in every
 * nested fold as well): the choice's cost stops growing with the design.
 * It was 100 until the kernels' bandwidth was tuned on level folds (each
 * bandwidth tried costs d x n^2 kernel terms, not n^2); 64 since (issue
 * 31, item 6): on synthetic 2- and 3-parameter grids and scattered designs
 * of 100-343 configurations, 20 % held out, the choice on 64 predicted
 * them no more than 0.2 points worse than the choice on 100
 * (bench/README.md). */
#define PP_CHOOSE_SUB 64
/* auto leaves loclin out above this many samples (nw it never
 * tries): each of their
 * leave-one-out and level-out checks costs n^2 kernel terms, once per
 * nested fold; auto is then boxcox (--method nw or loclin still fits them) */
#define PP_KERNEL_AUTO_MAX 300
int pp_choose(const pp_surface *s, const double *y, const pp_choose_options *o, pp_choice *c);

#endif
