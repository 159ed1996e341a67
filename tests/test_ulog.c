/* The PX4 ULog reader (src/flight/ulog.c) and `powprof ulog info`: logs
 * built in memory (tests/ulog_build.h), the logs of tests/fixtures/ulog and
 * the hostile reproducers of tests/fixtures/issue33: a clear error naming
 * the file and the offset, a non-zero exit, nothing read past the log. */
#include "harness.h"
#include "limited.h"
#include "ulog_build.h"

#include "include/powprof/battery.h"
#include "include/powprof/model.h" /* pp_free */
#include "src/api/results_doc.h"
#include "src/flight/flight.h"
#include "src/flight/ulog.h"
#include "src/flight/ulog_trace.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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

/* ---- ULog files written by hand ------------------------------------------ */

typedef struct ubuf {
    uint8_t b[8192];
    size_t n;
} ubuf;

static void put(ubuf *u, const void *p, size_t n)
{
    memcpy(u->b + u->n, p, n);
    u->n += n;
}

static void msg(ubuf *u, char type, const void *payload, size_t n)
{
    uint8_t h[3] = {(uint8_t)(n & 0xff), (uint8_t)(n >> 8), (uint8_t)type};
    put(u, h, 3);
    put(u, payload, n);
}

static void data(ubuf *u, uint16_t id, uint64_t t_us, float v, float i, float mah)
{
    uint8_t d[2 + 8 + 4 * 4];
    float rem = 0.5f;

    memcpy(d, &id, 2);
    memcpy(d + 2, &t_us, 8);
    memcpy(d + 10, &v, 4);
    memcpy(d + 14, &i, 4);
    memcpy(d + 18, &mah, 4);
    memcpy(d + 22, &rem, 4);
    msg(u, 'D', d, sizeof d);
}

static const uint8_t sync_bytes[8] = {0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12};

/* A log: header, (flags), a nested format, battery_status, two instances,
 * an unknown message type, a logged string; n samples of instance 0 at
 * 1 s, 16 V, i A for sample i, discharged i mAh. */
static void write_log(ubuf *u, int flags, size_t n)
{
    static const char nested[] = "cell:float v;uint8_t[4] _padding0;";
    static const char fmt[] = "battery_status:uint64_t timestamp;float voltage_v;float current_a;"
                              "float discharged_mah;float remaining;cell[2] cells;";
    uint8_t head[16] = {'U', 'L', 'o', 'g', 0x01, 0x12, 0x35, 1};
    uint8_t sub[3 + 14] = {0, 7, 0}, sub1[3 + 14] = {1, 8, 0}, str[10] = {6};
    uint8_t unknown[5] = {1, 2, 3, 4, 5}, flagbits[40] = {0};

    u->n = 0;
    put(u, head, sizeof head);
    if (flags)
        msg(u, 'B', flagbits, sizeof flagbits);
    msg(u, 'F', nested, strlen(nested));
    msg(u, 'F', fmt, strlen(fmt));
    memcpy(sub + 3, "battery_status", 14);
    memcpy(sub1 + 3, "battery_status", 14);
    msg(u, 'A', sub, sizeof sub);
    msg(u, 'A', sub1, sizeof sub1);
    msg(u, 'x', unknown, sizeof unknown);
    msg(u, 'L', str, sizeof str);
    msg(u, 'S', sync_bytes, 8);
    for (size_t i = 0; i < n; i++) {
        data(u, 7, 1000000 * (i + 1), 16.0f, (float)i, (float)i);
        data(u, 8, 1000000 * (i + 1) + 500000, 8.0f, 1.0f, 0);
    }
}

void test_ulog_hand_written(void);
void test_ulog_hand_written(void)
{
    ubuf *u = malloc(sizeof *u);
    pp_ulog_flight f;
    pp_trace t;
    double q, logged;
    size_t full, cut;

    write_log(u, 1, 5);
    CHECK_INT(pp_ulog_parse_battery(u->b, u->n, "hand.ulg", &f), 0);
    CHECK_INT(f.n_batteries, 2);
    CHECK_INT(f.bat[0].n, 5);
    CHECK_INT(f.bat[1].instance, 1);
    CHECK_INT(f.n_unknown, 1);
    CHECK_INT(f.n_strings, 1);
    CHECK_NEAR(f.bat[0].t_s[2], 3.0, 1e-12);
    CHECK_NEAR(f.bat[0].current_a[4], 4.0, 0);
    pp_ulog_charge_mah(&f.bat[0], &q, &logged);
    CHECK_NEAR(q, (0.5 + 1.5 + 2.5 + 3.5) / 3.6, 1e-9); /* trapezoids of i A over 1 s */
    CHECK_NEAR(logged, 4.0, 0);
    CHECK_INT(pp_ulog_battery_trace(&f, "hand.ulg", &t), 0);
    CHECK_INT(t.n_rails, 2);
    CHECK_STR(t.names[0], "battery0");
    CHECK_INT(t.n_samples, 10);
    CHECK_NEAR(pp_trace_at(&t, 2, 0), 16.0, 1e-9);       /* t 1 s: instance 0 at 1 A */
    CHECK_NEAR(pp_trace_at(&t, 1, 0), 16.0 * 0.5, 1e-9); /* t 0.5 s: between 0 and 1 A */
    CHECK_NEAR(pp_trace_at(&t, 1, 1), 8.0, 1e-9);
    pp_trace_free(&t);
    pp_ulog_flight_free(&f);
    /* torn: the last message cut in two; every complete one kept */
    full = u->n;
    cut = full - 7;
    test_log_clear();
    CHECK_INT(pp_ulog_parse_battery(u->b, cut, "torn.ulg", &f), 0);
    CHECK(f.torn);
    CHECK_INT(f.bat[0].n, 5);
    CHECK_INT(f.bat[1].n, 4);
    CHECK_CONTAINS(test_log(), "torn.ulg: the log ends inside a message at offset");
    pp_ulog_flight_free(&f);
    /* corrupt: data of no subscription, then a sync marker, then more data */
    write_log(u, 0, 2);
    data(u, 99, 9000000, 1, 1, 1);
    msg(u, 'S', sync_bytes, 8);
    data(u, 7, 10000000, 16.0f, 2.0f, 5.0f);
    test_log_clear();
    CHECK_INT(pp_ulog_parse_battery(u->b, u->n, "bad.ulg", &f), 0);
    CHECK_INT(f.n_corrupt, 1);
    CHECK_INT(f.bat[0].n, 3);
    CHECK_NEAR(f.bat[0].t_s[2], 10.0, 1e-12);
    CHECK_CONTAINS(test_log(), "bad.ulg: offset");
    pp_ulog_flight_free(&f);
    /* not ULog, a header cut short, an unknown incompatible flag */
    CHECK_INT(pp_ulog_parse_battery((const uint8_t *)"hello world, no log", 19, "x.ulg", &f), -EINVAL);
    CHECK_INT(pp_ulog_parse_battery(u->b, 10, "short.ulg", &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "short.ulg: the ULog header is cut short");
    write_log(u, 1, 1);
    u->b[16 + 3 + 8] = 0x02;
    CHECK_INT(pp_ulog_parse_battery(u->b, u->n, "flags.ulg", &f), -EINVAL);
    CHECK_CONTAINS(test_log(), "incompatible flag byte 0 is 0x02");
    pp_ulog_flight_free(&f);
    free(u);
}

/* Appended data: the main data torn at the offset, the rest read from it. */
void test_ulog_appended(void);
void test_ulog_appended(void)
{
    ubuf *u = malloc(sizeof *u);
    pp_ulog_flight f;
    uint64_t at;

    write_log(u, 1, 3);
    data(u, 7, 4000000, 16.0f, 3.0f, 3.0f);
    u->n -= 5; /* torn where the appended data starts */
    at = u->n;
    data(u, 7, 5000000, 16.0f, 4.0f, 4.0f);
    u->b[16 + 3 + 8] = 0x01; /* data appended */
    memcpy(u->b + 16 + 3 + 16, &at, 8);
    test_log_clear();
    CHECK_INT(pp_ulog_parse_battery(u->b, u->n, "app.ulg", &f), 0);
    CHECK_INT(f.n_appended, 1);
    CHECK_INT(f.bat[0].n, 4);
    CHECK_NEAR(f.bat[0].t_s[3], 5.0, 1e-12);
    CHECK(!f.torn);
    CHECK_CONTAINS(test_log(), "torn where appended data starts");
    pp_ulog_flight_free(&f);
    free(u);
}

/* pyulog's samples: every battery_status sample kept; a log without. */
void test_ulog_samples(void);
void test_ulog_samples(void)
{
    pp_ulog_flight f;
    char *out = NULL, *err = NULL, dir[4200];

    CHECK_INT(pp_ulog_read_battery(fixture("ulog/sample_log_small.ulg"), &f), 0);
    CHECK_INT(f.n_batteries, 2);
    CHECK_INT(f.bat[0].n, 21);
    CHECK_INT(f.bat[1].n, 21);
    CHECK(!f.torn && f.n_corrupt == 0);
    CHECK_NEAR(pp_ulog_interval_s(&f.bat[0]), 0.3, 0.01);
    pp_ulog_flight_free(&f);
    CHECK_INT(pp_ulog_read_battery(fixture("ulog/sample.ulg"), &f), 0);
    CHECK(f.battery_defined);
    CHECK_INT(f.n_batteries, 0);
    pp_ulog_flight_free(&f);
    snprintf(dir, sizeof dir, "%s/flight", test_tmpdir());
    CHECK_INT(run_powprof(&out, NULL, "import", "ulog", fixture("ulog/sample_log_small.ulg"), "-o", dir, NULL), 0);
    CHECK_CONTAINS(out, "battery 0: 21 samples");
    CHECK_CONTAINS(out, "the topic is logged at a lower rate than the autopilot integrates");
    free(out);
    {
        char csv[4300], *text;
        size_t lines = 0;
        snprintf(csv, sizeof csv, "%s/flight.csv", dir);
        text = slurp(csv);
        for (char *c = text; c && *c; c++)
            lines += *c == '\n';
        CHECK_INT(lines, 1 + 2 * 21); /* the log's own figures, every sample */
        CHECK_CONTAINS(text, "file,battery,t_s,voltage_v,current_a,discharged_mah,remaining\n");
        free(text);
    }
    snprintf(dir, sizeof dir, "%s/noflight", test_tmpdir());
    CHECK_INT(run_powprof(NULL, &err, "import", "ulog", fixture("ulog/sample.ulg"), "-o", dir, NULL), 2);
    CHECK_CONTAINS(err, "defines battery_status but holds no sample of it");
    free(err);
}

/* The battery against a synthetic flight whose voltage the model
 * reproduces: the default pack's U - R I at each sample. */
void test_ulog_battery_vs_flight(void);
void test_ulog_battery_vs_flight(void)
{
    ubuf *u = malloc(sizeof *u);
    pp_battery_params p;
    pp_ulog_flight f;
    pp_flight_check c;
    char path[4200], *out = NULL;
    FILE *fp;

    pp_battery_params_default(&p);
    write_log(u, 0, 0);
    for (int i = 0; i < 100; i++) {
        double cur = 5 + 3 * sin(i / 5.0);
        data(u, 7, 1000000 + 100000 * (uint64_t)i, (float)(p.voltage_v - p.r_int_ohm * cur),
             (float)cur, (float)(i * 0.1));
    }
    CHECK_INT(pp_ulog_parse_battery(u->b, u->n, "synthetic.ulg", &f), 0);
    CHECK_INT(f.bat[0].n, 100);
    CHECK_INT(pp_flight_check_run(&f.bat[0], &p, &c), 0);
    CHECK_INT(c.n, 100);
    CHECK(c.v_rms < 1e-5);
    CHECK(fabs(c.v_max_dev) < 1e-5);
    CHECK_NEAR(c.v_end_model, c.v_end_logged, 1e-5);
    CHECK_NEAR(c.mah_model, c.mah_current, 1e-3 * c.mah_current);
    CHECK_NEAR(c.pack.soc_start_frac, 0.5, 0);
    pp_ulog_flight_free(&f);
    /* the command: a log given in the place of a trace */
    snprintf(path, sizeof path, "%s/synthetic.ulg", test_tmpdir());
    fp = fopen(path, "wb");
    CHECK(fp && fwrite(u->b, 1, u->n, fp) == u->n);
    if (fp)
        fclose(fp);
    /* the default for a flight is thevenin (issue 32, item 5): the rint pack
     * that made this one asked for */
    CHECK_INT(run_powprof(&out, NULL, "battery", path, "--model", "rint", NULL), 0);
    CHECK_CONTAINS(out, "terminal voltage, modelled - logged: RMS 0.000 V");
    free(out);
    free(u);
}

/* `ulog info --json` prints the library's document of the log
 * (pp_ulog_info_doc) byte for byte, with a battery per instance. */
void test_ulog_info_json_cli_equals_library(void);
void test_ulog_info_json_cli_equals_library(void)
{
    const char *path = fixture("ulog/sample_log_small.ulg");
    char *out = NULL, *err = NULL, *text;
    pp_ulog_flight f;
    json_t *lib = NULL;

    CHECK_INT(pp_ulog_read_battery(path, &f), 0);
    lib = pp_ulog_info_doc(path, &f);
    CHECK_INT(pp(&out, &err, "ulog", "info", path, "--json", NULL), 0);
    text = lib ? json_dumps(lib, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
    CHECK(text && out && strncmp(out, text, strlen(text)) == 0 &&
          strcmp(out + strlen(text), "\n") == 0);
    CHECK_INT((int)json_array_size(json_object_get(lib, "batteries")), (int)f.n_batteries);
    CHECK_INT((int)json_array_size(json_object_get(lib, "topics")), (int)f.topics.n);
    CHECK(f.n_batteries > 0);
    free(text);
    CHECK_INT(pp_ulog_info_json(path, &text), 0); /* the public face: the same text */
    CHECK(text && out && strncmp(out, text, strlen(text)) == 0);
    pp_free(text);
    CHECK_INT(pp_ulog_info_json(NULL, &text), -EINVAL);
    CHECK(pp_ulog_info_json(fixture("ulog/no-such.ulg"), &text) < 0 && text == NULL);
    json_decref(lib);
    pp_ulog_flight_free(&f);
    free(out);
    free(err);
}
