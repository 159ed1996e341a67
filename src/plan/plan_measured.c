/* plan_measured.c - what the plan takes from the measured configurations
 * themselves (plan.h): an achieved rate never beyond what the measured
 * levels around it achieved, and whether a setting was measured. Calls
 * nothing of plan.c. */
#include "plan_measured.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1, fabs(a));
}

/* Row i of s holds every parameter of pt but skip (skip = n_params: all). */
static int row_matches(const pp_summary *s, size_t i, const pp_model_point *pt, size_t skip)
{
    for (size_t k = 0; k < s->n_params; k++)
        if (k != skip && !same(s->x[i * s->n_params + k], pt->raw[k]))
            return 0;
    return 1;
}

int pp_plan_is_measured(const pp_model *m, const pp_model_point *pt)
{
    const pp_summary *s = &m->sum;

    for (size_t i = 0; i < s->n_rows; i++)
        if (row_matches(s, i, pt, s->n_params))
            return 1;
    return 0;
}

/* The mean achieved rate measured at level v of parameter q (the other
 * parameters as in pt): NaN when none. */
static double level_mean(const pp_summary *s, const pp_model_point *pt, size_t q, size_t metric,
                         double v)
{
    double sum = 0;
    size_t n = 0;

    for (size_t i = 0; i < s->n_rows; i++) {
        double y = s->y[i * s->n_metrics + metric];
        if (row_matches(s, i, pt, q) && same(s->x[i * s->n_params + q], v) && isfinite(y))
            sum += y, n++;
    }
    return n ? sum / (double)n : NAN;
}

void pp_plan_bound_achieved(const pp_model *m, size_t q, int achieved_metric,
                            const pp_model_point *pt, pp_prediction *a)
{
    const pp_summary *s = &m->sum;
    double v = pt->raw[q], below = -INFINITY, above = INFINITY, ya, yb, lo, hi;

    if (achieved_metric < 0 || isnan(a->value))
        return;
    for (size_t i = 0; i < s->n_rows; i++) { /* the measured levels around v */
        double x = s->x[i * s->n_params + q];
        if (!row_matches(s, i, pt, q))
            continue;
        if (x <= v + 1e-9 * fmax(1, fabs(v)) && x > below)
            below = x;
        if (x >= v - 1e-9 * fmax(1, fabs(v)) && x < above)
            above = x;
    }
    ya = isfinite(below) ? level_mean(s, pt, q, (size_t)achieved_metric, below) : NAN;
    yb = isfinite(above) ? level_mean(s, pt, q, (size_t)achieved_metric, above) : NAN;
    if (isnan(ya) && isnan(yb))
        return; /* no level measured with these other settings */
    lo = fmin(isnan(ya) ? yb : ya, isnan(yb) ? ya : yb);
    hi = fmax(isnan(ya) ? yb : ya, isnan(yb) ? ya : yb);
    if (isnan(ya) || isnan(yb))
        lo = -INFINITY; /* outside the measured levels: only the nearest bounds it above */
    if (a->value > hi)
        a->value = hi;
    if (a->value < lo)
        a->value = lo;
    a->lo = fmin(a->lo, a->value);
    a->hi = fmax(a->hi, a->value);
}

static int increasing(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int pp_plan_is_clock(const char *name)
{
    return strncmp(name, "clocks.", 7) == 0;
}

int pp_plan_measured_levels(const pp_summary *s, size_t k, double **v, size_t *n)
{
    if (!(*v = malloc((s->n_rows + 1) * sizeof **v)))
        return -ENOMEM;
    for (size_t i = 0; i < s->n_rows; i++)
        (*v)[i] = s->x[i * s->n_params + k];
    qsort(*v, s->n_rows, sizeof **v, increasing);
    *n = 0;
    for (size_t i = 0; i < s->n_rows; i++)
        if (*n == 0 || (*v)[i] != (*v)[*n - 1])
            (*v)[(*n)++] = (*v)[i];
    return 0;
}
