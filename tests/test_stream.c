/* Traces in constant memory: running sums, the streamed trace file, files
 * cut short, gap rows, the 16-byte load reader, and a sampler that rides
 * out failed readings. */
#include "harness.h"

#include "src/results/import_csv.h"
#include "src/base/log.h"
#include "src/sweep/sampler.h"
#include "src/traces/trace.h"
#include "src/sweep/trace_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const two[] = {"VDD_IN", "VDD_CPU"};

static size_t count_lines(const char *text, const char *containing)
{
    size_t n = 0;

    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (!containing || memmem(l, len, containing, strlen(containing)))
            n++;
        l = nl ? nl + 1 : l + len;
    }
    return n;
}

/* The sums give what the whole trace gives, for both integration rules. */
void test_trace_sums_match_trace(void);
void test_trace_sums_match_trace(void)
{
    const int in_total[] = {1, 0};

    for (int interval = 0; interval <= 1; interval++) {
        pp_trace t;
        pp_trace_sums s;
        double lo = 1e9, hi = -1e9;

        CHECK_INT(pp_trace_init(&t, 2, two), 0);
        t.interval_average = interval;
        pp_trace_sums_init(&s, 2, in_total, interval);
        for (int i = 0; i < 1000; i++) {
            double p[2] = {5.0 + 3.0 * sin(i * 0.05), 1.0 + (i % 7) * 0.25};
            double ts = 0.5 + i * 0.01 + (i > 500 ? 0.2 : 0.0); /* a longer step at 500 */
            pp_trace_append(&t, ts, p);
            if (i == 501)
                pp_trace_sums_gap(&s);
            pp_trace_sums_add(&s, ts, p);
            lo = p[0] < lo ? p[0] : lo;
            hi = p[0] > hi ? p[0] : hi;
        }
        for (size_t r = 0; r < 2; r++) {
            CHECK_NEAR(s.energy_j[r], pp_trace_energy_j(&t, r), 1e-9);
            CHECK_NEAR(pp_trace_sums_mean_w(&s, r), pp_trace_mean_w(&t, r), 1e-12);
        }
        CHECK_NEAR(pp_trace_sums_duration_s(&s), pp_trace_duration_s(&t), 1e-12);
        /* the total is VDD_IN alone: VDD_CPU is inside it */
        CHECK_NEAR(s.energy_j[2], pp_trace_energy_j(&t, 0), 1e-9);
        CHECK_NEAR(s.min_w[0], lo, 0);
        CHECK_NEAR(s.max_w[0], hi, 0);
        CHECK_NEAR(s.max_w[1], 2.5, 0);
        CHECK_INT(s.n_samples, 1000);
        CHECK_INT(s.n_gaps, 1);
        CHECK_NEAR(s.longest_gap_s, 0.21, 1e-9); /* sample 500 to 501 */
        pp_trace_free(&t);
    }
}

static void write_bytes(const char *path, const char *data, size_t len)
{
    FILE *fp = fopen(path, "w");
    if (fp) {
        fwrite(data, 1, len, fp);
        fclose(fp);
    }
}

/* A file cut short keeps its complete rows, with a warning naming the line. */
void test_trace_csv_cut_short(void);
void test_trace_csv_cut_short(void)
{
    static const char nul_tail[] = "t_s,a_w,b_w\n0,1,2\n0.1,1,2\n\0\0\0\0";
    char path[512];
    pp_trace t;

    snprintf(path, sizeof path, "%s/cut.csv", test_tmpdir());
    write_file(path, "t_s,a_w,b_w\n0,1,2\n0.1,1,2\n0.2,1");
    CHECK_INT(pp_trace_read_csv(path, &t), 0);
    CHECK_INT(t.n_samples, 2);
    CHECK_CONTAINS(test_log(), ":4: the file ends with an incomplete line");
    pp_trace_free(&t);

    /* a whole row without its newline is read, and said */
    test_log_clear();
    write_file(path, "t_s,a_w,b_w\n0,1,2\n0.1,1,2\n0.2,1,3");
    CHECK_INT(pp_trace_read_csv(path, &t), 0);
    CHECK_INT(t.n_samples, 3);
    CHECK_NEAR(pp_trace_at(&t, 2, 1), 3.0, 0);
    CHECK_CONTAINS(test_log(), ":4: the last line has no newline");
    pp_trace_free(&t);

    /* a power loss can leave zeros after the last line written */
    test_log_clear();
    write_bytes(path, nul_tail, sizeof nul_tail - 1);
    CHECK_INT(pp_trace_read_csv(path, &t), 0);
    CHECK_INT(t.n_samples, 2);
    CHECK_CONTAINS(test_log(), ":4: the file ends with an incomplete line");
    pp_trace_free(&t);
}

void test_trace_csv_gap_rows(void);
void test_trace_csv_gap_rows(void)
{
    char path[512];
    pp_trace t;
    pp_trace_load l;

    snprintf(path, sizeof path, "%s/gap.csv", test_tmpdir());
    write_file(path, "t_s,a_w,b_w\n0,1,2\n0.1,1,2\n0.2,,\n0.5,3,2\n0.6,,\n0.8,3,2\n");
    CHECK_INT(pp_trace_read_csv(path, &t), 0);
    CHECK_INT(t.n_samples, 4);
    CHECK_INT(t.n_gaps, 2);
    CHECK_CONTAINS(test_log(), ":4: a gap in the readings at 0.200000 s");
    CHECK_CONTAINS(test_log(), "2 gaps in the readings");
    /* joined: 0.1 -> 0.5 is a trapezoid from 1 W to 3 W */
    CHECK_NEAR(pp_trace_energy_j(&t, 0), 0.1 * 1 + 0.4 * 2 + 0.3 * 3, 1e-12);
    pp_trace_free(&t);
    CHECK_INT(pp_trace_read_load(path, NULL, 0, &l), 0);
    CHECK_INT(l.n, 4);
    CHECK_INT(l.n_gaps, 2);
    pp_trace_load_free(&l);
    /* a gap row is still a row: its time may not go backwards */
    write_file(path, "t_s,a_w\n0,1\n0.2,1\n0.1,\n");
    test_log_clear();
    CHECK_INT(pp_trace_read_csv(path, &t), -EINVAL);
    CHECK_CONTAINS(test_log(), ":4: time goes backwards");
}

void test_trace_read_load(void);
void test_trace_read_load(void)
{
    char path[512];
    pp_trace_load l;
    pp_trace t;
    double total[3];
    int rc;

    snprintf(path, sizeof path, "%s/load.csv", test_tmpdir());
    write_file(path, "t_s,VDD_IN_w,VDD_CPU_w,VDD_GPU_w\n0,5,1,2\n0.5,6,2,2\n1,7,3,1\n");
    CHECK_INT(pp_trace_read_csv(path, &t), 0);
    pp_trace_total_series(&t, total);
    CHECK_INT(pp_trace_read_load(path, NULL, 0, &l), 0);
    CHECK_INT(l.n, 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK_NEAR(l.t_s[i], t.t_s[i], 0);
        CHECK_NEAR(l.p_w[i], total[i], 0); /* the board input alone */
    }
    pp_trace_load_free(&l);
    pp_trace_free(&t);
    CHECK_INT(pp_trace_read_load(path, "VDD_CPU", 0, &l), 0);
    CHECK_NEAR(l.p_w[2], 3.0, 0);
    pp_trace_load_free(&l);
    CHECK_INT(pp_trace_read_load(path, "VDD_SOC", 0, &l), -ENOENT);
    CHECK_CONTAINS(test_log(), "has no rail 'VDD_SOC'");
    /* 3 samples need 48 bytes: with 40 available it will not fit */
    test_log_clear();
    rc = pp_trace_read_load(path, NULL, 40, &l);
    CHECK_INT(rc, -ENOMEM);
    CHECK(l.t_s == NULL && l.n == 0);
    CHECK_CONTAINS(test_log(), path);
    CHECK_CONTAINS(test_log(), "3 samples need 0.0 MB");
    CHECK_CONTAINS(test_log(), "will not fit");
}

/* Samples and a gap through a stream come back from the file. */
void test_trace_stream_round_trip(void);
void test_trace_stream_round_trip(void)
{
    char path[512];
    pp_trace_stream *w;
    pp_trace_stream_stats st;
    pp_trace_sink sink;
    pp_trace t;

    snprintf(path, sizeof path, "%s/stream.csv", test_tmpdir());
    CHECK_INT(pp_trace_stream_open(path, 2, two, 1000.0, &w), 0);
    if (!w)
        return;
    sink = pp_trace_stream_sink(w);
    for (int i = 0; i < 20000; i++) {
        double p[2] = {i * 0.001, 1.5};
        if (i == 700)
            sink.gap(sink.ctx, i * 0.001);
        if (i < 700 || i >= 710)
            CHECK_INT(sink.push(sink.ctx, i * 0.001, p), 0);
        if (i % 1000 == 999)
            usleep(50000); /* 20 kHz: the writer, every 0.1 s, keeps up with a ring of 8192 */
    }
    CHECK_INT(pp_trace_stream_close(w, &st), 0);
    CHECK_INT(st.rows, 19990);
    CHECK_INT(st.gap_rows, 1);
    CHECK_INT(st.dropped, 0);
    CHECK(st.ring_samples >= 8000); /* 8 s at 1 kHz */
    CHECK_INT(pp_trace_read_csv(path, &t), 0);
    CHECK_INT(t.n_samples, 19990);
    CHECK_INT(t.n_gaps, 1);
    if (t.n_samples == 19990) {
        CHECK_NEAR(t.t_s[700], 0.710, 1e-9);
        CHECK_NEAR(pp_trace_at(&t, 19989, 0), 19.999, 1e-9);
    }
    pp_trace_free(&t);
    /* a folder that does not exist: the error names the file */
    test_log_clear();
    CHECK_INT(pp_trace_stream_open("/nonexistent/dir/t.csv", 2, two, 10.0, &w), -ENOENT);
    CHECK_CONTAINS(test_log(), "/nonexistent/dir/t.csv: cannot create the trace");
}

typedef struct fifo_reader {
    int fd;
    char *text;
    size_t len;
} fifo_reader;

static void *read_all(void *arg)
{
    fifo_reader *r = arg;
    size_t cap = 1 << 20;
    ssize_t n;

    r->text = malloc(cap);
    while (r->text && (n = read(r->fd, r->text + r->len, cap - r->len - 1)) != 0) {
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                usleep(1000);
                continue;
            }
            break;
        }
        r->len += (size_t)n;
        if (r->len + 1 == cap)
            r->text = realloc(r->text, cap *= 2);
    }
    if (r->text)
        r->text[r->len] = '\0';
    return NULL;
}

/* A reader that does not read: the writer blocks, the ring fills, the
 * samples that do not fit are counted and marked, pushes never block. */
void test_trace_stream_stalled_reader(void);
void test_trace_stream_stalled_reader(void)
{
    char path[512];
    pp_trace_stream *w;
    pp_trace_stream_stats st;
    pp_trace_sink sink;
    fifo_reader r = {0};
    pthread_t th;
    const int pushed = 100000;

    snprintf(path, sizeof path, "%s/fifo", test_tmpdir());
    CHECK_INT(mkfifo(path, 0600), 0);
    r.fd = open(path, O_RDONLY | O_NONBLOCK);
    CHECK(r.fd >= 0);
    fcntl(r.fd, F_SETPIPE_SZ, 4096);
    CHECK_INT(pp_trace_stream_open(path, 2, two, 1.0, &w), 0); /* ring of 256 */
    if (!w)
        return;
    sink = pp_trace_stream_sink(w);
    for (int i = 0; i < pushed; i++) {
        double p[2] = {1.0, 2.0};
        CHECK_INT(sink.push(sink.ctx, i * 0.001, p), 0);
    }
    pthread_create(&th, NULL, read_all, &r);
    CHECK_INT(pp_trace_stream_close(w, &st), 0);
    pthread_join(th, NULL);
    close(r.fd);
    CHECK(st.dropped > 0);
    CHECK_INT(st.rows + st.dropped, pushed);
    CHECK(st.gap_rows >= 1);
    CHECK_INT(count_lines(r.text, NULL), 1 + st.rows + st.gap_rows);
    CHECK_INT(count_lines(r.text, ",,"), st.gap_rows);
    CHECK_CONTAINS(test_log(), "samples left out of the file");
    free(r.text);
}

/* A device whose reads fail on some calls. */
typedef struct flaky {
    int reads;
    int fail_every; /* every n-th read fails (0: never) */
} flaky;

static int flaky_read(pp_device *dev, int64_t t_ns, double *p)
{
    flaky *f = dev->priv;
    (void)t_ns;
    f->reads++;
    if (f->fail_every && f->reads % f->fail_every == 0) {
        pp_log_error("flaky: read %d failed", f->reads);
        return -EIO;
    }
    p[0] = 2.0;
    return 0;
}

static pp_device_ops flaky_ops = {"flaky", "test device", 0, NULL, NULL, flaky_read, NULL};

/* One failed read is tried again at once: no gap, nothing logged. */
void test_sampler_retries_a_failed_read(void);
void test_sampler_retries_a_failed_read(void)
{
    pp_device dev;
    flaky f = {0, 3};
    pp_fake_clock fc = {.now_ns = 0};
    pp_clock clk = pp_fake_clock_make(&fc);
    pp_sampler *s;
    pp_sampler_stats st;

    memset(&dev, 0, sizeof dev);
    dev.ops = &flaky_ops;
    dev.priv = &f;
    pp_device_add_rail(&dev, "FLAKY", 0);
    CHECK_INT(pp_sampler_create(&dev, &clk, 100.0, 300, &s), 0);
    CHECK_INT(pp_sampler_run(s), 0);
    pp_sampler_get_stats(s, &st);
    CHECK_INT(st.n_samples, 300);
    CHECK_INT(st.n_failed, 0);
    CHECK(st.n_retried >= 100);
    CHECK_INT(st.n_gaps, 0);
    CHECK(strstr(test_log(), "flaky") == NULL); /* held back: the retry worked */
    pp_sampler_destroy(s);
}

/* A Jetson rail file emptied at the 21st sleep and restored at the 26th:
 * the deadlines between have no sample, the trace has one gap, sampling
 * goes on to the end. */
typedef struct flip {
    const char *path;
    char saved[64];
} flip;

static int64_t empty_then_restore(pp_fake_clock *fc, int64_t deadline)
{
    flip *f = fc->user;
    (void)deadline;
    if (fc->n_sleeps == 20)
        write_file(f->path, "");
    if (fc->n_sleeps == 25)
        write_file(f->path, f->saved);
    return 0;
}

pp_device *test_jetson_copy(char *path, size_t cap); /* test_sampler.c */

void test_sampler_gap_when_a_sensor_file_empties(void);
void test_sampler_gap_when_a_sensor_file_empties(void)
{
    char path[1024];
    flip f = {path, ""};
    pp_device *dev = test_jetson_copy(path, sizeof path);
    pp_fake_clock fc = {.now_ns = 0, .on_sleep = empty_then_restore, .user = &f};
    pp_clock clk = pp_fake_clock_make(&fc);
    pp_sampler *s;
    pp_sampler_stats st;
    pp_trace_sums sums;
    pp_trace t;
    char *saved = slurp(path);

    snprintf(f.saved, sizeof f.saved, "%s", saved ? saved : "");
    free(saved);
    if (!dev)
        return;
    CHECK_INT(pp_sampler_create(dev, &clk, 100.0, 50, &s), 0);
    CHECK_INT(pp_sampler_run(s), 0);
    pp_sampler_get_stats(s, &st);
    pp_sampler_get_sums(s, &sums);
    CHECK_INT(st.n_samples, 50);
    CHECK_INT(st.n_failed, 5); /* deadlines 21 to 25 */
    CHECK_INT(st.n_gaps, 1);
    CHECK_NEAR(st.longest_gap_s, 0.06, 1e-9);
    CHECK_INT(st.error, 0);
    CHECK_CONTAINS(test_log(), path);
    CHECK_CONTAINS(test_log(), "the reading at 0.210 s failed");
    CHECK_CONTAINS(test_log(), "readings back at 0.260 s after 5 failed");
    CHECK_INT(pp_sampler_trace(s, &t), 0);
    CHECK_INT(t.n_samples, 50);
    CHECK_INT(t.n_gaps, 1);
    CHECK_NEAR(t.t_s[21] - t.t_s[20], 0.06, 1e-9);
    /* the sums join over the gap as the trace does */
    CHECK_NEAR(sums.energy_j[0], pp_trace_energy_j(&t, 0), 1e-12);
    pp_trace_free(&t);
    pp_sampler_destroy(s);
    pp_device_close(dev);
}

/* import csv reads a powprof trace cut short, or with gap rows, the same way. */
void test_import_csv_cut_and_gaps(void);
void test_import_csv_cut_and_gaps(void)
{
    char path[512];
    pp_import_options o;
    pp_trace t;

    pp_import_options_init(&o);
    snprintf(path, sizeof path, "%s/cut.csv", test_tmpdir());
    write_file(path, "t_s,VDD_IN_w,VDD_CPU_w\n0,5,1\n0.1,5,1\n0.2,,\n0.3,6,1\n0.4,6");
    CHECK_INT(pp_import_csv(path, &o, &t), 0);
    CHECK_INT(t.n_samples, 3);
    CHECK_NEAR(t.t_s[2], 0.3, 1e-12);
    CHECK_CONTAINS(test_log(), ":4: a gap in the readings");
    CHECK_CONTAINS(test_log(), ":6: the file ends with an incomplete line");
    pp_trace_free(&t);
}

/* The reader of a FIFO goes away mid-run: the writer's error is kept and
 * named, the pushes go on (the sampler is never stopped by the disk), and
 * close reports it. */
void test_trace_stream_write_error_mid_run(void);
void test_trace_stream_write_error_mid_run(void)
{
    char path[512], buf[256];
    pp_trace_stream *w;
    pp_trace_stream_stats st;
    pp_trace_sink sink;
    int fd;

    snprintf(path, sizeof path, "%s/fifo", test_tmpdir());
    CHECK_INT(mkfifo(path, 0600), 0);
    fd = open(path, O_RDONLY | O_NONBLOCK);
    CHECK_INT(pp_trace_stream_open(path, 2, two, 100.0, &w), 0);
    if (!w)
        return;
    sink = pp_trace_stream_sink(w);
    CHECK(read(fd, buf, sizeof buf) > 0); /* the header */
    close(fd);
    for (int i = 0; i < 50; i++) {
        double p[2] = {1.0, 2.0};
        CHECK_INT(sink.push(sink.ctx, i * 0.01, p), 0);
        usleep(10000);
    }
    CHECK_INT(pp_trace_stream_close(w, &st), -EPIPE);
    CHECK_INT(st.error, -EPIPE);
    CHECK_CONTAINS(test_log(), path);
    CHECK_CONTAINS(test_log(), "cannot write the trace: Broken pipe");
}
