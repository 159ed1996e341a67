/* summary.h - reading a results folder's summary.csv (and the scale of each
 * parameter from run.json) for layer 2. */
#ifndef PP_SUMMARY_H
#define PP_SUMMARY_H

#include <stddef.h>

#define PP_SUMMARY_MAX_PARAMS 16
#define PP_SUMMARY_MAX_METRICS 160
#define PP_SUMMARY_NAME_MAX 160

typedef struct pp_summary {
    size_t n_params;
    char params[PP_SUMMARY_MAX_PARAMS][PP_SUMMARY_NAME_MAX];
    int log_scale[PP_SUMMARY_MAX_PARAMS]; /* exponential range: normalized on a log scale */
    size_t n_metrics;
    char metrics[PP_SUMMARY_MAX_METRICS][PP_SUMMARY_NAME_MAX];
    size_t n_rows;         /* rows with status ok */
    size_t n_left_out;     /* rows with another status */
    double *x;             /* n_rows x n_params */
    double *y;             /* n_rows x n_metrics (NAN where a cell is empty) */
    long *ids;             /* n_rows */
} pp_summary;

/* Read dir/summary.csv (and dir/run.json when present). Metrics are the
 * numeric columns after status (means, energies, energy per iteration,
 * battery columns, duration). Errors name the file and line. A parameter's
 * scale is logarithmic when run.json says "exponential", or, without
 * run.json, when its distinct values (at least 3, all > 0) form a
 * geometric sequence. */
int pp_summary_read(const char *dir, pp_summary *s);
void pp_summary_free(pp_summary *s);

/* Index of a parameter / metric by name, or -1. */
int pp_summary_param(const pp_summary *s, const char *name);
int pp_summary_metric(const pp_summary *s, const char *name);

#endif
