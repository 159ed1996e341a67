/* Results folders as a whole (see folder.h). */
#include "folder.h"
#include "import_csv.h"
#include "import_jtop.h"
#include "import_powprofiler.h"
#include "import_tegrastats.h"
#include "import_ulog.h"
#include "tmpdir.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir with {node} and {shard} replaced, into out. */
static int expand_placeholders(const char *dir, const char *node, const pp_shard *sh, char *out,
                               size_t cap)
{
    char k[32];
    const struct {
        const char *name, *with;
    } ph[] = {{"{node}", node}, {"{shard}", k}};
    size_t len = 0;

    if (pp_fmt(k, sizeof k, "%llu", (unsigned long long)pp_shard_number(sh)) < 0)
        return -ENAMETOOLONG; /* never: 20 digits */
    for (const char *c = dir; *c && len + 1 < cap;) {
        size_t i = 0;
        while (i < 2 && strncmp(c, ph[i].name, strlen(ph[i].name)) != 0)
            i++;
        if (i < 2) {
            len += (size_t)snprintf(out + len, cap - len, "%s", ph[i].with);
            c += strlen(ph[i].name);
        } else if (*c == '{' && strchr(c, '}')) {
            pp_log_error("results folder %s: unknown placeholder %.*s ({node} and {shard} are "
                         "known)", dir, (int)(strchr(c, '}') - c + 1), c);
            return -EINVAL;
        } else {
            out[len++] = *c++;
        }
    }
    if (len + 1 >= cap) {
        pp_log_error("results folder %s: too long", dir);
        return -EINVAL;
    }
    out[len] = '\0';
    return 0;
}

int pp_results_dir_name(const char *name, const char *dir_template, const pp_shard *sh,
                        const char *node, char *out, size_t cap)
{
    char dir[PP_PATH_MAX];

    if (dir_template)
        return expand_placeholders(dir_template, node, sh, out, cap);
    if (sh->n > 1 ? pp_path_fmt(dir, sizeof dir, "results", "%s-shard-%llu-of-%llu", name,
                                (unsigned long long)pp_shard_number(sh),
                                (unsigned long long)sh->n) < 0
                  : pp_path_fmt(dir, sizeof dir, "results", "%s", name) < 0)
        return -EINVAL;
    return expand_placeholders(dir, node, sh, out, cap);
}

int pp_results_make_dirs(const char *path)
{
    char buf[4096];
    int rc = 0;

    if (pp_strlcpy(buf, path, sizeof buf) < 0)
        rc = -ENAMETOOLONG;
    for (char *s = buf + 1; rc == 0 && *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            rc = -errno;
        *s = '/';
    }
    if (rc == 0 && mkdir(buf, 0755) != 0 && errno != EEXIST)
        rc = -errno;
    if (rc < 0)
        pp_log_error("results folder %s: cannot create: %s", path, strerror(-rc));
    return rc;
}

/* ---- import ----------------------------------------------------------- */

pp_import_reader pp_import_reader_of(const char *format)
{
    return strcmp(format, "powprofiler") == 0  ? pp_import_powprofiler
           : strcmp(format, "tegrastats") == 0 ? pp_import_tegrastats
           : strcmp(format, "csv") == 0        ? pp_import_csv
           : strcmp(format, "ulog") == 0       ? pp_import_ulog
           : strcmp(format, "jtop") == 0       ? pp_import_jtop
                                               : NULL;
}

/* The temporary folder while the import writes it (tmpdir.h). */
static char tmp_dir[PP_PATH_MAX];

void pp_results_import_abandon(void)
{
    pp_tmpdir_signal_cleanup();
}

/* The temporary folder beside out (tmpdir.h: removed on an error or a
 * signal, or by the next run after a crash), with traces/. */
static int make_tmp(const char *out)
{
    char path[4400];
    int rc = pp_tmpdir_make(out, "import", tmp_dir, sizeof tmp_dir);

    if (rc == 0)
        rc = pp_path_in(path, sizeof path, tmp_dir, "traces");
    if (rc == 0 && mkdir(path, 0755) != 0) {
        rc = -errno;
        pp_log_error("cannot create %s: %s", path, strerror(errno));
    }
    return rc;
}

/* Parameter names: none twice, none that summary.csv uses itself. */
static int check_param_names(const pp_results_layout *l)
{
    for (size_t i = 0; i < l->n_params; i++) {
        if (strcmp(l->param_names[i], "id") == 0 || strcmp(l->param_names[i], "status") == 0) {
            pp_log_error("parameter '%s': summary.csv has a column of that name: call it "
                         "otherwise", l->param_names[i]);
            return -EINVAL;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(l->param_names[i], l->param_names[j]) == 0) {
                pp_log_error("parameter '%s' is given twice", l->param_names[i]);
                return -EINVAL;
            }
    }
    return 0;
}

/* The names of the parameters: the pattern's (from the first file), then
 * the fixed ones. */
static int param_layout(const pp_import_request *rq, pp_results_layout *l, int *n_pat)
{
    char names[PP_IMPORT_MAX_PARAMS][64];
    double values[PP_IMPORT_MAX_PARAMS];

    *n_pat = 0;
    if (rq->pattern &&
        (*n_pat = pp_import_match_pattern(rq->pattern, rq->files[0], names, values,
                                          PP_IMPORT_MAX_PARAMS - rq->n_fixed)) < 0)
        return -EINVAL;
    _Static_assert(sizeof l->param_names[0] >= sizeof names[0] &&
                       sizeof l->param_names[0] >= sizeof rq->fixed_names[0], "the names fit");
    for (int i = 0; i < *n_pat; i++)
        memcpy(l->param_names[l->n_params++], names[i], sizeof names[i]);
    for (size_t i = 0; i < rq->n_fixed; i++)
        memcpy(l->param_names[l->n_params++], rq->fixed_names[i], sizeof rq->fixed_names[i]);
    return check_param_names(l);
}

/* A pack as run.json names it. */
static json_t *pack_json(const pp_battery_params *b)
{
    return json_pack("{s:s, s:i, s:f}", "model", pp_battery_model_name(b->model), "cells",
                     b->cells, "capacity_ah", b->capacity_ah);
}

/* ulog without -c: the pack each rail (battery instance) of each log of
 * several drains (pp_import_ulog_packs, as summary.csv's rows), file by
 * file: [{file, rail, model, cells, capacity_ah}]; an empty array where
 * every rail drains run.json's battery. */
static json_t *own_packs_json(const pp_import_request *rq, const pp_results_layout *l)
{
    pp_battery_params packs[PP_TRACE_MAX_RAILS];
    json_t *a = json_array();

    if (strcmp(rq->format, "ulog") != 0 || rq->battery_given || l->n_rails < 2)
        return a;
    for (size_t f = 0; f < rq->n_files; f++)
        for (size_t r = 0; r < l->n_rails &&
                           (r > 0 || pp_import_ulog_packs(rq->files[f], NULL, packs, l->n_rails) == 0);
             r++) {
            json_t *o = pack_json(&packs[r]);
            json_object_set_new(o, "file", json_string(rq->files[f]));
            json_object_set_new(o, "rail", json_string(l->rail_names[r]));
            json_array_append_new(a, o);
        }
    return a;
}

/* run.json: where the rows come from, the rails and the battery (and the
 * packs of a log of several batteries). */
static int write_run_json(const pp_import_request *rq, const pp_results_layout *l)
{
    char path[4400];
    json_t *root = json_object(), *sources = json_array(), *rails = json_array(), *packs;
    int rc;

    for (size_t f = 0; f < rq->n_files; f++)
        json_array_append_new(sources, json_string(rq->files[f]));
    for (size_t r = 0; r < l->n_rails; r++)
        json_array_append_new(rails, json_pack("{s:s, s:b, s:b}", "name", l->rail_names[r],
                                               "estimated", 0, "in_total", l->rail_in_total[r]));
    json_object_set_new(root, "import", json_string(rq->format));
    json_object_set_new(root, "device", json_string("import"));
    json_object_set_new(root, "sources", sources);
    json_object_set_new(root, "rails", rails);
    json_object_set_new(root, "battery", pack_json(&rq->battery));
    if (json_array_size(packs = own_packs_json(rq, l)))
        json_object_set_new(root, "packs", packs);
    else
        json_decref(packs);
    errno = 0;
    if ((rc = pp_path_in(path, sizeof path, tmp_dir, "run.json")) == 0)
        rc = json_dump_file(root, path, JSON_COMPACT | JSON_REAL_PRECISION(12)) == 0 ? 0
             : errno ? -errno : -EIO;
    if (rc < 0)
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    json_decref(root);
    return rc;
}

/* The first file's rails make the layout and the header of summary.csv. */
static FILE *open_summary(const pp_trace *t, pp_results_layout *l, char *row, size_t cap)
{
    char path[4400];
    FILE *fp;

    l->n_rails = t->n_rails;
    for (size_t r = 0; r < t->n_rails; r++) {
        _Static_assert(sizeof l->rail_names[r] == sizeof t->names[r], "the same size");
        memcpy(l->rail_names[r], t->names[r], sizeof t->names[r]);
        l->rail_in_total[r] = !pp_trace_rail_is_inside(t, r);
    }
    if (pp_path_in(path, sizeof path, tmp_dir, "summary.csv") < 0)
        return NULL;
    if (!(fp = fopen(path, "w")))
        pp_log_error("cannot write %s: %s", path, strerror(errno));
    else {
        pp_results_header(l, row, cap);
        fputs(row, fp);
    }
    return fp;
}

/* File f's trace t into traces/<f>.csv and a row of summary (opened at
 * the first file). 0, -EINVAL (rails that differ) or -EIO. */
static int import_trace(const pp_import_request *rq, size_t f, const pp_trace *t,
                        const double *values, pp_results_layout *l, FILE **summary, char *row,
                        size_t cap)
{
    char path[4400];
    double mean_w;
    int same;

    if (f == 0 && !(*summary = open_summary(t, l, row, cap)))
        return -EIO;
    same = t->n_rails == l->n_rails;
    for (size_t r = 0; same && r < t->n_rails; r++)
        same = strcmp(t->names[r], l->rail_names[r]) == 0;
    if (!same) {
        pp_log_error("%s: its rails differ from %s's", rq->files[f], rq->files[0]);
        return -EINVAL;
    }
    if (pp_fmt(path, sizeof path, "%s/traces/%zu.csv", tmp_dir, f) < 0 || /* never: 4400 */
        pp_trace_write_csv(t, path) < 0)
        return -EIO;
    pp_results_row rr = {(uint64_t)f, values, "ok", pp_trace_duration_s(t), 0, 0, NULL, NULL,
                         "", NULL, NULL, NULL, 0};
    pp_battery_params packs[PP_TRACE_MAX_RAILS];
    int own = strcmp(rq->format, "ulog") == 0 && t->n_rails > 1 &&
              pp_import_ulog_packs(rq->files[f], rq->battery_given ? &rq->battery : NULL, packs,
                                   t->n_rails) == 0; /* each battery instance its own pack */
    fwrite(row, 1, pp_results_format_row_packs(l, &rr, t, &rq->battery, own ? packs : NULL, row,
                                               cap, &mean_w), *summary);
    return 0;
}

/* Every file into the temporary folder: traces/<id>.csv and a row of
 * summary.csv. 0, -EINVAL or -EIO. */
static int import_files(const pp_import_request *rq, int n_pat, pp_results_layout *l, char *row,
                        size_t cap)
{
    char names[PP_IMPORT_MAX_PARAMS][64];
    double values[PP_IMPORT_MAX_PARAMS];
    pp_import_reader reader = pp_import_reader_of(rq->format);
    FILE *summary = NULL;
    int rc = reader ? 0 : -EINVAL;

    for (size_t f = 0; rc == 0 && f < rq->n_files; f++) {
        pp_trace t;
        if (rq->pattern && pp_import_match_pattern(rq->pattern, rq->files[f], names, values,
                                                   PP_IMPORT_MAX_PARAMS) < 0) {
            rc = -EINVAL;
            break;
        }
        for (size_t i = 0; i < rq->n_fixed; i++)
            values[n_pat + (int)i] = rq->fixed_values[i];
        if (reader(rq->files[f], &rq->io, &t) < 0) {
            rc = -EINVAL;
            break;
        }
        rc = import_trace(rq, f, &t, values, l, &summary, row, cap);
        pp_trace_free(&t);
    }
    if (rc == 0 && (fflush(summary) != 0 || ferror(summary) || fsync(fileno(summary)) != 0))
        rc = errno ? -errno : -EIO;
    if (summary && fclose(summary) != 0 && rc == 0)
        rc = errno ? -errno : -EIO;
    if (rc < 0 && rc != -EINVAL && summary)
        pp_log_error("%s/summary.csv: cannot write: %s", tmp_dir, strerror(-rc));
    return rc;
}

int pp_results_import(const pp_import_request *rq, pp_results_layout *l)
{
    char *row = malloc(16384);
    int n_pat, rc = row ? 0 : -ENOMEM;

    memset(l, 0, sizeof *l);
    if (rc == 0 && !pp_import_reader_of(rq->format)) {
        pp_log_error("unknown format '%s' (powprofiler, tegrastats, csv, ulog)", rq->format);
        rc = -EINVAL;
    }
    if (rc == 0 && rq->n_files == 0) {
        pp_log_error("no file to import");
        rc = -EINVAL;
    }
    if (rc == 0)
        rc = param_layout(rq, l, &n_pat);
    if (rc == 0 && access(rq->out, F_OK) == 0) {
        pp_log_error("%s exists: give a new folder", rq->out);
        rc = -EINVAL;
    }
    if (rc == 0 && (rc = make_tmp(rq->out)) == 0 &&
        (rc = import_files(rq, n_pat, l, row, 16384)) == 0 &&
        (strcmp(rq->format, "ulog") != 0 ||
         (rc = pp_import_ulog_flight_csv(tmp_dir, rq->files, rq->n_files)) == 0) &&
        (rc = write_run_json(rq, l)) == 0)
        rc = pp_tmpdir_commit();
    pp_tmpdir_abort();
    free(row);
    return rc;
}
