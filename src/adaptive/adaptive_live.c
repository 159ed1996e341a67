/* adaptive_live.c - an adaptive run of a profile on this machine: the
 * candidates are the profile's configurations, the oracle the sweep
 * (adaptive_live.h). */
#include "adaptive_live.h"
#include "adaptive_design.h"

#include "src/base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pp_adaptive_live_space(const pp_profile *p, pp_adaptive_space *s)
{
    uint64_t count = pp_profile_count(p);
    size_t np = pp_profile_n_params(p);
    int rc;

    memset(s, 0, sizeof *s);
    if (count > PP_ADAPTIVE_LIVE_MAX) {
        pp_log_error("%s: %llu configurations: an adaptive run takes at most %d", p->path,
                     (unsigned long long)count, PP_ADAPTIVE_LIVE_MAX);
        return -E2BIG;
    }
    if ((rc = pp_adaptive_space_init(s, np, (size_t)count)) < 0)
        return rc;
    for (size_t k = 0; k < np && rc == 0; k++) {
        const pp_param_spec *ps = pp_profile_param(p, k);
        pp_profile_param_name(p, k, s->names[k], sizeof s->names[k]);
        s->log_scale[k] = ps->kind == PP_RANGE_EXPONENTIAL;
        if (ps->kind == PP_RANGE_CATEGORICAL) {
            const char *labels[PP_PARAM_MAX_LABELS];
            for (size_t l = 0; l < ps->n_values && l < PP_PARAM_MAX_LABELS; l++)
                labels[l] = ps->labels[l];
            rc = pp_adaptive_space_set_labels(s, k, ps->n_values, labels);
        }
    }
    for (uint64_t id = 0; id < count && rc == 0; id++) {
        pp_profile_values(p, id, s->raw + id * np);
        s->ids[id] = id;
        s->prior_s[id] = pp_profile_estimate_s(p, s->raw + id * np);
    }
    if (rc == 0)
        rc = pp_adaptive_space_finish(s);
    if (rc < 0)
        pp_adaptive_space_free(s);
    return rc;
}

int pp_adaptive_live_init(pp_adaptive_live *lv, const pp_profile *p, const pp_sweep_options *so)
{
    memset(lv, 0, sizeof *lv);
    lv->p = p;
    lv->so = *so;
    lv->only = calloc(pp_profile_count(p) + 1, 1);
    return lv->only ? 0 : -ENOMEM;
}

void pp_adaptive_live_free(pp_adaptive_live *lv)
{
    free(lv->only);
    lv->only = NULL;
}

int pp_adaptive_live_measure(void *ctx, const pp_adaptive_space *s, const size_t *cands, size_t n,
                             const char *dir)
{
    pp_adaptive_live *lv = ctx;
    pp_sweep_stats st;
    int rc;

    memset(lv->only, 0, (size_t)pp_profile_count(lv->p));
    for (size_t i = 0; i < n; i++)
        lv->only[s->ids[cands[i]]] = 1;
    lv->so.only = lv->only;
    lv->so.out_dir = dir;
    rc = pp_sweep_run(lv->p, &lv->so, &st);
    lv->so.resume = 1; /* the next rounds add to the folder */
    lv->total.ran += st.ran;
    lv->total.ok += st.ok;
    lv->total.failed += st.failed;
    lv->total.saturated += st.saturated;
    lv->total.interrupted |= st.interrupted;
    if (st.stopped) {
        lv->total.stopped = 1;
        pp_text(lv->total.stop_reason, sizeof lv->total.stop_reason, "%s", st.stop_reason);
    }
    return rc;
}

uint64_t pp_adaptive_live_saturated(void *ctx)
{
    const pp_adaptive_live *lv = ctx;
    return lv->total.saturated;
}
