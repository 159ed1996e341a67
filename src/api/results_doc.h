/* results_doc.h - the answers of the commands around a results folder:
 * `powprof import` (recorded data into a folder), `merge` (folders into
 * one), `plot` (its gnuplot plots) and `ulog info` (what a flight log holds
 * before it is imported): what each opens, decides and writes, and its
 * document (text for a person, or one JSON object), so that the CLI only
 * parses and calls. Not thread-safe: each prints on stdout, and import and
 * merge handle SIGINT, SIGTERM and SIGHUP while they write. */
#ifndef PP_API_RESULTS_DOC_H
#define PP_API_RESULTS_DOC_H

#include "src/results/folder.h"
#include "src/results/merge.h"
#include "plots/plot.h"

#include <jansson.h>
#include <stddef.h>

/* ---- import ------------------------------------------------------------- */

/* --param NAME=NUMBER added to rq: 0; -EINVAL, said into why (cap bytes;
 * "" when logged). */
int pp_import_param_add(pp_import_request *rq, const char *arg, char *why, size_t cap);
/* --unit W|mW|uW, --time-unit s|ms|us|ns: the scale into *(double *)out
 * (watts, seconds). 0, or -1. */
int pp_import_unit_parse(const char *arg, void *out);
int pp_import_time_unit_parse(const char *arg, void *out);
/* The import of rq: its battery from config_path (the default pack
 * without; ulog without: the first log's BAT_* parameters, said), the
 * files read into rq->out (its temporary folder removed on Ctrl-C), and
 * what was imported printed (json: one object). 0; -EINVAL (bad input,
 * logged) or -errno (logged). */
int pp_import_answer(pp_import_request *rq, const char *config_path, int json);
/* What was imported into out, as `import --json` prints it. */
json_t *pp_import_json(const char *out, size_t n_files, const pp_results_layout *layout);

/* ---- merge -------------------------------------------------------------- */

/* pp_merge of dirs[n] into out (its temporary folder removed on Ctrl-C),
 * the report printed (json: one object). pp_merge's return. */
int pp_merge_answer(const char *const *dirs, size_t n, const char *out, int json);
/* Merge report r of n_src folders into out, as `merge --json` prints it. */
json_t *pp_merge_json(const pp_merge_report *r, int n_src, const char *out);

/* ---- plot --------------------------------------------------------------- */

/* --format png|svg|both into value, a pp_plot_options: 0, or -1. */
int pp_plot_format_parse(const char *arg, void *value);
/* plot --plan PLAN [-c CONFIG]: o's battery (CONFIG's, else the plan's
 * own) and *plan read, o->plan set (no plan: o unchanged). 0; -EINVAL,
 * logged or said into why (cap bytes; "" when logged): a CONFIG without
 * a plan is refused. */
int pp_plot_request(pp_plot_options *o, const char *plan_path, const char *config,
                    pp_plot_plan *plan, char *why, size_t cap);
/* The plots r of dir made with o, as `plot --json` prints them. */
json_t *pp_plot_json(const char *dir, const pp_plot_options *o, const pp_plot_result *r);
/* The plots r in words on stdout (gnuplot's errors on stderr). */
void pp_plot_text(const pp_plot_result *r);

/* ---- ulog info ---------------------------------------------------------- */

/* The flight log path read (its topics and battery_status) and described
 * on stdout: in words, or with json as one object (pp_ulog_info_doc).
 * 0, or -errno (logged). */
int pp_ulog_info(const char *path, int json);
struct pp_ulog_flight;
/* The log f read from path, as `ulog info --json` prints it (with these
 * flags: pp_ulog_info_json gives Python the same text). */
#define PP_ULOG_INFO_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(10))
json_t *pp_ulog_info_doc(const char *path, const struct pp_ulog_flight *f);

#endif
