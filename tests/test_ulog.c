/* The PX4 ULog reader (src/flight/ulog.c) and `powprof ulog info`: logs
 * built in memory (tests/ulog_build.h), the logs of tests/fixtures/ulog and
 * the hostile reproducers of tests/fixtures/issue33: a clear error naming
 * the file and the offset, a non-zero exit, nothing read past the log. */
#include "harness.h"
#include "ulog_build.h"

#include "src/flight/ulog.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest a command may take here (each takes well under a second;
 * the shared test machine is slow): past it the command is killed (124). */
#define LIMIT_S "20"

/* powprof under the limit: its exit status (124: killed at the limit). */
#define pp(out, err, ...) run_powprof_within(LIMIT_S, out, err, __VA_ARGS__)
#define tmp_path test_path

static void save(const ulog_buf *u, const char *path)
{
    FILE *fp = fopen(path, "wb");

    CHECK(fp && fwrite(u->b, 1, u->n, fp) == u->n);
    if (fp)
        fclose(fp);
}

/* Item 1: a cell_count out of int's range (3e9 as a uint64, inf as a
 * float) is left out and said, never converted (undefined behaviour). */
void test_ulog_cell_count(void);
void test_ulog_cell_count(void)
{
    const char *logs[] = {"issue33/cells_huge.ulg", "issue33/cells_inf.ulg"};

    for (size_t k = 0; k < 2; k++) {
        pp_ulog_flight f;
        test_log_clear();
        CHECK_INT(pp_ulog_read_battery(fixture(logs[k]), &f), 0);
        CHECK_INT(f.n_batteries, 1);
        CHECK_INT(f.bat[0].n, 5);
        CHECK_INT(f.bat[0].cell_count, 0);
        CHECK_INT(f.n_bad_cells, 5);
        CHECK_CONTAINS(test_log(), "5 battery_status samples with a cell_count or capacity no pack has");
        pp_ulog_flight_free(&f);
    }
}

/* Item 2: 150,000 formats and as many subscriptions (4.8 MB): read in
 * well under the limit (95 s with the linear search of every format). */
void test_ulog_many_formats(void);
void test_ulog_many_formats(void)
{
    ulog_buf u = {0};
    char *out = NULL;
    const char *path = tmp_path("q.ulg");

    ulog_many_formats(&u, 150000);
    save(&u, path);
    free(u.b);
    CHECK_INT(pp(&out, NULL, "battery", path, NULL), 0);
    CHECK_CONTAINS(out, "battery 0: 3 samples");
    free(out);
}

/* Items 6 and 12: values no battery has, NaN voltages, times going back,
 * a battery_status format that does not parse: counted and said, never a
 * silent 0 W trace or "holds no sample". */
void test_ulog_implausible(void);
void test_ulog_implausible(void)
{
    pp_ulog_flight f;
    char *err = NULL;

    test_log_clear();
    CHECK_INT(pp_ulog_read_battery(fixture("issue33/neg_i1.ulg"), &f), 0);
    CHECK_INT(f.n_batteries, 0);
    CHECK_INT(f.n_unmeasured, 20);
    CHECK_CONTAINS(test_log(), "20 battery_status samples left out: current_a is -1, PX4's \"not measured\"");
    pp_ulog_flight_free(&f);
    CHECK_INT(pp_ulog_read_battery(fixture("issue33/huge_v.ulg"), &f), 0);
    CHECK_INT(f.n_implausible, 20);
    CHECK_CONTAINS(test_log(), "values no battery has");
    pp_ulog_flight_free(&f);
    CHECK_INT(pp_ulog_read_battery(fixture("issue33/nan_v.ulg"), &f), 0);
    CHECK_INT(f.n_nonfinite, 20);
    pp_ulog_flight_free(&f);
    CHECK_INT(pp_ulog_read_battery(fixture("issue33/ts_back.ulg"), &f), 0);
    CHECK_INT(f.bat[0].n, 3);
    CHECK_INT(f.n_backwards, 3);
    CHECK_CONTAINS(test_log(), "3 battery_status samples left out: their timestamp is not after");
    pp_ulog_flight_free(&f);
    CHECK_INT(pp_ulog_read_battery(fixture("issue33/recurse_self.ulg"), &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "recurse_self.ulg: offset 16: the format of battery_status does not parse");
    pp_ulog_flight_free(&f);
    /* the commands: an import of a log of unmeasured currents is refused */
    CHECK_INT(pp(NULL, &err, "import", "ulog", fixture("issue33/neg_i1.ulg"), "-o",
                 tmp_path("neg"), NULL), 2);
    CHECK_CONTAINS(err, "current_a is -1");
    CHECK_CONTAINS(err, "every sample of it was left out");
    free(err);
    err = NULL;
    CHECK_INT(pp(NULL, &err, "battery", fixture("issue33/huge_v.ulg"), NULL), 2);
    CHECK_CONTAINS(err, "every sample of it was left out");
    free(err);
}

/* Missing in issue 45: `powprof ulog info LOG`, the topics, their rates and
 * the battery instances of a log before it is imported (pyulog's
 * ulog_info). On the bench log of tests/fixtures/ulog: 72 topics, two
 * battery_status instances at 3.33 Hz (21 samples over 6 s). */
void test_ulog_info(void);
void test_ulog_info(void)
{
    const char *log = fixture("ulog/sample_log_small.ulg");
    char *out = NULL, *err = NULL;

    CHECK_INT(run_powprof(&out, NULL, "ulog", "info", log, NULL), 0);
    CHECK_CONTAINS(out, "ULog version 1, 15900 messages over 6.5 s; 72 topics");
    CHECK_CONTAINS(out, "  battery_status                              1        21      3.33\n");
    CHECK_CONTAINS(out, "  sensor_combined                             0      1298       200\n");
    CHECK_CONTAINS(out, "battery_status: 2 instances");
    CHECK_CONTAINS(out, "instance 1: 21 samples over 6.0 s, 49.48 .. 49.91 V, 0.00 .. 6.61 A, "
                        "12 cells, 6000 mAh");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "ulog", "info", log, "--json", NULL), 0);
    CHECK_CONTAINS(out, "{\"name\":\"battery_status\",\"instance\":0,\"messages\":21,\"rate_hz\":3.33");
    CHECK_CONTAINS(out, "\"batteries\":[{\"instance\":0,\"samples\":21,");
    free(out);
    out = NULL;
    CHECK_INT(run_powprof(&out, &err, "ulog", "info", "README.md", NULL), 2);
    CHECK_CONTAINS(err, "README.md: not a ULog file");
    free(out);
    free(err);
}
