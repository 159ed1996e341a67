/* Soak benchmark (issue 16): `powprof meter -r 1000` for BENCH_SOAK_S
 * seconds (default 60) on the fake Jetson TX2 tree, three ways:
 *
 *   no-trace the baseline: the sampler alone, no trace written;
 *   file     -o on a file: resident memory at 5 s and at the end, samples,
 *            lateness, CPU;
 *   stalled  -o on a FIFO whose reader (a thread here, the pipe shrunk to
 *            one page) reads for 0.8 s and stalls 0.2 s every second: the
 *            writer thread blocks, the sampler's deadlines must not suffer;
 *   kill -9  killed after BENCH_KILL_S seconds (default 10): the rows left
 *            in the trace, and whether `powprof battery` reads it.
 *
 * The baseline, measured in the same run, is the run without a trace: the
 * other runs' figures are printed beside it as ratios (this machine's own
 * scheduling delays show in all three). Targets: resident memory at the
 * end within 1 MB of its value at 5 s; >= 99.5 % of the requested samples
 * with the stalled reader; >= 90 % of BENCH_KILL_S * 1000 rows after kill -9
 * (9,000 for 10 s).
 *
 * Environment: POWPROF_BIN (default build/powprof), POWPROF_FIXTURES
 * (default tests/fixtures), BENCH_SOAK_S, BENCH_KILL_S.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RATE_HZ 1000.0

typedef struct soak {
    const char *label;
    double rss5_mb, rss_end_mb; /* resident memory at 5 s and at the end */
    double cpu_s, wall_s;       /* of the meter process */
    long long samples, expected, missed, rows, dropped;
    double p50_us, p99_us, max_us, sampler_cpu_s, longest_write_s;
    int status;
} soak;

static const char *g_bin, *g_fixtures;
static char g_dir[256];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    double d = t - now_s();
    struct timespec ts;

    if (d <= 0)
        return;
    ts.tv_sec = (time_t)d;
    ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double rss_mb(pid_t pid)
{
    char path[64], line[256];
    long kb = -1;
    FILE *fp;

    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (!(fp = fopen(path, "r")))
        return -1;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    fclose(fp);
    return kb < 0 ? -1 : (double)kb / 1024.0;
}

/* powprof meter -d jetson ... -r 1000 --json --report report [-o out] -- sleep
 * secs, in a process group of its own. */
static pid_t start_meter(const char *out, const char *report, double secs)
{
    char root[4096], dur[32], *argv[24];
    size_t n = 0;
    pid_t pid;

    snprintf(root, sizeof root, "%s/jetson-tx2-iio", g_fixtures);
    snprintf(dur, sizeof dur, "%g", secs);
    argv[n++] = (char *)g_bin;
    argv[n++] = "meter";
    argv[n++] = "-d";
    argv[n++] = "jetson";
    argv[n++] = "--sysfs-root";
    argv[n++] = root;
    argv[n++] = "-r";
    argv[n++] = "1000";
    argv[n++] = "--json";
    argv[n++] = "--report";
    argv[n++] = (char *)report;
    if (out) {
        argv[n++] = "-o";
        argv[n++] = (char *)out;
    }
    argv[n++] = "--";
    argv[n++] = "sleep";
    argv[n++] = dur;
    argv[n] = NULL;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        execv(g_bin, argv);
        _exit(127);
    }
    if (pid > 0)
        setpgid(pid, pid);
    return pid;
}

static long long count_rows(const char *path)
{
    FILE *fp = fopen(path, "r");
    long long n = 0;
    int c;

    if (!fp)
        return -1;
    while ((c = getc(fp)) != EOF)
        n += c == '\n';
    fclose(fp);
    return n - 1;
}

static void read_report(const char *path, soak *s)
{
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);

    if (!j) {
        fprintf(stderr, "bench_soak: %s: %s\n", path, e.text);
        return;
    }
    json_unpack(j, "{s:I, s:I, s:I, s:F, s:F, s:F, s:F, s:I, s:F}", "samples", &s->samples,
                "expected_samples", &s->expected, "missed_deadlines", &s->missed,
                "jitter_p50_us", &s->p50_us, "jitter_p99_us", &s->p99_us, "jitter_max_us",
                &s->max_us, "sampler_cpu_s", &s->sampler_cpu_s, "trace_dropped", &s->dropped,
                "trace_longest_write_s", &s->longest_write_s);
    json_decref(j);
}

/* Run the meter for secs, taking its resident memory at 5 s and at secs. */
static int run_soak(soak *s, const char *out, double secs)
{
    char report[512];
    struct rusage ru;
    double t0 = now_s();
    int st;
    pid_t pid;

    snprintf(report, sizeof report, "%s/%s.json", g_dir, s->label);
    pid = start_meter(out, report, secs + 1.0);
    if (pid < 0)
        return -1;
    sleep_until(t0 + 5.0);
    s->rss5_mb = rss_mb(pid);
    sleep_until(t0 + secs);
    s->rss_end_mb = rss_mb(pid);
    if (wait4(pid, &st, 0, &ru) < 0)
        return -1;
    s->wall_s = now_s() - t0;
    s->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    s->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    read_report(report, s);
    return s->status == 0 ? 0 : -1;
}

/* The stalling reader of the FIFO: reads for 0.8 s, stalls 0.2 s. */
typedef struct stall_reader {
    const char *path;
    long long rows;
    double longest_stall_s;
} stall_reader;

static void *stall_main(void *arg)
{
    stall_reader *r = arg;
    int fd = open(r->path, O_RDONLY);
    char buf[4096];
    double next_stall;
    ssize_t n;

    if (fd < 0)
        return NULL;
    fcntl(fd, F_SETPIPE_SZ, 4096); /* one page: a stall blocks the writer */
    next_stall = now_s() + 0.8;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            r->rows += buf[i] == '\n';
        if (now_s() >= next_stall) {
            sleep_until(now_s() + 0.2);
            next_stall = now_s() + 0.8;
        }
    }
    close(fd);
    r->rows -= 1; /* the header */
    return NULL;
}

static void print_soak(const soak *s, double secs)
{
    printf("%-8s RSS %.2f MB at 5 s, %.2f MB at %.0f s: %+.3f MB (target within 1 MB)  exit %d\n",
           s->label, s->rss5_mb, s->rss_end_mb, secs, s->rss_end_mb - s->rss5_mb, s->status);
    printf("%-8s samples %lld of %lld requested (%.3f%%; target >= 99.5%% with the stalled "
           "reader), %lld deadlines missed; %lld rows in the trace, %lld left out\n", "",
           s->samples, s->expected,
           s->expected ? 100.0 * (double)s->samples / (double)s->expected : 0.0, s->missed,
           s->rows, s->dropped);
    printf("%-8s lateness p50 %.0f us, p99 %.0f us, max %.0f us; longest write %.3f s\n", "",
           s->p50_us, s->p99_us, s->max_us, s->longest_write_s);
    printf("%-8s CPU: meter process %.3f s = %.2f%% of one core, sampler thread %.3f s\n", "",
           s->cpu_s, 100.0 * s->cpu_s / s->wall_s, s->sampler_cpu_s);
}

static double share(const soak *s)
{
    return s->expected ? (double)s->samples / (double)s->expected : 0.0;
}

static void print_ratio(const soak *s, const soak *base)
{
    printf("%-8s / no-trace: samples obtained %.4fx, p99 lateness %.2fx, CPU %.2fx, RSS at the end "
           "%+.2f MB\n", s->label, share(base) > 0 ? share(s) / share(base) : 0.0,
           base->p99_us > 0 ? s->p99_us / base->p99_us : 0.0,
           base->cpu_s > 0 ? s->cpu_s / base->cpu_s : 0.0, s->rss_end_mb - base->rss_end_mb);
}

/* Run argv with its standard output thrown away; its exit status. */
static int run_quiet(char *const argv[])
{
    pid_t pid;
    int st = -1;

    fflush(NULL);
    if ((pid = fork()) == 0) {
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Seconds from exec to exit of `powprof --help`: the loading of the binary
 * and its libraries, before any sampling can start. */
static double startup_s(void)
{
    char *argv[] = {(char *)g_bin, "--help", NULL};
    double t0 = now_s();

    run_quiet(argv);
    return now_s() - t0;
}

static int bench_kill9(double secs)
{
    char out[512], report[512], *argv[4];
    pid_t pid;
    long long rows;
    int st;

    snprintf(out, sizeof out, "%s/killed.csv", g_dir);
    snprintf(report, sizeof report, "%s/killed.json", g_dir);
    pid = start_meter(out, report, secs * 3);
    if (pid < 0)
        return -1;
    sleep_until(now_s() + secs);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    kill(-pid, SIGKILL); /* the orphaned sleep */
    rows = count_rows(out);
    argv[0] = (char *)g_bin;
    argv[1] = "battery";
    argv[2] = out;
    argv[3] = NULL;
    st = run_quiet(argv);
    printf("kill -9  after %.0f s: %lld rows in the trace (target >= %.0f), powprof battery "
           "exit %d\n", secs, rows, 0.9 * secs * RATE_HZ, st);
    printf("%-8s of which the start of powprof itself (exec to the end of --help) took %.3f s\n",
           "", startup_s());
    return rows >= 0.9 * secs * RATE_HZ && st == 0 ? 0 : 1;
}

int main(void)
{
    double secs = getenv("BENCH_SOAK_S") ? atof(getenv("BENCH_SOAK_S")) : 60.0;
    double kill_s = getenv("BENCH_KILL_S") ? atof(getenv("BENCH_KILL_S")) : 10.0;
    char out[512], fifo[512];
    soak base = {.label = "no-trace"}, plain = {.label = "file"}, stalled = {.label = "stalled"};
    stall_reader reader = {fifo, 0, 0};
    pthread_t th;
    int failed = 0;

    g_bin = getenv("POWPROF_BIN") ? getenv("POWPROF_BIN") : "build/powprof";
    g_fixtures = getenv("POWPROF_FIXTURES") ? getenv("POWPROF_FIXTURES") : "tests/fixtures";
    if (secs < 6)
        secs = 6;
    snprintf(g_dir, sizeof g_dir, "/tmp/powprof-soak.XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("bench_soak: mkdtemp");
        return 1;
    }
    printf("meter -r 1000 on the fake Jetson TX2 tree for %.0f s\n", secs);
    failed |= run_soak(&base, NULL, secs) < 0;
    print_soak(&base, secs);
    snprintf(out, sizeof out, "%s/plain.csv", g_dir);
    failed |= run_soak(&plain, out, secs) < 0;
    plain.rows = count_rows(out);
    print_soak(&plain, secs);

    snprintf(fifo, sizeof fifo, "%s/stalled.fifo", g_dir);
    if (mkfifo(fifo, 0600) != 0 || pthread_create(&th, NULL, stall_main, &reader) != 0) {
        perror("bench_soak: fifo");
        return 1;
    }
    failed |= run_soak(&stalled, fifo, secs) < 0;
    pthread_join(th, NULL);
    stalled.rows = reader.rows;
    print_soak(&stalled, secs);
    print_ratio(&plain, &base);
    print_ratio(&stalled, &base);
    failed |= bench_kill9(kill_s) < 0;
    {
        char *argv[] = {"rm", "-rf", g_dir, NULL};
        run_quiet(argv);
    }
    return failed;
}
