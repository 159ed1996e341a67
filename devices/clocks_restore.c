/* clocks_restore.c - the restore record (clocks_restore.h). */
#include "clocks_restore.h"
#include "nvpmodel.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pp_clocks_record_init(pp_clocks_record *r)
{
    r->n = 0;
    r->nvpmodel_mode = -1;
    r->nvpmodel_command[0] = 0;
}

int pp_clocks_record_add(pp_clocks_record *r, const pp_clocks *c, pp_clock_kind k)
{
    char paths[2 * PP_CLOCKS_MAX_POLICIES][PP_PATH_MAX], value[64];
    size_t n = pp_clocks_files(c, k, paths, PP_ARRAY_SIZE(paths));

    for (size_t i = 0; i < n; i++) {
        int rc = pp_read_small_file(paths[i], value, sizeof value);
        if (rc < 0) {
            pp_log_error("%s: cannot read: %s", paths[i], strerror(-rc));
            return rc;
        }
        if (value[0] == '<') /* <unsupported>: scaling_setspeed of another governor */
            continue;
        if (r->n == PP_CLOCKS_MAX_FILES) {
            pp_log_error("%s: more than %d clock files to restore", paths[i], PP_CLOCKS_MAX_FILES);
            return -E2BIG;
        }
        if ((rc = pp_path_copy(r->paths[r->n], paths[i], PP_PATH_MAX)) < 0)
            return rc;
        if (pp_strlcpy(r->values[r->n++], value, sizeof r->values[0]) < 0) {
            pp_log_error("%s: a value longer than %zu characters", paths[i],
                         sizeof r->values[0] - 1);
            return -EINVAL;
        }
    }
    return 0;
}

int pp_clocks_record_save(const pp_clocks_record *r, const char *path)
{
    json_t *root = json_object(), *files = json_array();
    pp_atomic_file af;
    int rc;

    for (size_t i = 0; i < r->n; i++)
        json_array_append_new(files, json_pack("{s:s, s:s}", "path", r->paths[i], "value",
                                               r->values[i]));
    json_object_set_new(root, "files", files);
    json_object_set_new(root, "nvpmodel_mode", json_integer(r->nvpmodel_mode));
    json_object_set_new(root, "nvpmodel_command", json_string(r->nvpmodel_command));
    rc = pp_atomic_file_open(&af, path);
    if (rc == 0) {
        rc = json_dumpf(root, af.fp, JSON_INDENT(1)) == 0 ? pp_atomic_file_commit(&af) : -EIO;
        if (rc < 0)
            pp_atomic_file_abort(&af);
    }
    if (rc < 0)
        pp_log_error("%s: cannot write the clocks' restore record: %s", path, strerror(-rc));
    json_decref(root);
    return rc;
}

/* Entry i of the record's files into r. */
static int load_file(const char *path, const json_t *e, size_t i, pp_clocks_record *r)
{
    const char *p = json_string_value(json_object_get(e, "path"));
    const char *v = json_string_value(json_object_get(e, "value"));

    if (!p || !v || strlen(v) >= sizeof r->values[0] || strlen(p) >= PP_PATH_MAX) {
        pp_log_error("%s: files[%zu]: not a {path, value} of a clock", path, i);
        return -EINVAL;
    }
    memcpy(r->paths[i], p, strlen(p) + 1); /* fits: checked above */
    memcpy(r->values[i], v, strlen(v) + 1);
    return 0;
}

int pp_clocks_record_load(const char *path, pp_clocks_record *r)
{
    json_error_t err;
    json_t *root, *files;
    const char *cmd;
    struct stat st;
    int rc = 0;

    pp_clocks_record_init(r);
    if (lstat(path, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode)) { /* a FIFO would hang, a link lead elsewhere */
        pp_log_error("%s: not a regular file: not a clocks' restore record", path);
        return -EINVAL;
    }
    if (!(root = json_load_file(path, 0, &err))) {
        pp_log_error("%s:%d: not a clocks' restore record: %s", path, err.line, err.text);
        return -EINVAL;
    }
    files = json_object_get(root, "files");
    cmd = json_string_value(json_object_get(root, "nvpmodel_command"));
    if (!json_is_array(files) || json_array_size(files) > PP_CLOCKS_MAX_FILES ||
        !json_is_integer(json_object_get(root, "nvpmodel_mode")) || !cmd ||
        strlen(cmd) >= PP_PATH_MAX) {
        pp_log_error("%s: not a clocks' restore record (files, nvpmodel_mode, nvpmodel_command)",
                     path);
        rc = -EINVAL;
    }
    for (size_t i = 0; rc == 0 && i < json_array_size(files); i++)
        rc = load_file(path, json_array_get(files, i), i, r);
    if (rc == 0)
        rc = pp_path_copy(r->nvpmodel_command, cmd, sizeof r->nvpmodel_command);
    if (rc == 0) {
        r->n = json_array_size(files);
        r->nvpmodel_mode = (int)json_integer_value(json_object_get(root, "nvpmodel_mode"));
    }
    json_decref(root);
    return rc;
}

int pp_clocks_record_restore(const pp_clocks_record *r)
{
    unsigned char failed[PP_CLOCKS_MAX_FILES] = {0};
    char why[PP_PATH_MAX + 256];
    int rc = 0;

    if (r->nvpmodel_mode >= 0 &&
        (rc = pp_nvpmodel_set(r->nvpmodel_command, r->nvpmodel_mode, why, sizeof why)) < 0)
        pp_log_error("restoring the power mode: %s", why);
    for (size_t i = r->n; i-- > 0;)
        failed[i] = pp_clocks_write(r->paths[i], r->values[i], why, sizeof why) < 0;
    for (size_t i = r->n; i-- > 0;) {
        int w;
        if (!failed[i] || (w = pp_clocks_write(r->paths[i], r->values[i], why, sizeof why)) == 0)
            continue;
        pp_log_error("restoring a clock: %s", why);
        rc = rc < 0 ? rc : w;
    }
    return rc;
}

/* A value a clock file takes: digits, or a governor's name. */
static int plain_value(const char *v)
{
    if (!*v)
        return 0;
    for (; *v; v++)
        if (!isalnum((unsigned char)*v) && *v != '_' && *v != '-')
            return 0;
    return 1;
}

/* 1 when path is one of the files setting any domain of c writes. */
static int board_file(const pp_clocks *c, const char *path)
{
    char paths[2 * PP_CLOCKS_MAX_POLICIES][PP_PATH_MAX];

    for (int k = 0; k < PP_CLOCK_KINDS; k++) {
        size_t n = pp_clocks_files(c, (pp_clock_kind)k, paths, PP_ARRAY_SIZE(paths));
        for (size_t i = 0; i < n; i++)
            if (strcmp(paths[i], path) == 0)
                return 1;
    }
    return 0;
}

int pp_clocks_record_check(const pp_clocks_record *r, const pp_clocks *c, const char *command,
                           char *why, size_t cap)
{
    if (r->nvpmodel_mode >= 0 && strcmp(r->nvpmodel_command, command) != 0) {
        pp_text(why, cap, "nvpmodel_command '%s' is not the profile's (%s): not run",
                r->nvpmodel_command, command);
        return -EPERM;
    }
    for (size_t i = 0; i < r->n; i++) {
        if (!board_file(c, r->paths[i])) {
            pp_text(why, cap, "files[%zu]: %s is no clock file of this board: not written", i,
                    r->paths[i]);
            return -EPERM;
        }
        if (!plain_value(r->values[i])) {
            pp_text(why, cap, "files[%zu]: '%s' for %s is not a clock's value: not written", i,
                    r->values[i], r->paths[i]);
            return -EPERM;
        }
    }
    return 0;
}

/* The record of path checked against the board under root. */
static int load_checked(const char *path, const char *root, const char *command,
                        pp_clocks_record *r)
{
    char why[PP_PATH_MAX + 256];
    pp_clocks *c;
    int rc = pp_clocks_record_load(path, r);

    if (rc < 0)
        return rc;
    if (!(c = malloc(sizeof *c)))
        return -ENOMEM;
    if ((rc = pp_clocks_probe(root, c)) == 0 &&
        (rc = pp_clocks_record_check(r, c, command, why, sizeof why)) < 0)
        pp_log_error("%s: %s", path, why);
    free(c);
    return rc;
}

int pp_clocks_restore_pending(const char *path, const char *root, const char *command)
{
    pp_clocks_record *r = malloc(sizeof *r);
    int rc;

    if (!r)
        return -ENOMEM;
    rc = load_checked(path, root, command, r);
    if (rc == -ENOENT) {
        free(r);
        return 0;
    }
    if (rc == 0 && (rc = pp_clocks_record_restore(r)) == 0) {
        pp_log_warn("%s: a sweep ended without restoring the clocks (killed?): %zu clock "
                    "files%s put back as they were", path, r->n,
                    r->nvpmodel_mode >= 0 ? " and the power mode" : "");
        if (unlink(path) < 0)
            rc = -errno;
    }
    free(r);
    return rc < 0 ? rc : 1;
}
