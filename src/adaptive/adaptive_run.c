/* adaptive_run.c - the rounds of an adaptive run: measure, refit, stop or
 * choose again (adaptive.h). */
#include "adaptive_run.h"
#include "adaptive_design.h"
#include "adaptive_state.h"

#include "src/base/log.h"
#include "src/results/folder.h"
#include "src/results/lock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A run as it goes. */
typedef struct run {
    const pp_adaptive_space *s;
    const pp_adaptive_options *o;
    const pp_adaptive_predictor *pr;
    const pp_adaptive_oracle *orc;
    const char *dir;
    pp_adaptive_state st;
    uint8_t *chosen;
    size_t n_chosen;
    pp_adaptive_fit fit;
    pp_adaptive_claim claim; /* the stop rule's view after the last refit */
} run;

static int add_pick(run *r, const pp_adaptive_pick *p, size_t round)
{
    int rc = pp_adaptive_state_add(&r->st, p, round);

    if (rc == 0 && !r->chosen[p->cand]) {
        r->chosen[p->cand] = 1;
        r->n_chosen++;
    }
    return rc;
}

/* Round `round`: the design (what is not measured yet), at most
 * max_configs of it. */
static int design_round(run *r, size_t round)
{
    size_t cap = r->o->max_configs ? r->o->max_configs : r->s->n, n;
    size_t *out = malloc((r->s->n + 1) * sizeof *out);
    pp_adaptive_why *why = malloc((r->s->n + 1) * sizeof *why);
    int rc = out && why ? 0 : -ENOMEM;

    cap = cap > r->n_chosen ? cap - r->n_chosen : 0;
    n = rc == 0 ? pp_adaptive_design(r->s, r->o->seed, out, why, cap + r->n_chosen) : 0;
    for (size_t i = 0; rc == 0 && i < n && cap > 0; i++) {
        if (r->chosen[out[i]])
            continue;
        cap--;
        pp_adaptive_pick p = {out[i], why[i], NAN, r->s->prior_s[out[i]] > 0
                                                       ? r->s->prior_s[out[i]] : NAN};
        rc = add_pick(r, &p, round);
    }
    free(out);
    free(why);
    return rc;
}

/* Measure the last round (the rows it has are skipped by the oracle), then
 * refit and record what is known after it. */
/* The surface of what dir holds, and the claim on the candidates left. */
static int refit_claim(run *r)
{
    int rc = r->pr->refit(r->pr->ctx, r->dir, &r->fit);

    if (rc == 0 && r->pr->claim)
        rc = r->pr->claim(r->pr->ctx, r->s, r->chosen, &r->fit);
    return rc;
}

static int measure_round(run *r)
{
    size_t round = r->st.n_rounds - 1, n = 0;
    size_t *cands = malloc((r->st.n_picks + 1) * sizeof *cands);
    int rc;

    if (!cands)
        return -ENOMEM;
    for (size_t i = 0; i < r->st.n_picks; i++)
        if (r->st.pick_round[i] == round)
            cands[n++] = r->st.picks[i].cand;
    if (mkdir(r->dir, 0755) < 0 && errno != EEXIST) {
        rc = -errno;
        pp_log_error("%s: cannot create the folder: %s", r->dir, strerror(errno));
    } else {
        rc = pp_adaptive_state_write(r->dir, r->s, r->o, &r->st, &r->fit, NULL);
    }
    if (rc == 0)
        rc = r->orc->measure(r->orc->ctx, r->s, cands, n, r->dir);
    free(cands);
    if (rc == 0)
        rc = refit_claim(r);
    if (rc == 0 && r->st.n_done < PP_ADAPTIVE_MAX_ROUNDS) {
        pp_adaptive_round *d = &r->st.done[round < PP_ADAPTIVE_MAX_ROUNDS ? round : 0];
        d->n_rows = r->fit.n_rows;
        d->measured_s = r->fit.measured_s;
        memcpy(d->error_pct, r->fit.error_pct, sizeof d->error_pct);
        memcpy(d->error_hi_pct, r->fit.error_hi_pct, sizeof d->error_hi_pct);
        r->st.n_done = round + 1;
    }
    return rc;
}

/* The rule that stops the run now, or PP_STOP_NONE. The target's claim
 * is checked after every refit (adaptive.c) and kept with the round. */
static pp_adaptive_stop stop_rule(run *r)
{
    const pp_adaptive_options *o = r->o;
    size_t streak = r->claim.streak;

    if (o->target_error_pct > 0) {
        uint64_t sat = r->orc->saturated ? r->orc->saturated(r->orc->ctx) : 0;
        pp_adaptive_stop stop = pp_adaptive_claim_check(r->s, r->pr, &r->fit, r->chosen,
                                                        o->target_error_pct, sat, streak,
                                                        &r->claim);
        if (r->st.n_done > 0 && r->st.n_done <= PP_ADAPTIVE_MAX_ROUNDS)
            r->st.done[r->st.n_done - 1].claim = r->claim;
        if (stop != PP_STOP_NONE)
            return stop;
    }
    if (r->n_chosen >= r->s->n)
        return PP_STOP_GRID;
    if (o->max_configs && r->n_chosen >= o->max_configs)
        return PP_STOP_MAX_CONFIGS;
    if (o->budget_s > 0 && r->fit.measured_s >= o->budget_s)
        return PP_STOP_BUDGET;
    return PP_STOP_NONE;
}

/* Round 1: the corners whose predicted cost is at most
 * PP_ADAPTIVE_CORNER_COST times the mean of the grid (all of them without
 * a cost model), that fit in left_s. Returns how many. */
static size_t corner_round(run *r, pp_adaptive_pick *picks, size_t cap, double left_s)
{
    size_t out[1 << PP_ADAPTIVE_MAX_CORNER_DIMS], n, kept = 0, m = 0;
    double cost[1 << PP_ADAPTIVE_MAX_CORNER_DIMS], sum = 0, v, lo, hi;

    n = pp_adaptive_corners(r->s, r->o->seed, r->chosen, out, cap < 16 ? cap : 16);
    for (size_t c = 0; r->fit.has_cost && c < r->s->n; c++)
        if (r->pr->predict(r->pr->ctx, r->s, c, r->fit.n_metrics, &v, &lo, &hi) == 0 && v > 0) {
            sum += fmax(v, r->s->prior_s[c]);
            m++;
        }
    for (size_t i = 0; i < n; i++) {
        cost[i] = NAN;
        if (r->fit.has_cost &&
            r->pr->predict(r->pr->ctx, r->s, out[i], r->fit.n_metrics, &v, &lo, &hi) == 0)
            cost[i] = fmax(v, r->s->prior_s[out[i]]);
        if ((m && cost[i] > PP_ADAPTIVE_CORNER_COST * sum / (double)m) || cost[i] > left_s)
            continue; /* left to the acquisition */
        picks[kept++] = (pp_adaptive_pick){out[i], PP_WHY_CORNER, NAN, cost[i]};
    }
    return kept;
}

/* 1 when the last round is the design's first (its centre): the corners
 * come next. */
static int after_design(const run *r)
{
    for (size_t i = 0; i < r->st.n_picks; i++)
        if (r->st.pick_round[i] + 1 == r->st.n_rounds && r->st.picks[i].why == PP_WHY_CENTRE)
            return 1;
    return 0;
}

/* The next round: 0, or 1 when nothing fits in the budget. */
static int next_round(run *r)
{
    const pp_adaptive_options *o = r->o;
    size_t cap = o->batch ? o->batch : 1, n;
    double left = o->budget_s > 0 ? o->budget_s - r->fit.measured_s : INFINITY;
    size_t cap_all = o->max_configs ? o->max_configs - r->n_chosen : r->s->n;
    pp_adaptive_pick *picks;
    int rc = 0;

    if (cap > cap_all)
        cap = cap_all;
    if (!(picks = malloc((cap + 16) * sizeof *picks)))
        return -ENOMEM;
    n = after_design(r) ? corner_round(r, picks, cap_all, left) : 0;
    if (n == 0)
        n = pp_adaptive_choose(r->s, r->pr, &r->fit, r->chosen, o->overhead_s, left, o->seed,
                               picks, cap);
    for (size_t i = 0, round = r->st.n_rounds; rc == 0 && i < n; i++)
        rc = add_pick(r, &picks[i], round);
    free(picks);
    return rc < 0 ? rc : n == 0;
}

/* The predicted seconds of the configurations not chosen (NAN when some
 * cannot be predicted). */
static double unmeasured_s(const run *r)
{
    double sum = 0, v, lo, hi;

    for (size_t c = 0; c < r->s->n; c++) {
        if (r->chosen[c])
            continue;
        if (!r->fit.has_cost ||
            r->pr->predict(r->pr->ctx, r->s, c, r->fit.n_metrics, &v, &lo, &hi) < 0)
            return NAN;
        sum += fmax(v, r->s->prior_s[c]);
    }
    return sum;
}

/* has[c] = 1 for every candidate with a row in summary.csv (any status: it
 * was measured). 0 or -errno. */
static int mark_rows(const run *r, uint8_t *has)
{
    char path[PP_PATH_MAX], *text, *line, *nl;
    int rc = pp_path_fmt(path, sizeof path, r->dir, "summary.csv");

    text = rc == 0 ? pp_read_file(path) : NULL;
    for (line = text ? strchr(text, '\n') : NULL; line && (nl = strchr(++line, '\n')); line = nl) {
        long c = pp_adaptive_space_find(r->s, strtoull(line, NULL, 10));
        if (c >= 0)
            has[c] = 1;
    }
    free(text);
    return rc;
}

/* Rows of summary.csv that no pick records, as picks of round `round`
 * (PP_WHY_RESUMED): how many, or -errno. */
static long adopt(run *r, const uint8_t *has, size_t round)
{
    long n = 0;
    int rc = 0;

    for (size_t c = 0; rc == 0 && c < r->s->n; c++)
        if (has[c] && !r->chosen[c]) {
            pp_adaptive_pick p = {c, PP_WHY_RESUMED, NAN, NAN};
            rc = add_pick(r, &p, round);
            n++;
        }
    return rc < 0 ? rc : n;
}

/* A folder resumed without adaptive.json (a plain sweep's, or one cut
 * before its first round was recorded): its rows are a round of their own. */
static int adopt_rows(run *r)
{
    uint8_t *has = calloc(r->s->n + 1, 1);
    long rc = has ? mark_rows(r, has) : -ENOMEM;

    rc = rc < 0 ? rc : adopt(r, has, 0);
    free(has);
    return rc < 0 ? (int)rc : 0;
}

/* On resume the rows are the truth and adaptive.json is checked against
 * them: a pick of a measured round without its row (removed, lost) is
 * measured again in a round of its own; a row the record lacks (a record
 * cut or emptied) joins that round as resumed. Both said. */
static int reconcile(run *r)
{
    uint8_t *has = calloc(r->s->n + 1, 1);
    /* into the round cut short when there is one (it is measured next),
     * else a round of their own */
    size_t again = 0, round = r->st.n_done < r->st.n_rounds ? r->st.n_rounds - 1 : r->st.n_rounds;
    long rc = has ? mark_rows(r, has) : -ENOMEM, adopted = 0;

    for (size_t i = 0; rc == 0 && i < r->st.n_picks; i++)
        if (r->st.pick_round[i] < r->st.n_done && !has[r->st.picks[i].cand]) {
            if (round >= PP_ADAPTIVE_MAX_ROUNDS)
                rc = -E2BIG;
            r->st.pick_round[i] = round;
            again++;
        }
    if (rc == 0 && again && round >= r->st.n_rounds)
        r->st.n_rounds = round + 1;
    if (rc == 0 && (adopted = adopt(r, has, round)) < 0)
        rc = adopted;
    if (rc == 0 && again)
        pp_log_warn("%s: %zu configurations that adaptive.json records as measured have no row "
                    "in summary.csv: measured again (the rows are the truth)", r->dir, again);
    if (rc == 0 && adopted)
        pp_log_warn("%s: %ld rows of summary.csv are not in adaptive.json: kept as measured "
                    "(resumed), and counted against --max-configs", r->dir, adopted);
    if (rc == -E2BIG)
        pp_log_error("%s/adaptive.json: more than %d rounds", r->dir, PP_ADAPTIVE_MAX_ROUNDS);
    free(has);
    return rc < 0 ? (int)rc : 0;
}

/* adaptive.json of dir, read back (resume) or refused (none without it). */
static int start(run *r)
{
    int rc = pp_adaptive_state_read(r->dir, r->s, &r->st);

    if (rc == 0 && !r->o->resume) {
        pp_log_error("%s/adaptive.json exists: an adaptive run was made there (continue it, "
                     "or measure into another folder)", r->dir);
        return -EEXIST;
    }
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < r->st.n_picks; i++)
        if (!r->chosen[r->st.picks[i].cand]) {
            r->chosen[r->st.picks[i].cand] = 1;
            r->n_chosen++;
        }
    if (rc == 1 && r->o->resume && (rc = adopt_rows(r)) < 0)
        return rc;
    if (rc == 0 && r->o->resume && (rc = reconcile(r)) < 0)
        return rc;
    if (r->st.n_rounds == 1 && r->st.picks[0].why == PP_WHY_RESUMED) /* then the design */
        return design_round(r, 1);
    if (r->st.n_rounds == 0)
        return design_round(r, 0);
    if (r->st.n_done == r->st.n_rounds) /* every round measured: the surface of them */
        return refit_claim(r);
    return 0;
}

static void finish(run *r, pp_adaptive_stop stop, pp_adaptive_result *res)
{
    res->stop = stop;
    res->rounds = r->st.n_rounds;
    res->n_chosen = r->n_chosen;
    res->n_candidates = r->s->n;
    res->fit = r->fit;
    res->claim = r->claim;
    res->target_error_pct = r->o->target_error_pct;
    res->unmeasured_s = unmeasured_s(r);
    res->full_grid_s = r->fit.measured_s + res->unmeasured_s;
}

int pp_adaptive_run(const pp_adaptive_space *s, const pp_adaptive_options *o,
                    const pp_adaptive_predictor *pr, const pp_adaptive_oracle *orc,
                    const char *dir, void (*progress)(void *ctx, const pp_adaptive_progress *p),
                    void *progress_ctx, const atomic_int *interrupt, pp_adaptive_result *res)
{
    run r = {s, o, pr, orc, dir, {0}, calloc(s->n, 1), 0, {0}, {0}};
    pp_adaptive_stop stop = PP_STOP_NONE;
    int rc = !r.chosen ? -ENOMEM : !dir ? 0 : pp_results_make_dirs(dir); /* one writer */
    int locked = rc == 0 && dir && (rc = pp_results_lock(dir)) == 0;

    rc = rc < 0 ? rc : start(&r);

    memset(res, 0, sizeof *res);
    while (rc == 0 && stop == PP_STOP_NONE) {
        if (r.st.n_done < r.st.n_rounds)
            rc = measure_round(&r);
        if (rc == -EINTR || (interrupt && atomic_load(interrupt)))
            stop = PP_STOP_INTERRUPTED;
        if (rc < 0)
            break;
        if (progress) {
            if (stop == PP_STOP_NONE)
                stop = stop_rule(&r);
            pp_adaptive_progress p = {r.st.n_done, r.n_chosen, s->n, &r.fit, o->budget_s,
                                      o->target_error_pct > 0 ? &r.claim : NULL};
            progress(progress_ctx, &p);
        } else if (stop == PP_STOP_NONE) {
            stop = stop_rule(&r);
        }
        if (stop == PP_STOP_NONE && (rc = next_round(&r)) == 1) {
            stop = r.n_chosen >= s->n ? PP_STOP_GRID : PP_STOP_BUDGET;
            rc = 0;
        }
    }
    finish(&r, stop, res);
    if (rc == 0 || rc == -EINTR) {
        int wrc = pp_adaptive_state_write(dir, s, o, &r.st, &r.fit,
                                          stop == PP_STOP_INTERRUPTED ? NULL : res);
        rc = rc < 0 ? rc : wrc;
    }
    if (rc == 0 && stop == PP_STOP_INTERRUPTED)
        rc = -EINTR;
    pp_adaptive_state_free(&r.st);
    free(r.chosen);
    if (locked)
        pp_results_unlock(dir);
    return rc;
}
