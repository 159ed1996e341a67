#include "harness.h"
#include "limited.h"

#include "src/flight/ulog.h"
#include "src/results/import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The TX2 traces copied into the repository (data/tx2, see its README). */
static const char *tx2_data(const char *rel)
{
    static char buf[1024];
    const char *root = getenv("POWPROF_DATA");
    snprintf(buf, sizeof buf, "%s/tx2/%s", root ? root : "data", rel);
    return buf;
}

static double per_minute(const pp_trace *t)
{
    double e = 0;
    for (size_t r = 0; r < t->n_rails; r++)
        if (!pp_trace_rail_is_inside(t, r))
            e += pp_trace_energy_j(t, r);
    return e / pp_trace_duration_s(t) * 60.0;
}

/* The paper's Table 1 prints 5255 J and 2400 J: the original tool forgot to
 * divide by the sampling rate. */
void test_import_powprofiler_tx2_darknet(void);
void test_import_powprofiler_tx2_darknet(void)
{
    static const struct {
        const char *file;
        double j_per_min;
    } cases[] = {
        {"darknet/1layer_yolo-5-8fps.csv", 199.0}, {"darknet/1layer_yolo-10fps.csv", 247.0},
        {"darknet/1layer_yolo-25fps.csv", 421.0},  {"darknet/1layer_yolo-32fps.csv", 525.5},
        {"darknet/1layer_yolo-ocpu.csv", 240.0},
    };
    pp_import_options o;
    pp_trace t;

    pp_import_options_init(&o);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(pp_import_powprofiler(tx2_data(cases[i].file), &o, &t), 0);
        CHECK_INT(t.n_rails, 3);
        CHECK_STR(t.names[0], "VDD_IN");
        CHECK_INT(t.n_samples, 600);
        CHECK_NEAR(pp_trace_duration_s(&t), 60.0, 1e-9);
        CHECK_NEAR(per_minute(&t), cases[i].j_per_min, 1.0);
        pp_trace_free(&t);
    }
}

void test_import_cli_matrix_pattern(void);
void test_import_cli_matrix_pattern(void)
{
    char out[512], sum[600], *text = NULL, *err = NULL;
    char *argv[40];
    int n = 0, rows = 0;
    static char files[25][1024];
    static const int sizes[] = {256, 512, 1024, 2048, 4096}, exps[] = {20, 30, 40, 50, 60};

    snprintf(out, sizeof out, "%s/mx", test_tmpdir());
    argv[n++] = getenv("POWPROF_BIN");
    argv[n++] = "import";
    argv[n++] = "powprofiler";
    for (int s = 0; s < 5; s++)
        for (int e = 0; e < 5; e++) {
            char rel[128];
            snprintf(rel, sizeof rel, "matrix-exponentiation/matrix-exponentiation_%d-%d_1layer.csv",
                     sizes[s], exps[e]);
            snprintf(files[s * 5 + e], sizeof files[0], "%s", tx2_data(rel));
            argv[n++] = files[s * 5 + e];
        }
    argv[n++] = "--pattern";
    argv[n++] = "matrix-exponentiation_{size}-{exponent}_1layer.csv";
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n] = NULL;
    CHECK_INT(run_argv(argv, NULL, &err), 0);
    free(err);
    snprintf(sum, sizeof sum, "%s/summary.csv", out);
    text = slurp(sum);
    CHECK(text != NULL);
    CHECK(text && strncmp(text, "id,size,exponent,status,duration_s,", 35) == 0);
    for (const char *c = text; c && *c; c++)
        rows += *c == '\n';
    CHECK_INT(rows, 26);
    CHECK_CONTAINS(text, "\n0,256,20,ok,");
    CHECK_CONTAINS(text, "\n24,4096,60,ok,");
    free(text);
    snprintf(sum, sizeof sum, "%s/traces/24.csv", out);
    CHECK(access(sum, R_OK) == 0);
    snprintf(sum, sizeof sum, "%s/run.json", out);
    text = slurp(sum);
    CHECK_CONTAINS(text, "matrix-exponentiation_4096-60_1layer.csv");
    free(text);
    /* and they give a surface through the layer-2 commands */
    CHECK_INT(run_powprof(&text, NULL, "model", out, NULL), 0);
    CHECK_CONTAINS(text, "25 configurations, 2 parameters");
    free(text);
    snprintf(sum, sizeof sum, "%s/model.json", out);
    text = slurp(sum);
    CHECK_CONTAINS(text, "\"name\": \"size\"");
    CHECK_CONTAINS(text, "\"scale\": \"log\""); /* 256 .. 4096: a geometric sequence */
    CHECK_CONTAINS(text, "\"name\": \"total_energy_j\"");
    free(text);
    CHECK_INT(run_powprof(&text, NULL, "predict", out, "size=3000", "exponent=45", NULL), 0);
    CHECK_CONTAINS(text, "total_energy_j");
    free(text);
}

void test_import_tegrastats(void);
void test_import_tegrastats(void)
{
    pp_import_options o;
    pp_trace t;
    char path[1024];

    pp_import_options_init(&o);
    snprintf(path, sizeof path, "%s", fixture("import/tegrastats-tx2.log"));
    CHECK_INT(pp_import_tegrastats(path, &o, &t), 0);
    CHECK_INT(t.n_rails, 3);
    CHECK_STR(t.names[0], "POM_5V_IN");
    CHECK_INT(t.n_samples, 3);
    CHECK_NEAR(t.t_s[2], 2.0, 0); /* no timestamps: 1000 ms apart */
    CHECK_NEAR(pp_trace_at(&t, 1, 0), 3.49, 1e-12); /* the instant value, not the average */
    CHECK_NEAR(pp_trace_at(&t, 2, 2), 1.52, 1e-12);
    CHECK(pp_trace_rail_is_inside(&t, 1) && !pp_trace_rail_is_inside(&t, 0));
    pp_trace_free(&t);
    o.interval_ms = 250;
    CHECK_INT(pp_import_tegrastats(path, &o, &t), 0);
    CHECK_NEAR(t.t_s[2], 0.5, 1e-12);
    pp_trace_free(&t);
    /* Orin: mW units, timestamps (a gap of 2 s), a record wrapped over two lines */
    pp_import_options_init(&o);
    snprintf(path, sizeof path, "%s", fixture("import/tegrastats-orin.log"));
    CHECK_INT(pp_import_tegrastats(path, &o, &t), 0);
    CHECK_INT(t.n_rails, 3);
    CHECK_STR(t.names[1], "VDD_CPU_GPU_CV");
    CHECK_INT(t.n_samples, 3);
    CHECK_NEAR(t.t_s[1], 1.0, 0);
    CHECK_NEAR(t.t_s[2], 3.0, 0);
    CHECK_NEAR(pp_trace_at(&t, 1, 0), 6.263, 1e-12);
    CHECK_NEAR(pp_trace_at(&t, 2, 2), 1.624, 1e-12);
    pp_trace_free(&t);
}

void test_import_csv(void);
void test_import_csv(void)
{
    pp_import_options o;
    pp_trace t;
    char path[1024];

    pp_import_options_init(&o);
    snprintf(path, sizeof path, "%s", fixture("import/meter-watts.csv"));
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_INT(t.n_rails, 1);
    CHECK_STR(t.names[0], "board");
    CHECK_NEAR(pp_trace_energy_j(&t, 0), 0.5 * (4 + 6) * 0.5 + 6 * 0.5, 1e-12);
    pp_trace_free(&t);
    snprintf(path, sizeof path, "%s", fixture("import/meter-mixed.csv"));
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_INT(t.n_rails, 2);
    CHECK_STR(t.names[0], "VDD_IN");
    CHECK_STR(t.names[1], "usb");
    CHECK_NEAR(t.t_s[2], 2.0, 0); /* milliseconds */
    CHECK_NEAR(pp_trace_at(&t, 1, 0), 7.0, 1e-12);
    CHECK_NEAR(pp_trace_at(&t, 2, 1), 5.0, 1e-12); /* 1 A x 5 V */
    pp_trace_free(&t);
}

typedef int (*reader_fn)(const char *, const pp_import_options *, pp_trace *);

static void expect_bad(reader_fn fn, const char *content, const char *message)
{
    char path[512];
    pp_import_options o;
    pp_trace t;

    snprintf(path, sizeof path, "%s/bad.txt", test_tmpdir());
    write_file(path, content);
    pp_import_options_init(&o);
    test_log_clear();
    CHECK_INT(fn(path, &o, &t), -EINVAL);
    CHECK_INT(t.n_samples, 0);
    CHECK_CONTAINS(test_log(), path);
    CHECK_CONTAINS(test_log(), message);
}

void test_import_bad_input(void);
void test_import_bad_input(void)
{
    expect_bad(pp_import_powprofiler, "", ":1: empty file");
    expect_bad(pp_import_powprofiler, "100,999\n1,2\n", ":1: unknown header code '999'");
    expect_bad(pp_import_powprofiler, "100,101\n1,2\n3\n", ":3: 1 fields, the header has 2");
    expect_bad(pp_import_powprofiler, "100,101\n1,x\n", ":2: column 2 'x' is not a finite number");
    expect_bad(pp_import_powprofiler, "100,101\n1,nan\n", ":2: column 2 'nan'");
    expect_bad(pp_import_powprofiler, "100,101\n1,-2\n", ":2: column 2: negative power");
    expect_bad(pp_import_powprofiler, "100,101\n", "no samples");
    expect_bad(pp_import_csv, "t_s,a_w\n0,1\n2,1\n1,1\n", ":4: time goes backwards");
    expect_bad(pp_import_csv, "t_s,a\n0,1\n", ":1: column 2 'a' has no unit");
    expect_bad(pp_import_csv, "x_w,y_w\n0,1\n", ":1: no time column");
    expect_bad(pp_import_csv, "t_s,bus_a\n0,1\n", "'bus' has a current column but no voltage");
    expect_bad(pp_import_tegrastats, "hello world\n", ":1: not a tegrastats record");
    expect_bad(pp_import_tegrastats, "RAM 1/2MB CPU [1%]\n", ":1: no power rail");
    expect_bad(pp_import_tegrastats, "", "empty file");
}

void test_import_pattern(void);
void test_import_pattern(void)
{
    char names[4][64];
    double v[4];

    CHECK_INT(pp_import_match_pattern("mx_{size}-{exponent}_1layer.csv", "/d/mx_256-20_1layer.csv",
                                      names, v, 4), 2);
    CHECK_STR(names[0], "size");
    CHECK_NEAR(v[0], 256, 0);
    CHECK_NEAR(v[1], 20, 0);
    test_log_clear();
    CHECK_INT(pp_import_match_pattern("mx_{size}-{exponent}_1layer.csv", "/d/other.csv", names, v, 4),
              -EINVAL);
    CHECK_CONTAINS(test_log(), "/d/other.csv: the name does not match");
    CHECK_INT(pp_import_match_pattern("yolo-{fps}fps.csv", "yolo-5-8fps.csv", names, v, 4), -EINVAL);
    CHECK_CONTAINS(test_log(), "{fps} is '5-8', not a number");
}

/* Nothing half-written: a bad file among good ones leaves no folder. */
void test_import_cli_all_or_nothing(void);
void test_import_cli_all_or_nothing(void)
{
    char out[512], bad[512], *err = NULL;

    snprintf(out, sizeof out, "%s/res", test_tmpdir());
    snprintf(bad, sizeof bad, "%s/bad.csv", test_tmpdir());
    write_file(bad, "100,101\n1,2\n1\n");
    CHECK_INT(run_powprof(NULL, &err, "import", "powprofiler",
                          tx2_data("darknet/1layer_yolo-10fps.csv"), bad, "-o", out, NULL), 2);
    CHECK_CONTAINS(err, "bad.csv:3: 1 fields");
    free(err);
    CHECK(access(out, F_OK) != 0);
    {
        char *argv[] = {"sh", "-c", "ls -d \"$0\".import.* 2>/dev/null | wc -l", out, NULL};
        char *o = NULL;
        run_argv(argv, &o, NULL);
        CHECK_STR(o, "0\n");
        free(o);
    }
    CHECK_INT(run_powprof(NULL, &err, "import", "nosuch", bad, "-o", out, NULL), 2);
    CHECK_CONTAINS(err, "unknown format 'nosuch'");
    free(err);
}

/* 1 (issue 12): the tegrastats time is parsed by its length; a short one
 * is an error at its line, not a read past the buffer or a phantom
 * sample. Rail values are numbers, rails not given twice. */
void test_import_tegrastats_stamps(void);
void test_import_tegrastats_stamps(void)
{
    char path[512];
    pp_import_options o;
    pp_trace t;

    expect_bad(pp_import_tegrastats,
               "01-01-2020 00:00:00 RAM 1/1MB VDD_IN 1000mW/1000mW\n1-1-2020 0:0:1\n",
               ":2: malformed time at '1-1-2020 0:0:1'");
    expect_bad(pp_import_tegrastats, "1-1-1970 1:1:1", ":1: malformed time at '1-1-1970 1:1:1'");
    expect_bad(pp_import_tegrastats, "13-01-2020 00:00:00 RAM 1/1MB VDD_IN 1000mW/1000mW\n",
               ":1: malformed time at '13-01-2020 00:00:00");
    expect_bad(pp_import_tegrastats, "01-01-2020 00:00:00x RAM 1/1MB VDD_IN 1/1\n",
               ":1: malformed time");
    expect_bad(pp_import_tegrastats, "RAM 1/1MB VDD_IN 1e999/1\n", ":1: no power rail");
    expect_bad(pp_import_tegrastats, "RAM 1/1MB VDD_IN 1/1 VDD_IN 2/2\n",
               ":1: rail 'VDD_IN' appears twice");
    expect_bad(pp_import_powprofiler, "100,100\n1,1\n", ":1: rail 'VDD_IN' appears twice");
    /* a time before 1970 is still a time */
    pp_import_options_init(&o);
    snprintf(path, sizeof path, "%s/t.log", test_tmpdir());
    write_file(path, "12-31-1969 23:59:59 RAM 1/1MB VDD_IN 1000mW/1000mW\n"
                     "01-01-1970 00:00:01 RAM 1/1MB VDD_IN 3000mW/1000mW\n");
    CHECK_INT(pp_import_tegrastats(path, &o, &t), 0);
    CHECK_INT(t.n_samples, 2);
    CHECK_NEAR(t.t_s[1], 2.0, 0);
    CHECK_NEAR(pp_trace_at(&t, 1, 0), 3.0, 1e-12);
    pp_trace_free(&t);
}

/* The csv importer refuses a rail or a time given twice, checks names and
 * keeps powers finite. */
void test_import_csv_columns(void);
void test_import_csv_columns(void)
{
    char path[512];
    pp_import_options o;
    pp_trace t;

    expect_bad(pp_import_csv, "t_s,a_w,a_mw\n0,1,2\n",
               ":1: column 3 'a_mw': rail 'a' already has this column (column 2)");
    expect_bad(pp_import_csv, "t_s,time,a_w\n0,0,1\n", "column 2 'time': a second time column");
    expect_bad(pp_import_csv, "t_s,bus_a,bus_v\n0,1e200,1e200\n", ":2: bus: the power is out of range");
    expect_bad(pp_import_csv, "t_s,a'b_w\n0,1\n", ":1: column 2: rail 'a'b': character '''");
    pp_import_options_init(&o);
    snprintf(path, sizeof path, "%s/c.csv", test_tmpdir());
    write_file(path, "t_s,x [W]\n0,1\n1,3\n");
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_STR(t.names[0], "x");
    pp_trace_free(&t);
}

/* Missing in issue 45: jtop's log format beside tegrastats. The fixture's
 * rails are tegrastats-orin.log's, in jtop's logger CSV: the same watts;
 * times from the first row (a row without a fraction too); a quoted field
 * with a comma; a non-number in a power column refused with its line. */
void test_import_jtop(void);
void test_import_jtop(void)
{
    char out_dir[700], trace[800], bad[700], *text, *err = NULL;

    snprintf(out_dir, sizeof out_dir, "%s/jtop", test_tmpdir());
    CHECK_INT(run_powprof(NULL, NULL, "import", "jtop", fixture("import/jtop-orin.csv"), "-o",
                          out_dir, NULL), 0);
    snprintf(trace, sizeof trace, "%s/traces/0.csv", out_dir);
    text = slurp(trace);
    CHECK_CONTAINS(text, "t_s,VDD_CPU_GPU_CV_w,VDD_SOC_w,TOT_IN_w\n"
                         "0.000000,1.187000,1.424000,5.263000\n"
                         "1.000508,2.187000,1.524000,6.263000\n");
    CHECK_CONTAINS(text, "\n3.995488,2.187000,1.524000,6.263000\n");
    free(text);
    snprintf(bad, sizeof bad, "%s/bad.csv", test_tmpdir());
    write_file(bad, "time,uptime,Power VDD_IN,Power TOT\n"
                    "2026-11-22 03:20:01.5,\"1 day, 0:00:01\",5263,5263\n"
                    "2026-11-22 03:20:02.5,\"1 day, 0:00:02\",OFF,5263\n");
    snprintf(out_dir, sizeof out_dir, "%s/jtop-bad", test_tmpdir());
    CHECK_INT(run_powprof(NULL, &err, "import", "jtop", bad, "-o", out_dir, NULL), 2);
    CHECK_CONTAINS(err, "bad.csv:3: column 3 'OFF' is not a finite number");
    free(err);
    err = NULL;
    CHECK_INT(run_powprof(NULL, &err, "import", "jtop", fixture("import/tegrastats-orin.log"),
                          "-o", out_dir, NULL), 2);
    CHECK_CONTAINS(err, "tegrastats-orin.log:1: not a jtop log");
    free(err);
}

/* Issue 32, item 1: PX4's ulog2csv export of battery_status: its
 * microsecond timestamp is found as such (a 6-second log, not 69 days),
 * rebased, voltage_v x current_a is the rail "battery" (the same energy
 * as the ULog read directly), the other columns left out with a note. */
void test_import_csv_px4_ulog2csv(void);
void test_import_csv_px4_ulog2csv(void)
{
    pp_import_options o;
    pp_trace t;
    pp_ulog_flight f;
    double e_ulog = 0;

    pp_import_options_init(&o);
    test_log_clear();
    CHECK_INT(pp_import_csv(fixture("ulog/sample_log_small_battery_status_0.csv"), &o, &t), 0);
    CHECK_INT(t.n_rails, 1);
    CHECK_STR(t.names[0], "battery");
    CHECK_NEAR(t.t_s[0], 0.0, 0);
    CHECK(pp_trace_duration_s(&t) > 5.5 && pp_trace_duration_s(&t) < 6.5);
    CHECK_CONTAINS(test_log(), "'timestamp' has no unit: read as microseconds");
    CHECK_CONTAINS(test_log(), "discharged_mah (not power, current or voltage)");
    CHECK_CONTAINS(test_log(), "remaining (no unit)");
    CHECK_CONTAINS(test_log(), "voltage_filtered_v (a smoothed copy)");
    CHECK(!strstr(test_log(), "implausible"));
    CHECK_INT(pp_ulog_read_battery(fixture("ulog/sample_log_small.ulg"), &f), 0);
    for (size_t i = 1; i < f.bat[0].n; i++) /* battery 0: the trapezoid of V x I */
        e_ulog += 0.5 * (f.bat[0].t_s[i] - f.bat[0].t_s[i - 1]) *
                  (f.bat[0].voltage_v[i] * f.bat[0].current_a[i] +
                   f.bat[0].voltage_v[i - 1] * f.bat[0].current_a[i - 1]);
    CHECK_INT((int)t.n_samples, (int)f.bat[0].n);
    CHECK_NEAR(pp_trace_energy_j(&t, 0), e_ulog, 1e-4 * e_ulog);
    pp_ulog_flight_free(&f);
    pp_trace_free(&t);

    /* --time-unit s: taken at its word, and the span warned about */
    o.time_scale = 1.0;
    test_log_clear();
    CHECK_INT(pp_import_csv(fixture("ulog/sample_log_small_battery_status_0.csv"), &o, &t), 0);
    CHECK(pp_trace_duration_s(&t) > 5e6);
    CHECK_CONTAINS(test_log(), "implausible for a power log; is the time unit right?");
    pp_trace_free(&t);
}

/* Issue 32, item 1: the unit from the time column's name or the steps;
 * a lone unitless column without any power column still refused. */
void test_import_csv_time_units(void);
void test_import_csv_time_units(void)
{
    char path[512];
    pp_import_options o;
    pp_trace t;

    snprintf(path, sizeof path, "%s/t.csv", test_tmpdir());
    pp_import_options_init(&o);
    write_file(path, "time_us,a_w\n1000000,1\n1100000,1\n1200000,3\n");
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_NEAR(t.t_s[2], 0.2, 1e-12); /* rebased, in seconds */
    pp_trace_free(&t);
    write_file(path, "time,a_w\n10,1\n10.5,1\n11,3\n"); /* seconds: steps of 0.5 */
    test_log_clear();
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_NEAR(t.t_s[2], 1.0, 1e-12);
    CHECK(!strstr(test_log(), "read as"));
    pp_trace_free(&t);
    write_file(path, "time,a_w\n0,1\n100,1\n200,3\n"); /* 10 Hz in milliseconds */
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_NEAR(t.t_s[2], 0.2, 1e-12);
    pp_trace_free(&t);
    write_file(path, "t_s,bus_voltage_v,bus_current_ma,cells\n0,12,1000,3\n1,12,2000,3\n");
    test_log_clear();
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_STR(t.names[0], "bus");
    CHECK_NEAR(pp_trace_at(&t, 1, 0), 24.0, 1e-12);
    CHECK_CONTAINS(test_log(), "cells (no unit)");
    pp_trace_free(&t);
}

/* Friction of issue 22: import --pattern maps the repository's own
 * 1layer_yolo-5-8fps.csv to fps 5.8 with {fps:-} ('-' its decimal point). */
void test_import_pattern_decimal_point(void);
void test_import_pattern_decimal_point(void)
{
    char names[4][64], out[600], *err = NULL, *text;
    double v[4] = {0};

    CHECK_INT(pp_import_match_pattern("yolo-{fps:-}fps.csv", "/d/yolo-5-8fps.csv", names, v, 4), 1);
    CHECK_STR(names[0], "fps");
    CHECK_NEAR(v[0], 5.8, 1e-12);
    CHECK_INT(pp_import_match_pattern("yolo-{fps:-}fps.csv", "yolo-10fps.csv", names, v, 4), 1);
    CHECK_NEAR(v[0], 10, 1e-12);
    CHECK_INT(pp_import_match_pattern("yolo-{fps:-}fps.csv", "yolo-1-2-3fps.csv", names, v, 4),
              -EINVAL);
    CHECK_INT(pp_import_match_pattern("yolo-{fps:--}fps.csv", "yolo-5-8fps.csv", names, v, 4),
              -EINVAL);
    snprintf(out, sizeof out, "%s/yolo", test_tmpdir());
    CHECK_INT(run_powprof(NULL, &err, "import", "powprofiler", "data/tx2/darknet/1layer_yolo-5-8fps.csv",
                          "data/tx2/darknet/1layer_yolo-10fps.csv", "--pattern",
                          "1layer_yolo-{fps:-}fps.csv", "-o", out, NULL), 0);
    free(err);
    snprintf(out + strlen(out), sizeof out - strlen(out), "/summary.csv");
    text = slurp(out);
    CHECK_CONTAINS(text, "\n0,5.8,ok,");
    free(text);
}

/* Item 2: import ulog reads each log once (it parsed it for the trace,
 * again for flight.csv and again for the report): the reader's warning
 * comes once. */
void test_import_reads_once(void);
void test_import_reads_once(void)
{
    char *out = NULL, *err = NULL;
    const char *said = "3 battery_status samples left out: their timestamp", *at;
    int n = 0;

    CHECK_INT(pp(&out, &err, "import", "ulog", fixture("issue33/ts_back.ulg"), "-o",
                 tmp_path("once"), NULL), 0);
    for (at = err; at && (at = strstr(at, said)); at++)
        n++;
    CHECK_INT(n, 1);
    CHECK_CONTAINS(out, "battery 0: 3 samples over 2.0 s");
    free(out);
    free(err);
}

/* Item 13: an output folder that cannot be made is named as given with -o
 * (it was the temporary folder beside it, "OUT.import.PID@host.XXXX"). */
void test_import_names_output(void);
void test_import_names_output(void)
{
    const char *file = tmp_path("plain-file");
    char out[700], want[800], *err = NULL;

    CHECK_INT(write_file(file, "not a folder\n"), 0);
    snprintf(out, sizeof out, "%s/imp", file);
    CHECK(pp(NULL, &err, "import", "ulog", fixture("ulog/sample_log_small.ulg"), "-o", out,
             NULL) != 0);
    snprintf(want, sizeof want, "%s: cannot create: Not a directory (its temporary folder", out);
    CHECK_CONTAINS(err, want);
    free(err);
}
