/* Long flight logs (issue 46, item 14): read in seconds, fitted in bounded
 * memory.
 *
 * Logs: ulog2csv battery_status CSVs of a 4S 30 Ah pack drawing 5 +- 2 A
 * (the hostile-input round's gen_big.py, written here): an hour at 1 kHz
 * (3.6 M samples, ~180 MB) and ten hours at 50 Hz (1.8 M samples, ~95 MB),
 * in a temporary folder removed at the end; and the hour at 1 kHz as a
 * ULog (~70 MB).
 *
 * Figures: pp_flight_log_read of the hour at 1 kHz (every sample kept),
 * best of 2, against the target of 5 s; `powprof battery fit` of the ten
 * hours as a child process, its wall time and peak resident size (rusage),
 * against the targets of 10 s and 64 MB, and against the binary of
 * ecd7e1c (every sample held, then binned) in the same run as the
 * baseline: argv[1] another revision, "-" none.
 */
#include "util.h"

#include "src/flight/flight_log.h"
#include "tests/ulog_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define READ_TARGET_S 5.0
#define FIT_TARGET_S 10.0
#define FIT_TARGET_MB 64.0

/* gen_big.py's log: hours at hz, one CSV row per sample. 0 or -1. */
static int write_csv(const char *path, double hours, double hz)
{
    size_t n = (size_t)(hours * 3600 * hz), dt_us = (size_t)(1e6 / hz);
    double q = 0;
    FILE *fp = fopen(path, "w");

    if (!fp)
        return -1;
    fprintf(fp, "timestamp,voltage_v,current_a,discharged_mah,remaining,connected,cell_count,"
                "capacity\n");
    for (size_t k = 0; k < n; k++) {
        double i = 5.0 + 2 * sin((double)k / 500.0), s;
        q += i * (double)dt_us / 1e6 / 3600;
        s = fmax(1 - q / 30.0, 0.0);
        fprintf(fp, "%zu,%.4f,%.4f,%.2f,%.4f,1,4,30000\n", 20000000 + k * dt_us,
                4 * (3.4 + 0.8 * s) - 0.02 * i, i, q * 1000, s);
    }
    return fclose(fp) == 0 ? 0 : -1;
}

/* The same hour at 1 kHz as a ULog. 0 or -1. */
static int write_ulog(const char *path)
{
    ulog_buf u = {0};
    FILE *fp = fopen(path, "wb");
    int rc = -1;

    if (!fp)
        return -1;
    ulog_head(&u);
    ulog_sub(&u, 5, "battery_status");
    for (uint64_t k = 0; k < 3600000; k++)
        ulog_sample(&u, 5, 20000000 + k * 1000, (float)(16.0 - 2.0 * (double)k / 3.6e6),
                    (float)(5.0 + 2 * sin((double)k / 500.0)));
    if (fwrite(u.b, 1, u.n, fp) == u.n)
        rc = 0;
    free(u.b);
    return fclose(fp) == 0 ? rc : -1;
}

/* pp_flight_log_read of path, best of 2: seconds, its samples in *n. */
static double read_s(const char *path, size_t *n)
{
    double best = 1e30;

    for (int r = 0; r < 2; r++) {
        pp_ulog_flight f;
        double t0 = pp_bench_now_s(), dt;
        if (pp_flight_log_read(path, &f) != 0 || f.n_batteries != 1) {
            fprintf(stderr, "bench_flight_log: %s did not read\n", path);
            exit(1);
        }
        dt = pp_bench_now_s() - t0;
        *n = f.bat[0].n;
        pp_ulog_flight_free(&f);
        best = dt < best ? dt : best;
    }
    return best;
}

/* `bin battery fit log`: prints wall seconds and peak MB. */
static void fit(const char *what, const char *bin, const char *log)
{
    char *argv[] = {(char *)bin, "battery", "fit", (char *)log, NULL};
    struct rusage ru;
    int status;
    double t0 = pp_bench_now_s(), wall;

    if (pp_bench_run_rusage(argv, NULL, &ru, &status) < 0 || !WIFEXITED(status)) {
        printf("  %s: did not run\n", what);
        return;
    }
    wall = pp_bench_now_s() - t0;
    printf("  %-28s %6.2f s wall, %6.2f s CPU, %6.1f MB peak (exit %d)%s\n", what, wall,
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
           (double)ru.ru_maxrss / 1024.0, WEXITSTATUS(status),
           wall < FIT_TARGET_S && ru.ru_maxrss / 1024.0 < FIT_TARGET_MB ? "" : "  (target missed)");
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/pp-bench-flight-XXXXXX", csv1k[64], ulg1k[64], csv50[64];
    const char *bin = getenv("POWPROF_BIN"), *rev = argc > 1 ? argv[1] : "ecd7e1c", *old = NULL;
    size_t n;
    double s;

    if (!mkdtemp(dir))
        return 1;
    snprintf(csv1k, sizeof csv1k, "%s/1h-1kHz.csv", dir);
    snprintf(ulg1k, sizeof ulg1k, "%s/1h-1kHz.ulg", dir);
    snprintf(csv50, sizeof csv50, "%s/10h-50Hz.csv", dir);
    if (write_csv(csv1k, 1, 1000) < 0 || write_ulog(ulg1k) < 0 || write_csv(csv50, 10, 50) < 0) {
        fprintf(stderr, "bench_flight_log: cannot write the logs in %s\n", dir);
        pp_bench_remove_tree(dir);
        return 1;
    }
    printf("an hour at 1 kHz read (pp_flight_log_read, every sample kept; best of 2)\n");
    s = read_s(csv1k, &n);
    printf("  ulog2csv CSV: %zu samples in %.2f s (%.1f M samples/s)%s\n", n, s, (double)n / s / 1e6,
           s < READ_TARGET_S ? "" : "  (target 5 s missed)");
    s = read_s(ulg1k, &n);
    printf("  ULog:         %zu samples in %.2f s (%.1f M samples/s)%s\n", n, s, (double)n / s / 1e6,
           s < READ_TARGET_S ? "" : "  (target 5 s missed)");
    printf("ten hours at 50 Hz fitted (`powprof battery fit`; targets 10 s, 64 MB)\n");
    fit("this tree", bin ? bin : "build/powprof", csv50);
    if (strcmp(rev, "-") != 0 && (old = pp_bench_baseline(rev, "build/baseline-flight")))
        fit(rev, old, csv50);
    pp_bench_remove_tree(dir);
    return 0;
}
