/* profile_adaptive.c - powprof profile --adaptive (profile_adaptive.h). */
#include "profile_adaptive.h"

#include "cli.h"

#include "src/base/util.h"
#include "src/plan/adaptive_model.h"
#include "src/sweep/adaptive_live.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const option_names[] = {"--target-error", "--budget-s", "--max-configs",
                                           "--seed", "--batch"};

/* What the command line asked (one command per process). */
static struct {
    int on;
    int given[5];          /* target, budget, max, seed, batch */
    pp_adaptive_options o; /* their values (given[] says which) */
    char text[5][32];      /* as given, for the resume command */
    int ran;               /* res is set */
    pp_adaptive_result res;
} g_ad;

int pp_cli_adaptive_option(int opt, const char *arg)
{
    int i = opt - PP_OPT_TARGET_ERROR;
    double v;
    int64_t n;

    if (opt == PP_OPT_ADAPTIVE)
        return g_ad.on = 1;
    if (i < 0 || i > 4) {
        fputs("Try 'powprof profile --help'.\n", stderr);
        return -1;
    }
    if (i < 2 ? pp_parse_double(arg, &v) < 0 || !(v >= 0 && v < 1e12)
              : pp_parse_int64(arg, &n) < 0 || n < (i == 4) || n > 100000000) {
        fprintf(stderr, "powprof profile: %s %s: %s\n", option_names[i], arg,
                i == 0   ? "a percentage >= 0 (0: no target)"
                : i == 1 ? "seconds >= 0 (0: no budget)"
                : i == 4 ? "a whole number from 1"
                         : "a whole number >= 0");
        return -1;
    }
    if (i == 0)
        g_ad.o.target_error_pct = v;
    else if (i == 1)
        g_ad.o.budget_s = v;
    else if (i == 2)
        g_ad.o.max_configs = (size_t)n;
    else if (i == 3)
        g_ad.o.seed = (uint64_t)n;
    else
        g_ad.o.batch = (size_t)n;
    g_ad.given[i] = g_ad.on = 1;
    pp_strlcpy(g_ad.text[i], arg, sizeof g_ad.text[i]);
    return 1;
}

int pp_cli_adaptive_argv(const char **argv, int n)
{
    if (!g_ad.on)
        return n;
    argv[n++] = "--adaptive";
    for (int i = 0; i < 5; i++)
        if (g_ad.given[i]) {
            argv[n++] = option_names[i];
            argv[n++] = g_ad.text[i];
        }
    return n;
}

/* The options: defaults, then the profile's group, then the command line. */
static void options_of(const pp_profile *p, int resume, pp_adaptive_options *o)
{
    const pp_profile_adaptive *g = &p->adaptive;

    pp_adaptive_options_init(o);
    if (g->given) {
        o->target_error_pct = g->target_error_pct >= 0 ? g->target_error_pct : o->target_error_pct;
        o->budget_s = g->budget_s >= 0 ? g->budget_s : o->budget_s;
        o->max_configs = g->max_configs >= 0 ? (size_t)g->max_configs : o->max_configs;
        o->seed = g->seed >= 0 ? (uint64_t)g->seed : o->seed;
        o->batch = g->batch > 0 ? (size_t)g->batch : o->batch;
    }
    o->target_error_pct = g_ad.given[0] ? g_ad.o.target_error_pct : o->target_error_pct;
    o->budget_s = g_ad.given[1] ? g_ad.o.budget_s : o->budget_s;
    o->max_configs = g_ad.given[2] ? g_ad.o.max_configs : o->max_configs;
    o->seed = g_ad.given[3] ? g_ad.o.seed : o->seed;
    o->batch = g_ad.given[4] ? g_ad.o.batch : o->batch;
    o->resume = resume;
}

/* The progress line of a round: its errors, the budget used. */
static void show_round(void *ctx, const pp_adaptive_progress *p)
{
    const pp_adaptive_fit *f = p->fit;
    char line[2048];
    size_t used = 0;

    (void)ctx;
    used += (size_t)snprintf(line + used, sizeof line - used,
                             "powprof: adaptive round %zu: %zu of %zu configurations, %.1f s "
                             "measured", p->round, p->n_chosen, p->n_candidates, f->measured_s);
    if (p->budget_s > 0 && used < sizeof line)
        used += (size_t)snprintf(line + used, sizeof line - used, " of %.1f s budget (%.0f %%)",
                                 p->budget_s, 100 * f->measured_s / p->budget_s);
    for (size_t k = 0; k < f->n_metrics && used < sizeof line; k++)
        used += (size_t)snprintf(line + used, sizeof line - used,
                                 isnan(f->error_pct[k]) ? "%s %s -" : "%s %s %.1f %%",
                                 k ? "," : "; error", f->metrics[k], f->error_pct[k]);
    fprintf(stderr, "%s%s\n", isatty(2) ? "\r\033[K" : "", line); /* over a progress bar */
}

static const char *stop_words(pp_adaptive_stop s)
{
    switch (s) {
    case PP_STOP_TARGET:
        return "the target error was reached";
    case PP_STOP_BUDGET:
        return "the budget is spent (nothing left fits in it)";
    case PP_STOP_MAX_CONFIGS:
        return "--max-configs configurations were measured";
    case PP_STOP_GRID:
        return "every configuration was measured";
    default:
        return "interrupted";
    }
}

static void show_end(const pp_adaptive_result *r, const char *dir)
{
    char target[64] = "no target";

    if (r->target_error_pct > 0)
        pp_fmt(target, sizeof target, "target %g %%", r->target_error_pct);
    printf("adaptive: stopped: %s (%s): %zu of %zu configurations in %zu rounds, %.1f s "
           "measured; results in %s\n", stop_words(r->stop), target, r->n_chosen,
           r->n_candidates, r->rounds, r->fit.measured_s, dir);
    for (size_t k = 0; k < r->fit.n_metrics; k++) /* named as powprof model names it */
        printf("  %-28s error between levels %.2f %%\n", r->fit.metrics[k], r->fit.error_pct[k]);
    if (isnan(r->full_grid_s))
        printf("  the full grid's cost cannot be predicted (labels never measured)\n");
    else
        printf("  the full grid would have cost about %.1f s (%.1f s predicted for the %zu not "
               "measured): %.0f %% of it was spent\n", r->full_grid_s, r->unmeasured_s,
               r->n_candidates - r->n_chosen,
               r->full_grid_s > 0 ? 100 * r->fit.measured_s / r->full_grid_s : 0.0);
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

/* The sweep's counts as the outcome says them: run now, already in the
 * folder before (a resume), and of how many: those two, or the grid when
 * interrupted (5 of the grid's 40 saved, not "5 of 5"). */
static void adaptive_counts(const pp_adaptive_live *lv, const pp_adaptive_result *res, int rc,
                            uint64_t before, pp_sweep_stats *st)
{
    *st = lv->total;
    st->skipped = before;
    st->total = rc == -EINTR && res->n_candidates ? res->n_candidates : st->ran + before;
}

int pp_cli_profile_sweep(const pp_profile *p, const pp_sweep_options *so, int json,
                         pp_sweep_stats *st)
{
    pp_adaptive_space s;
    pp_adaptive_live lv;
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_oracle orc;
    pp_adaptive_options o;
    uint64_t before;
    int rc;

    if (!g_ad.on && !p->adaptive.given)
        return pp_sweep_run(p, so, st);
    memset(st, 0, sizeof *st);
    if (so->shard.n > 1) {
        fprintf(stderr, "powprof profile: --adaptive chooses from the whole grid: not with "
                        "--shard\n");
        return -EINVAL;
    }
    options_of(p, so->resume, &o);
    before = so->resume ? rows_in(so->out_dir) : 0;
    if ((rc = pp_adaptive_live_space(p, &s)) < 0)
        return rc;
    if ((rc = pp_adaptive_live_init(&lv, p, so)) == 0) {
        pp_adaptive_model_predictor(&am, &pr);
        orc = (pp_adaptive_oracle){&lv, pp_adaptive_live_measure};
        rc = pp_adaptive_run(&s, &o, &pr, &orc, so->out_dir, show_round, NULL, so->interrupt,
                             &g_ad.res);
        g_ad.ran = rc == 0;
        adaptive_counts(&lv, &g_ad.res, rc, before, st);
        pp_adaptive_model_free(&am);
    }
    if (rc == 0 && !json)
        show_end(&g_ad.res, so->out_dir);
    pp_adaptive_live_free(&lv);
    pp_adaptive_space_free(&s);
    return rc;
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void pp_cli_adaptive_json(json_t *root)
{
    const pp_adaptive_result *r = &g_ad.res;
    json_t *errors;

    if (!g_ad.ran)
        return;
    errors = json_object();
    for (size_t k = 0; k < r->fit.n_metrics; k++)
        json_object_set_new(errors, r->fit.metrics[k], num(r->fit.error_pct[k]));
    json_object_set_new(
        root, "adaptive",
        json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "stop",
                  pp_adaptive_stop_name(r->stop), "configs", (json_int_t)r->n_chosen,
                  "grid_configs", (json_int_t)r->n_candidates, "rounds", (json_int_t)r->rounds,
                  "measured_s", num(r->fit.measured_s), "full_grid_s", num(r->full_grid_s),
                  "target_error_pct", num(r->target_error_pct), "error_pct", errors,
                  "unmeasured_predicted_s", num(r->unmeasured_s)));
}
