/* Issue 33: the flight-log reader, base traces, missions and adaptive runs
 * against hostile input and faults (a round of reproducers,
 * tests/fixtures/issue33/README). Each test fails on the code before the
 * issue: a clear error naming the file and the line or offset, a non-zero
 * exit, bounded time and memory, nothing lost. */
#include "harness.h"

#include "src/base/util.h"
#include "src/plan/phases.h"
#include "src/traces/trace.h"
#include "src/traces/ulog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest a command may take here (each takes well under a second;
 * the shared test machine is slow): past it the command is killed (124). */
#define LIMIT_S "20"

static const char *bin(void)
{
    const char *b = getenv("POWPROF_BIN");
    return b ? b : "./powprof";
}

static const char *tmp_path(const char *name)
{
    static char path[256][600];
    static int next;

    next = (next + 1) % 256;
    snprintf(path[next], sizeof path[next], "%s/%s", test_tmpdir(), name);
    return path[next];
}

/* powprof with args (NULL-ended) under the limit: its exit status. */
static int pp(char **out, char **err, ...)
{
    char *argv[40] = {"/usr/bin/timeout", LIMIT_S, (char *)bin()};
    size_t n = 3;
    va_list ap;

    va_start(ap, err);
    while (n < 39 && (argv[n] = va_arg(ap, char *)))
        n++;
    va_end(ap);
    argv[n] = NULL;
    return run_argv(argv, out, err);
}

/* ---- ULog logs built here ----------------------------------------------------- */

typedef struct ubuf {
    uint8_t *b;
    size_t n, cap;
} ubuf;

static void put(ubuf *u, const void *d, size_t n)
{
    if (u->n + n > u->cap) {
        u->cap = 2 * (u->n + n);
        if (!(u->b = realloc(u->b, u->cap)))
            abort();
    }
    memcpy(u->b + u->n, d, n);
    u->n += n;
}

static void msg(ubuf *u, char type, const void *d, size_t n)
{
    uint8_t h[3] = {(uint8_t)(n & 0xFF), (uint8_t)(n >> 8), (uint8_t)type};

    put(u, h, 3);
    put(u, d, n);
}

static void sub(ubuf *u, int id, const char *name)
{
    uint8_t d[64] = {0, (uint8_t)(id & 0xFF), (uint8_t)(id >> 8)};
    size_t n = strlen(name);

    memcpy(d + 3, name, n);
    msg(u, 'A', d, 3 + n);
}

static void sample(ubuf *u, int id, uint64_t t_us, float v, float i)
{
    uint8_t d[18] = {(uint8_t)id, 0};

    memcpy(d + 2, &t_us, 8);
    memcpy(d + 10, &v, 4);
    memcpy(d + 14, &i, 4);
    msg(u, 'D', d, sizeof d);
}

static void head(ubuf *u)
{
    static const uint8_t h[16] = {'U', 'L', 'o', 'g', 0x01, 0x12, 0x35, 1};
    static const char bat[] = "battery_status:uint64_t timestamp;float voltage_v;float current_a;";

    u->n = 0;
    put(u, h, sizeof h);
    msg(u, 'F', bat, strlen(bat));
}

static void save(const ubuf *u, const char *path)
{
    FILE *fp = fopen(path, "wb");

    CHECK(fp && fwrite(u->b, 1, u->n, fp) == u->n);
    if (fp)
        fclose(fp);
}

/* Item 1: a cell_count out of int's range (3e9 as a uint64, inf as a
 * float) is left out and said, never converted (undefined behaviour). */
void test_issue33_ulog_cell_count(void);
void test_issue33_ulog_cell_count(void)
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
void test_issue33_ulog_many_formats(void);
void test_issue33_ulog_many_formats(void)
{
    ubuf u = {0};
    char f[64], *out = NULL;
    const size_t n = 150000;
    const char *path = tmp_path("q.ulg");

    head(&u);
    for (size_t i = 0; i < n; i++)
        msg(&u, 'F', f, (size_t)snprintf(f, sizeof f, "f%zu:uint8_t a", i));
    for (size_t i = 0; i < n; i++) {
        snprintf(f, sizeof f, "f%zu", n - 1 - i % 1000);
        sub(&u, (int)(i % 60000 + 10), f);
    }
    sub(&u, 5, "battery_status");
    for (int k = 0; k < 3; k++)
        sample(&u, 5, 1000000 + (uint64_t)k * 100000, 16.0f, 5.0f);
    save(&u, path);
    free(u.b);
    CHECK_INT(pp(&out, NULL, "battery", path, NULL), 0);
    CHECK_CONTAINS(out, "battery 0: 3 samples");
    free(out);
}

/* Items 3 and 12 of the reader: a FIFO, a device, a line without end, as
 * a base trace, as `battery TRACE` and as a log: refused at once. */
void test_issue33_trace_not_regular(void);
void test_issue33_trace_not_regular(void)
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
void test_issue33_phase_load_bounded(void);
void test_issue33_phase_load_bounded(void)
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

/* Items 6 and 12: values no battery has, NaN voltages, times going back,
 * a battery_status format that does not parse: counted and said, never a
 * silent 0 W trace or "holds no sample". */
void test_issue33_ulog_implausible(void);
void test_issue33_ulog_implausible(void)
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

/* ---- missions on a results folder -------------------------------------------- */

/* tiny.cfg profiled and modelled once, into the test folder of the first
 * test that asks (later tests read it): its path. */
static const char *tiny_results(void)
{
    static char res[700];
    struct stat st;

    if (res[0] && stat(res, &st) == 0)
        return res;
    snprintf(res, sizeof res, "%s/res", test_tmpdir());
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/tiny.cfg"), "-o", res, "--yes", NULL), 0);
    CHECK_INT(pp(NULL, NULL, "model", res, NULL), 0);
    return res;
}

/* Item 5: plan --mission FILE holds FILE's top-level fixed (it planned
 * w.a = 4 with fixed = ["w.a=2"]); unknown names, values and malformed
 * entries refused with the file's line. */
void test_issue33_mission_fixed(void);
void test_issue33_mission_fixed(void)
{
    static const struct { const char *fixed, *said; int rc; } cases[] = {
        {"\"w.a=2\"", NULL, 0},
        {"\"zz=1\"", "m.cfg:2: mission.fixed: 'zz' is no parameter of the results", 2},
        {"\"w.a\"", "m.cfg:2: mission.fixed: \"NAME=VALUE\" expected (got \"w.a\")", 2},
        {"5", "m.cfg:2: mission.fixed: \"NAME=VALUE\" strings expected", 2},
        {"\"w.a=two\"", "m.cfg:2: mission.fixed: 'two' is not a value of w.a", 2},
    };
    const char *res = tiny_results(), *m = tmp_path("m.cfg");
    char text[400], *out = NULL, *err = NULL;

    for (size_t i = 0; i < PP_ARRAY_SIZE(cases); i++) {
        snprintf(text, sizeof text, "mission = { maximize = \"w.a\";\n fixed = [%s];\n"
                 " phases = ( { name = \"a\"; duration = \"2min\"; base_power_w = 100.0; } ); };\n",
                 cases[i].fixed);
        CHECK_INT(write_file(m, text), 0);
        CHECK_INT(pp(&out, &err, "plan", res, "--mission", m, NULL), cases[i].rc);
        if (cases[i].said)
            CHECK_CONTAINS(err, cases[i].said);
        else
            CHECK_CONTAINS(out, "w.a = 2, w.fps=");
        free(out);
        free(err);
        out = err = NULL;
    }
}
