/* Import of PX4 flight logs: the battery_status topic as a trace, and the
 * log's own figures kept beside it (flight.csv). The log (a ULog or a
 * ulog2csv battery_status CSV) is read by src/flight/flight_log.h. */
#include "import_ulog.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/flight/flight.h"
#include "src/flight/ulog_trace.h"
#include "src/flight/flight_log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The logs an import read, kept until pp_import_ulog_forget: each file is
 * read and parsed once per import (the trace, flight.csv and the report). */
static struct cached {
    char *path;
    struct stat st; /* the file read: read again when it changed */
    pp_ulog_flight f;
} *g_cache;
static size_t g_n_cache;

const pp_ulog_flight *pp_import_ulog_flight(const char *path)
{
    struct cached *c;

    struct stat st;

    if (stat(path, &st) != 0)
        memset(&st, 0, sizeof st);
    for (size_t i = 0; i < g_n_cache; i++)
        if (strcmp(g_cache[i].path, path) == 0 && g_cache[i].st.st_ino == st.st_ino &&
            g_cache[i].st.st_size == st.st_size &&
            g_cache[i].st.st_mtim.tv_nsec == st.st_mtim.tv_nsec &&
            g_cache[i].st.st_mtim.tv_sec == st.st_mtim.tv_sec)
            return &g_cache[i].f;
    if (!(c = realloc(g_cache, (g_n_cache + 1) * sizeof *c)))
        return NULL;
    g_cache = c;
    c = &g_cache[g_n_cache];
    if (!(c->path = strdup(path)))
        return NULL;
    c->st = st;
    if (pp_flight_log_read(path, &c->f) < 0) { /* a ULog, or a flight log as CSV */
        pp_ulog_flight_free(&c->f);
        free(c->path);
        return NULL;
    }
    return &g_cache[g_n_cache++].f;
}

void pp_import_ulog_forget(void)
{
    for (size_t i = 0; i < g_n_cache; i++) {
        pp_ulog_flight_free(&g_cache[i].f);
        free(g_cache[i].path);
    }
    free(g_cache);
    g_cache = NULL;
    g_n_cache = 0;
}

int pp_import_ulog(const char *path, const pp_import_options *o, pp_trace *t)
{
    const pp_ulog_flight *f = pp_import_ulog_flight(path);

    (void)o;
    memset(t, 0, sizeof *t);
    return f ? pp_ulog_battery_trace(f, path, t) : -EINVAL;
}

/* One log's rows of flight.csv; 0 or -errno (logged). */
static int flight_rows(FILE *fp, int index, const char *file)
{
    const pp_ulog_flight *f = pp_import_ulog_flight(file);
    double t0 = INFINITY;

    if (!f)
        return -EINVAL;
    for (size_t b = 0; b < f->n_batteries; b++)
        t0 = fmin(t0, f->bat[b].t_s[0]);
    for (size_t b = 0; b < f->n_batteries; b++)
        for (size_t k = 0; k < f->bat[b].n; k++)
            fprintf(fp, "%d,%d,%.6f,%.6g,%.6g,%.6g,%.6g\n", index, f->bat[b].instance,
                    f->bat[b].t_s[k] - t0, f->bat[b].voltage_v[k], f->bat[b].current_a[k],
                    f->bat[b].discharged_mah[k], f->bat[b].remaining[k]);
    return 0;
}

int pp_import_ulog_flight_csv(const char *dir, const char *const *files, size_t n_files)
{
    char path[4400];
    FILE *fp;
    int rc = 0;

    if ((rc = pp_path_in(path, sizeof path, dir, "flight.csv")) < 0)
        return rc;
    if (!(fp = fopen(path, "w"))) {
        rc = -errno;
        pp_log_error("%s: cannot write: %s", path, strerror(errno));
        return rc;
    }
    fputs("file,battery,t_s,voltage_v,current_a,discharged_mah,remaining\n", fp);
    for (size_t i = 0; i < n_files && rc == 0; i++)
        rc = flight_rows(fp, (int)i, files[i]);
    if ((fflush(fp) | ferror(fp) | fclose(fp)) && rc == 0) {
        rc = errno ? -errno : -EIO;
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    }
    return rc;
}

int pp_import_ulog_packs(const char *path, const pp_battery_params *given,
                         pp_battery_params *packs, size_t n_rails)
{
    const pp_ulog_flight *f = pp_import_ulog_flight(path);
    size_t r = 0;

    if (!f)
        return -EINVAL;
    for (size_t b = 0; b < f->n_batteries && r < n_rails; b++) {
        if (!f->bat[b].n)
            continue; /* no rail (pp_ulog_battery_trace) */
        if (given)
            packs[r] = *given;
        else
            pp_flight_pack_for(f, &f->bat[b], &packs[r]);
        r++;
    }
    return r == n_rails ? 0 : -EINVAL;
}
