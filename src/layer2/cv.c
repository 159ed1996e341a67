/* The errors of predictions against measured values (cv.h,
 * pp_cv_pairs): what every estimator's cross-validation is judged by. It
 * calls no estimator, so each may use it. */
#include "cv.h"

#include <math.h>
#include <string.h>

void pp_cv_pairs(const pp_surface *s, const double *y, const size_t *idx, const double *pred,
                 size_t n, pp_cv *cv)
{
    double se = 0, ape = 0, ape2 = 0, ape_in = 0, lre = 0;
    size_t n_pct = 0, zero = 0, missing = 0;
    int positive = 1;

    memset(cv, 0, sizeof *cv);
    for (size_t i = 0; i < s->n; i++)
        positive &= isnan(y[i]) || y[i] > 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = idx ? idx[k] : k;
        if (isnan(y[i]))
            continue;
        zero += y[i] == 0;
        if (isnan(pred[k]) || (positive && !(pred[k] > 0))) {
            missing++;
            continue;
        }
        se += (pred[k] - y[i]) * (pred[k] - y[i]);
        cv->n++;
        if (positive)
            lre += fabs(log(pred[k] / y[i]));
        if (y[i] != 0) {
            double e = fabs((pred[k] - y[i]) / y[i]);
            ape += e;
            ape2 += e * e;
            n_pct++;
            if (pp_surface_interior(s, i)) {
                ape_in += e;
                cv->n_inner++;
            }
        }
    }
    cv->rmse = cv->n ? sqrt(se / (double)cv->n) : NAN;
    cv->mape = n_pct ? 100.0 * ape / (double)n_pct : NAN;
    /* the spread of the percentage errors: an adaptive run's claim is an
     * upper bound of the mean, not the mean (pp_cv) */
    cv->mape_sd = n_pct > 1 ? 100.0 * sqrt(fmax(0.0, (ape2 - ape * ape / (double)n_pct) /
                                               (double)(n_pct - 1)))
                            : NAN;
    cv->mape_inner = cv->n_inner ? 100.0 * ape_in / (double)cv->n_inner : NAN;
    /* positive metrics: the mean |log(pred / y)|, which weighs a prediction
     * ten times too small as much as one ten times too large (the MAPE
     * would count it below 100 %) */
    cv->crit = positive && cv->n ? 100.0 * lre / (double)cv->n : zero || !n_pct ? cv->rmse : cv->mape;
    /* a candidate must predict every sample, a positive metric above 0 */
    if (isnan(cv->crit) || missing)
        cv->crit = INFINITY;
}

void pp_cv_errors(const pp_surface *s, const double *y, const double *pred, pp_cv *cv)
{
    pp_cv_pairs(s, y, NULL, pred, s->n, cv);
}
