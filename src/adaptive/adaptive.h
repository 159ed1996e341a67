/* adaptive.h - adaptive profiling: measure only the configurations the
 * surface needs (issue 21).
 *
 * The candidates are the sweep's own grid (a pp_adaptive_space: every
 * configuration of a profile, or every configuration of a results folder
 * measured once, for replay). The run:
 *
 *  1. a space-filling design on the grid, in two rounds: first the centre,
 *     every categorical label, and maximin points inside the grid (one
 *     fewer than the varying numeric parameters); then the corners of the
 *     numeric parameters that vary (at most 16, chosen by the seed above
 *     that), each snapped to the nearest configuration of the grid, but
 *     only those whose duration, predicted from the first round, is at
 *     most twice the grid's mean: a costly corner (the largest matrix
 *     size) is left to the acquisition, which takes it when its band is
 *     worth its seconds (the surface extrapolates to it meanwhile);
 *  2. rounds: the surface is refitted on what was measured, and the next
 *     configurations are those whose planning metrics the surface is least
 *     sure of per predicted second of measurement. The uncertainty of a
 *     candidate is, over the planning metrics, the largest of
 *       half the width of its band, in log units (ln(hi / lo) / 2), plus
 *       the change of the surface between it and its nearest measured
 *       configuration (|ln value - ln value_nearest|),
 *     (so only the value and the band of a prediction are used: today's
 *     bands, constant inside the measured range, still rank candidates by
 *     the second term, and bands that widen between measured levels rank
 *     them by both). The cost is the predicted duration (the surface of
 *     duration_s, at least the profile's lower bound) plus overhead_s. A
 *     round takes batch configurations: after each pick the scores of its
 *     neighbours are damped (1 - exp(-d^2 / rho^2), rho 1.5 grid steps), so
 *     that a round spreads. Candidates whose labels were never measured
 *     together cannot be predicted: they come first, cheapest first.
 *  3. it stops at the first of: the target (below); budget_s measurement
 *     seconds spent, or no candidate left whose predicted cost fits in
 *     what is left of it; max_configs measured; the grid measured whole.
 *
 * The target stop must earn its claim (issue 31). The claim is, per
 * planning metric, a one-sided 90 % upper bound (the mean + t(0.9, f - 1)
 * sd / sqrt(f) over f folds) of the larger of its nested cross-validated
 * errors between measured levels and at them, as `powprof model` reports
 * them, weighted over the groups of labels by their configurations
 * (unknown with fewer than 2 folds: adaptive_model.h). It stops when, for two
 * successive rounds, every claim is at or below the target and
 *   - every varying parameter has at least min(3, its values) measured
 *     values (so that a whole value can be left out: PP_ADAPTIVE_MIN_VALUES),
 *     a numeric one its least and largest value of the grid among them
 *     (the claim says nothing of an extrapolation);
 *   - no claim is far below what the bands imply: the median, over the
 *     configurations not measured, of the error a 90 % band of that
 *     half-width implies for a normal error (0.49 x the relative
 *     half-width) is at most PP_ADAPTIVE_BAND_FACTOR times the claim;
 *   - no measured configuration's power estimate sat at its ceiling (the
 *     oracle's saturated(): a procstat estimate with every core busy
 *     measured the machine's load, and a flat surface of it predicts
 *     itself well).
 * A noise floor is estimated from the data (adaptive_model.h): when the
 * target is below PP_ADAPTIVE_NOISE_FACTOR times a metric's floor measured
 * on repeats (configurations measured more than once: --repeats), that
 * multiple is pursued instead, and a stop on it is PP_STOP_NOISE (said as
 * such: the target cannot be met on these measurements). Without repeats
 * the floor from the grid's lines is reported but not relied on: on
 * sparse designs it mixes the noise with the surface's curvature.
 *
 * Everything is deterministic given the seed (ties go by a permutation of
 * the candidates drawn from it) and the measurements.
 *
 * The surface and the measurements come through two interfaces, so that
 * this file depends on neither layer 2 nor a device: a predictor (refit on
 * a results folder, predict value/lo/hi of a metric at a candidate) and an
 * oracle (measure candidates into the folder: a live sweep,
 * adaptive_live.c, or recorded rows, tests/replay_oracle.h).
 *
 * RESULTS/adaptive.json (rewritten atomically before each round is
 * measured and after the stop) records the options, every round (the
 * configurations chosen, why, their score and predicted seconds, the
 * errors after it) and why the run stopped; summary.csv is untouched: its
 * rows are ordinary rows. --resume reads it back: the round that was being
 * measured is measured again (the sweep skips the rows it has), then the
 * rounds go on.
 *
 * Library code: nothing here prints; errors are logged and returned as
 * -errno.
 */
#ifndef PP_ADAPTIVE_H
#define PP_ADAPTIVE_H

#include "src/base/util.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PP_ADAPTIVE_MAX_PARAMS 16
#define PP_ADAPTIVE_MAX_METRICS 8
#define PP_ADAPTIVE_NAME_MAX 160
#define PP_ADAPTIVE_MAX_CORNER_DIMS 4 /* 2^4 corners at most */
#define PP_ADAPTIVE_MAX_ROUNDS 4096

/* The candidates: every configuration of the grid. */
typedef struct pp_adaptive_space {
    size_t n_params, n;
    char names[PP_ADAPTIVE_MAX_PARAMS][PP_ADAPTIVE_NAME_MAX];
    int categorical[PP_ADAPTIVE_MAX_PARAMS];
    int log_scale[PP_ADAPTIVE_MAX_PARAMS];
    size_t n_labels[PP_ADAPTIVE_MAX_PARAMS];
    char (*labels[PP_ADAPTIVE_MAX_PARAMS])[PP_LABEL_MAX];
    double *raw;       /* n x n_params: numbers, or a categorical label's index */
    uint64_t *ids;     /* n: the configuration's id (profile or summary.csv) */
    double *prior_s;   /* n: a lower bound of its duration known before measuring (0: none) */
    /* set by pp_adaptive_space_finish: */
    double *xn;        /* n x n_params: numeric values normalized to [0, 1] over the grid
                          (log10 first on a log scale); 0 for categorical and fixed ones */
    size_t *group;     /* n: index of its combination of labels */
    size_t n_groups;
    size_t levels[PP_ADAPTIVE_MAX_PARAMS]; /* distinct values per parameter */
    double rho;        /* damping radius of a round's picks (normalized units) */
} pp_adaptive_space;

/* Why a configuration was chosen. */
typedef enum pp_adaptive_why {
    PP_WHY_CORNER = 1,
    PP_WHY_CENTRE,
    PP_WHY_LABEL,
    PP_WHY_MAXIMIN,
    PP_WHY_UNSEEN,   /* its labels were never measured together */
    PP_WHY_BAND,     /* the acquisition: uncertainty per predicted second */
    PP_WHY_RESUMED,  /* measured before adaptive.json knew it (a plain folder resumed) */
} pp_adaptive_why;

#define PP_ADAPTIVE_CORNER_COST 2.0 /* a corner at most this times the mean duration */

/* What a refit says of the measured folder. Metrics 0 .. n_metrics-1 are
 * the planning metrics; metric n_metrics is duration_s when has_cost. */
typedef struct pp_adaptive_fit {
    size_t n_metrics;
    char metrics[PP_ADAPTIVE_MAX_METRICS][PP_ADAPTIVE_NAME_MAX];
    double error_pct[PP_ADAPTIVE_MAX_METRICS]; /* nested CV error (NAN: not known yet) */
    double error_hi_pct[PP_ADAPTIVE_MAX_METRICS]; /* the claim: the larger of its 90 %
                                                     bound and the 90 % quantile of the
                                                     error left (adaptive_claim.h; NAN:
                                                     unknown, too few folds) */
    double error_left_pct[PP_ADAPTIVE_MAX_METRICS]; /* the estimate the claim bounds, on the
                                                       candidates not chosen (NAN: none) */
    double noise_pct[PP_ADAPTIVE_MAX_METRICS];    /* the data's noise floor as a MAPE
                                                     (NAN: no estimate), reported */
    double noise_repeats_pct[PP_ADAPTIVE_MAX_METRICS]; /* the same from repeats alone: the
                                                          floor the stop relies on */
    int has_cost;
    size_t n_rows;       /* measured configurations (status ok) */
    double measured_s;   /* the sum of their duration_s */
} pp_adaptive_fit;

typedef struct pp_adaptive_predictor {
    void *ctx;
    /* Rebuild the surface from dir's summary.csv. 0 or -errno (logged). */
    int (*refit)(void *ctx, const char *dir, pp_adaptive_fit *fit);
    /* Metric k (see pp_adaptive_fit) at candidate c: value, lo, hi (lo, hi
     * NAN without a band). 0, -ENOENT (its labels were never measured
     * together) or -EINVAL (no model of that metric there). */
    int (*predict)(void *ctx, const pp_adaptive_space *s, size_t c, size_t k, double *value,
                   double *lo, double *hi);
    /* After each refit (NULL: the refit's bound stands): each planning
     * metric's claim on the candidates not chosen into fit->error_hi_pct
     * (adaptive_model.c: the larger of the two bounds), and the estimate on
     * them into fit->error_left_pct (left NAN where none can be made). 0
     * or -ENOMEM. */
    int (*claim)(void *ctx, const pp_adaptive_space *s, const uint8_t *chosen,
                 pp_adaptive_fit *fit);
} pp_adaptive_predictor;

typedef struct pp_adaptive_oracle {
    void *ctx;
    /* Measure candidates cands[0 .. n) into dir (rows appended to
     * dir/summary.csv; those it has already are skipped). 0, -EINTR
     * (interrupted: what finished is kept) or -errno (logged). */
    int (*measure)(void *ctx, const pp_adaptive_space *s, const size_t *cands, size_t n,
                   const char *dir);
    /* The configurations measured so far whose power estimate sat at its
     * ceiling (NULL: the oracle cannot know, recorded rows). */
    uint64_t (*saturated)(void *ctx);
} pp_adaptive_oracle;

typedef struct pp_adaptive_options {
    double target_error_pct; /* default 5; <= 0: no target */
    double budget_s;         /* measurement seconds; 0: none */
    size_t max_configs;      /* 0: none */
    uint64_t seed;           /* default 1 */
    size_t batch;            /* configurations per round; default 2 */
    double overhead_s;       /* added to each predicted duration; default 0.5 */
    int resume;              /* continue dir's adaptive run */
} pp_adaptive_options;

void pp_adaptive_options_init(pp_adaptive_options *o);

/* One pick of a round. */
typedef struct pp_adaptive_pick {
    size_t cand;
    pp_adaptive_why why;
    double score;       /* uncertainty per second (NAN in the design) */
    double predicted_s; /* its predicted cost (NAN when unknown) */
} pp_adaptive_pick;

/* The next picks: up to cap of the candidates not chosen[], each with a
 * predicted cost at most budget_left_s (INFINITY: no budget). f is the
 * predictor's last refit. Returns how many (0: nothing left that fits). */
size_t pp_adaptive_choose(const pp_adaptive_space *s, const pp_adaptive_predictor *pr,
                          const pp_adaptive_fit *f, const uint8_t *chosen, double overhead_s,
                          double budget_left_s, uint64_t seed, pp_adaptive_pick *out, size_t cap);

typedef enum pp_adaptive_stop {
    PP_STOP_NONE = 0,
    PP_STOP_TARGET,
    PP_STOP_BUDGET,
    PP_STOP_MAX_CONFIGS,
    PP_STOP_GRID,        /* every configuration measured */
    PP_STOP_INTERRUPTED,
    PP_STOP_NOISE,       /* the target is below the data's noise floor: stopped on it */
} pp_adaptive_stop;

#define PP_ADAPTIVE_MIN_VALUES 3     /* measured values per varying parameter */
#define PP_ADAPTIVE_BAND_FACTOR 3.0  /* the bands may imply at most this times the claim */
#define PP_ADAPTIVE_NOISE_FACTOR 1.5 /* no target below this times the noise floor */
#define PP_ADAPTIVE_TARGET_ROUNDS 2  /* successive rounds the claim must hold */

/* Why the target stop was held back after a round (0: it was not). */
typedef enum pp_adaptive_hold {
    PP_HOLD_NONE = 0,
    PP_HOLD_ERROR,       /* a claim above the target, or unknown */
    PP_HOLD_DESIGN,      /* a varying parameter with fewer than 3 measured values, or
                            an end of its range not measured */
    PP_HOLD_BANDS,       /* the bands imply far more error than claimed */
    PP_HOLD_CEILING,     /* rows at a power estimate's ceiling */
    PP_HOLD_ONE_ROUND,   /* met once: a second round must confirm it */
} pp_adaptive_hold;

const char *pp_adaptive_hold_name(pp_adaptive_hold h);

/* What the stop rule saw after a round. */
typedef struct pp_adaptive_claim {
    pp_adaptive_hold hold;
    double claim_pct;     /* the largest claim over the planning metrics (INFINITY: unknown) */
    double implied_pct;   /* the median error the bands imply (NAN: none) */
    double noise_pct;     /* the largest noise floor from repeats (NAN: none) */
    double pursued_pct;   /* the target, or the noise floor's multiple above it */
    size_t streak;        /* successive rounds the claim held */
} pp_adaptive_claim;

const char *pp_adaptive_stop_name(pp_adaptive_stop s);

/* The stop rule after a refit f (adaptive.c): the claim, what holds
 * the stop back, and the stop (PP_STOP_TARGET or PP_STOP_NOISE) when the
 * claim held for PP_ADAPTIVE_TARGET_ROUNDS successive rounds (streak: the
 * rounds it held before this one), else PP_STOP_NONE. saturated: the
 * measured configurations at a power estimate's ceiling. */
pp_adaptive_stop pp_adaptive_claim_check(const pp_adaptive_space *s,
                                         const pp_adaptive_predictor *pr,
                                         const pp_adaptive_fit *f, const uint8_t *chosen,
                                         double target_pct, uint64_t saturated, size_t streak,
                                         pp_adaptive_claim *c);

/* After each refit, for the progress line. */
typedef struct pp_adaptive_progress {
    size_t round;        /* rounds measured so far (the design is round 1) */
    size_t n_chosen, n_candidates;
    const pp_adaptive_fit *fit;
    double budget_s;
    const pp_adaptive_claim *claim; /* the stop rule's view (NULL without a target) */
} pp_adaptive_progress;

typedef struct pp_adaptive_result {
    pp_adaptive_stop stop;
    size_t rounds, n_chosen, n_candidates;
    pp_adaptive_fit fit;     /* the last refit */
    pp_adaptive_claim claim; /* the stop rule's view after it */
    double target_error_pct;
    double unmeasured_s;     /* predicted seconds of the configurations not measured
                                (NAN: some could not be predicted) */
    double full_grid_s;      /* measured_s + unmeasured_s: what the full grid would cost */
} pp_adaptive_result;

/* ---- the run's record: RESULTS/adaptive.json (adaptive_state.c) ---- */

/* What was known after a round was measured. */
typedef struct pp_adaptive_round {
    size_t n_rows;
    double measured_s;
    double error_pct[PP_ADAPTIVE_MAX_METRICS]; /* per metric of the fit */
    double error_hi_pct[PP_ADAPTIVE_MAX_METRICS]; /* their upper bounds */
    pp_adaptive_claim claim;
} pp_adaptive_round;

typedef struct pp_adaptive_state {
    size_t n_rounds;          /* rounds chosen */
    size_t n_picks, cap;
    pp_adaptive_pick *picks;  /* in order */
    size_t *pick_round;       /* n_picks: the round of each */
    size_t n_done;            /* rounds measured: done[0 .. n_done) */
    pp_adaptive_round done[PP_ADAPTIVE_MAX_ROUNDS];
} pp_adaptive_state;

#endif
