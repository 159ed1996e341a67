/* adaptive_profile.c - an adaptive profile, its options and its wiring
 * (adaptive_profile.h). */
#include "adaptive_profile.h"
#include "adaptive_model.h"

#include "src/base/log.h"
#include "adaptive_live.h"
#include "adaptive_design.h"
#include "adaptive_run.h"

#include <errno.h>
#include <string.h>

void pp_adaptive_options_of(const pp_profile *p, const pp_adaptive_request *rq, int resume,
                            pp_adaptive_options *o)
{
    const pp_profile_adaptive *g = &p->adaptive;
    static const pp_adaptive_request none;

    if (!rq)
        rq = &none;
    pp_adaptive_options_init(o);
    if (g->given) {
        o->target_error_pct = g->target_error_pct >= 0 ? g->target_error_pct : o->target_error_pct;
        o->budget_s = g->budget_s >= 0 ? g->budget_s : o->budget_s;
        o->max_configs = g->max_configs >= 0 ? (size_t)g->max_configs : o->max_configs;
        o->seed = g->seed >= 0 ? (uint64_t)g->seed : o->seed;
        o->batch = g->batch > 0 ? (size_t)g->batch : o->batch;
    }
    o->target_error_pct = rq->given[0] ? rq->o.target_error_pct : o->target_error_pct;
    o->budget_s = rq->given[1] ? rq->o.budget_s : o->budget_s;
    o->max_configs = rq->given[2] ? rq->o.max_configs : o->max_configs;
    o->seed = rq->given[3] ? rq->o.seed : o->seed;
    o->batch = rq->given[4] ? rq->o.batch : o->batch;
    o->resume = resume;
}

/* Count the rows of dir's summary.csv (a resumed adaptive run's earlier
 * rounds), whatever their status. */
static int count_row(void *ctx, const pp_summary_row *row)
{
    (void)row;
    (*(uint64_t *)ctx)++;
    return 0;
}

static uint64_t rows_in(const char *dir)
{
    pp_summary s;
    uint64_t n = 0;

    if (pp_summary_read_each(dir, 0, &s, count_row, &n) == 0)
        pp_summary_free(&s);
    return n;
}

int pp_adaptive_profile(const pp_profile *p, const pp_sweep_options *so,
                        const pp_adaptive_options *o,
                        void (*progress)(void *ctx, const pp_adaptive_progress *pr), void *ctx,
                        pp_sweep_stats *st, pp_adaptive_result *res)
{
    pp_adaptive_space s;
    pp_adaptive_live lv;
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_oracle orc;
    uint64_t before;
    int rc;

    memset(st, 0, sizeof *st);
    if (so->shard.n > 1) {
        pp_log_error("--adaptive chooses from the whole grid: not with --shard");
        return -EINVAL;
    }
    before = so->resume ? rows_in(so->out_dir) : 0; /* a resume: the rounds before */
    if ((rc = pp_adaptive_live_space(p, &s)) < 0)
        return rc;
    if ((rc = pp_adaptive_live_init(&lv, p, so)) == 0) {
        pp_adaptive_model_predictor(&am, &pr);
        orc = (pp_adaptive_oracle){&lv, pp_adaptive_live_measure, pp_adaptive_live_saturated};
        rc = pp_adaptive_run(&s, o, &pr, &orc, so->out_dir, progress, ctx, so->interrupt, res);
        /* counted as the outcome says them: run now, already in the folder,
         * of the two together, or of the grid when interrupted (5 of the
         * grid's 40 saved, not "5 of 5") */
        *st = lv.total;
        st->skipped = before;
        st->total = rc == -EINTR && res->n_candidates ? res->n_candidates : st->ran + before;
        pp_adaptive_model_free(&am);
    }
    pp_adaptive_live_free(&lv);
    pp_adaptive_space_free(&s);
    return rc;
}
