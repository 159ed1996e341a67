/* merge.h - several results folders of one profile (the shards of a sweep,
 * or whole sweeps on several boards) into one.
 *
 * Rules:
 *  - The sources must be results of the same profile: the same config_hash
 *    in run.json (run_json.h; folders without one, such as imports, are
 *    compared by their "params") and the same summary.csv columns (the same
 *    rails: boards of one model). Otherwise nothing is merged.
 *  - A row is identified by (id, node, repeat). The same key twice with the
 *    same text is a duplicate (a folder given twice, or a merged folder with
 *    one of its parts): kept once and reported. The same key with other
 *    measurements is a conflict (the same board measured the configuration
 *    twice into different folders): reported with both files and lines,
 *    and nothing is merged.
 *  - A row without a node (an empty cell) takes the node its folder's
 *    run.json names; without one it cannot be merged.
 *  - Atomic, as import: everything is written into a temporary folder
 *    beside DIR, renamed to DIR at the end; DIR must not exist; a refusal
 *    or an error leaves nothing behind.
 *
 * The merged folder: summary.csv (the rows sorted by id, node, repeat),
 * traces/<node>/<id>[.r<repeat>].csv for every row (copied from the
 * source's traces/<node>/ or traces/), traces/<id>.csv a link to one node's
 * repeat 0 (what `powprof plot` shows), profile.cfg of the first source
 * that has one, and run.json: the first source's, with "node" null,
 * "nodes" (every node's record, from the sources' run.json), "merged"
 * {"sources": [{dir, node, rows, shard}], "rows", "duplicates",
 * "configurations_missing"} and "shard" {0, 1, "merge"}.
 */
#ifndef PP_MERGE_H
#define PP_MERGE_H

#include "run_json.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pp_merge_report {
    size_t n_rows;             /* rows in the merged summary */
    size_t n_duplicates;       /* identical rows kept once */
    size_t n_conflicts;        /* rows with the same key and other measurements */
    size_t n_nodes;
    size_t n_traces, n_traces_missing;
    uint64_t n_configurations; /* of the profile (run.json; 0: unknown) */
    uint64_t n_missing;        /* configurations with no row (of n_configurations) */
    char config_hash[PP_CONFIG_HASH_MAX];
} pp_merge_report;

/* Merge the n results folders src into out. 0; -EEXIST (out exists),
 * -EINVAL (another profile, other columns, conflicting rows, a bad row:
 * logged with the file and line; nothing written), -errno on I/O errors
 * (nothing left behind). r is filled as far as it got. */
int pp_merge(const char *const *src, size_t n, const char *out, pp_merge_report *r);

#endif
