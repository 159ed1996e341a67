/* replay_oracle.c - the replay oracle of adaptive runs (replay_oracle.h). */
#include "tests/replay_oracle.h"
#include "src/adaptive/adaptive_design.h"
#include "src/adaptive/adaptive_run.h"

#include "src/base/log.h"
#include "src/results/results.h"
#include "src/results/summary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pp_replay_free(pp_replay *rp)
{
    for (size_t c = 0; rp->rows && c < rp->n; c++)
        free(rp->rows[c]);
    free(rp->rows);
    free(rp->header);
    memset(rp, 0, sizeof *rp);
}

/* The candidates: the distinct ids of the rows ok, their values. */
static int space_of(const pp_summary *sum, pp_adaptive_space *s)
{
    size_t n = 0;
    int rc;

    for (size_t i = 0; i < sum->n_rows; i++) {
        size_t j = 0;
        while (j < i && sum->ids[j] != sum->ids[i])
            j++;
        n += j == i;
    }
    if ((rc = pp_adaptive_space_init(s, sum->n_params, n)) < 0)
        return rc;
    n = 0;
    for (size_t i = 0; i < sum->n_rows; i++) {
        if (n && pp_adaptive_space_find(s, (uint64_t)sum->ids[i]) >= 0)
            continue;
        s->ids[n] = (uint64_t)sum->ids[i];
        memcpy(s->raw + n * sum->n_params, sum->x + i * sum->n_params,
               sum->n_params * sizeof *s->raw);
        n++;
    }
    for (size_t k = 0; k < sum->n_params && rc == 0; k++) {
        const char *labels[PP_SUMMARY_MAX_LABELS];
        pp_strlcpy(s->names[k], sum->params[k], sizeof s->names[k]);
        s->log_scale[k] = sum->log_scale[k];
        if (sum->param[k].kind != PP_PARAM_CATEGORICAL)
            continue;
        for (size_t l = 0; l < sum->param[k].n_labels && l < PP_SUMMARY_MAX_LABELS; l++)
            labels[l] = sum->param[k].labels[l];
        rc = pp_adaptive_space_set_labels(s, k, sum->param[k].n_labels, labels);
    }
    return rc < 0 ? rc : pp_adaptive_space_finish(s);
}

/* Append line (len bytes) to candidate c's rows. */
static int add_line(pp_replay *rp, long c, const char *line, size_t len)
{
    size_t had = rp->rows[c] ? strlen(rp->rows[c]) : 0;
    char *grown = realloc(rp->rows[c], had + len + 1);

    if (!grown)
        return -ENOMEM;
    memcpy(grown + had, line, len);
    grown[had + len] = '\0';
    rp->rows[c] = grown;
    return 0;
}

/* The lines of summary.csv by candidate (rows of other ids, failed ones,
 * are not candidates: left out). */
static int rows_of(pp_replay *rp, const pp_adaptive_space *s, char *text)
{
    char *nl = strchr(text, '\n'), *line;
    int rc = 0;

    if (!nl || !(rp->header = strndup(text, (size_t)(nl - text + 1))))
        return -ENOMEM;
    rp->n = s->n;
    if (!(rp->rows = calloc(s->n, sizeof *rp->rows)))
        return -ENOMEM;
    for (line = nl + 1; rc == 0 && *line && (nl = strchr(line, '\n')); line = nl + 1) {
        char *end;
        unsigned long long id = strtoull(line, &end, 10);
        long c = end > line && *end == ',' ? pp_adaptive_space_find(s, id) : -1;
        if (c >= 0 && strstr(line, ",ok,") && strstr(line, ",ok,") < nl)
            rc = add_line(rp, c, line, (size_t)(nl - line + 1));
    }
    return rc;
}

int pp_replay_open(const char *full_dir, pp_replay *rp, pp_adaptive_space *s)
{
    pp_summary sum;
    char path[PP_PATH_MAX], *text = NULL;
    int rc;

    memset(rp, 0, sizeof *rp);
    memset(s, 0, sizeof *s);
    pp_strlcpy(rp->full_dir, full_dir, sizeof rp->full_dir);
    if ((rc = pp_summary_read(full_dir, &sum)) < 0)
        return rc;
    rc = sum.n_params ? space_of(&sum, s) : -EINVAL;
    if (!sum.n_params)
        pp_log_error("%s/summary.csv: no parameter columns: nothing to replay", full_dir);
    pp_summary_free(&sum);
    if (rc == 0 && (rc = pp_path_fmt(path, sizeof path, full_dir, "summary.csv")) == 0)
        rc = (text = pp_read_file(path)) ? rows_of(rp, s, text) : -EIO;
    free(text);
    if (rc < 0) {
        pp_replay_free(rp);
        pp_adaptive_space_free(s);
    }
    return rc;
}

/* Copy file from (if it is there) to to. */
static void copy_file(const char *from, const char *to)
{
    char *text = pp_read_file(from);
    FILE *fp = text ? fopen(to, "w") : NULL;

    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
    free(text);
}

/* The ids dir/summary.csv has rows of, as flags over the candidates. */
static void present(const char *path, const pp_adaptive_space *s, uint8_t *has)
{
    char *text = pp_read_file(path), *line, *nl;

    for (line = text ? strchr(text, '\n') : NULL; line && (nl = strchr(++line, '\n')); line = nl) {
        char *end;
        unsigned long long id = strtoull(line, &end, 10);
        long c = end > line ? pp_adaptive_space_find(s, id) : -1;
        if (c >= 0)
            has[c] = 1;
    }
    free(text);
}

/* Candidate c's rows appended to fp, its trace copied. */
static int answer(const pp_replay *rp, const pp_adaptive_space *s, size_t c, FILE *fp,
                  const char *dir)
{
    char from[PP_PATH_MAX], to[PP_PATH_MAX], name[64];

    if (fputs(rp->rows[c], fp) < 0)
        return -EIO;
    if (pp_results_trace_name(s->ids[c], 0, name, sizeof name) == 0 &&
        pp_path_fmt(from, sizeof from, rp->full_dir, "traces/%s", name) == 0 &&
        pp_path_fmt(to, sizeof to, dir, "traces/%s", name) == 0 && access(from, R_OK) == 0)
        copy_file(from, to);
    return 0;
}

int pp_replay_measure(void *ctx, const pp_adaptive_space *s, const size_t *cands, size_t n,
                      const char *dir)
{
    pp_replay *rp = ctx;
    char path[PP_PATH_MAX], from[PP_PATH_MAX];
    uint8_t *has = calloc(s->n, 1);
    FILE *fp = NULL;
    int rc = has ? 0 : -ENOMEM, fresh;

    if (rc == 0 && (mkdir(dir, 0755) < 0 && errno != EEXIST))
        rc = -errno;
    if (rc == 0 && (rc = pp_path_fmt(path, sizeof path, dir, "traces")) == 0)
        mkdir(path, 0755);
    if (rc == 0 && (rc = pp_path_fmt(path, sizeof path, dir, "summary.csv")) == 0) {
        fresh = access(path, F_OK) != 0;
        present(path, s, has);
        if ((fp = fopen(path, "a")) && fresh && fputs(rp->header, fp) >= 0 &&
            pp_path_fmt(from, sizeof from, rp->full_dir, "run.json") == 0 &&
            pp_path_fmt(path, sizeof path, dir, "run.json") == 0)
            copy_file(from, path);
        rc = fp ? 0 : -errno;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (cands[i] < s->n && !has[cands[i]] && rp->rows[cands[i]]) {
            rc = answer(rp, s, cands[i], fp, dir);
            has[cands[i]] = 1;
            rp->measured++;
        }
    if (fp && fclose(fp) != 0 && rc == 0)
        rc = -EIO;
    if (rc < 0)
        pp_log_error("%s: cannot write the replayed rows: %s", dir, strerror(-rc));
    free(has);
    return rc;
}

int pp_replay_run(pp_replayed *r, const char *full, const char *dir,
                  const pp_adaptive_options *o)
{
    int rc;

    memset(r, 0, sizeof *r);
    pp_adaptive_model_predictor(&r->am, &r->pr);
    if ((rc = pp_replay_open(full, &r->rp, &r->s)) < 0)
        return rc;
    r->orc = (pp_adaptive_oracle){&r->rp, pp_replay_measure, NULL};
    return pp_adaptive_run(&r->s, o, &r->pr, &r->orc, dir, NULL, NULL, NULL, &r->res);
}

void pp_replayed_free(pp_replayed *r)
{
    pp_adaptive_model_free(&r->am);
    pp_replay_free(&r->rp);
    pp_adaptive_space_free(&r->s);
}
