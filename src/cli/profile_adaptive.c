/* profile_adaptive.c - powprof profile --adaptive (profile_adaptive.h). */
#include "profile_adaptive.h"

#include "cli.h"

#include "src/base/duration.h"
#include "src/base/util.h"
#include "src/adaptive/adaptive_profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const option_names[] = {"--target-error", "--budget-s", "--max-configs",
                                           "--seed", "--batch"};

/* A percentage: 5, 5.5 or 5%. 0 or -EINVAL. */
static int parse_percent(const char *arg, double *v)
{
    if (pp_parse_fraction(arg, v) < 0)
        return -EINVAL;
    if (strchr(arg, '%'))
        *v *= 100; /* "5%" is 0.05 as a fraction */
    return 0;
}

int pp_cli_adaptive_option(const pp_opt *row, const char *arg, const char *cmd)
{
    pp_cli_adaptive *ad = row->value;
    int i = 0;
    double v;
    int64_t n;

    while (i < 4 && strcmp(option_names[i] + 2, row->long_name) != 0)
        i++;
    if (i == 0 ? parse_percent(arg, &v) < 0 || !(v >= 0 && v <= 1e6)
        : i == 1 ? pp_parse_duration_s(arg, &v) < 0 || !(v >= 0 && v < 1e12)
                 : pp_parse_int64(arg, &n) < 0 || n < (i == 4) || n > 100000000) {
        fprintf(stderr, "powprof %s: %s %s: %s\n", cmd, option_names[i], arg,
                i == 0   ? "a percentage from 0 to 1e6 (5 or 5%; 0: no target)"
                : i == 1 ? "seconds from 0 to 1e12, or a duration (90, 10min, 1h30m; 0: no "
                           "budget)"
                : i == 4 ? "a whole number from 1 to 1e8"
                         : "a whole number from 0 to 1e8");
        return -1;
    }
    if (i == 0)
        ad->rq.o.target_error_pct = v;
    else if (i == 1)
        ad->rq.o.budget_s = v;
    else if (i == 2)
        ad->rq.o.max_configs = (size_t)n;
    else if (i == 3)
        ad->rq.o.seed = (uint64_t)n;
    else
        ad->rq.o.batch = (size_t)n;
    ad->rq.given[i] = ad->rq.on = 1;
    if (pp_strlcpy(ad->text[i], arg, sizeof ad->text[i]) == 0)
        return 0;
    fprintf(stderr, "powprof %s: %s %s: at most %zu characters\n", cmd, option_names[i], arg,
            sizeof ad->text[i] - 1);
    return -1;
}

int pp_cli_adaptive_argv(const pp_cli_adaptive *ad, const char **argv, int n)
{
    if (!ad || !ad->rq.on)
        return n;
    argv[n++] = "--adaptive";
    for (int i = 0; i < PP_ADAPTIVE_GIVEN_N; i++)
        if (ad->rq.given[i]) {
            argv[n++] = option_names[i];
            argv[n++] = ad->text[i];
        }
    return n;
}

/* A percentage, or "unknown". */
static const char *pct_text(double v, char *buf, size_t cap)
{
    return isfinite(v) ? pp_text(buf, cap, "%.2f %%", v) : "unknown";
}

/* What holds the target stop back, in words. */
static const char *hold_words(pp_adaptive_hold h)
{
    switch (h) {
    case PP_HOLD_ERROR:
        return "above the target";
    case PP_HOLD_DESIGN:
        return "held: a parameter with fewer than 3 values measured, or an end of its range "
               "not measured";
    case PP_HOLD_BANDS:
        return "held: the bands imply far more error";
    case PP_HOLD_CEILING:
        return "held: rows at the power estimate's ceiling";
    case PP_HOLD_ONE_ROUND:
        return "met: a second round must confirm it";
    default:
        return "met";
    }
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
    if (p->claim && used < sizeof line) {
        char claim[32];
        used += (size_t)snprintf(line + used, sizeof line - used, "; claim %s (%s)",
                                 pct_text(p->claim->claim_pct, claim, sizeof claim),
                                 hold_words(p->claim->hold));
    }
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
    case PP_STOP_NOISE:
        return "the target is below the noise of the measurements: stopped at a multiple of "
               "their noise floor";
    default:
        return "interrupted";
    }
}

static void show_end(const pp_adaptive_result *r, const char *dir)
{
    char target[64] = "no target";

    if (r->target_error_pct > 0)
        pp_text(target, sizeof target, "target %g %%", r->target_error_pct);
    printf("adaptive: stopped: %s (%s): %zu of %zu configurations in %zu rounds, %.1f s "
           "measured; results in %s\n", stop_words(r->stop), target, r->n_chosen,
           r->n_candidates, r->rounds, r->fit.measured_s, dir);
    for (size_t k = 0; k < r->fit.n_metrics; k++) { /* named as powprof model names it */
        char e[32], hi[32], left[32], noise[32];
        printf("  %-28s error between levels %s, on the configurations left %s, claimed (90 %% "
               "bound) %s, noise floor %s\n",
               r->fit.metrics[k], pct_text(r->fit.error_pct[k], e, sizeof e),
               pct_text(r->fit.error_left_pct[k], left, sizeof left),
               pct_text(r->fit.error_hi_pct[k], hi, sizeof hi),
               pct_text(r->fit.noise_pct[k], noise, sizeof noise));
    }
    if (r->target_error_pct > 0 && r->stop != PP_STOP_TARGET && r->stop != PP_STOP_NOISE)
        printf("  the target was not claimed: %s\n", hold_words(r->claim.hold));
    if (isnan(r->full_grid_s))
        printf("  the full grid's cost cannot be predicted (labels never measured)\n");
    else
        printf("  the full grid would have cost about %.1f s (%.1f s predicted for the %zu not "
               "measured): %.0f %% of it was spent\n", r->full_grid_s, r->unmeasured_s,
               r->n_candidates - r->n_chosen,
               r->full_grid_s > 0 ? 100 * r->fit.measured_s / r->full_grid_s : 0.0);
}

int pp_cli_profile_sweep(const pp_profile *p, const pp_sweep_options *so, int json,
                         pp_cli_adaptive *ad, pp_sweep_stats *st)
{
    pp_adaptive_options o;
    int rc;

    if (!ad->rq.on && !p->adaptive.given)
        return pp_sweep_run(p, so, st);
    pp_adaptive_options_of(p, &ad->rq, so->resume, &o);
    rc = pp_adaptive_profile(p, so, &o, show_round, NULL, st, &ad->res);
    ad->ran = rc == 0;
    if (rc == 0 && !json)
        show_end(&ad->res, so->out_dir);
    return rc;
}

void pp_cli_adaptive_json(const pp_cli_adaptive *ad, json_t *root)
{
    const pp_adaptive_result *r = &ad->res;
    json_t *errors, *left;

    if (!ad->ran)
        return;
    errors = json_object();
    left = json_object();
    for (size_t k = 0; k < r->fit.n_metrics; k++) {
        json_object_set_new(errors, r->fit.metrics[k], pp_json_num(r->fit.error_pct[k]));
        json_object_set_new(left, r->fit.metrics[k], pp_json_num(r->fit.error_left_pct[k]));
    }
    json_object_set_new(
        root, "adaptive",
        json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "stop",
                  pp_adaptive_stop_name(r->stop), "configs", (json_int_t)r->n_chosen,
                  "grid_configs", (json_int_t)r->n_candidates, "rounds", (json_int_t)r->rounds,
                  "measured_s", pp_json_num(r->fit.measured_s), "full_grid_s",
                  pp_json_num(r->full_grid_s), "target_error_pct", pp_json_num(r->target_error_pct),
                  "error_pct", errors, "error_left_pct", left,
                  "unmeasured_predicted_s", pp_json_num(r->unmeasured_s),
                  "claim_pct", pp_json_num(r->claim.claim_pct), "held_by",
                  pp_adaptive_hold_name(r->claim.hold)));
}
