/* sweep_clocks.c - the clocks of a sweep (sweep_clocks.h). */
#include "sweep_clocks.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include "devices/clocks.h"
#include "devices/clocks_restore.h"
#include "devices/nvpmodel.h"
#include "devices/thermal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N PP_PROFILE_CLOCK_PARAMS
#define WATCH_NS 100000000L /* the clocks and the thermal zones every 100 ms */

struct pp_sweep_clocks {
    const pp_profile *p;
    size_t first;              /* the first clock parameter among the values */
    pp_clocks clocks;
    pp_clocks_record record;
    char record_path[PP_PATH_MAX], csv_path[PP_PATH_MAX];
    int fd;                    /* clocks.csv */
    int mode;                  /* the power mode set last (-1: none yet) */
    double set[N], before[N], lowest[N], after[N];
    double max_temp_c;
    char zone[64];
    pthread_t thread;
    int watching;
    atomic_int stop;
    pthread_mutex_t lock;      /* lowest, max_temp_c, zone while watching */
    uint64_t not_held, throttled;
};

/* Parameter i sets a clock domain (not the mode). */
static int is_clock(const pp_profile *p, size_t i)
{
    return p->clocks.sets[i] != PP_PROFILE_NVPMODEL;
}

/* The modes of nvpmodel.conf hold every value of ps (no file: not checked). */
static int check_modes(const pp_profile *p, const pp_param_spec *ps)
{
    pp_nvpmodel_mode modes[PP_NVPMODEL_MAX_MODES];
    int n = pp_nvpmodel_modes(p->sysfs_root, modes, PP_NVPMODEL_MAX_MODES), rc = 0;

    if (access(p->clocks.nvpmodel_command, X_OK) < 0) {
        pp_log_error("%s: clocks.nvpmodel_command: %s: %s", p->path, p->clocks.nvpmodel_command,
                     strerror(errno));
        rc = -errno;
    }
    for (size_t v = 0; n > 0 && v < ps->n_values; v++) {
        int found = 0;
        for (int m = 0; m < n; m++)
            found |= modes[m].id == (int)ps->values[v];
        if (!found) {
            pp_log_error("%s: clocks.nvpmodel = %g: no such mode in %s%s", p->path,
                         ps->values[v], p->sysfs_root[0] ? p->sysfs_root : "", PP_NVPMODEL_CONF);
            rc = -EINVAL;
        }
    }
    return rc;
}

/* Every value of clock parameter i settable on c and its files writable. */
static int check_clock(const pp_profile *p, const pp_clocks *c, size_t i)
{
    const pp_param_spec *ps = &p->clocks.params[i];
    pp_clock_kind k = (pp_clock_kind)p->clocks.sets[i];
    char why[PP_PATH_MAX + 512];
    int rc = 0, r;

    for (size_t v = 0; v < ps->n_values; v++)
        if ((r = pp_clocks_check_mhz(c, k, ps->values[v], why, sizeof why)) < 0) {
            pp_log_error("%s: clocks.%s", p->path, why);
            rc = rc < 0 ? rc : r;
            if (r == -ENODEV)
                return rc;
        }
    if ((r = pp_clocks_writable(c, k, why, sizeof why)) < 0) {
        pp_log_error("%s: clocks.%s: %s", p->path, ps->name, why);
        rc = rc < 0 ? rc : r;
    }
    return rc;
}

/* The checks of pp_sweep_clocks_check on the probed c. */
static int check_all(const pp_profile *p, const pp_clocks *c)
{
    int rc = 0, r;

    for (size_t i = 0; i < p->clocks.n_params; i++) {
        r = is_clock(p, i) ? check_clock(p, c, i) : check_modes(p, &p->clocks.params[i]);
        rc = rc < 0 ? rc : r;
    }
    return rc;
}

int pp_sweep_clocks_check(const pp_profile *p)
{
    pp_clocks *c;
    int rc;

    if (!p->clocks.n_params)
        return 0;
    if (!(c = malloc(sizeof *c)))
        return -ENOMEM;
    rc = pp_clocks_probe(p->sysfs_root, c);
    if (rc == 0)
        rc = check_all(p, c);
    free(c);
    return rc;
}

/* Append text to clocks.csv in one write. */
static int append(pp_sweep_clocks *s, const char *text)
{
    size_t len = strlen(text);
    ssize_t n = write(s->fd, text, len);

    if (n < 0 || (size_t)n != len) {
        int err = n < 0 ? errno : EIO;
        pp_log_error("%s: cannot write: %s", s->csv_path, strerror(err));
        return -err;
    }
    return 0;
}

/* A row of clocks.csv that does not fit (never: a few clocks): said. */
static int row_too_long(const char *what)
{
    pp_log_error("clocks.csv: a %s longer than 2047 characters", what);
    return -ENAMETOOLONG;
}

static int write_header(pp_sweep_clocks *s)
{
    const pp_profile *p = s->p;
    char head[2048] = "id,repeat";
    size_t len = strlen(head);
    int cut = 0;

    for (size_t i = 0; i < p->clocks.n_params; i++, len = strlen(head)) {
        const char *n = p->clocks.params[i].name;
        int w = (int)strcspn(n, "_");
        if (!is_clock(p, i))
            cut |= pp_fmt(head + len, sizeof head - len, ",nvpmodel") < 0;
        else
            cut |= pp_fmt(head + len, sizeof head - len, ",%.*s_set_mhz,%.*s_before_mhz,"
                          "%.*s_lowest_mhz,%.*s_after_mhz", w, n, w, n, w, n, w, n) < 0;
    }
    cut |= pp_fmt(head + len, sizeof head - len,
                  ",clock_ok,throttled,max_temp_c,hottest_zone\n") < 0;
    return cut ? row_too_long("header") : append(s, head);
}

/* The record of what the sweep will change, saved before any change. */
static int save_record(pp_sweep_clocks *s)
{
    const pp_profile *p = s->p;
    char why[PP_PATH_MAX + 512];
    int rc;

    pp_clocks_record_init(&s->record);
    _Static_assert(sizeof s->record.nvpmodel_command == sizeof p->clocks.nvpmodel_command,
                   "the same size");
    memcpy(s->record.nvpmodel_command, p->clocks.nvpmodel_command,
           sizeof p->clocks.nvpmodel_command);
    for (size_t i = 0; i < p->clocks.n_params; i++) {
        if (is_clock(p, i))
            rc = pp_clocks_record_add(&s->record, &s->clocks, (pp_clock_kind)p->clocks.sets[i]);
        else if ((rc = pp_nvpmodel_query(p->clocks.nvpmodel_command, &s->record.nvpmodel_mode,
                                         why, sizeof why)) < 0)
            pp_log_error("%s: the power mode now: %s", p->path, why);
        if (rc < 0)
            return rc;
    }
    return pp_clocks_record_save(&s->record, s->record_path);
}

/* The probe, the checks, the record and clocks.csv of s. */
static int start(pp_sweep_clocks *s, const char *out_dir)
{
    int rc;

    if ((rc = pp_clocks_probe(s->p->sysfs_root, &s->clocks)) < 0 ||
        (rc = check_all(s->p, &s->clocks)) < 0 || (rc = save_record(s)) < 0)
        return rc;
    if ((rc = pp_path_fmt(s->csv_path, sizeof s->csv_path, out_dir, "clocks.csv")) < 0)
        return rc;
    s->fd = open(s->csv_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (s->fd < 0) {
        rc = -errno;
        pp_log_error("%s: cannot open: %s", s->csv_path, strerror(errno));
        return rc;
    }
    return lseek(s->fd, 0, SEEK_END) == 0 ? write_header(s) : 0;
}

int pp_sweep_clocks_open(const pp_profile *p, const char *out_dir, pp_sweep_clocks **out)
{
    char record[PP_PATH_MAX];
    pp_sweep_clocks *s;
    int rc;

    *out = NULL;
    if ((rc = pp_path_fmt(record, sizeof record, out_dir, "%s", PP_CLOCKS_RECORD)) < 0 ||
        (rc = pp_clocks_restore_pending(record, p->sysfs_root, p->clocks.nvpmodel_command)) < 0) {
        if (rc != -ENAMETOOLONG)
            pp_log_error("%s: the clocks a killed sweep changed cannot be put back: nothing "
                         "runs before they are", record);
        return rc;
    }
    if (!p->clocks.n_params)
        return 0;
    if (!(s = calloc(1, sizeof *s)))
        return -ENOMEM;
    s->p = p;
    s->fd = -1;
    s->mode = -1;
    s->first = pp_profile_n_params(p) - p->clocks.n_params;
    if (pp_path_copy(s->record_path, record, sizeof s->record_path) < 0) {
        free(s);
        return -ENAMETOOLONG;
    }
    pthread_mutex_init(&s->lock, NULL);
    pp_clocks_record_init(&s->record);
    if ((rc = start(s, out_dir)) < 0) {
        pp_sweep_clocks_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* One look at the clocks set and the thermal zones while a configuration
 * runs. */
static void watch_once(pp_sweep_clocks *s)
{
    const pp_profile *p = s->p;
    char zone[64] = "";
    double mhz, c;

    for (size_t i = 0; i < p->clocks.n_params; i++)
        if (is_clock(p, i) &&
            pp_clocks_read_mhz(&s->clocks, (pp_clock_kind)p->clocks.sets[i], &mhz) == 0) {
            pthread_mutex_lock(&s->lock);
            s->lowest[i] = fmin(s->lowest[i], mhz);
            pthread_mutex_unlock(&s->lock);
        }
    if (pp_thermal_max_c(p->sysfs_root, &c, zone, sizeof zone) == 0) {
        pthread_mutex_lock(&s->lock);
        if (isnan(s->max_temp_c) || c > s->max_temp_c) {
            s->max_temp_c = c;
            _Static_assert(sizeof s->zone == sizeof zone, "the same size");
            memcpy(s->zone, zone, sizeof zone);
        }
        pthread_mutex_unlock(&s->lock);
    }
}

static void *watch(void *arg)
{
    pp_sweep_clocks *s = arg;

    while (!atomic_load(&s->stop)) {
        watch_once(s);
        for (int k = 0; k < 5 && !atomic_load(&s->stop); k++)
            nanosleep(&(struct timespec){0, WATCH_NS / 5}, NULL);
    }
    return NULL;
}

static void stop_watching(pp_sweep_clocks *s)
{
    if (!s->watching)
        return;
    atomic_store(&s->stop, 1);
    pthread_join(s->thread, NULL);
    s->watching = 0;
}

/* Set the mode (when it changes) and every clock of values. */
static int set_all(pp_sweep_clocks *s, const double *v)
{
    const pp_profile *p = s->p;
    char why[PP_PATH_MAX + 512];
    int rc;

    for (size_t i = 0; i < p->clocks.n_params; i++) { /* the mode first: it moves the limits */
        s->set[i] = v[i];
        if (is_clock(p, i) || (int)v[i] == s->mode)
            continue;
        if ((rc = pp_nvpmodel_set(p->clocks.nvpmodel_command, (int)v[i], why, sizeof why)) < 0) {
            pp_log_error("%s", why);
            return rc;
        }
        s->mode = (int)v[i];
    }
    for (size_t i = 0; i < p->clocks.n_params; i++)
        if (is_clock(p, i) &&
            (rc = pp_clocks_set(&s->clocks, (pp_clock_kind)p->clocks.sets[i], v[i], why,
                                sizeof why)) < 0) {
            pp_log_error("%s", why);
            return rc;
        }
    return 0;
}

int pp_sweep_clocks_apply(pp_sweep_clocks *s, const double *values)
{
    const pp_profile *p;
    int rc;

    if (!s)
        return 0;
    p = s->p;
    if ((rc = set_all(s, values + s->first)) < 0)
        return rc;
    for (size_t i = 0; i < p->clocks.n_params; i++) {
        s->before[i] = s->after[i] = NAN;
        if (is_clock(p, i) &&
            pp_clocks_read_mhz(&s->clocks, (pp_clock_kind)p->clocks.sets[i], &s->before[i]) < 0)
            s->before[i] = NAN;
        s->lowest[i] = isnan(s->before[i]) ? INFINITY : s->before[i];
    }
    s->max_temp_c = NAN;
    s->zone[0] = 0;
    atomic_store(&s->stop, 0);
    watch_once(s);
    s->watching = pthread_create(&s->thread, NULL, watch, s) == 0;
    return 0;
}

/* "1377" or an empty cell for NaN, after a comma: 0, or -ENAMETOOLONG. */
static int cell(char *buf, size_t cap, double v)
{
    return isfinite(v) ? pp_fmt(buf, cap, ",%.10g", v) : pp_fmt(buf, cap, ",");
}

/* The row of clocks.csv; *ok and *throttled of the readings. 0, or
 * -ENAMETOOLONG when it did not fit. */
static int format_row(pp_sweep_clocks *s, uint64_t id, unsigned repeat, char *row, size_t cap,
                      int *ok, int *throttled)
{
    const pp_profile *p = s->p;
    size_t len;
    int cut;

    *ok = 1;
    *throttled = 0;
    cut = pp_fmt(row, cap, "%llu,%u", (unsigned long long)id, repeat) < 0;
    for (size_t i = 0; i < p->clocks.n_params; i++) {
        double vals[4] = {s->set[i], s->before[i], s->lowest[i], s->after[i]};
        if (!is_clock(p, i)) {
            len = strlen(row);
            cut |= cell(row + len, cap - len, s->set[i]) < 0;
            continue;
        }
        for (int k = 0; k < 4; k++) {
            len = strlen(row);
            cut |= cell(row + len, cap - len, vals[k]) < 0;
            *ok &= k == 0 || pp_clocks_holds(s->set[i], vals[k]);
        }
        *throttled |= isfinite(s->lowest[i]) && s->lowest[i] < s->set[i] &&
                      !pp_clocks_holds(s->set[i], s->lowest[i]);
    }
    len = strlen(row);
    cut |= pp_fmt(row + len, cap - len, ",%d,%d", *ok, *throttled) < 0;
    len = strlen(row);
    cut |= cell(row + len, cap - len, s->max_temp_c) < 0;
    len = strlen(row);
    cut |= pp_fmt(row + len, cap - len, ",%s\n", pp_label_ok(s->zone) ? s->zone : "") < 0;
    return cut ? -ENAMETOOLONG : 0;
}

/* res (ok) becomes failed: which clock read what. */
static void not_held(const pp_sweep_clocks *s, pp_run_result *res)
{
    const pp_profile *p = s->p;

    for (size_t i = 0; i < p->clocks.n_params; i++) {
        if (!is_clock(p, i) || (pp_clocks_holds(s->set[i], s->before[i]) &&
                                pp_clocks_holds(s->set[i], s->lowest[i]) &&
                                pp_clocks_holds(s->set[i], s->after[i])))
            continue;
        res->status = PP_RUN_FAILED;
        pp_text(res->reason, sizeof res->reason, "clock not held: %s set %g MHz; read %g before; "
                "%g lowest; %g after", p->clocks.params[i].name, s->set[i],
                s->before[i], s->lowest[i], s->after[i]);
        return;
    }
}

int pp_sweep_clocks_end(pp_sweep_clocks *s, uint64_t id, unsigned repeat, pp_run_result *res)
{
    const pp_profile *p;
    char row[2048];
    int ok, throttled;

    if (!s)
        return 0;
    p = s->p;
    stop_watching(s);
    if (res->status == PP_RUN_INTERRUPTED)
        return 0; /* not saved: measured again on --resume */
    for (size_t i = 0; i < p->clocks.n_params; i++)
        if (is_clock(p, i) &&
            pp_clocks_read_mhz(&s->clocks, (pp_clock_kind)p->clocks.sets[i], &s->after[i]) < 0)
            s->after[i] = NAN;
    if (format_row(s, id, repeat, row, sizeof row, &ok, &throttled) < 0)
        return row_too_long("row");
    s->not_held += !ok;
    s->throttled += (uint64_t)throttled;
    if (!ok && res->status == PP_RUN_OK)
        not_held(s, res);
    return append(s, row);
}

int pp_sweep_clocks_close(pp_sweep_clocks *s)
{
    int rc;

    if (!s)
        return 0;
    stop_watching(s);
    rc = pp_clocks_record_restore(&s->record);
    if (rc == 0 && unlink(s->record_path) < 0 && errno != ENOENT)
        rc = -errno;
    if (rc < 0)
        pp_log_error("%s: the clocks could not all be put back; the record stays for the next "
                     "start in this folder", s->record_path);
    if (s->not_held)
        pp_log_warn("%s: %llu measurements did not hold their clocks (%llu throttled: a clock "
                    "fell below its setting while running); they are saved as failed",
                    s->csv_path, (unsigned long long)s->not_held,
                    (unsigned long long)s->throttled);
    if (s->fd >= 0)
        close(s->fd);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return rc;
}
