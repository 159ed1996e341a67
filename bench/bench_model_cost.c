/* The cost of `powprof model` as designs grow (issue 31): pp_model_open
 * (auto, every metric of summary.csv: energy, mean power, duration, with
 * the nested cross-validation and E = P x T) on
 *   - 2-parameter grids of 7 x 7, 10 x 10, 14 x 14, 20 x 20 and 32 x 32
 *     configurations (49 .. 1,024);
 *   - 3-parameter scattered designs (uniform, seeded) of 50, 100, 200,
 *     300, 500 and 1,000 configurations;
 * surfaces of the shape of the matrix sets (energy a power law times a
 * linear term, 2 % noise). Each fit runs in a child process with a time
 * limit (POWPROF_COST_LIMIT_S, default 120 s): one past it is reported as
 * such. Targets: 1,000 x 3 scattered < 5 s, 200 < 1 s. The machine's
 * load average is printed beside each figure, and the child's CPU
 * seconds beside its wall seconds: on a shared machine the wall seconds
 * are upper bounds. `bench_model_cost N` runs the sizes up to N.
 */
#include "util.h"

#include "src/base/log.h"
#include "src/layer2/model.h"

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

/* A folder of n configurations: a grid side x side (d == 2) or n
 * scattered in 3 dimensions. Sizes 64 .. 4096 (a), sleep 0 .. 5 (b),
 * threads 1 .. 8 (c). */
static int design(const char *dir, size_t n, int d, int side)
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
            a = 64 * pow(64.0, (double)(i / (size_t)side) / (side - 1));
            b = 5.0 * (double)(i % (size_t)side) / (side - 1);
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

/* pp_model_open of dir in a child, at most limit_s of wall time: the
 * wall seconds, or INFINITY past the limit (NAN: it failed); *cpu_s the
 * child's CPU seconds (user + system). */
static double timed_model(const char *dir, double limit_s, double *cpu_s)
{
    double t0 = pp_bench_now_s();
    pid_t pid = fork();
    struct rusage ru;
    int st;

    if (pid == 0) {
        pp_model m;
        pp_log_set_level(PP_LOG_ERROR);
        alarm((unsigned)ceil(limit_s));
        _exit(pp_model_open(dir, NULL, 0, &m) == 0 ? 0 : 1);
    }
    *cpu_s = NAN;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
        return NAN;
    *cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
        return INFINITY;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? pp_bench_now_s() - t0 : NAN;
}

static void one(const char *what, size_t n, int d, int side, double limit_s)
{
    char dir[400];
    double l0 = load_avg(), s, cpu_s;

    snprintf(dir, sizeof dir, "%s/%s-%zu", tmp, what, n);
    if (design(dir, n, d, side) < 0)
        return;
    s = timed_model(dir, limit_s, &cpu_s);
    if (isinf(s))
        printf("  %-10s %5zu configurations: more than %.0f s (stopped; %.1f s of CPU)  load "
               "%.1f .. %.1f\n", what, n, limit_s, cpu_s, l0, load_avg());
    else
        printf("  %-10s %5zu configurations: %7.2f s wall, %7.2f s CPU  load %.1f .. %.1f\n",
               what, n, s, cpu_s, l0, load_avg());
    fflush(stdout);
}

int main(int argc, char **argv)
{
    static const int sides[] = {7, 10, 14, 20, 32};
    static const size_t scattered[] = {50, 100, 200, 300, 500, 1000};
    size_t up_to = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
    double limit_s = getenv("POWPROF_COST_LIMIT_S") ? atof(getenv("POWPROF_COST_LIMIT_S")) : 120;

    snprintf(tmp, sizeof tmp, "/tmp/bench-model-cost-%d", (int)getpid());
    mkdir(tmp, 0755);
    printf("powprof model (auto, energy, power, duration) as the design grows:\n");
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
        if ((size_t)(sides[i] * sides[i]) <= up_to)
            one("grid 2-D", (size_t)(sides[i] * sides[i]), 2, sides[i], limit_s);
    for (size_t i = 0; i < sizeof scattered / sizeof scattered[0]; i++)
        if (scattered[i] <= up_to)
            one("scattered", scattered[i], 3, 0, limit_s);
    printf("targets: 1,000 scattered x 3 parameters < 5 s, 200 < 1 s\n");
    {
        char *rm[] = {"/bin/rm", "-rf", tmp, NULL};
        pp_bench_run_quiet(rm);
    }
    return 0;
}
