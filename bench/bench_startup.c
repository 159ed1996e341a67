/* Startup benchmark (issue 11): what a command costs before it does any
 * work, against the build before the light core (git BASELINE_REV, built
 * once into $POWPROF_BASELINE_DIR), in the same run. Each command runs N
 * times, old and new alternating; the median CPU time (the command's
 * children included) and the median maximum resident memory are kept. The
 * CPU time is perf's task clock when `perf stat` works here (exact), else
 * getrusage's user + system, which this kernel samples at its tick: a
 * process that wakes on a 1 ms grid, in step with the tick, is caught
 * running more often than it runs (meter -r 1000 reads 0.15 s there
 * against 0.11 s of task clock). Targets: --version and `meter -r 1 -- true` <= 20 MB and <= 30 ms
 * CPU; `meter -r 1000 -- sleep 3` <= 0.15 s CPU for the whole process. */
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_RUNS 32

typedef struct figures {
    double cpu_s, rss_mb;
} figures;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The baseline binary: built from rev once (git archive, make), or NULL. */
/* The task clock of argv in seconds (children included) by perf stat, or
 * -1 when perf is not there or not allowed. */
static double task_clock_s(char **argv)
{
    char out[] = "/tmp/powprof-bench-perf-XXXXXX", line[512];
    char *perf[40] = {"perf", "stat", "-x,", "-e", "task-clock", "-o", out, "--"};
    double ms = -1;
    struct rusage ru;
    size_t n = 8;
    int fd = mkstemp(out), st = 1;
    FILE *fp;

    if (fd < 0)
        return -1;
    close(fd);
    for (size_t i = 0; argv[i] && n + 1 < sizeof perf / sizeof perf[0]; i++)
        perf[n++] = argv[i];
    perf[n] = NULL;
    if (pp_bench_run_rusage(perf, NULL, &ru, &st) == 0 && st == 0 && (fp = fopen(out, "r"))) {
        while (fgets(line, sizeof line, fp))
            if (strstr(line, "task-clock") && sscanf(line, "%lf,", &ms) != 1)
                ms = -1;
        fclose(fp);
    }
    unlink(out);
    return ms >= 0 ? ms * 1e-3 : -1;
}

static int g_perf = -1; /* whether perf's task clock is used (decided once) */

/* argv[0] replaced by bin, n runs: medians into f. */
static int measure(const char *bin, char **argv, int n, figures *f)
{
    double cpu[MAX_RUNS], rss[MAX_RUNS];

    argv[0] = (char *)bin;
    for (int i = 0; i < n; i++) {
        struct rusage ru;
        int st;
        if (pp_bench_run_rusage(argv, NULL, &ru, &st) < 0)
            return -1;
        cpu[i] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
        if (g_perf) {
            double t = task_clock_s(argv);
            if (g_perf < 0)
                g_perf = t >= 0;
            if (t >= 0)
                cpu[i] = t;
        }
        rss[i] = (double)ru.ru_maxrss / 1024.0;
    }
    f->cpu_s = median(cpu, n);
    f->rss_mb = median(rss, n);
    return 0;
}

/* The shared libraries ldd lists for bin (run without a shell). */
static int library_count(const char *bin)
{
    int fds[2], n = 0, st;
    char buf[4096];
    ssize_t len;
    pid_t pid;

    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execlp("ldd", "ldd", bin, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    while ((len = read(fds[0], buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < len; i++)
            n += buf[i] == '\n';
    close(fds[0]);
    waitpid(pid, &st, 0);
    return n;
}

int main(void)
{
    const char *bin = getenv("POWPROF_BIN"), *rev = getenv("POWPROF_BASELINE_REV");
    const char *dir = getenv("POWPROF_BASELINE_DIR"), *old;
    static char *cmds[][8] = {
        {"", "--version", NULL},
        {"", "meter", "-r", "1", "--", "true", NULL},
        {"", "meter", "-r", "1000", "--", "sleep", "3", NULL},
    };
    static const char *const names[] = {"powprof --version", "meter -r 1 -- true",
                                        "meter -r 1000 -- sleep 3"};
    static const double cpu_target[] = {0.030, 0.030, 0.150}, rss_target[] = {20, 20, 1e9};
    static const int runs[] = {15, 11, 3};

    bin = bin ? bin : "build/powprof";
    old = pp_bench_baseline(rev ? rev : "e5dcd5e", dir ? dir : "build/baseline");
    printf("startup: new %s (%d libraries), baseline %s (%d libraries)\n", bin,
           library_count(bin), old ? old : "unavailable (not in this clone)",
           old ? library_count(old) : 0);
    for (size_t c = 0; c < sizeof names / sizeof names[0]; c++) {
        figures fn, fo = {0, 0};
        if (measure(bin, cmds[c], runs[c], &fn) < 0 ||
            (old && measure(old, cmds[c], runs[c], &fo) < 0))
            return 1;
        printf("  %-26s new %7.1f ms CPU %6.1f MB", names[c], fn.cpu_s * 1e3, fn.rss_mb);
        if (old)
            printf("   baseline %7.1f ms %6.1f MB   ratio CPU %.3f RSS %.3f", fo.cpu_s * 1e3,
                   fo.rss_mb, fn.cpu_s / fo.cpu_s, fn.rss_mb / fo.rss_mb);
        printf("   target <= %.0f ms%s: %s\n", cpu_target[c] * 1e3,
               rss_target[c] < 1e9 ? ", <= 20 MB" : "",
               fn.cpu_s <= cpu_target[c] && fn.rss_mb <= rss_target[c] ? "met" : "MISSED");
    }
    printf("  CPU time was measured by %s\n",
           g_perf > 0 ? "perf's task clock" : "getrusage (tick-sampled: an overestimate for "
                                              "processes waking in step with the tick)");
    return 0;
}
