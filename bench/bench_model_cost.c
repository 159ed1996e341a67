/* The cost of `powprof model` as designs grow (issue 31): `powprof model
 * DIR` (auto, every metric of summary.csv: energy, mean power, duration,
 * with the nested cross-validation, E = P x T, model.json and the plotted
 * grids) on
 *   - 2-parameter grids of 7 x 7, 10 x 10, 14 x 14, 20 x 20 and 32 x 32
 *     configurations (49 .. 1,024);
 *   - 3-parameter grids of 4^3, 5^3, 7^3 and 10^3 (64 .. 1,000), and of
 *     shapes that are not cubes, 144 .. 200 (6 x 6 x 4 .. 4 x 4 x 10);
 *   - 3-parameter scattered designs (uniform, seeded) of 50, 100, 200,
 *     300, 500 and 1,000 configurations;
 * surfaces of the shape of the matrix sets (energy a power law times a
 * linear term, 2 % noise). The same designs go through the build of git
 * $POWPROF_COST_BASELINE_REV (default 1b0a49f, before this work on
 * the cost), built once beside $POWPROF_BASELINE_DIR, in the same run, and
 * the ratio of CPU seconds is printed. Each run has a time limit
 * (POWPROF_COST_LIMIT_S, default 120 s): one past it is reported as such.
 * Targets: 1,000 x 3 < 5 s, 200 < 1 s. The machine's load average is
 * printed beside each figure, and CPU seconds beside wall seconds: on a
 * shared machine the wall seconds are upper bounds. `bench_model_cost N`
 * runs the sizes up to N (`bench_model_cost N M`: from M to N);
 * POWPROF_COST_REPEAT=5 prints the median of 5
 * runs of each (the measure; default 1). */
#include "util.h"


#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[256];

static double gauss(unsigned long long *st)
{
    double u1, u2;

    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    u1 = ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    u2 = ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static double uniform(unsigned long long *st)
{
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
}

/* A folder of n configurations: a grid shape[0] x shape[1] (d == 2) or
 * shape[0] x shape[1] x shape[2] (d == 3), or n scattered in 3 dimensions
 * (shape[0] == 0). Sizes 64 .. 4096 (a), sleep 0 .. 5 (b), threads 1 .. 8
 * (c). */
static int design(const char *dir, size_t n, int d, const int *shape)
{
    char path[600];
    unsigned long long st = 17 + n;
    FILE *fp;

    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(fp = fopen(path, "w")))
        return -1;
    fprintf(fp, d == 2 ? "id,a,b,status,duration_s,total_mean_w,total_energy_j\n"
                       : "id,a,b,c,status,duration_s,total_mean_w,total_energy_j\n");
    for (size_t i = 0; i < n; i++) {
        double a, b, c = 1, t, p;
        if (d == 2) {
            a = 64 * pow(64.0, (double)(i / (size_t)shape[1]) / (shape[0] - 1));
            b = 5.0 * (double)(i % (size_t)shape[1]) / (shape[1] - 1);
        } else if (shape[0] > 0) {
            size_t sb = (size_t)shape[1], sc = (size_t)shape[2];
            a = 64 * pow(64.0, (double)(i / (sb * sc)) / (shape[0] - 1));
            b = 5.0 * (double)(i / sc % sb) / (shape[1] - 1);
            c = 1 + 7.0 * (double)(i % sc) / (shape[2] - 1);
        } else {
            a = 64 * pow(64.0, uniform(&st));
            b = 5.0 * uniform(&st);
            c = 1 + 7 * uniform(&st);
        }
        t = (1e-9 * a * a * a / c + 0.5 * b + 0.2) * exp(0.02 * gauss(&st));
        p = (3 + 0.5 * log(a) + 0.3 * c - 0.2 * b) * exp(0.02 * gauss(&st));
        if (d == 2)
            fprintf(fp, "%zu,%.6g,%.6g,ok,%.6g,%.6g,%.6g\n", i, a, b, t, p, p * t);
        else
            fprintf(fp, "%zu,%.6g,%.6g,%.6g,ok,%.6g,%.6g,%.6g\n", i, a, b, c, t, p, p * t);
    }
    return fclose(fp);
}

static double load_avg(void)
{
    double l = NAN;
    FILE *fp = fopen("/proc/loadavg", "r");

    if (fp && fscanf(fp, "%lf", &l) != 1)
        l = NAN;
    if (fp)
        fclose(fp);
    return l;
}

/* `bin model dir`, at most limit_s of wall time: the wall seconds, or
 * INFINITY past the limit (NAN: it failed); *cpu_s its CPU seconds (user
 * + system). */
static double timed_model(const char *bin, const char *dir, double limit_s, double *cpu_s)
{
    char *argv[] = {(char *)bin, "model", (char *)dir, NULL};
    double t0 = pp_bench_now_s();
    struct rusage ru;
    int st;

    *cpu_s = NAN;
    if (pp_bench_run_limited(argv, NULL, (unsigned)ceil(limit_s), &ru, &st) < 0)
        return NAN;
    *cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
        return INFINITY;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? pp_bench_now_s() - t0 : NAN;
}

static void print_time(double s, double cpu_s, double limit_s)
{
    if (isinf(s))
        printf("> %.0f s (stopped; %.1f s CPU)", limit_s, cpu_s);
    else
        printf("%6.2f s wall %6.2f s CPU", s, cpu_s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* timed_model repeated g_repeat times (POWPROF_COST_REPEAT, 1 to
 * MAX_REPEAT): the medians of the wall and of the CPU seconds; a run that
 * fails or passes the limit ends the repeats with its own figures. */
#define MAX_REPEAT 9
static size_t g_repeat = 1;
static double median_model(const char *bin, const char *dir, double limit_s, double *cpu_s)
{
    double wall[MAX_REPEAT], cpu[MAX_REPEAT];

    for (size_t n = 0; n < g_repeat; n++) {
        wall[n] = timed_model(bin, dir, limit_s, &cpu[n]);
        if (!isfinite(wall[n])) {
            *cpu_s = cpu[n];
            return wall[n];
        }
    }
    qsort(wall, g_repeat, sizeof *wall, cmp_double);
    qsort(cpu, g_repeat, sizeof *cpu, cmp_double);
    *cpu_s = cpu[g_repeat / 2];
    return wall[g_repeat / 2];
}

static void one(const char *bin, const char *old, const char *what, int d, const int *shape,
                size_t n, double limit_s)
{
    char dir[400], name[64];
    double l0 = load_avg(), s, cpu_s, so, cpu_o;

    if (shape[0] == 0)
        snprintf(name, sizeof name, "%s", what);
    else if (d == 2)
        snprintf(name, sizeof name, "%s %d x %d", what, shape[0], shape[1]);
    else
        snprintf(name, sizeof name, "%s %d x %d x %d", what, shape[0], shape[1], shape[2]);
    snprintf(dir, sizeof dir, "%s/%s-%zu-%d-%d", tmp, what, n, shape[1], shape[2]);
    if (design(dir, n, d, shape) < 0)
        return;
    s = median_model(bin, dir, limit_s, &cpu_s);
    printf("  %-22s %5zu: ", name, n);
    print_time(s, cpu_s, limit_s);
    if (old) {
        so = median_model(old, dir, limit_s, &cpu_o);
        printf(" | baseline ");
        print_time(so, cpu_o, limit_s);
        printf(" | CPU ratio %s%.*f", isinf(so) ? "< " : "", cpu_s < 0.1 * cpu_o ? 3 : 2,
               cpu_s / cpu_o);
    }
    printf("  load %.1f .. %.1f\n", l0, load_avg());
    fflush(stdout);
}

static int in_range(size_t n, size_t from, size_t up_to)
{
    return n >= from && n <= up_to;
}

int main(int argc, char **argv)
{
    static const int sides[] = {7, 10, 14, 20, 32}, sides3[] = {4, 5, 7, 10};
    /* 3-parameter grids of 144-200 that are not cubes, 3 to 10 values per
     * parameter: a parameter of up to 8 values (6 interior) has each
     * interior value its own between-levels fold, the 4 x 4 x 10's third
     * its 8 in 2 groups */
    static const int shapes[][3] = {{6, 6, 4}, {5, 6, 6}, {5, 5, 8}, {7, 7, 4},
                                    {6, 6, 5}, {3, 8, 8}, {4, 4, 10}};
    static const size_t scattered[] = {50, 100, 200, 300, 500, 1000};
    static const int none[3] = {0, 0, 0};
    size_t up_to = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
    size_t from = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
    double limit_s = getenv("POWPROF_COST_LIMIT_S") ? atof(getenv("POWPROF_COST_LIMIT_S")) : 120;
    const char *bin = getenv("POWPROF_BIN") ? getenv("POWPROF_BIN") : "build/powprof";
    const char *rev = getenv("POWPROF_COST_BASELINE_REV"), *old;
    char base[4200];

    if (getenv("POWPROF_COST_REPEAT")) {
        long r = atol(getenv("POWPROF_COST_REPEAT"));
        g_repeat = r < 1 ? 1 : r > MAX_REPEAT ? MAX_REPEAT : (size_t)r;
    }
    snprintf(base, sizeof base, "%s-model-cost",
             getenv("POWPROF_BASELINE_DIR") ? getenv("POWPROF_BASELINE_DIR") : "build/baseline");
    old = pp_bench_baseline(rev ? rev : "1b0a49f", base);
    snprintf(tmp, sizeof tmp, "/tmp/bench-model-cost-%d", (int)getpid());
    mkdir(tmp, 0755);
    printf("powprof model (auto, energy, power, duration) as the design grows: %s against "
           "baseline %s; median of %zu runs\n", bin, old ? old : "unavailable (not in this clone)",
           g_repeat);
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        int sh[3] = {sides[i], sides[i], 1};
        if (in_range((size_t)(sides[i] * sides[i]), from, up_to))
            one(bin, old, "grid 2-D", 2, sh, (size_t)(sides[i] * sides[i]), limit_s);
    }
    for (size_t i = 0; i < sizeof sides3 / sizeof sides3[0]; i++) {
        int sh[3] = {sides3[i], sides3[i], sides3[i]};
        if (in_range((size_t)(sh[0] * sh[1] * sh[2]), from, up_to))
            one(bin, old, "grid 3-D", 3, sh, (size_t)(sh[0] * sh[1] * sh[2]), limit_s);
    }
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (in_range((size_t)(shapes[i][0] * shapes[i][1] * shapes[i][2]), from, up_to))
            one(bin, old, "grid 3-D", 3, shapes[i],
                (size_t)(shapes[i][0] * shapes[i][1] * shapes[i][2]), limit_s);
    for (size_t i = 0; i < sizeof scattered / sizeof scattered[0]; i++)
        if (in_range(scattered[i], from, up_to))
            one(bin, old, "scattered", 3, none, scattered[i], limit_s);
    printf("targets: 1,000 x 3 parameters < 5 s, 200 < 1 s\n");
    pp_bench_remove_tree(tmp);
    return 0;
}
