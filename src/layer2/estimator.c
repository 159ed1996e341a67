/* estimator.c - the estimators behind one table of operations (est.h):
 * fit, evaluate, leave one out; the method names. Each method lives in
 * its own file (nw.c, loclin.c, boxcox.c); the folds and
 * cross-validation over them in folds.c. */
#include "estimator.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"nw", "loclin", "boxcox", "auto"};

const char *pp_method_name(pp_method m)
{
    return (unsigned)m <= PP_METHOD_AUTO ? method_names[m] : "?";
}

int pp_method_parse(const char *name, pp_method *m)
{
    for (int i = 0; i <= PP_METHOD_AUTO; i++)
        if (strcmp(name, method_names[i]) == 0) {
            *m = (pp_method)i;
            return 0;
        }
    return -EINVAL;
}

/* ---- one estimator ---- */

/* y into the fit's value space (NaN kept); -EINVAL: a log value <= 0. */
static int to_space(const double *y, size_t n, int log_values, double *v)
{
    for (size_t i = 0; i < n; i++) {
        if (log_values && !isnan(y[i]) && !(y[i] > 0))
            return -EINVAL;
        v[i] = log_values ? log(y[i]) : y[i];
    }
    return 0;
}

void pp_est_free(pp_est *e)
{
    free(e->v);
    free(e->coef);
    memset(e, 0, sizeof *e);
}

/* The table of operations of each method (est.h), in pp_method's order. */
static const pp_est_ops *const method_ops[PP_METHODS] = {&pp_est_nw_ops, &pp_est_loclin_ops,
                                                         &pp_est_boxcox_ops};

static const pp_est_ops *ops_of(pp_method m)
{
    return (unsigned)m < PP_METHODS ? method_ops[m] : NULL;
}

int pp_est_fit(pp_est *e, const pp_surface *s, const double *y, const pp_est_spec *spec)
{
    const pp_est_ops *ops = ops_of(spec->method);
    int rc;

    memset(e, 0, sizeof *e);
    e->spec = *spec;
    e->s = s;
    e->v = malloc(s->n * sizeof *e->v);
    if (!e->v)
        return -ENOMEM;
    if ((rc = to_space(y, s->n, spec->log_values, e->v)) < 0) {
        pp_log_debug("fit: a value <= 0 on a log scale");
        pp_est_free(e);
        return rc;
    }
    for (size_t i = 0; i < s->n; i++)
        e->n_used += !isnan(e->v[i]);
    if (e->n_used == 0) {
        pp_est_free(e);
        return -EINVAL;
    }
    if (ops && ops->fit && (rc = ops->fit(e)) < 0) {
        pp_est_free(e);
        return rc;
    }
    return 0;
}

double pp_est_predict(const pp_est *e, const double *xn)
{
    const pp_est_ops *ops = ops_of(e->spec.method);

    return pp_est_from_space(e->spec.log_values, ops ? ops->eval(e, xn) : NAN);
}

int pp_est_folds_fast(const pp_surface *s, const double *y, const pp_est_spec *spec,
                      const pp_fold *folds, size_t n_folds, size_t *idx, double *pred, size_t *n)
{
    const pp_est_ops *ops = ops_of(spec->method);
    double *v;
    int rc;

    if (!ops || !ops->folds)
        return -ENOTSUP;
    if (!(v = malloc((s->n + 1) * sizeof *v)))
        return -ENOMEM;
    if ((rc = to_space(y, s->n, spec->log_values, v)) == 0)
        rc = ops->folds(s, y, v, spec, folds, n_folds, idx, pred, n);
    free(v);
    return rc;
}

int pp_est_loo(const pp_surface *s, const double *y, const pp_est_spec *spec, double *pred)
{
    const pp_est_ops *ops = ops_of(spec->method);
    double *v = malloc(s->n * sizeof *v);
    int rc = -ENOMEM;

    if (!v)
        return -ENOMEM;
    if ((rc = to_space(y, s->n, spec->log_values, v)) == 0)
        rc = ops ? ops->loo(s, y, v, spec, pred) : -EINVAL;
    free(v);
    return rc;
}
