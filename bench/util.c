/* What the benchmarks share (util.h). */
#include "util.h"

#include "src/base/util.h"
#include "src/adaptive/adaptive_model.h"
#include "src/adaptive/adaptive_design.h"
#include "src/adaptive/adaptive_run.h"
#include "src/results/summary.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <math.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MX "data/tx2/matrix-exponentiation/matrix-exponentiation_%d-%d_1layer.csv"

double pp_bench_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pp_bench_run_quiet(char *const argv[])
{
    pid_t pid;
    int st;

    fflush(NULL); /* the child must not write our buffers again */
    pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0
                                                                                          : -1;
}

int pp_bench_import_tx2_matrix(const char *bin, const char *dir, const int *sizes,
                               size_t n_sizes)
{
    static char files[25][160];
    char *argv[40];
    int n = 0, f = 0;

    if (n_sizes > 5)
        return -1;
    argv[n++] = (char *)bin;
    argv[n++] = "import";
    argv[n++] = "powprofiler";
    for (size_t s = 0; s < n_sizes; s++)
        for (int e = 20; e <= 60; e += 10, f++) {
            snprintf(files[f], sizeof files[f], MX, sizes[s], e);
            argv[n++] = files[f];
        }
    argv[n++] = "--pattern";
    argv[n++] = "matrix-exponentiation_{size}-{exponent}_1layer.csv";
    argv[n++] = "-o";
    argv[n++] = (char *)dir;
    argv[n] = NULL;
    return pp_bench_run_quiet(argv) == 0 && access(dir, F_OK) == 0 ? 0 : -1;
}

int pp_bench_import_tx2_darknet(const char *bin, const char *dir)
{
    static const char *const names[] = {"5-8", "10", "25", "32"};
    static const char *const fps[] = {"5.8", "10", "25", "32"};
    char one[400], path[500], file[160], param[32], *text;
    FILE *out;

    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(out = fopen(path, "w")))
        return -1;
    for (int i = 0; i < 4; i++) {
        char *argv[] = {(char *)bin, "import", "powprofiler", file, "--param", param,
                        "-o", one, NULL};
        snprintf(one, sizeof one, "%s-%d", dir, i);
        snprintf(file, sizeof file, "data/tx2/darknet/1layer_yolo-%sfps.csv", names[i]);
        snprintf(param, sizeof param, "fps=%s", fps[i]);
        pp_bench_run_quiet(argv);
        snprintf(path, sizeof path, "%s/summary.csv", one);
        if (!(text = pp_read_file(path)))
            break;
        /* the header once, then the row with its id renumbered */
        if (i == 0)
            fprintf(out, "%.*s", (int)(strchr(text, '\n') - text + 1), text);
        fprintf(out, "%d%s", i, strchr(strchr(text, '\n') + 1, ','));
        free(text);
    }
    return fclose(out) == 0 ? 0 : -1;
}

void pp_bench_measured_flags(const pp_bench_grid *g, const char *dir, uint8_t *in)
{
    char path[600], *text, *line, *nl;

    memset(in, 0, g->s.n);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    text = pp_read_file(path);
    for (line = text ? strchr(text, '\n') : NULL; line && (nl = strchr(++line, '\n')); line = nl) {
        long c = pp_adaptive_space_find(&g->s, strtoull(line, NULL, 10));
        if (c >= 0)
            in[c] = 1;
    }
    free(text);
}

void pp_bench_remove_tree(const char *dir)
{
    char *argv[] = {"/bin/rm", "-rf", (char *)dir, NULL};
    pp_bench_run_quiet(argv);
}

int pp_bench_grid_open(pp_bench_grid *g, const char *name, const char *dir, int full_error)
{
    pp_summary sum;
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_fit f;
    int e, d, rc;

    memset(g, 0, sizeof *g);
    g->name = name;
    g->dir = dir;
    if ((rc = pp_replay_open(dir, &g->rp, &g->s)) < 0 || (rc = pp_summary_read(dir, &sum)) < 0)
        return rc;
    e = pp_summary_metric(&sum, "total_energy_j");
    d = pp_summary_metric(&sum, "duration_s");
    g->energy_j = calloc(g->s.n, sizeof *g->energy_j);
    g->duration_s = calloc(g->s.n, sizeof *g->duration_s);
    for (size_t c = 0; e >= 0 && d >= 0 && c < g->s.n; c++) {
        size_t n = 0;
        for (size_t r = 0; r < sum.n_rows; r++)
            if ((uint64_t)sum.ids[r] == g->s.ids[c]) {
                g->energy_j[c] += sum.y[r * sum.n_metrics + (size_t)e];
                g->duration_s[c] += sum.y[r * sum.n_metrics + (size_t)d];
                n++;
            }
        g->energy_j[c] /= (double)n;
        g->duration_s[c] /= (double)n;
        g->total_s += g->duration_s[c];
    }
    pp_summary_free(&sum);
    pp_adaptive_model_predictor(&am, &pr);
    g->full_error_pct = NAN;
    if (full_error && (rc = pr.refit(pr.ctx, dir, &f)) == 0)
        for (size_t k = 0; k < f.n_metrics; k++)
            if (strcmp(f.metrics[k], "total_energy_j") == 0)
                g->full_error_pct = f.error_pct[k];
    pp_adaptive_model_free(&am);
    return e >= 0 && d >= 0 ? rc : -EINVAL;
}

void pp_bench_grid_free(pp_bench_grid *g)
{
    pp_replay_free(&g->rp);
    pp_adaptive_space_free(&g->s);
    free(g->energy_j);
    free(g->duration_s);
}

int pp_bench_replay(pp_bench_grid *g, const char *dir, const pp_adaptive_options *o,
                    pp_adaptive_model *am, pp_adaptive_predictor *pr, pp_adaptive_result *res)
{
    pp_adaptive_oracle orc = {&g->rp, pp_replay_measure, NULL};

    pp_bench_remove_tree(dir);
    pp_adaptive_model_predictor(am, pr);
    return pp_adaptive_run(&g->s, o, pr, &orc, dir, NULL, NULL, NULL, res);
}

void pp_bench_phases_problem(pp_battery_model model, pp_plan_choice *cand, unsigned char *allowed,
                             pp_phase_load *load, pp_phases_problem *p)
{
    static const double dur[PP_BENCH_PHASES] = {60, 120, 720, 300, 120};
    static const double base[PP_BENCH_PHASES] = {150, 100, 0, 80, 120};

    for (size_t i = 0; i < PP_BENCH_CANDS; i++) {
        cand[i].qos = 0.1 + 0.03 * (double)i;               /* 0.1 .. 30 fps */
        cand[i].planned_w = 2 + 0.9 * pow(cand[i].qos, 1.1); /* convex in quality */
    }
    memset(allowed, 1, PP_BENCH_PHASES * PP_BENCH_CANDS);
    for (size_t i = 0; i < PP_BENCH_CANDS; i++)
        allowed[4 * PP_BENCH_CANDS + i] = cand[i].qos >= 15; /* landing's floor */
    memset(p, 0, sizeof *p);
    for (size_t k = 0; k < PP_BENCH_PHASES; k++) {
        if (k == 2) { /* a trace: 1 Hz, 90 W +- 30 W */
            load[k].n = 721;
            load[k].t_s = malloc(2 * 721 * sizeof(double));
            load[k].p_w = load[k].t_s + 721;
            for (size_t i = 0; i < 721; i++) {
                load[k].t_s[i] = (double)i;
                load[k].p_w[i] = 90 + 30 * sin((double)i / 17.0);
            }
            load[k].mean_w = 90;
        } else {
            pp_phase_load_constant(base[k], dur[k], &load[k]);
        }
        p->duration_s[k] = dur[k];
        p->weight[k] = 1;
    }
    p->n_phases = PP_BENCH_PHASES;
    p->base = load;
    p->n_cand = PP_BENCH_CANDS;
    p->cand = cand;
    p->allowed = allowed;
    pp_battery_params_default(&p->battery);
    p->battery.model = model;
    p->min_soc_frac = 0.2;
}

int pp_bench_run_rusage(char *const argv[], const char *dir, struct rusage *ru, int *status)
{
    return pp_bench_run_limited(argv, dir, 0, ru, status);
}

int pp_bench_run_limited(char *const argv[], const char *dir, unsigned limit_s, struct rusage *ru,
                         int *status)
{
    pid_t pid = fork();

    if (pid == 0) {
        int fd = open("/dev/null", O_RDWR);
        alarm(limit_s); /* kept across exec: SIGALRM past the limit */
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (dir && chdir(dir) != 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, status, 0, ru) != pid)
        return -1;
    return 0;
}

const char *pp_bench_baseline(const char *rev, const char *dir)
{
    static char bin[4096];
    char tar[4200], src[4200], built[4300];
    struct rusage ru;
    int st = 1;

    snprintf(bin, sizeof bin, "%s/powprof", dir);
    if (access(bin, X_OK) == 0)
        return bin;
    snprintf(tar, sizeof tar, "%s/src.tar", dir);
    snprintf(src, sizeof src, "%s/src", dir);
    snprintf(built, sizeof built, "%s/build/powprof", src);
    mkdir(dir, 0755);
    mkdir(src, 0755);
    fprintf(stderr, "building the baseline (git %s) in %s, once...\n", rev, src);
    {
        char *git[] = {"git", "archive", "--format=tar", "-o", tar, (char *)rev, NULL};
        char *untar[] = {"tar", "-xf", tar, "-C", src, NULL};
        char *make[] = {"env", "-u", "MAKEFLAGS", "-u", "MAKELEVEL", "make", "-s", "-j2",
                        "powprof", NULL};
        char *cp[] = {"cp", built, bin, NULL};
        if (pp_bench_run_rusage(git, NULL, &ru, &st) < 0 || st != 0 ||
            pp_bench_run_rusage(untar, NULL, &ru, &st) < 0 || st != 0 ||
            pp_bench_run_rusage(make, src, &ru, &st) < 0 || st != 0 ||
            pp_bench_run_rusage(cp, NULL, &ru, &st) < 0 || st != 0)
            return NULL;
    }
    return bin;
}


double pp_bench_uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

double pp_bench_gauss(uint64_t *s)
{
    double u1 = pp_bench_uniform(s), u2 = pp_bench_uniform(s);

    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}
