/* The in-flight governor (issue 30, src/plan/governor.h).
 *
 * 1. Speed: pp_gov_update re-planning 5 phases x 1,000 candidates (the
 *    problem of bench_phases: a concave quality-power front, each phase
 *    its own base load, the 12-minute one a trace at 1 Hz), rint and
 *    thevenin: the first plan, then an update every 30 s with the charge
 *    drained 10 % faster than planned (re-plans that are held or taken),
 *    the median and the worst update. Target: < 10 ms rint, < 50 ms
 *    thevenin.
 * 2. The scenario of the issue (src/plan/governor_sim.h) on the TX2
 *    darknet data: static plan held / governed / oracle, propulsion +15 %
 *    and -15 % from a third of the mission in.
 * 3. `powprof govern --simulate` run as a child: its maximum resident set
 *    (getrusage), target < 20 MB.
 * Environment: POWPROF_BIN (the TX2 import, the child run).
 */
#include "util.h"

#include "src/plan/governor.h"

#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PHASES PP_BENCH_PHASES
#define CANDS PP_BENCH_CANDS
#define MAX_UPDATES 128

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void speed(pp_battery_model model)
{
    static pp_plan_choice cand[CANDS];
    static unsigned char allowed[PHASES * CANDS];
    pp_phase_load load[PHASES];
    pp_phases_problem p;
    pp_gov *g;
    pp_gov_decision d;
    double times[MAX_UPDATES], cpu[MAX_UPDATES], first = NAN, soc = 1, planned_drain_per_s = NAN;
    size_t n = 0, replans = 0, runs = 0;

    pp_bench_phases_problem(model, cand, allowed, load, &p);
    if (pp_gov_new(&p, NULL, &g) < 0)
        return;
    for (double t = 0; t < 1320 && n < MAX_UPDATES; t += 30) {
        pp_gov_reading r = {t, soc, NAN, NAN, -1};
        double t0 = pp_bench_now_s(), c0 = cpu_s();
        if (pp_gov_update(g, &r, &d) < 0) {
            printf("update failed\n");
            break;
        }
        times[n] = pp_bench_now_s() - t0;
        cpu[n] = cpu_s() - c0;
        if (t == 0) {
            first = times[n];
            planned_drain_per_s = (1 - d.soc_end_frac) / 1320;
        } else {
            n++;
            replans += d.replanned;
        }
        runs += d.n_battery_runs;
        soc -= 1.1 * planned_drain_per_s * 30;
    }
    qsort(times, n, sizeof *times, by_value);
    qsort(cpu, n, sizeof *cpu, by_value);
    printf("%-9s %d phases x %d candidates: first plan %.1f ms; %zu updates every 30 s with the "
           "charge drained 10 %% faster than planned: wall median %.1f ms, worst %.1f ms; CPU "
           "median %.1f ms, worst %.1f ms (%zu re-plans taken, %.1f battery runs per update)\n",
           model == PP_BATTERY_RINT ? "rint" : "thevenin", PHASES, CANDS, 1e3 * first, n,
           1e3 * times[n / 2], 1e3 * times[n - 1], 1e3 * cpu[n / 2], 1e3 * cpu[n - 1], replans,
           (double)runs / (double)(n + 1));
    pp_gov_free(g);
    for (size_t k = 0; k < PHASES; k++)
        pp_phase_load_free(&load[k]);
}

/* argv run with stdin from in (NULL: /dev/null) and stdout into out: its
 * exit status, *rss_mb its maximum resident set (getrusage of the child). */
static int child(char *const argv[], const char *in, const char *out, double *rss_mb)
{
    struct rusage ru;
    int st;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int i = open(in ? in : "/dev/null", O_RDONLY), o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(i, 0);
        dup2(o, 1);
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &st, 0, &ru) != pid)
        return -1;
    *rss_mb = (double)ru.ru_maxrss / 1024.0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double field(json_t *root, const char *run, const char *key)
{
    return json_number_value(json_object_get(json_object_get(root, run), key));
}

/* The scenario on the TX2 darknet data: F = 1.15 and 0.85. */
static void scenario(const char *bin, const char *results, const char *mission, const char *tmp)
{
    static const char *const scales[] = {"10min:1.15", "10min:0.85"};
    char out[600];
    double rss;

    snprintf(out, sizeof out, "%s/sim.json", tmp);
    printf("the scenario (%s on %s; propulsion from a third in):\n", mission, results);
    for (size_t i = 0; i < 2; i++) {
        char *argv[] = {(char *)bin, "govern", (char *)results, "--mission", (char *)mission,
                        "--simulate", "planned", "--scale-after", (char *)scales[i], "--json", NULL};
        int st = child(argv, NULL, out, &rss);
        json_t *root = json_load_file(out, 0, NULL);
        if (!root) {
            printf("  %s: govern failed (status %d)\n", scales[i], st);
            continue;
        }
        printf("  x%s: propulsion %.2f W planned, %.2f W flown; end: static %.2f %%, governed "
               "%.2f %%, oracle %.2f %% (reserve 20 %%); quality: static %.3f, governed %.3f, "
               "oracle %.3f (governed / oracle %.3f); governed changes %g; max RSS %.1f MB\n",
               strchr(scales[i], ':') + 1, json_number_value(json_object_get(root, "planned_propulsion_mean_w")),
               json_number_value(json_object_get(root, "actual_propulsion_mean_w")),
               100 * field(root, "static", "soc_end"), 100 * field(root, "governed", "soc_end"),
               100 * field(root, "oracle", "soc_end"), field(root, "static", "quality"),
               field(root, "governed", "quality"), field(root, "oracle", "quality"),
               json_number_value(json_object_get(root, "quality_vs_oracle")),
               field(root, "governed", "changes"), rss);
        json_decref(root);
    }
}

/* govern beside the workload: 2,000 readings from a file, its RSS. */
static void resident(const char *bin, const char *results, const char *mission, const char *tmp)
{
    char in[600], out[600];
    double rss = NAN, t0;
    FILE *fp;
    int st;

    snprintf(in, sizeof in, "%s/readings.txt", tmp);
    snprintf(out, sizeof out, "%s/decisions.jsonl", tmp);
    if (!(fp = fopen(in, "w")))
        return;
    for (int i = 0; i < 2000; i++)
        fprintf(fp, "%.1f %.3f %.3f\n", 0.9 * i, 12.2 - 0.0008 * i, 3.2 + 0.3 * sin(i / 7.0));
    fclose(fp);
    char *argv[] = {(char *)bin, "govern", (char *)results, "--mission", (char *)mission,
                    "--source", "stdin", NULL};
    t0 = pp_bench_now_s();
    st = child(argv, in, out, &rss);
    printf("govern --source stdin, 2,000 readings (voltage and current every 0.9 s): status %d, "
           "%.1f s, max RSS %.1f MB (target < 20 MB)\n", st, pp_bench_now_s() - t0, rss);
}

int main(void)
{
    const char *bin = getenv("POWPROF_BIN"), *fx = getenv("POWPROF_FIXTURES");
    char dir[] = "/tmp/powprof-bench-governor.XXXXXX", res[600], mission[600];

    printf("speed of pp_gov_update (a shared 2-core machine: figures are upper bounds):\n");
    speed(PP_BATTERY_RINT);
    speed(PP_BATTERY_THEVENIN);
    if (!bin || !fx || !mkdtemp(dir)) {
        printf("the scenario: POWPROF_BIN and POWPROF_FIXTURES unset (make bench sets them)\n");
        return 0;
    }
    snprintf(res, sizeof res, "%s/tx2", dir);
    snprintf(mission, sizeof mission, "%s/governor/mission-tx2.cfg", fx);
    if (pp_bench_import_tx2_darknet(bin, res) == 0) {
        scenario(bin, res, mission, dir);
        resident(bin, res, mission, dir);
    } else {
        printf("the scenario: the TX2 darknet import failed\n");
    }
    char *rm[] = {"/bin/rm", "-rf", dir, NULL};
    pp_bench_run_quiet(rm);
    return 0;
}
