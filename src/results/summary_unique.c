/* Rows measured twice: two rows with status ok of one (id, node, repeat),
 * which only two writers at once leave (a --resume beside a live run,
 * before folders were locked: src/results/lock.h). Layer 2 would count
 * such a configuration twice; the reader refuses them. */
#include "summary_unique.h"

#include "src/base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct seen {
    long id, repeat, line_no;
    char node[PP_NODE_NAME_MAX];
} seen;

typedef struct rows {
    seen *v;
    size_t n, cap;
} rows;

static int record(void *ctx, const pp_summary_row *row)
{
    rows *r = ctx;

    if (!row->ok)
        return 0; /* a failed row retried keeps its id */
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        seen *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n] = (seen){row->id, row->repeat, row->line_no, {0}};
    strncpy(r->v[r->n].node, row->node, sizeof r->v[r->n].node - 1);
    r->n++;
    return 0;
}

static int cmp_seen(const void *a, const void *b)
{
    const seen *x = a, *y = b;
    int c = (x->id > y->id) - (x->id < y->id);

    if (!c)
        c = strcmp(x->node, y->node);
    if (!c)
        c = (x->repeat > y->repeat) - (x->repeat < y->repeat);
    return c ? c : (x->line_no > y->line_no) - (x->line_no < y->line_no);
}

int pp_summary_read_unique(const char *dir, pp_summary *s)
{
    rows r = {0};
    int rc = pp_summary_read_each(dir, 0, s, record, &r);

    if (rc == 0 && s->n_rows == 0) {
        pp_log_error("%s/summary.csv: no row with status ok", dir);
        rc = -EINVAL;
    }
    if (rc == 0 && r.n > 1)
        qsort(r.v, r.n, sizeof *r.v, cmp_seen);
    for (size_t i = 1; rc == 0 && i < r.n; i++)
        if (cmp_seen(&r.v[i - 1], &r.v[i]) != 0 && r.v[i - 1].id == r.v[i].id &&
            r.v[i - 1].repeat == r.v[i].repeat && strcmp(r.v[i - 1].node, r.v[i].node) == 0) {
            pp_log_error("%s/summary.csv:%ld: id %ld%s%s, repeat %ld, measured twice (also on "
                         "line %ld): two writers at once? Keep one of the two rows, then model "
                         "again", dir, r.v[i].line_no, r.v[i].id, r.v[i].node[0] ? " on node " : "",
                         r.v[i].node, r.v[i].repeat, r.v[i - 1].line_no);
            rc = -EINVAL;
        }
    free(r.v);
    if (rc < 0)
        pp_summary_free(s);
    return rc;
}
