#include "merge.h"

#include "src/base/log.h"
#include "json_file.h"
#include "node.h"
#include "results.h"
#include "summary.h"
#include "tmpdir.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REPORTED 10

/* One source folder. Nothing in it is read through a symbolic link
 * (util.h pp_open_inside): a folder received from someone else cannot
 * make merge copy /etc/shadow into OUT. */
typedef struct source {
    const char *dir;
    int dfd;            /* the folder, open */
    char *header;       /* summary.csv's first line, newline included */
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
    char *text;         /* up to and with the comma before the node cell */
    size_t len;
    size_t src;
    long line;
    int dup;            /* 1: a duplicate of the row before it, left out */
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

/* ---- reading the sources ------------------------------------------------- */

/* "dir/rel: ..." for an error opening rel in src (pp_open_inside's). */
static int open_error(const source *src, const char *rel, int rc)
{
    if (rc == -ELOOP)
        pp_log_error("%s/%s: a symbolic link: refused (merge reads nothing outside a source "
                     "folder, and nothing through a link)", src->dir, rel);
    else if (rc == -EISDIR || rc == -EINVAL)
        pp_log_error("%s/%s: not a regular file", src->dir, rel);
    else
        pp_log_error("%s/%s: cannot read: %s", src->dir, rel, strerror(-rc));
    return rc == -ELOOP || rc == -EISDIR || rc == -EINVAL ? -EINVAL : rc;
}

/* summary.csv's first line into src->header. 0 or -errno (logged). */
static int read_header(source *src)
{
    int fd = pp_open_inside(src->dfd, "summary.csv");
    size_t cap = 0, len;
    FILE *fp;

    if (fd < 0)
        return open_error(src, "summary.csv", fd);
    if (!(fp = fdopen(fd, "r"))) {
        close(fd);
        return -ENOMEM;
    }
    if (getline(&src->header, &cap, fp) < 0 || !strchr(src->header, '\n')) {
        pp_log_error("%s/summary.csv: no header line (a results folder of powprof profile is "
                     "expected)", src->dir);
        fclose(fp);
        return -EINVAL;
    }
    fclose(fp);
    len = strlen(src->header);
    if (len < 14 || strncmp(src->header + len - 13, ",node,repeat\n", 13) != 0) {
        pp_log_error("%s/summary.csv:1: no node and repeat columns at the end (results of an older "
                     "powprof?): cannot be merged", src->dir);
        return -EINVAL;
    }
    return 0;
}

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

/* run.json (when there is one): its node and identity. 0 or -errno. */
static int read_run_json(source *src)
{
    int fd = pp_open_inside(src->dfd, "run.json");
    char path[PP_PATH_MAX];
    json_error_t err;

    pp_text(path, sizeof path, "%s/run.json", src->dir); /* for messages */
    if (fd < 0 && fd != -ENOENT)
        return open_error(src, "run.json", fd);
    if (fd >= 0) {
        src->run_json = json_loadfd(fd, 0, &err);
        close(fd);
        if (!src->run_json) {
            pp_log_error("%s:%d: %s", path, err.line, err.text);
            return -EINVAL;
        }
    }
    src->node = json_string_value(json_object_get(json_object_get(src->run_json, "node"), "name"));
    if (src->node && pp_name_check(src->node, path) < 0)
        return -EINVAL;
    src->identity = identity_of(src->run_json);
    return src->identity ? 0 : -ENOMEM;
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

typedef struct reading {
    const source *src;
    size_t si;
    rows *rs;
} reading;

/* A row the summary reader checked (summary.h: the one set of rules) into
 * the rows, its node cell filled from run.json when empty. */
static int on_row(void *ctx, const pp_summary_row *in)
{
    reading *rd = ctx;
    const char *comma = strrchr(in->text, ',');
    row *r;

    if (!in->node[0] && !rd->src->node) {
        pp_log_error("%s/summary.csv:%ld: a row without a node, and %s/run.json names none "
                     "(imported results?): its rows cannot be told from another board's",
                     rd->src->dir, in->line_no, rd->src->dir);
        return -EINVAL;
    }
    if (grow(rd->rs) < 0)
        return -ENOMEM;
    while (comma && comma > in->text && comma[-1] != ',')
        comma--; /* the start of the node cell (the header ends node,repeat) */
    r = &rd->rs->v[rd->rs->n];
    *r = (row){.id = (uint64_t)in->id, .repeat = (unsigned long)in->repeat, .src = rd->si,
               .line = in->line_no, .len = comma ? (size_t)(comma - in->text) : 0};
    if (pp_strlcpy(r->node, in->node[0] ? in->node : rd->src->node, sizeof r->node) < 0)
        return -EINVAL; /* never: both are PP_NODE_NAME_MAX */
    if (!(r->text = strndup(in->text, r->len)))
        return -ENOMEM;
    rd->rs->n++;
    return 0;
}

/* src's header, run.json and every row. 0 or -errno (logged). */
static int load_source(source *src, size_t si, rows *rs)
{
    reading rd = {src, si, rs};
    pp_summary sum;
    int rc;

    if ((src->dfd = open(src->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        rc = -errno;
        pp_log_error("%s: cannot open: %s (a results folder of powprof profile is expected)",
                     src->dir, strerror(errno));
        return rc == -ENOENT || rc == -ENOTDIR ? -EINVAL : rc;
    }
    if ((rc = read_header(src)) < 0 || (rc = read_run_json(src)) < 0)
        return rc;
    rc = pp_summary_read_each(src->dir, PP_SUMMARY_NO_LINKS, &sum, on_row, &rd);
    pp_summary_free(&sum);
    return rc;
}

/* Every source of the first's profile and columns. 0 or -EINVAL (logged). */
static int same_profile(const source *s, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (strcmp(s[i].header, s[0].header) != 0) {
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
    if (rs->n > 1)
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

/* ---- writing ----------------------------------------------------------- */

/* The error of a stream being written to path: logged with the file and
 * the reason. fp is closed. 0 or -errno. */
static int close_written(FILE *fp, const char *path)
{
    int rc = 0;

    if (fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) != 0)
        rc = -(errno ? errno : EIO);
    if (fclose(fp) != 0 && rc == 0)
        rc = -(errno ? errno : EIO);
    if (rc < 0)
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    return rc;
}

/* rel of src (opened, never through a link) copied to the new file to.
 * 0, 1 when src has no such file, -errno (logged: the source named on a
 * read error, the file written on a write error). */
static int copy_in(const source *src, const char *rel, const char *to)
{
    char buf[65536];
    int in = pp_open_inside(src->dfd, rel), out, rc = 0;
    ssize_t n;

    if (in == -ENOENT)
        return 1;
    if (in < 0)
        return open_error(src, rel, in);
    if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", to, strerror(errno));
        close(in);
        return rc;
    }
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 && errno != EINTR) {
            rc = -errno;
            pp_log_error("%s/%s: cannot read: %s", src->dir, rel, strerror(errno));
        } else if (n > 0 && write(out, buf, (size_t)n) != n) {
            rc = -(errno ? errno : EIO);
            pp_log_error("%s: cannot write: %s", to, strerror(-rc));
        }
    }
    if (close(out) != 0 && rc == 0) {
        rc = -errno;
        pp_log_error("%s: cannot write: %s", to, strerror(errno));
    }
    close(in);
    return rc;
}

/* Row rw's trace into tmp/traces/<node>/, from its source's traces/<node>/
 * or traces/; the first row of an id also linked as tmp/traces/<id>.csv.
 * 0, 1 when the source has no trace, -errno (logged). */
static int copy_trace(const source *src, const row *rw, const char *tmp, int first_of_id)
{
    char name[64], rel[PP_NODE_NAME_MAX + 96], to[4400], dir[4400], link_to[4400];
    int rc;

    pp_results_trace_name(rw->id, (unsigned)rw->repeat, name, sizeof name);
    if ((rc = pp_path_fmt(dir, sizeof dir, tmp, "traces/%s", rw->node)) < 0 ||
        (rc = pp_path_fmt(to, sizeof to, dir, "%s", name)) < 0)
        return rc;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", dir, strerror(errno));
        return rc;
    }
    if ((rc = pp_path_fmt(rel, sizeof rel, "traces", "%s/%s", rw->node, name)) < 0)
        return rc;
    if ((rc = copy_in(src, rel, to)) == 1) {
        if ((rc = pp_path_fmt(rel, sizeof rel, "traces", "%s", name)) < 0)
            return rc;
        rc = copy_in(src, rel, to);
    }
    if (rc != 0 || !first_of_id)
        return rc;
    if (pp_fmt(link_to, sizeof link_to, "%s/traces/%llu.csv", tmp, (unsigned long long)rw->id) < 0)
        return -ENAMETOOLONG; /* never: to, in the same folder, was made */
    if (link(to, link_to) != 0) {
        rc = -errno;
        pp_log_error("%s: cannot link to %s: %s", link_to, to, strerror(errno));
    }
    return rc;
}

/* tmp/summary.csv and the traces of the rows kept. 0 or -errno (logged). */
static int write_rows(source *s, const rows *rs, const char *tmp, pp_merge_report *r)
{
    char path[PP_PATH_MAX];
    FILE *fp;
    int rc = 0;

    if (pp_path_in(path, sizeof path, tmp, "summary.csv") < 0)
        return -ENAMETOOLONG;
    if (!(fp = fopen(path, "w"))) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", path, strerror(errno));
        return rc;
    }
    fputs(s[0].header, fp);
    for (size_t i = 0; i < rs->n && rc >= 0; i++) {
        const row *rw = &rs->v[i];
        if (rw->dup)
            continue;
        fwrite(rw->text, 1, rw->len, fp);
        fprintf(fp, "%s,%lu\n", rw->node, rw->repeat);
        s[rw->src].n_kept++;
        r->n_rows++;
        rc = copy_trace(&s[rw->src], rw, tmp, i == 0 || rs->v[i - 1].id != rw->id);
        r->n_traces += rc == 0;
        if (rc == 1 && r->n_traces_missing++ < MAX_REPORTED)
            pp_log_warn("%s/traces: no trace of id %llu repeat %lu (node %s): the row is merged "
                        "without it", s[rw->src].dir, (unsigned long long)rw->id, rw->repeat,
                        rw->node);
    }
    if (rc < 0) {
        fclose(fp);
        return rc;
    }
    return close_written(fp, path);
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
    char path[PP_PATH_MAX];
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
    rc = pp_path_in(path, sizeof path, tmp, "run.json");
    if (rc == 0)
        rc = pp_json_save(path, root, PP_RUN_JSON_FLAGS);
    json_decref(root);
    return rc;
}

/* The first source's profile.cfg that there is into tmp. 0 or -errno
 * (logged). */
static int copy_profile(const source *s, size_t n, const char *tmp)
{
    char to[4300];
    int rc = 1;

    if (pp_path_in(to, sizeof to, tmp, "profile.cfg") < 0)
        return -ENAMETOOLONG;
    for (size_t i = 0; i < n && rc == 1; i++)
        rc = copy_in(&s[i], "profile.cfg", to);
    return rc == 1 ? 0 : rc;
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
    char tmp[PP_PATH_MAX], path[4300];
    int rc;

    if ((rc = pp_tmpdir_make(out, "merge", tmp, sizeof tmp)) < 0)
        return rc;
    if ((rc = pp_path_in(path, sizeof path, tmp, "traces")) < 0)
        return rc;
    if (mkdir(path, 0755) != 0) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", path, strerror(errno));
    }
    if (rc == 0)
        rc = write_rows(s, rs, tmp, r);
    if (rc == 0)
        rc = copy_profile(s, n, tmp);
    if (rc == 0)
        rc = write_run_json(s, n, tmp, r);
    if (rc == 0)
        return pp_tmpdir_commit();
    pp_tmpdir_abort();
    return rc;
}

/* Read every source, check them against each other and their keys. */
static int read_sources(source *s, const char *const *src, size_t n, rows *rs,
                        pp_merge_report *r)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < n; i++) {
        s[i].dir = src[i];
        rc = load_source(&s[i], i, rs);
    }
    if (rc == 0 && (rc = same_profile(s, n)) == 0 &&
        (rc = pp_strlcpy(r->config_hash, s[0].identity, sizeof r->config_hash)) == 0) {
        check_keys(s, rs, r);
        count_missing(s, rs, r);
    }
    if (rc == 0 && rs->n == 0) {
        pp_log_error("%s/summary.csv: no rows%s: nothing to merge", s[0].dir,
                     n > 1 ? " in any of the folders" : "");
        rc = -EINVAL;
    }
    if (rc == 0 && r->n_conflicts) {
        pp_log_error("%zu conflicting row%s: nothing merged (a board measured a configuration "
                     "twice into different folders? merge them apart, or profile again with "
                     "--resume into one folder)", r->n_conflicts, r->n_conflicts == 1 ? "" : "s");
        rc = -EINVAL;
    }
    return rc;
}

int pp_merge(const char *const *src, size_t n, const char *out, pp_merge_report *r)
{
    source *s = calloc(n + 1, sizeof *s);
    rows rs = {NULL, 0, 0};
    char target[PP_PATH_MAX];
    size_t len;
    int rc = s ? 0 : -ENOMEM;

    memset(r, 0, sizeof *r);
    if (pp_strlcpy(target, out, sizeof target) < 0 || !target[0]) {
        pp_log_error("output folder '%.100s': %s", out, target[0] ? "too long" : "empty");
        rc = -EINVAL;
    }
    for (len = strlen(target); len > 1 && target[len - 1] == '/'; len--)
        target[len - 1] = '\0'; /* OUT/ is OUT: the temporary folder goes beside it */
    if (rc == 0 && access(target, F_OK) == 0) {
        pp_log_error("%s exists: give a new folder", out);
        rc = -EEXIST;
    }
    for (size_t i = 0; s && i < n; i++)
        s[i].dfd = -1;
    if (rc == 0 && n > 0 && (rc = read_sources(s, src, n, &rs, r)) == 0)
        rc = write_merged(s, n, &rs, target, r);
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].header);
        free(s[i].identity);
        json_decref(s[i].run_json);
        if (s[i].dfd >= 0)
            close(s[i].dfd);
    }
    for (size_t i = 0; i < rs.n; i++)
        free(rs.v[i].text);
    free(s);
    free(rs.v);
    return rc;
}
