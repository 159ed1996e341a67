/* adaptive_claim.h - what an adaptive run claims of the configurations it
 * has not measured (issue 31): an estimate of the error there, from the
 * model's nested hold-outs and how far each was from what its fit saw,
 * with a 90 % quantile over the folds (issue 43).
 *
 * Distances count grid steps (the rank of a value among the grid's values
 * of its parameter; Euclidean over the numeric parameters that vary, labels
 * equal). Each nested pair (model_held.h) is an error |pred - y| / y at a
 * distance d (to the nearest configuration its fold's fit saw) of one of
 * two kinds: at measured levels (leave-one-out: every value of the
 * configuration was among those fitted) and between them (a level fold:
 * the value was not). A configuration not measured is of the second kind
 * when a value of it was never measured in its group of labels, else of
 * the first. Per kind, the error is e = a + b d by least squares over the
 * kind's pairs (b >= 0; with one distance, proportional to it beyond),
 * evaluated at the distance of each configuration not measured to the
 * nearest measured one. A kind left that fewer than 3 pairs or 3 folds
 * measure has no claim (INFINITY: the run goes on), rather than the other
 * kind's errors (between levels they are larger). The estimate is the
 * lines' mean over the configurations not measured; the claim (issue 43)
 * a quantile of the error left rather than a bound of the lines' mean:
 * per kind, each fold's errors over what the line gives at that fold's
 * distances rescale the estimate (the error left were it like that
 * fold's), and the claim is the 90 % quantile (type 7, interpolated) of
 * these over the folds, weighted by the configurations left of each
 * kind. (The one-sided t bound of the line's mean it replaces, t(0.9,
 * f - 2) with f of 3-6 folds, was 1.2-14x the truth on bench_claims'
 * early stops; see bench/README.md.) */
#ifndef PP_ADAPTIVE_CLAIM_H
#define PP_ADAPTIVE_CLAIM_H

#include "src/layer2/model.h"
#include "adaptive.h"

#include <stdint.h>

/* The one-sided 90 % quantile of Student's t with df degrees of freedom
 * (df 0: INFINITY). */
double pp_t90(size_t df);

/* The claim (claim_pct, the fold quantile) and the estimate (mean_pct) of metric
 * k of m, opened with keep_held over the measured rows of the candidates
 * of s, on the candidates not chosen, in %: NAN when there is none
 * left, claim_pct INFINITY (mean_pct NAN) when a kind left has too few
 * pairs or folds. 0 or -ENOMEM. */
int pp_adaptive_claim_estimate(const pp_model *m, size_t k, const pp_adaptive_space *s,
                      const uint8_t *chosen, double *claim_pct, double *mean_pct);

#endif
