/* sweep_resume.c - the rows an existing summary.csv holds, for --resume
 * (sweep_resume.h). Called by sweep.c; calls nothing of the sweep. */
#include "sweep_resume.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 when field status_col of a summary row is "ok". */
static int row_ok(const char *line, size_t status_col)
{
    for (size_t i = 0; i < status_col && line; i++)
        if ((line = strchr(line, ',')))
            line++;
    return line && strncmp(line, "ok,", 3) == 0;
}

/* Replace path with len bytes of text, atomically. 0 or -errno (logged). */
static int rewrite(const char *path, const char *text, size_t len)
{
    pp_atomic_file af;
    int rc = pp_atomic_file_open(&af, path);

    if (rc == 0 && fwrite(text, 1, len, af.fp) != len) {
        pp_atomic_file_abort(&af);
        rc = -EIO;
    }
    if (rc == 0)
        rc = pp_atomic_file_commit(&af);
    if (rc < 0)
        pp_log_error("%s: cannot rewrite: %s", path, strerror(-rc));
    return rc;
}

/* The slot of summary row line (ending at nl): 0 with *slot, 1 for a row
 * of this sweep beyond its repeats (kept, not marked), -EINVAL (logged)
 * for a row of another profile, shard or node. */
static int row_slot(const char *path, long line_no, const char *line, const char *nl,
                    const pp_sweep_slots *sl, uint64_t *slot)
{
    const char *rep_at = nl, *node_at;
    unsigned long long id, rep;
    char *end;

    while (rep_at > line && rep_at[-1] != ',')
        rep_at--;
    for (node_at = rep_at - 1; node_at > line && node_at[-1] != ','; node_at--)
        ;
    id = strtoull(line, &end, 10);
    if (end == line || *end != ',' || id >= sl->count || node_at <= line) {
        pp_log_error("%s:%ld: not a row of this profile", path, line_no);
        return -EINVAL;
    }
    rep = strtoull(rep_at, &end, 10);
    if (end != nl || end == rep_at || (size_t)(rep_at - 1 - node_at) != strlen(sl->node) ||
        strncmp(node_at, sl->node, strlen(sl->node)) != 0) {
        pp_log_error("%s:%ld: a row of node '%.*s', repeat '%.*s': this is node '%s' (resume "
                     "on that node, or give --node with its name)", path, line_no,
                     (int)(rep_at > node_at ? rep_at - 1 - node_at : 0), node_at,
                     (int)(nl - rep_at), rep_at, sl->node);
        return -EINVAL;
    }
    if (!pp_shard_has(sl->shard, id)) {
        pp_log_error("%s:%ld: configuration %llu is not in shard %llu/%llu: resume with the "
                     "--shard of the run that made this folder", path, line_no, id,
                     (unsigned long long)pp_shard_number(sl->shard), (unsigned long long)sl->shard->n);
        return -EINVAL;
    }
    *slot = rep * sl->count + id;
    return rep < sl->repeats ? 0 : 1;
}

int pp_sweep_read_done(const char *path, const char *header, size_t status_col, int retry_failed,
                       uint8_t *done, const pp_sweep_slots *sl)
{
    char *text = pp_read_file(path), *line, *next, *kept;
    size_t n_kept = 0;
    long line_no = 0;
    int rc = 0, dropped = 0;

    if (!text)
        return access(path, F_OK) != 0 && errno == ENOENT ? 0 : -EIO;
    kept = malloc(strlen(text) + 1);
    for (line = text; kept && *line && rc == 0; line = next) {
        char *nl = strchr(line, '\n');
        uint64_t slot = 0;
        int r = 0;
        if (!nl) { /* torn */
            dropped = 1;
            break;
        }
        next = nl + 1;
        if (++line_no == 1 && strncmp(line, header, (size_t)(next - line)) != 0) {
            pp_log_error("%s:1: the columns differ from this profile's (another profile or "
                         "device, or an older powprof?): resume into a new folder with -o", path);
            rc = -EINVAL;
        } else if (line_no > 1 && (r = row_slot(path, line_no, line, nl, sl, &slot)) < 0) {
            rc = r;
        } else if (line_no > 1 && retry_failed && !row_ok(line, status_col)) {
            dropped = 1;
            continue;
        } else if (line_no > 1 && r == 0) {
            done[slot] = 1;
        }
        memcpy(kept + n_kept, line, (size_t)(next - line));
        n_kept += (size_t)(next - line);
    }
    if (!kept)
        rc = -ENOMEM;
    else if (rc == 0 && dropped)
        rc = rewrite(path, kept, n_kept);
    free(kept);
    free(text);
    return rc;
}
