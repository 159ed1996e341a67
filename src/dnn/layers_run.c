/* layers_run.c - `powprof layers profile` as library calls
 * (layers_profile.h): the networks read and named before anything runs,
 * then every network at every size profiled, the idle power first, the
 * results kept under the folder as they come. */
#include "layers_profile.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int pp_layers_check_cfgs(int n, char *const *names, char (*paths)[PP_PATH_MAX])
{
    for (int i = 0; i < n; i++) {
        pp_network_desc *d = malloc(sizeof *d);
        int rc = d ? pp_layers_resolve_cfg(names[i], paths[i], sizeof paths[i]) : -ENOMEM;
        if (rc == 0)
            rc = pp_layers_describe_file(paths[i], 0, 0, d);
        if (rc == 0 && !pp_layers_name_ok(d->name)) {
            pp_log_error("%s: the network's name '%s' must be letters, digits and _ . - + (it "
                         "goes into CSV cells): rename the file", paths[i], d->name);
            rc = -EINVAL;
        }
        free(d);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int write_checkpoint(const pp_layers_result *r, size_t n, void *ctx)
{
    return pp_layers_write(ctx, r, n);
}

void pp_layers_results_free(pp_layers_result *res, size_t n)
{
    for (size_t k = 0; res && k < n; k++)
        pp_layers_result_free(&res[k]);
    free(res);
}

int pp_layers_run(const pp_layers_run_request *rq, int n_cfgs, char (*paths)[PP_PATH_MAX],
                  pp_device *dev, pp_layers_result **out, size_t *n_out)
{
    size_t n_sizes = rq->n_sizes ? (size_t)rq->n_sizes : PP_LAYERS_DEFAULT_SIZES, n = 0;
    pp_layers_job *jobs = calloc((size_t)n_cfgs * n_sizes, sizeof *jobs);
    pp_layers_result *res = calloc((size_t)n_cfgs * n_sizes, sizeof *res);
    const pp_layer_timer_ops *ops;
    double idle_w = NAN;
    int rc = jobs && res ? pp_layer_timer_load(&ops) : -ENOMEM;

    if (rc == 0 && rq->idle_s > 0)
        rc = pp_layers_idle_power(dev, rq->opts->rate_hz, rq->idle_s, &idle_w);
    for (int c = 0; c < n_cfgs && rc == 0; c++)
        if ((rc = pp_layers_jobs_of(paths[c], rq->n_sizes, rq->w, rq->h, jobs + n)) > 0)
            n += (size_t)rc, rc = 0;
    if (rc == 0)
        rc = pp_layers_profile(ops, dev, jobs, n, rq->opts, write_checkpoint,
                               (void *)rq->out_dir, res);
    for (size_t k = 0; k < n && rc == 0; k++)
        res[k].idle_w = idle_w;
    if (rc == 0)
        rc = pp_layers_write(rq->out_dir, res, n);
    free(jobs);
    *out = res;
    *n_out = n;
    return rc;
}
