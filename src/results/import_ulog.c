/* Import of PX4 flight logs: the battery_status topic as a trace, and the
 * log's own figures kept beside it (flight.csv). The log (a ULog or a
 * ulog2csv battery_status CSV) is read by src/traces/flight_log.h. */
#include "import.h"

#include "src/base/log.h"
#include "src/base/util.h"
#include "src/traces/flight_log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int pp_import_ulog(const char *path, const pp_import_options *o, pp_trace *t)
{
    pp_ulog_flight f;
    int rc;

    (void)o;
    memset(t, 0, sizeof *t);
    rc = pp_flight_log_read(path, &f);
    if (rc == 0)
        rc = pp_ulog_battery_trace(&f, path, t);
    pp_ulog_flight_free(&f);
    return rc;
}

/* One log's rows of flight.csv; 0 or -errno (logged). */
static int flight_rows(FILE *fp, int index, const char *file)
{
    pp_ulog_flight f;
    double t0 = INFINITY;
    int rc = pp_flight_log_read(file, &f) < 0 ? -EINVAL : 0;

    for (size_t b = 0; rc == 0 && b < f.n_batteries; b++)
        t0 = fmin(t0, f.bat[b].t_s[0]);
    for (size_t b = 0; rc == 0 && b < f.n_batteries; b++)
        for (size_t k = 0; k < f.bat[b].n; k++)
            fprintf(fp, "%d,%d,%.6f,%.6g,%.6g,%.6g,%.6g\n", index, f.bat[b].instance,
                    f.bat[b].t_s[k] - t0, f.bat[b].voltage_v[k], f.bat[b].current_a[k],
                    f.bat[b].discharged_mah[k], f.bat[b].remaining[k]);
    pp_ulog_flight_free(&f);
    return rc;
}

int pp_import_ulog_flight_csv(const char *dir, const char *const *files, size_t n_files)
{
    char path[4400];
    FILE *fp;
    int rc = 0;

    pp_fmt(path, sizeof path, "%s/flight.csv", dir);
    if (!(fp = fopen(path, "w"))) {
        rc = -errno;
        pp_log_error("%s: cannot write: %s", path, strerror(errno));
        return rc;
    }
    fputs("file,battery,t_s,voltage_v,current_a,discharged_mah,remaining\n", fp);
    for (size_t i = 0; i < n_files && rc == 0; i++)
        rc = flight_rows(fp, (int)i, files[i]);
    if ((ferror(fp) | fclose(fp)) && rc == 0) {
        pp_log_error("%s: cannot write", path);
        rc = -EIO;
    }
    return rc;
}
