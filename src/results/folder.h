/* folder.h - results folders as a whole: where a sweep's results go (the
 * folder named after the profile or its shard, {node} and {shard}
 * replaced), and a folder written whole from recorded power data (import),
 * in the layout `powprof profile` writes: traces/<id>.csv, summary.csv with
 * the battery's columns, run.json naming the source of each row. */
#ifndef PP_RESULTS_FOLDER_H
#define PP_RESULTS_FOLDER_H

#include "import.h"
#include "results.h"

#include "src/config/shard.h"
#include "battery/battery.h"

#include <stddef.h>

/* The results folder of a sweep into out: dir_template, where {node} is
 * replaced by node and {shard} by sh->k (one folder per shard when a
 * launcher starts every shard with the same arguments), or when it is NULL
 * results/<name>, results/<name>-shard-K-of-N for a shard of several.
 * 0, or -EINVAL (logged: an unknown placeholder, a name that is no file
 * name, a folder too long). */
int pp_results_dir_name(const char *name, const char *dir_template, const pp_shard *sh,
                        const char *node, char *out, size_t cap);

/* mkdir -p path. 0, or -errno (logged with the folder). */
int pp_results_make_dirs(const char *path);

/* ---- a results folder from recorded power data ----------------------- */

#define PP_IMPORT_MAX_PARAMS 16

/* The reader of a format (powprofiler, tegrastats, csv), or NULL. */
typedef int (*pp_import_reader)(const char *path, const pp_import_options *o, pp_trace *t);
pp_import_reader pp_import_reader_of(const char *format);

typedef struct pp_import_request {
    const char *format;          /* powprofiler, tegrastats or csv */
    const char *const *files;
    size_t n_files;
    const char *pattern;         /* parameters from the files' names (NULL: none) */
    size_t n_fixed;              /* parameters with one value for every file */
    char fixed_names[PP_IMPORT_MAX_PARAMS][64];
    double fixed_values[PP_IMPORT_MAX_PARAMS];
    pp_import_options io;
    pp_battery_params battery;   /* for the battery's columns and run.json */
    int battery_given;           /* ulog: battery for every instance (-c); 0: each instance
                                    of a log of several its own pack (pp_import_ulog_packs) */
    const char *out;             /* the folder to create: it must not exist */
} pp_import_request;

/* Read every file into a temporary folder beside rq->out, then rename it
 * to rq->out: all or nothing (a file that does not import leaves nothing).
 * *l receives the rails and parameters. 0, -EINVAL (logged: bad input,
 * out exists) or -errno (logged). */
int pp_results_import(const pp_import_request *rq, pp_results_layout *l);

/* Remove the temporary folder of an import in progress, if any. Only
 * async-signal-safe calls: for a signal handler, which then lets the
 * signal end the process. */
void pp_results_import_abandon(void);

#endif
