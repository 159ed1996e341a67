#include "harness.h"
#include "limited.h"

#include "src/flight/ulog.h"
#include "src/plan/phases.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const two[] = {"VDD_IN", "VDD_CPU"};

void test_trace_energy_trapezoid(void);
void test_trace_energy_trapezoid(void)
{
    pp_trace t;
    /* a ramp 0 -> 10 W over 2 s, then flat: 10 J + 10 J */
    double rows[][2] = {{0, 1}, {5, 1}, {10, 1}, {10, 1}};
    double ts[] = {0.0, 1.0, 2.0, 3.0};

    CHECK_INT(pp_trace_init(&t, 2, two), 0);
    for (int i = 0; i < 4; i++)
        CHECK_INT(pp_trace_append(&t, ts[i], rows[i]), 0);
    CHECK_NEAR(pp_trace_energy_j(&t, 0), 20.0, 1e-12);
    CHECK_NEAR(pp_trace_energy_j(&t, 1), 3.0, 1e-12);
    CHECK_NEAR(pp_trace_duration_s(&t), 3.0, 1e-12);
    CHECK_NEAR(pp_trace_mean_w(&t, 0), 20.0 / 3.0, 1e-12);
    pp_trace_free(&t);
}

void test_trace_energy_interval_average(void);
void test_trace_energy_interval_average(void)
{
    pp_trace t;
    double p[][1] = {{2.0}, {4.0}, {1.0}};
    double ts[] = {0.5, 1.0, 3.0}; /* means over (0,.5], (.5,1], (1,3] */

    CHECK_INT(pp_trace_init(&t, 1, two), 0);
    t.interval_average = 1;
    for (int i = 0; i < 3; i++)
        CHECK_INT(pp_trace_append(&t, ts[i], p[i]), 0);
    CHECK_NEAR(pp_trace_energy_j(&t, 0), 2.0 * 0.5 + 4.0 * 0.5 + 1.0 * 2.0, 1e-12);
    CHECK_NEAR(pp_trace_duration_s(&t), 3.0, 1e-12);
    CHECK_NEAR(pp_trace_mean_w(&t, 0), 5.0 / 3.0, 1e-12);
    pp_trace_free(&t);
}

void test_trace_csv_round_trip(void);
void test_trace_csv_round_trip(void)
{
    pp_trace t, u;
    char path[512];
    char *text;

    snprintf(path, sizeof path, "%s/trace.csv", test_tmpdir());
    CHECK_INT(pp_trace_init(&t, 2, two), 0);
    for (int i = 0; i < 3000; i++) { /* several growth steps */
        double row[2] = {5.0 + i * 1e-3, 1.25};
        CHECK_INT(pp_trace_append(&t, i * 0.001, row), 0);
    }
    CHECK_INT(pp_trace_write_csv(&t, path), 0);
    text = slurp(path);
    CHECK(text && strncmp(text, "t_s,VDD_IN_w,VDD_CPU_w\n0.000000,5.000000,1.250000\n", 50) == 0);
    free(text);
    CHECK_INT(pp_trace_read_csv(path, &u), 0);
    CHECK_INT(u.n_rails, 2);
    CHECK_STR(u.names[0], "VDD_IN");
    CHECK_STR(u.names[1], "VDD_CPU");
    CHECK_INT(u.n_samples, 3000);
    CHECK_NEAR(u.t_s[2999], 2.999, 1e-9);
    CHECK_NEAR(pp_trace_at(&u, 2999, 0), 5.0 + 2.999, 1e-6);
    CHECK_NEAR(pp_trace_energy_j(&u, 0), pp_trace_energy_j(&t, 0), 1e-6);
    pp_trace_free(&t);
    pp_trace_free(&u);
}

/* Each bad file gives an error naming the file and the line. */
static void expect_bad(const char *content, const char *what)
{
    char path[512], where[600];
    pp_trace t;

    snprintf(path, sizeof path, "%s/bad.csv", test_tmpdir());
    write_file(path, content);
    test_log_clear();
    CHECK_INT(pp_trace_read_csv(path, &t), -EINVAL);
    CHECK_INT(t.n_samples, 0);
    CHECK(t.t_s == NULL);
    snprintf(where, sizeof where, "%s", path);
    CHECK_CONTAINS(test_log(), where);
    CHECK_CONTAINS(test_log(), what);
}

void test_trace_csv_bad_input(void);
void test_trace_csv_bad_input(void)
{
    expect_bad("", ":1: empty file");
    expect_bad("time,power\n0,1\n", ":1: header");
    expect_bad("t_s,cpu\n0,1\n", "is not '<rail>_w'");
    expect_bad("t_s,a_w\n0,1\n0.1,2,3\n", ":3: 3 fields");
    expect_bad("t_s,a_w\n0,1\n0.1,abc\n", ":3: field 2 'abc'");
    expect_bad("t_s,a_w\n0,nan\n", ":2: field 2 'nan'");
    expect_bad("t_s,a_w\n0,1\n0.2,1\n0.1,1\n", ":4: time goes backwards");
    expect_bad("t_s,a_w\n", "no samples");
}

void test_trace_missing_file(void);
void test_trace_missing_file(void)
{
    pp_trace t;

    CHECK_INT(pp_trace_read_csv("/nonexistent/trace.csv", &t), -ENOENT);
    CHECK_CONTAINS(test_log(), "/nonexistent/trace.csv: cannot open");
}

/* Items 3 and 12 of the reader: a FIFO, a device, a line without end, as
 * a base trace, as `battery TRACE` and as a log: refused at once. */
void test_trace_not_regular(void);
void test_trace_not_regular(void)
{
    const char *fifo = tmp_path("fifo"), *big = tmp_path("big.csv");
    char *err = NULL;
    pp_trace_load l;
    int fd;

    CHECK_INT(mkfifo(fifo, 0600), 0);
    test_log_clear();
    CHECK_INT(pp_trace_read_load(fifo, NULL, 0, &l), -EINVAL); /* old: blocks in open() */
    CHECK_CONTAINS(test_log(), "fifo: not a regular file (a FIFO): refused");
    CHECK_INT(pp_trace_read_load("/dev/zero", NULL, 0, &l), -EINVAL);
    CHECK_CONTAINS(test_log(), "/dev/zero: not a regular file (a character device)");
    fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, 64 << 20) == 0); /* 64 MB of NULs, no newline */
    if (fd >= 0)
        close(fd);
    CHECK_INT(pp_trace_read_load(big, NULL, 0, &l), -EINVAL);
    CHECK_CONTAINS(test_log(), "big.csv:1: the header is longer than 66560 bytes");
    CHECK_INT(pp(NULL, &err, "battery", fifo, NULL), 2);
    CHECK_CONTAINS(err, "not a regular file (a FIFO)");
    free(err);
    err = NULL;
    CHECK_INT(pp(NULL, &err, "battery", "/dev/zero", NULL), 2);
    CHECK_CONTAINS(err, "/dev/zero: not a regular file");
    free(err);
    err = NULL;
    for (size_t k = 0; k < 3; k++) { /* the import readers too */
        static const char *const formats[] = {"csv", "tegrastats", "powprofiler"};
        CHECK_INT(pp(NULL, &err, "import", formats[k], "/dev/zero", "-o", tmp_path("imp-zero"),
                     NULL), 2);
        CHECK_CONTAINS(err, "/dev/zero: not a regular file (a character device): refused");
        free(err);
        err = NULL;
    }
    CHECK(!pp_ulog_is_ulog(fifo));
    {
        pp_ulog_flight f;
        CHECK_INT(pp_ulog_read_battery(fifo, &f), -EINVAL);
        pp_ulog_flight_free(&f);
    }
}

/* Item 4: a base trace 0.1 us apart over 10 minutes, and an ordinary
 * trace repeated over 27,000 hours: loads of bounded size, their energy
 * kept (the old code allocated 5e7 samples and walked every period). */
void test_trace_phase_load_bounded(void);
void test_trace_phase_load_bounded(void)
{
    const char *dense = tmp_path("dense.csv"), *flight = tmp_path("flight.csv");
    pp_phase_load l;
    FILE *fp;

    CHECK_INT(write_file(dense, "t_s,x_w\n0,10\n1e-7,20\n2e-7,10\n"), 0);
    test_log_clear();
    CHECK_INT(pp_phase_load_trace(dense, 0, 600, &l), 0);
    CHECK(l.n <= 16);
    CHECK(l.n_periods_averaged > 1e9);
    CHECK_NEAR(l.mean_w, 40.0 / 3, 0.01); /* 10 -> 20 -> 10 -> (wrap) 10 over 0.3 us */
    CHECK_CONTAINS(test_log(), "dense.csv: repeated");
    pp_phase_load_free(&l);
    fp = fopen(flight, "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    fputs("t_s,b_w\n", fp);
    for (int i = 0; i < 21; i++)
        fprintf(fp, "%.1f,%d\n", 0.3 * i, 80 + 10 * (i % 3));
    fclose(fp);
    CHECK_INT(pp_phase_load_trace(flight, 1.0, 27000.0 * 3600, &l), 0);
    CHECK(l.n <= 2 * 21 + 12);
    CHECK_NEAR(l.mean_w, 90.0, 0.01); /* 80, 90, 100 in turn */
    CHECK_NEAR(l.t_s[l.n - 1], 27000.0 * 3600, 0);
    pp_phase_load_free(&l);
    /* an ordinary repetition stays sample by sample */
    CHECK_INT(pp_phase_load_trace(flight, 0, 63.0, &l), 0);
    CHECK(l.n_periods_averaged == 0);
    CHECK(l.n >= 200);
    pp_phase_load_free(&l);
}
