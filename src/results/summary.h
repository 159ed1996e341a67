/* summary.h - reading a results folder's summary.csv (and what run.json
 * says of each parameter) for layer 2.
 *
 * Parameters are the columns between id and status. A parameter is
 * categorical when run.json gives it "kind": "categorical" with its
 * "values" (labels, in order), or, without that, when any of its cells is
 * not a number; its cells are labels (letters, digits and _ . - + / :), and
 * x holds the label's index. Otherwise x holds the number.
 *
 * Metrics are the numeric columns after status, except the counts
 * (iterations, late_frames, <component>.iterations, .late_frames, samples,
 * short_run) and reason: means, energies, energy per iteration, achieved
 * rates (<component>.achieved_fps / achieved_hz), battery columns,
 * duration.
 *
 * Short runs: a row whose short_run column is 1 (fewer than 5 samples, or
 * shorter than 5 sampling periods: its energy is quantized by the period)
 * gets the run weight (samples / 5)^2, at least 0.2 (the quantization error
 * of an energy falls as 1 / samples: its variance as the square), every
 * other row 1; the local-linear and spline estimators weigh their samples
 * by it (estimator.h).
 *
 * Fleets: the node column names the node that measured a row (node.h; an
 * empty cell, or no column, is one unnamed node "") and the repeat column
 * which measurement of its configuration it is (0 without the column).
 * Neither is a parameter nor a metric: a configuration measured on several
 * nodes, or several times, is several rows with the same parameters (the
 * model averages them: model.h).
 */
#ifndef PP_SUMMARY_H
#define PP_SUMMARY_H

#include "node.h"
#include "src/base/util.h"

#include <stddef.h>

#define PP_SUMMARY_MAX_PARAMS 16
#define PP_SUMMARY_MAX_METRICS 160
#define PP_SUMMARY_NAME_MAX 160
#define PP_SUMMARY_LABEL_MAX PP_LABEL_MAX /* util.h */
#define PP_SUMMARY_MAX_LABELS 256

/* How a parameter was swept (run.json), which sets its resolution in plans. */
typedef enum pp_param_kind {
    PP_PARAM_UNKNOWN = 0, /* no run.json: from the values */
    PP_PARAM_FIXED,
    PP_PARAM_LINEAR,      /* a range with a step */
    PP_PARAM_EXPONENTIAL, /* a range with a factor: normalized on a log scale */
    PP_PARAM_LIST,
    PP_PARAM_CATEGORICAL, /* labels */
} pp_param_kind;

typedef struct pp_summary_param_info {
    char name[PP_SUMMARY_NAME_MAX];
    pp_param_kind kind;
    int integer;          /* every value (measured and swept) is an integer */
    size_t n_swept;       /* the values run.json lists (0 without) */
    double *swept;
    size_t n_labels;      /* categorical: labels[i] is x == i */
    int labels_from_values; /* no labels in run.json: in order of appearance */
    char (*labels)[PP_SUMMARY_LABEL_MAX];
} pp_summary_param_info;

typedef struct pp_summary {
    size_t n_params;
    char params[PP_SUMMARY_MAX_PARAMS][PP_SUMMARY_NAME_MAX];
    int log_scale[PP_SUMMARY_MAX_PARAMS]; /* exponential range: normalized on a log scale */
    pp_summary_param_info param[PP_SUMMARY_MAX_PARAMS];
    size_t n_metrics;
    char metrics[PP_SUMMARY_MAX_METRICS][PP_SUMMARY_NAME_MAX];
    size_t n_rows;         /* rows with status ok */
    size_t n_left_out;     /* rows with another status */
    size_t n_short;        /* rows (ok) flagged short_run */
    double *x;             /* n_rows x n_params */
    double *y;             /* n_rows x n_metrics (NAN where a cell is empty) */
    long *ids;             /* n_rows */
    long *samples;         /* n_rows, -1 without the column */
    long *iterations;      /* n_rows (all components), -1 without the column */
    long *late_frames;     /* n_rows (all components), -1 without the column */
    int *short_run;        /* n_rows, 0 or 1 */
    double *weight;        /* n_rows run weights (see above) */
    size_t n_nodes;        /* the nodes of the rows (status ok), in order of appearance */
    char (*nodes)[PP_NODE_NAME_MAX];
    size_t *node;          /* n_rows: index into nodes */
    long *repeat;          /* n_rows: the repeat index, 0 without the column */
    long max_repeat;       /* the highest repeat index of the rows */
} pp_summary;

/* Read dir/summary.csv (and dir/run.json when present). Errors name the
 * file, the line and the value; returns 0, -EINVAL or -ENOMEM (s is then
 * empty). A numeric parameter's scale is logarithmic when run.json says
 * "exponential", or, without run.json, when its distinct values (at least
 * 3, all > 0) step by whole powers (within 1 %) of their smallest ratio,
 * itself at least 1.5: a geometric sequence, whole or with levels left
 * out, so that leaving a level out does not switch the scale.
 *
 * The one row reader of summary.csv (model, plot, plan, merge, run):
 * every row, whatever its status, is checked by the same rules: as many
 * fields as the header; an id from 0 to LONG_MAX; parameters as above
 * (decimal numbers, util.h, or labels); a status that is a name; metrics
 * decimal numbers or empty; counts (samples, short_run 0 or 1,
 * iterations, late_frames, repeat) whole numbers in range or empty; a
 * node that is a name or empty. A last line without its line end was cut
 * short by a crash while it was written: left out with a warning. Rows
 * with status ok are kept in s; the others are counted (n_left_out). */
#define PP_SUMMARY_MAX_COUNT 1e15  /* samples, iterations, late frames */
#define PP_SUMMARY_MAX_REPEAT 1e6  /* a row's repeat index */
int pp_summary_read(const char *dir, pp_summary *s);

/* A row as the reader gives it to pp_summary_read_each's fn. */
typedef struct pp_summary_row {
    long line_no;
    const char *text;  /* the line as in the file, without its line end */
    long id;
    int ok;            /* status ok (kept in s) */
    const char *node;  /* the node cell: "" when empty or without the column */
    long repeat;       /* 0 when empty or without the column */
} pp_summary_row;

/* fn's return: 0 goes on, a negative value stops the reading (returned). */
typedef int (*pp_summary_row_fn)(void *ctx, const pp_summary_row *row);

/* flags: refuse summary.csv and run.json when a symbolic link or not a
 * regular file (a folder received from someone else: merge). */
#define PP_SUMMARY_NO_LINKS 1

/* pp_summary_read, with fn (unless NULL) given every row after it was
 * checked, whatever its status, in the file's order. With fn, a summary
 * without a row of status ok (its header alone) is no error. */
int pp_summary_read_each(const char *dir, int flags, pp_summary *s, pp_summary_row_fn fn,
                         void *ctx);
void pp_summary_free(pp_summary *s);

/* Index of a parameter / metric / node by name, or -1. */
int pp_summary_param(const pp_summary *s, const char *name);
int pp_summary_metric(const pp_summary *s, const char *name);
int pp_summary_node(const pp_summary *s, const char *name);

/* The index of label in categorical parameter k, or -1. */
int pp_summary_label(const pp_summary *s, size_t k, const char *label);

/* Parameter k's value v as a user writes it: a categorical one's label,
 * else the number (%g), into buf. */
void pp_summary_value_text(const pp_summary *s, size_t k, double v, char *buf, size_t cap);

#endif
