/* import_powprofiler.c - the original powprofiler tool's layer-1 CSV
 * (import_powprofiler.h). Calls the shared checks of import.c (import.h); nothing
 * calls back. */
#include "import_powprofiler.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The original tool's header codes: the rails of a TX2's INA3221 monitors;
 * NULL for another code. */
static const char *rail_of_code(const char *code)
{
    if (strcmp(code, "100") == 0)
        return "VDD_IN";
    if (strcmp(code, "101") == 0)
        return "VDD_SYS_CPU";
    if (strcmp(code, "102") == 0)
        return "VDD_SYS_GPU";
    return NULL;
}

int pp_import_powprofiler(const char *path, const pp_import_options *o, pp_trace *t)
{
    FILE *fp = pp_import_open(path); /* a FIFO or a device refused (logged) */
    char *line = NULL, *f[PP_TRACE_MAX_RAILS + 1];
    const char *names[PP_TRACE_MAX_RAILS];
    double row[PP_TRACE_MAX_RAILS];
    size_t cap = 0, n;
    ssize_t len;
    long line_no = 1, sample = 0;
    int rc = 0;

    memset(t, 0, sizeof *t);
    if (!fp)
        return -errno;
    if (!(o->rate_hz > 0)) {
        pp_log_error("--rate-hz %g: must be > 0", o->rate_hz);
        fclose(fp);
        return -EINVAL;
    }
    if ((len = pp_import_getline(&line, &cap, fp, path, 1)) < 0) {
        if (len == -1)
            pp_log_error("%s:1: empty file (a header of codes such as 100,101,102 is expected)",
                         path);
        rc = -EINVAL;
        goto out;
    }
    pp_import_chomp(line);
    n = pp_csv_split(line, f, PP_TRACE_MAX_RAILS + 1);
    if (n > PP_TRACE_MAX_RAILS) {
        pp_log_error("%s:1: %zu columns, at most %d", path, n, PP_TRACE_MAX_RAILS);
        rc = -EINVAL;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const char *code = pp_import_trim(f[i]);
        if (!(names[i] = rail_of_code(code))) {
            pp_log_error("%s:1: unknown header code '%s' (100 total, 101 CPU, 102 GPU)", path, code);
            rc = -EINVAL;
            goto out;
        }
        if ((rc = pp_import_check_rail(path, 1, i + 1, names[i], names, i)) < 0)
            goto out;
    }
    if ((rc = pp_trace_init(t, n, names)) < 0)
        goto out;
    /* each reading stands for one sampling period: energy = sum / rate */
    t->interval_average = 1;
    while ((len = pp_import_getline(&line, &cap, fp, path, line_no + 1)) != -1) {
        size_t m;
        line_no++;
        if (len == -2) {
            rc = -EINVAL;
            break;
        }
        pp_import_chomp(line);
        if (!line[0])
            continue;
        m = pp_csv_split(line, f, PP_TRACE_MAX_RAILS + 1);
        if (m != n) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, m, n);
            rc = -EINVAL;
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            if ((rc = pp_import_power_value(path, line_no, i + 1, f[i], 1.0, &row[i])) < 0)
                goto out;
        if ((rc = pp_trace_append(t, (double)(sample + 1) / o->rate_hz, row)) < 0)
            goto out;
        sample++;
    }
out:
    free(line);
    fclose(fp);
    return pp_import_finish(t, path, rc);
}
