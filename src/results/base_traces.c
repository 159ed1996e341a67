#include "base_traces.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/config/config.h"
#include "json_file.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file a base trace names: itself, or a results folder's traces/0.csv
 * (as src/plan/phase_load.c reads it). */
static int trace_file(const char *path, char *out, size_t cap)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? pp_fmt(out, cap, "%s/traces/0.csv", path)
                                                       : pp_strlcpy(out, path, cap);
}

/* "fnv1a64:" and 16 hex digits of the file's content into out. 0 or -errno. */
static int hash_file(const char *path, char *out, size_t cap)
{
    char file[PP_PATH_MAX], buf[65536];
    uint64_t h = 1469598103934665603ULL;
    size_t n;
    FILE *fp;
    int rc = 0;

    if (trace_file(path, file, sizeof file) < 0)
        return -ENAMETOOLONG;
    if (!(fp = fopen(file, "rb")))
        return -errno;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ (uint8_t)buf[i]) * 1099511628211ULL;
    if (ferror(fp))
        rc = -EIO;
    fclose(fp);
    if (pp_fmt(out, cap, "fnv1a64:%016llx", (unsigned long long)h) < 0 && rc == 0)
        rc = -ENAMETOOLONG; /* never: 24 characters */
    return rc;
}

static json_t *phases_json(const pp_mission_spec *m)
{
    json_t *arr = json_array();

    for (size_t k = 0; arr && k < m->n_phases; k++) {
        const pp_mission_phase *ph = &m->phase[k];
        char abs[PP_PATH_MAX], hash[64];
        if (!ph->base_trace[0] || !realpath(ph->base_trace, abs) ||
            hash_file(abs, hash, sizeof hash) < 0)
            continue; /* a trace not there: the plan says so when it reads it */
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s}", "phase", ph->name, "base_trace",
                                             abs, "hash", hash));
    }
    return arr;
}

int pp_results_base_traces_record(const char *dir, const char *config_path)
{
    char path[PP_PATH_MAX];
    pp_mission_spec *m = malloc(sizeof *m);
    pp_config *cfg = NULL;
    json_t *arr = NULL;
    int rc = m ? pp_config_load(config_path, &cfg) : -ENOMEM;

    if (rc == 0 && pp_mission_from_config(cfg, m) == 0 && (arr = phases_json(m)) &&
        json_array_size(arr) > 0) {
        json_t *root = json_pack("{s:O}", "phases", arr);
        rc = !root ? -ENOMEM
           : (rc = pp_path_fmt(path, sizeof path, dir, PP_BASE_TRACES_FILE)) < 0
               ? rc
               : pp_json_save(path, root, JSON_INDENT(1) | JSON_PRESERVE_ORDER); /* says why */
        json_decref(root);
    }
    json_decref(arr);
    pp_config_free(cfg);
    free(m);
    return rc;
}

/* Recorded entry e onto the phase of m it names. */
static int apply_one(const char *rec, const json_t *e, pp_mission_spec *m)
{
    const char *name = json_string_value(json_object_get(e, "phase"));
    const char *trace = json_string_value(json_object_get(e, "base_trace"));
    const char *hash = json_string_value(json_object_get(e, "hash"));
    char now[64];

    if (!name || !trace || !hash) {
        pp_log_error("%s: an entry without phase, base_trace and hash", rec);
        return -EINVAL;
    }
    for (size_t k = 0; k < m->n_phases; k++) {
        if (strcmp(m->phase[k].name, name) != 0 || !m->phase[k].base_trace[0])
            continue;
        if (hash_file(trace, now, sizeof now) < 0) {
            pp_log_error("%s: phase '%s': its base trace %s (recorded when the results were "
                         "written): %s", rec, name, trace, strerror(errno ? errno : ENOENT));
            return -EINVAL;
        }
        if (strcmp(now, hash) != 0)
            pp_log_warn("%s: phase '%s': %s changed since the results were written (%s, now "
                        "%s): planned with what it holds now", rec, name, trace, hash, now);
        if (pp_strlcpy(m->phase[k].base_trace, trace, sizeof m->phase[k].base_trace) < 0) {
            pp_log_error("%s: phase '%s': its base trace %.80s...: a path too long", rec, name,
                         trace);
            return -EINVAL;
        }
    }
    return 0;
}

int pp_results_base_traces_apply(const char *cfg_path, pp_mission_spec *m)
{
    char rec[PP_PATH_MAX];
    const char *slash = strrchr(cfg_path, '/');
    json_error_t err;
    json_t *root, *arr, *e;
    size_t i;
    int rc = 0;

    if ((slash ? pp_fmt(rec, sizeof rec, "%.*s/" PP_BASE_TRACES_FILE, (int)(slash - cfg_path),
                        cfg_path)
               : pp_strlcpy(rec, PP_BASE_TRACES_FILE, sizeof rec)) < 0) {
        pp_log_error("%.80s...: a folder's path too long for " PP_BASE_TRACES_FILE " in it",
                     cfg_path);
        return -ENAMETOOLONG;
    }
    if (access(rec, F_OK) != 0)
        return 0;
    if (!(root = json_load_file(rec, 0, &err))) {
        pp_log_error("%s:%d: %s", rec, err.line, err.text);
        return -EINVAL;
    }
    if (!json_is_array(arr = json_object_get(root, "phases"))) {
        pp_log_error("%s: no \"phases\" list", rec);
        rc = -EINVAL;
    }
    json_array_foreach(arr, i, e) {
        if (rc == 0)
            rc = apply_one(rec, e, m);
    }
    json_decref(root);
    return rc;
}
