/* Opening and freeing a model (model.h): the top of the model's files,
 * over model.c (groups, fits, predictions), model_file.c (model.json) and
 * variability.c (the fleet). */
#include "model_file.h"
#include "model_internal.h"
#include "variability.h"

#include "src/base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pp_model_free(pp_model *m)
{
    for (size_t g = 0; g < m->n_groups; g++)
        pp_model_free_group(&m->groups[g], m->sum.n_metrics);
    free(m->groups);
    free(m->node_factor);
    pp_fleet_free(m->fleet);
    free(m->fleet);
    pp_summary_free(&m->sum);
    memset(m, 0, sizeof *m);
}

int pp_model_open(const char *dir, const pp_model_options *o, int use_saved, pp_model *m)
{
    int rc;

    memset(m, 0, sizeof *m);
    m->band_kappa = NAN;
    if (o)
        m->opts = *o;
    else
        pp_model_options_init(&m->opts);
    if ((rc = pp_summary_read_unique(dir, &m->sum)) < 0)
        return rc;
    if (m->sum.n_params == 0) {
        pp_log_error("%s/summary.csv has no parameter columns: nothing to model", dir);
        pp_model_free(m);
        return -EINVAL;
    }
    for (size_t k = 0; k < m->sum.n_params; k++)
        if (m->sum.param[k].kind != PP_PARAM_CATEGORICAL)
            m->num[m->n_num++] = k;
    m->summary_hash = pp_model_file_hash(dir);
    rc = pp_model_build_groups(m);
    if (rc == 0 && use_saved)
        rc = pp_model_file_load(m, dir);  /* 1: no usable model.json */
    if (rc == 1 || (rc == 0 && !m->from_file)) {
        rc = pp_model_build_fits(m);
        if (rc == 0) /* energy, power and duration made consistent */
            rc = pp_model_derive(m);
        if (rc == 0)
            rc = pp_model_calibrate_bands(m);
        if (rc == 0)
            rc = pp_model_pool_bands(m);
        if (!m->opts.keep_held)
            pp_model_fits_release(m);
    }
    if (rc == 0)
        rc = pp_model_value_ranges(m);
    if (rc < 0)
        pp_model_free(m);
    return rc;
}

