#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A results folder with a summary of known values: one parameter 'p' at
 * 1..5, metric 'flat_w' constant 2, metric 'lin_j' = 10 p, and a failed row
 * that must be left out. */
static const char *make_results(void)
{
    static char dir[512];
    char path[600];

    snprintf(dir, sizeof dir, "%s/res", test_tmpdir());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    write_file(path, "id,p,status,duration_s,iterations,late_frames,flat_w,lin_j,reason\n"
                     "0,1,ok,1,1,0,2,10,\n"
                     "1,2,ok,1,1,0,2,20,\n"
                     "2,3,failed,1,1,0,99,999,it broke\n"
                     "3,4,ok,1,1,0,2,40,\n"
                     "4,5,ok,1,1,0,2,50,\n");
    return dir;
}

void test_cli_model_and_predict(void);
void test_cli_model_and_predict(void)
{
    const char *dir = make_results();
    char path[700], *out = NULL, *err = NULL, *text;

    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "4 configurations (1 left out: status not ok)");
    CHECK_CONTAINS(out, "flat_w");
    free(out);
    snprintf(path, sizeof path, "%s/model.json", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "{\"name\":\"lin_j\",\"sigma\":");
    CHECK_CONTAINS(text, "\"left_out\":1");
    free(text);
    snprintf(path, sizeof path, "%s/model/lin_j.dat", dir);
    CHECK(access(path, R_OK) == 0);
    /* constant data gives the constant; the failed row's 99 is not there */
    CHECK_INT(run_powprof(&out, NULL, "predict", dir, "p=3", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"flat_w\":2");
    CHECK_CONTAINS(out, "\"nearest\":{\"id\":1,\"distance\":0.25}");
    CHECK_CONTAINS(out, "\"outside_measured_range\":false");
    free(out);
    /* the midpoint of two symmetric neighbours: (20 + 40) / 2 */
    CHECK_INT(run_powprof(&out, NULL, "predict", dir, "p=3", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"lin_j\":30");
    free(out);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "p=9", NULL), 0);
    CHECK_CONTAINS(err, "p = 9 lies outside the measured range [1, 5]");
    free(out);
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "predict", dir, "q=1", NULL), 2);
    CHECK_CONTAINS(err, "no parameter 'q'");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "predict", dir, NULL), 2);
    CHECK_CONTAINS(err, "no value for p");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "model", "/nonexistent", NULL), 2);
    CHECK_CONTAINS(err, "/nonexistent/summary.csv");
    free(err);
}

/* plot: the scripts, and PNG files that are PNG files of a sensible size
 * (when gnuplot is installed; make deps installs it). */
void test_cli_plot(void);
void test_cli_plot(void)
{
    char dir[512], path[700], *out = NULL, *text;
    int have_gnuplot;

    snprintf(dir, sizeof dir, "%s/res2", test_tmpdir());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/traces", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    {
        FILE *fp = fopen(path, "w");
        fprintf(fp, "id,a,b,status,duration_s,iterations,late_frames,total_mean_w,total_energy_j,"
                    "soc_end,soc_drain,reason\n");
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                fprintf(fp, "%d,%d,%d,ok,1,1,0,%g,%g,%g,%g,\n", i * 3 + j, 1 << i, 10 * j,
                        2.0 + i + 0.1 * j, 20.0 + 10 * i + j, 1 - 0.001 * (i + j), 0.001 * (i + j));
        fclose(fp);
    }
    snprintf(path, sizeof path, "%s/traces/0.csv", dir);
    write_file(path, "t_s,VDD_IN_w,GPU_w\n0,5,1\n0.5,6,2\n1,5,1\n");
    {
        char *argv[] = {"sh", "-c", "command -v gnuplot", NULL};
        have_gnuplot = run_argv(argv, NULL, NULL) == 0;
    }
    CHECK_INT(run_powprof(&out, NULL, "plot", dir, NULL), 0);
    free(out);
    snprintf(path, sizeof path, "%s/plots/layer2-total_mean_w-a-b.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "set xlabel 'a'");
    CHECK_CONTAINS(text, "set zlabel 'total_mean_w [W]'");
    CHECK_CONTAINS(text, "set logscale x 2"); /* 1, 2, 4: an exponential range */
    free(text);
    snprintf(path, sizeof path, "%s/plots/trace-0.gp", dir);
    CHECK(access(path, R_OK) == 0);
    if (!have_gnuplot) {
        fprintf(stderr, "    (gnuplot not installed: scripts only)\n");
        return;
    }
    {
        static const char *const pngs[] = {"layer2-total_mean_w-a-b.png", "layer2-soc_drain-a-b.png",
                                           "trace-0.png", "layer1-total.png"};
        for (size_t i = 0; i < 4; i++) {
            FILE *fp;
            unsigned char sig[8] = {0};
            long size;
            snprintf(path, sizeof path, "%s/plots/%s", dir, pngs[i]);
            fp = fopen(path, "rb");
            CHECK(fp != NULL);
            if (!fp)
                continue;
            CHECK_INT(fread(sig, 1, 8, fp), 8);
            CHECK(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0);
            fseek(fp, 0, SEEK_END);
            size = ftell(fp);
            fclose(fp);
            CHECK(size > 10000 && size < 5000000);
        }
    }
}

/* plan on a summary whose answers are known: 10 W per frame per second,
 * the default pack (rint, 14.8 V, 32 mOhm, 3.2 Ah, cutoff 20 %). */
void test_cli_plan(void);
void test_cli_plan(void)
{
    char dir[512], path[700], *out = NULL, *err = NULL;
    double best = 0;
    const char *at;

    snprintf(dir, sizeof dir, "%s/plan", test_tmpdir());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    write_file(path, "id,fps,status,duration_s,iterations,late_frames,total_mean_w,reason\n"
                     "0,1,ok,1,1,0,10,\n1,2,ok,1,1,0,20,\n2,3,ok,1,1,0,30,\n"
                     "3,4,ok,1,1,0,40,\n4,5,ok,1,1,0,50,\n");
    /* one hour: the pack gives about 37.6 W for 80 % of 3.2 Ah */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"feasible\":true");
    at = out ? strstr(out, "\"best\":{\"fps\":") : NULL;
    if (at)
        best = atof(at + 14);
    CHECK(best > 3.5 && best < 3.8);
    free(out);
    /* a mission nothing can fly: said so, and how long the most frugal lasts */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "100000", NULL), 3);
    CHECK_CONTAINS(out, "no configuration completes a 100000 s mission");
    CHECK_CONTAINS(out, "The most frugal one, fps=1 (");
    CHECK_CONTAINS(out, "min) to cutoff");
    free(out);
    /* a step-down schedule starts at the top and ends above the floor */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--schedule", NULL), 0);
    CHECK_CONTAINS(out, "at      0.0 s (100.0 % left): fps = 5");
    {
        /* and steps down: a later switch to a lower frame rate */
        const char *last = NULL, *cur = out;
        while (cur && (cur = strstr(cur, "  at ")) != NULL)
            last = cur++;
        CHECK(last != NULL && last != strstr(out, "  at "));
        if (last && strstr(last, "fps = "))
            CHECK(atof(strstr(last, "fps = ") + 6) < 5.0);
    }
    {
        const char *end = out ? strstr(out, "end at 3600.0 s with ") : NULL;
        CHECK(end != NULL);
        if (end)
            CHECK(atof(end + 21) >= 19.9);
    }
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "60", "--maximize", "zoom", NULL), 2);
    CHECK_CONTAINS(err, "--maximize zoom: no such parameter");
    free(err);
}
