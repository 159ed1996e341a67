#include "merge.h"

#include "src/base/log.h"
#include "node.h"
#include "results.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REPORTED 10

/* One source folder. */
typedef struct source {
    const char *dir;
    char *text;         /* summary.csv */
    size_t header_len;  /* its first line, newline included */
    json_t *run_json;   /* run.json, NULL without */
    char *identity;     /* config_hash, or the params as JSON ("" without run.json) */
    const char *node;   /* run.json's node name, NULL without */
    size_t n_kept;
} source;

/* One row: its key, and its text without the node and repeat cells. */
typedef struct row {
    uint64_t id;
    unsigned long repeat;
    char node[PP_NODE_NAME_MAX];
    const char *text;   /* up to and with the comma before the node cell */
    size_t len;
    size_t src;
    long line;
    int dup;            /* 1: a duplicate of the row before it, left out */
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

/* The identity of a source's profile. */
static char *identity_of(json_t *run_json)
{
    json_t *hash = json_object_get(run_json, "config_hash"), *params;

    if (json_is_string(hash))
        return strdup(json_string_value(hash));
    if (!run_json)
        return strdup("");
    params = json_object_get(run_json, "params");
    return json_dumps(params ? params : json_null(),
                      JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
}

/* Read src->dir's summary.csv and run.json. 0 or -errno (logged). */
static int load_source(source *src)
{
    char path[4200];
    json_error_t err;
    json_t *node;
    char *nl;

    pp_fmt(path, sizeof path, "%s/summary.csv", src->dir);
    if (!(src->text = pp_read_file(path)) || !(nl = strchr(src->text, '\n'))) {
        pp_log_error("%s: %s (a results folder of powprof profile is expected)", path,
                     src->text ? "no header line" : "cannot be read");
        return -EINVAL;
    }
    src->header_len = (size_t)(nl - src->text) + 1;
    if (src->header_len < 14 || strncmp(nl - 12, ",node,repeat", 12) != 0) {
        pp_log_error("%s:1: no node and repeat columns at the end (results of an older powprof?): "
                     "cannot be merged", path);
        return -EINVAL;
    }
    pp_fmt(path, sizeof path, "%s/run.json", src->dir);
    src->run_json = json_load_file(path, 0, &err);
    if (!src->run_json && err.line > 0) {
        pp_log_error("%s:%d: %s", path, err.line, err.text);
        return -EINVAL;
    }
    node = json_object_get(json_object_get(src->run_json, "node"), "name");
    src->node = json_string_value(node);
    if (src->node && pp_name_check(src->node, path) < 0)
        return -EINVAL;
    src->identity = identity_of(src->run_json);
    return src->identity ? 0 : -ENOMEM;
}

/* Every source of the first's profile and columns. 0 or -EINVAL (logged). */
static int same_profile(const source *s, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (s[i].header_len != s[0].header_len ||
            memcmp(s[i].text, s[0].text, s[0].header_len) != 0) {
            pp_log_error("%s/summary.csv:1: its columns differ from %s/summary.csv's (another "
                         "profile, or boards with other rails): not merged", s[i].dir, s[0].dir);
            return -EINVAL;
        }
        if (strcmp(s[i].identity, s[0].identity) != 0) {
            pp_log_error("%s/run.json: another profile than %s's (config_hash %.40s, not "
                         "%.40s: its parameters, components, rate or battery differ): not merged",
                         s[i].dir, s[0].dir, s[i].identity[0] ? s[i].identity : "none",
                         s[0].identity[0] ? s[0].identity : "none");
            return -EINVAL;
        }
    }
    return 0;
}

/* Room for one more row. 0 or -ENOMEM. */
static int grow(rows *rs)
{
    size_t cap = rs->cap ? 2 * rs->cap : 1024;
    row *v;

    if (rs->n < rs->cap)
        return 0;
    if (!(v = realloc(rs->v, cap * sizeof *v)))
        return -ENOMEM;
    rs->v = v;
    rs->cap = cap;
    return 0;
}

/* Row line (ending at nl, line_no) of source si into rs. 0 or -EINVAL
 * (logged). */
static int parse_row(const source *src, size_t si, long line_no, const char *line, const char *nl,
                     size_t n_fields, rows *rs)
{
    const char *rep_at = nl, *node_at;
    size_t fields = 1, node_len;
    char *end, what[4300];
    row *r;

    for (const char *c = line; c < nl; c++)
        fields += *c == ',';
    if (fields != n_fields) {
        pp_log_error("%s/summary.csv:%ld: %zu fields, the header has %zu", src->dir, line_no,
                     fields, n_fields);
        return -EINVAL;
    }
    if (grow(rs) < 0)
        return -ENOMEM;
    while (rep_at[-1] != ',')
        rep_at--;
    for (node_at = rep_at - 1; node_at[-1] != ','; node_at--)
        ;
    node_len = (size_t)(rep_at - 1 - node_at);
    r = &rs->v[rs->n];
    *r = (row){.text = line, .len = (size_t)(node_at - line), .src = si, .line = line_no};
    r->id = strtoull(line, &end, 10);
    if (end == line || *end != ',' || (r->repeat = strtoul(rep_at, &end, 10), end != nl) ||
        end == rep_at || node_len >= sizeof r->node) {
        pp_log_error("%s/summary.csv:%ld: not a row of powprof 'id,...,node,repeat'", src->dir,
                     line_no);
        return -EINVAL;
    }
    pp_fmt(r->node, sizeof r->node, "%.*s", (int)node_len, node_at);
    if (!r->node[0] && !src->node) {
        pp_log_error("%s/summary.csv:%ld: a row without a node, and %s/run.json names none "
                     "(imported results?): its rows cannot be told from another board's",
                     src->dir, line_no, src->dir);
        return -EINVAL;
    }
    if (!r->node[0])
        pp_strlcpy(r->node, src->node, sizeof r->node);
    pp_fmt(what, sizeof what, "%s/summary.csv:%ld: node", src->dir, line_no);
    if (pp_name_check(r->node, what) < 0)
        return -EINVAL;
    rs->n++;
    return 0;
}

/* Every whole row of every source (a torn last line left out, said). */
static int parse_all(const source *s, size_t n, rows *rs)
{
    size_t n_fields = 1;
    int rc = 0;

    for (const char *c = s[0].text; *c != '\n'; c++)
        n_fields += *c == ',';
    for (size_t i = 0; i < n && rc == 0; i++) {
        long line_no = 1;
        for (const char *line = s[i].text + s[i].header_len; *line && rc == 0; line_no++) {
            const char *nl = strchr(line, '\n');
            if (!nl) {
                pp_log_warn("%s/summary.csv:%ld: cut short (a crash while writing?): left out",
                            s[i].dir, line_no + 1);
                break;
            }
            if (nl > line)
                rc = parse_row(&s[i], i, line_no + 1, line, nl, n_fields, rs);
            line = nl + 1;
        }
    }
    return rc;
}

static int cmp_key(const void *a, const void *b)
{
    const row *x = a, *y = b;
    int c;

    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if ((c = strcmp(x->node, y->node)) != 0)
        return c;
    if (x->repeat != y->repeat)
        return x->repeat < y->repeat ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

/* Sorted, duplicates marked and counted, conflicts logged and counted. */
static void check_keys(const source *s, rows *rs, pp_merge_report *r)
{
    qsort(rs->v, rs->n, sizeof *rs->v, cmp_key);
    for (size_t i = 1; i < rs->n; i++) {
        row *a = &rs->v[i - 1], *b = &rs->v[i];
        if (a->id != b->id || strcmp(a->node, b->node) != 0 || a->repeat != b->repeat)
            continue;
        if (a->len == b->len && memcmp(a->text, b->text, a->len) == 0) {
            b->dup = 1;
            if (r->n_duplicates++ < MAX_REPORTED)
                pp_log_warn("duplicate row: id %llu node %s repeat %lu in %s/summary.csv:%ld and "
                            "%s/summary.csv:%ld (the same measurement: kept once)",
                            (unsigned long long)b->id, b->node, b->repeat, s[a->src].dir,
                            a->line, s[b->src].dir, b->line);
        } else if (r->n_conflicts++ < MAX_REPORTED) {
            pp_log_error("conflicting rows: id %llu node %s repeat %lu is measured differently in "
                         "%s/summary.csv:%ld and %s/summary.csv:%ld", (unsigned long long)b->id,
                         b->node, b->repeat, s[a->src].dir, a->line, s[b->src].dir, b->line);
        }
    }
}

/* Copy the file from to to. 0 or -errno. */
static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    int in = open(from, O_RDONLY | O_CLOEXEC), out, rc = 0;
    ssize_t n;

    if (in < 0)
        return -errno;
    out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        rc = -errno;
        close(in);
        return rc;
    }
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0)
        if (n < 0 || write(out, buf, (size_t)n) != n)
            rc = -(errno ? errno : EIO);
    if (close(out) != 0 && rc == 0)
        rc = -errno;
    close(in);
    return rc;
}

/* Row rw's trace into tmp/traces/<node>/, from its source's traces/<node>/
 * or traces/; the first row of an id also linked as tmp/traces/<id>.csv.
 * 0, 1 when the source has no trace, -errno. */
static int copy_trace(const source *src, const row *rw, const char *tmp, int first_of_id)
{
    char name[64], from[4400], to[4400], dir[4400];
    int rc;

    pp_results_trace_name(rw->id, (unsigned)rw->repeat, name, sizeof name);
    if ((rc = pp_path_fmt(dir, sizeof dir, tmp, "traces/%s", rw->node)) < 0 ||
        (rc = pp_path_fmt(to, sizeof to, dir, "%s", name)) < 0 ||
        (rc = pp_path_fmt(from, sizeof from, src->dir, "traces/%s/%s", rw->node, name)) < 0)
        return rc;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -errno;
    if (access(from, F_OK) != 0 && (rc = pp_path_fmt(from, sizeof from, src->dir, "traces/%s",
                                                     name)) < 0)
        return rc;
    if ((rc = copy_file(from, to)) == -ENOENT)
        return 1;
    if (rc < 0 || !first_of_id)
        return rc;
    pp_fmt(from, sizeof from, "%s/traces/%llu.csv", tmp, (unsigned long long)rw->id);
    if (link(to, from) != 0 && (rc = copy_file(to, from)) < 0)
        return rc;
    return 0;
}

/* tmp/summary.csv and the traces of the rows kept. 0 or -errno (logged). */
static int write_rows(source *s, const rows *rs, const char *tmp, pp_merge_report *r)
{
    char path[4200], tail[PP_NODE_NAME_MAX + 32];
    FILE *fp;
    int rc = 0;

    pp_fmt(path, sizeof path, "%s/summary.csv", tmp);
    if (!(fp = fopen(path, "w")))
        return -errno;
    fwrite(s[0].text, 1, s[0].header_len, fp);
    for (size_t i = 0; i < rs->n && rc >= 0; i++) {
        const row *rw = &rs->v[i];
        if (rw->dup)
            continue;
        pp_fmt(tail, sizeof tail, "%s,%lu\n", rw->node, rw->repeat);
        fwrite(rw->text, 1, rw->len, fp);
        fputs(tail, fp);
        s[rw->src].n_kept++;
        r->n_rows++;
        rc = copy_trace(&s[rw->src], rw, tmp, i == 0 || rs->v[i - 1].id != rw->id);
        r->n_traces += rc == 0;
        if (rc == 1 && r->n_traces_missing++ < MAX_REPORTED)
            pp_log_warn("%s/traces: no trace of id %llu repeat %lu (node %s): the row is merged "
                        "without it", s[rw->src].dir, (unsigned long long)rw->id, rw->repeat,
                        rw->node);
    }
    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0)
        rc = rc < 0 ? rc : -errno;
    if (fclose(fp) != 0 && rc >= 0)
        rc = -errno;
    if (rc < 0)
        pp_log_error("%s: cannot write: %s", tmp, strerror(-rc));
    return rc < 0 ? rc : 0;
}

/* The nodes' records of every source (run.json "node", or a merged one's
 * "nodes"), each name once. */
static json_t *nodes_json(const source *s, size_t n, size_t *count)
{
    json_t *nodes = json_array(), *names = json_object();

    for (size_t i = 0; i < n; i++) {
        json_t *list = json_object_get(s[i].run_json, "nodes");
        json_t *one = json_object_get(s[i].run_json, "node");
        size_t j;
        json_t *v;
        if (json_is_object(one))
            list = json_pack("[O]", one);
        else
            json_incref(list);
        json_array_foreach(list, j, v) {
            const char *name = json_string_value(json_object_get(v, "name"));
            if (name && !json_object_get(names, name)) {
                json_object_set_new(names, name, json_true());
                json_array_append(nodes, v);
            }
        }
        json_decref(list);
    }
    *count = json_object_size(names);
    json_decref(names);
    return nodes;
}

/* tmp/run.json: the first source's, with the nodes and the sources. */
static int write_run_json(const source *s, size_t n, const char *tmp, pp_merge_report *r)
{
    json_t *root = s[0].run_json ? json_deep_copy(s[0].run_json) : json_object();
    json_t *sources = json_array();
    char path[4200];
    int rc;

    for (size_t i = 0; i < n; i++)
        json_array_append_new(sources, json_pack("{s:s, s:o, s:I, s:O?}", "dir", s[i].dir, "node",
                                                 s[i].node ? json_string(s[i].node) : json_null(),
                                                 "rows", (json_int_t)s[i].n_kept, "shard",
                                                 json_object_get(s[i].run_json, "shard")));
    json_object_set_new(root, "node", json_null());
    json_object_set_new(root, "nodes", nodes_json(s, n, &r->n_nodes));
    json_object_set_new(root, "shard", json_pack("{s:i, s:i, s:s}", "k", 0, "n", 1, "from", "merge"));
    json_object_set_new(root, "merged", json_pack("{s:o, s:I, s:I, s:I}", "sources", sources,
                                                  "rows", (json_int_t)r->n_rows, "duplicates",
                                                  (json_int_t)r->n_duplicates,
                                                  "configurations_missing",
                                                  (json_int_t)r->n_missing));
    pp_fmt(path, sizeof path, "%s/run.json", tmp);
    rc = json_dump_file(root, path, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(root);
    if (rc != 0) {
        pp_log_error("%s: cannot write", path);
        return -EIO;
    }
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* The first source's profile.cfg that there is into tmp. 0 or -errno. */
static int copy_profile(const source *s, size_t n, const char *tmp)
{
    char from[4300], to[4300];

    pp_fmt(to, sizeof to, "%s/profile.cfg", tmp);
    for (size_t i = 0; i < n; i++) {
        pp_fmt(from, sizeof from, "%s/profile.cfg", s[i].dir);
        if (access(from, R_OK) == 0)
            return copy_file(from, to);
    }
    return 0;
}

/* The configurations of the profile (run.json) that no row has. */
static void count_missing(const source *s, const rows *rs, pp_merge_report *r)
{
    json_t *n = json_object_get(s[0].run_json, "configurations");
    uint64_t seen = 0;

    r->n_configurations = json_is_integer(n) && json_integer_value(n) > 0
                              ? (uint64_t)json_integer_value(n) : 0;
    for (size_t i = 0; i < rs->n; i++)
        seen += (i == 0 || rs->v[i - 1].id != rs->v[i].id) && rs->v[i].id < r->n_configurations;
    r->n_missing = r->n_configurations - seen;
}

/* Write the merged folder into a temporary folder beside out, then rename
 * it to out. 0 or -errno (logged; nothing left). */
static int write_merged(source *s, size_t n, const rows *rs, const char *out,
                        pp_merge_report *r)
{
    char tmp[4200], path[4300];
    int rc = 0;

    pp_fmt(tmp, sizeof tmp, "%s.merge.XXXXXX", out);
    if (!mkdtemp(tmp)) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", tmp, strerror(errno));
        return rc;
    }
    pp_fmt(path, sizeof path, "%s/traces", tmp);
    if (mkdir(path, 0755) != 0)
        rc = -errno;
    if (rc == 0)
        rc = write_rows(s, rs, tmp, r);
    if (rc == 0)
        rc = copy_profile(s, n, tmp);
    if (rc == 0)
        rc = write_run_json(s, n, tmp, r);
    if (rc == 0 && rename(tmp, out) != 0) {
        rc = -errno;
        pp_log_error("cannot move %s to %s: %s", tmp, out, strerror(errno));
    }
    if (rc < 0)
        nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}

int pp_merge(const char *const *src, size_t n, const char *out, pp_merge_report *r)
{
    source *s = calloc(n + 1, sizeof *s);
    rows rs = {NULL, 0, 0};
    int rc = s ? 0 : -ENOMEM;

    memset(r, 0, sizeof *r);
    if (access(out, F_OK) == 0) {
        pp_log_error("%s exists: give a new folder", out);
        rc = -EEXIST;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        s[i].dir = src[i];
        rc = load_source(&s[i]);
    }
    if (rc == 0 && n > 0 && (rc = same_profile(s, n)) == 0)
        rc = parse_all(s, n, &rs);
    if (rc == 0 && n > 0) {
        pp_strlcpy(r->config_hash, s[0].identity, sizeof r->config_hash);
        check_keys(s, &rs, r);
        count_missing(s, &rs, r);
    }
    if (rc == 0 && r->n_conflicts) {
        pp_log_error("%zu conflicting row%s: nothing merged (a board measured a configuration "
                     "twice into different folders? merge them apart, or profile again with "
                     "--resume into one folder)", r->n_conflicts, r->n_conflicts == 1 ? "" : "s");
        rc = -EINVAL;
    }
    if (rc == 0 && n > 0)
        rc = write_merged(s, n, &rs, out, r);
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].text);
        free(s[i].identity);
        json_decref(s[i].run_json);
    }
    free(s);
    free(rs.v);
    return rc;
}
