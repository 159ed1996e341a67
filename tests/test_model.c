#include "harness.h"
#include "limited.h"
#include "exec_profile.h"

#include "src/results/results.h"
#include "src/results/summary.h"
#include "src/traces/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A results folder with a summary of known values: one parameter 'p' at
 * 1..5, metric 'flat_w' constant 2, metric 'lin_j' = 10 p, and a failed row
 * that must be left out. */
static const char *make_results(void)
{
    static char dir[512]; /* its own: results_folder_with's buffer serves the next folder */

    snprintf(dir, sizeof dir, "%s", results_folder_with("res", "id,p,status,duration_s,iterations,late_frames,"
                                                 "flat_w,lin_j,reason\n"
                                                 "0,1,ok,1,1,0,2,10,\n"
                                                 "1,2,ok,1,1,0,2,20,\n"
                                                 "2,3,failed,1,1,0,99,999,it broke\n"
                                                 "3,4,ok,1,1,0,2,40,\n"
                                                 "4,5,ok,1,1,0,2,50,\n", NULL));
    return dir;
}

/* Field (value, lo, hi) of metric in the output of predict --json. */
static double field_of(const char *text, const char *metric, const char *field)
{
    char key[128];
    const char *at;

    snprintf(key, sizeof key, "\"%s\":{", metric);
    at = text ? strstr(text, key) : NULL;
    snprintf(key, sizeof key, "\"%s\":", field);
    return at ? number_after(at, key) : NAN;
}

void test_cli_model_and_predict(void);
void test_cli_model_and_predict(void)
{
    const char *dir = make_results();
    char path[700], *out = NULL, *err = NULL, *text;

    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "4 configurations (1 more left out: status not ok), 1 parameter: p");
    CHECK_CONTAINS(out, "between");
    CHECK_CONTAINS(out, "flat_w");
    CHECK_CONTAINS(out, "nested leave-one-out");
    free(out);
    snprintf(path, sizeof path, "%s/model.json", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "\"name\": \"lin_j\"");
    CHECK_CONTAINS(text, "\"left_out\": 1");
    CHECK_CONTAINS(text, "\"nested\": true");
    free(text);
    snprintf(path, sizeof path, "%s/model/lin_j.dat", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "lo, hi"); /* the band beside every value */
    free(text);
    /* constant data gives the constant; the failed row's 99 is not there */
    CHECK_INT(run_powprof(&out, NULL, "predict", dir, "p=3", "--json", NULL), 0);
    CHECK_NEAR(field_of(out, "flat_w", "value"), 2.0, 1e-9);
    CHECK_CONTAINS(out, "\"nearest\":{\"id\":1,\"distance\":0.25}");
    CHECK_CONTAINS(out, "\"outside_measured_range\":false");
    /* a line is continued exactly, between and beyond the points */
    CHECK_NEAR(field_of(out, "lin_j", "value"), 30.0, 1e-6);
    CHECK(field_of(out, "lin_j", "lo") <= 30.0 && field_of(out, "lin_j", "hi") >= 30.0);
    free(out);
    CHECK_INT(run_powprof(&out, &err, "predict", dir, "p=9", "--json", NULL), 0);
    CHECK_CONTAINS(err, "p = 9 lies outside the measured range [1, 5]");
    CHECK_NEAR(field_of(out, "lin_j", "value"), 90.0, 1e-6);
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, NULL, "predict", dir, "p=2.5", NULL), 0);
    CHECK_CONTAINS(out, "90 % band");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "predict", dir, "q=1", NULL), 2);
    CHECK_CONTAINS(err, "no parameter 'q'");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "predict", dir, NULL), 2);
    CHECK_CONTAINS(err, "no value for p");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "model", dir, "--method", "spline", NULL), 2);
    CHECK_CONTAINS(err, "--method spline: auto, nw, loclin or boxcox");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "model", dir, "--sigma", "0.2", NULL), 2);
    CHECK_CONTAINS(err, "--smoothing-length needs --method nw or loclin");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "model", "/nonexistent", NULL), 2);
    CHECK_CONTAINS(err, "/nonexistent/summary.csv");
    free(err);
}

/* The table a newcomer reads: no inner configuration said in words, a rail
 * that is the total shown once, advice when an error is high; the details
 * behind --verbose. */
void test_cli_model_table(void);
void test_cli_model_table(void)
{
    char dir[512], path[600], *out = NULL;
    FILE *fp;

    snprintf(dir, sizeof dir, "%s/table", test_tmpdir());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    fp = fopen(path, "w");
    fprintf(fp, "id,a,b,status,duration_s,procstat_est_mean_w,procstat_est_energy_j,total_mean_w,"
                "total_energy_j,noise_j,reason\n");
    for (int i = 0; i < 6; i++) /* a in {1, 2}: every configuration on an edge */
        fprintf(fp, "%d,%d,%d,ok,1,%g,%g,%g,%g,%g,\n", i, 1 + i % 2, i / 2, 2.0 + i, 2.0 + i,
                2.0 + i, 2.0 + i, i % 3 == 1 ? 50.0 : 1.0 + 0.1 * i);
    fclose(fp);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "6 configurations, 2 parameters: a (linear scale), b (linear scale)");
    CHECK_CONTAINS(out, "n/a: no inner configurations");
    CHECK_CONTAINS(out, "procstat_est_mean_w is not shown: it repeats total_mean_w");
    CHECK(strstr(out, "  procstat_est_energy_j") == NULL);
    CHECK_CONTAINS(out, "advice: noise_j is predicted to within");
    CHECK(strstr(out, "nan") == NULL);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, "--verbose", NULL), 0);
    CHECK_CONTAINS(out, "  procstat_est_energy_j");
    CHECK(strstr(out, " h=") || strstr(out, " p=")); /* the setting: the smoothing length h */
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"honest\"");
    CHECK_CONTAINS(out, "\"band\"");
    free(out);
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
    CHECK_CONTAINS(text, "set zlabel 'total mean power [W]'");
    CHECK_CONTAINS(text, "set logscale x\nset xtics (1, 2, 4)"); /* an exponential range */
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
 * the default pack (rint, 14.8 V, 32 mOhm, 3.2 Ah, cutoff 20 %): about
 * 37.7 W for an hour. Integer frame rates stay integers. */
void test_cli_plan(void);
void test_cli_plan(void)
{
    const char *dir = results_folder_with("plan", "id,fps,status,duration_s,iterations,late_frames,total_mean_w,reason\n"
                                     "0,1,ok,1,1,0,10,\n1,2,ok,1,1,0,20,\n2,3,ok,1,1,0,30,\n"
                                     "3,4,ok,1,1,0,40,\n4,5,ok,1,1,0,50,\n", NULL);
    char *out = NULL, *err = NULL;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"feasible\":true");
    CHECK_CONTAINS(out, "\"risk\":\"upper\"");
    CHECK_NEAR(number_after(out, "\"best\":{\"fps\":"), 3.0, 1e-12); /* not 3.77 */
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", NULL), 0);
    CHECK_CONTAINS(out, "power planned with: the upper end of the 90 % band");
    CHECK_CONTAINS(out, "best: fps = 3:");
    free(out);
    /* a finer resolution, asked for */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--resolution", "fps=0.25",
                          "--json", NULL), 0);
    CHECK_NEAR(number_after(out, "\"best\":{\"fps\":"), 3.75, 1e-9);
    free(out);
    /* a mission nothing can fly: said so, and how long the most frugal lasts */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "100000", NULL), 3);
    CHECK_CONTAINS(out, "no configuration completes a 100000 s mission");
    CHECK_CONTAINS(out, "The most frugal one, fps = 1:");
    CHECK_CONTAINS(out, " to cutoff (computer + ");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "60", "--maximize", "zoom", NULL), 2);
    CHECK_CONTAINS(err, "--maximize zoom: no such parameter");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "60", "--resolution", "fps", NULL), 2);
    CHECK_CONTAINS(err, "--resolution fps: NAME=STEP");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "60", "--risk", "low", NULL), 2);
    CHECK_CONTAINS(err, "--risk low: upper or mean");
    free(err);
    /* the mission's options are one parser for plan and layers predict */
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "60", "--min-soc", "1", NULL), 2);
    CHECK_CONTAINS(err, "min soc 1: the charge to keep is a fraction in [0, 1)"); /* library's */
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "layers", "predict", "m.json", "x.cfg", "--min-soc", "1", NULL),
              2);
    CHECK_CONTAINS(err, "min soc 1: the charge to keep is a fraction in [0, 1)");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "layers", "predict", "m.json", "x.cfg", "--mission-s", "0",
                          NULL), 2);
    CHECK_CONTAINS(err, "--mission-s: \"0\" is 0 s, not in [1, 1e+07] s");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "60", "--base-power-w", "-1", NULL),
              2);
    CHECK_CONTAINS(err, "--base-power-w -1: watts >= 0");
    free(err);
}

/* The schedule starts at the top, steps down to the best plan and keeps
 * it, ending above the reserve and below where the best plan alone ends;
 * when the top lasts the whole mission, schedule and best plan are one. */
void test_cli_plan_schedule_agrees(void);
void test_cli_plan_schedule_agrees(void)
{
    const char *dir = results_folder_with("sched", "id,fps,status,duration_s,iterations,late_frames,total_mean_w,"
                                      "reason\n0,1,ok,1,1,0,10,\n1,2,ok,1,1,0,20,\n2,3,ok,1,1,0,30,\n"
                                      "3,4,ok,1,1,0,40,\n4,5,ok,1,1,0,50,\n", NULL);
    char *out = NULL;
    const char *last = NULL, *cur;
    double best_end, sched_end;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--schedule", NULL), 0);
    CHECK_CONTAINS(out, "at      0.0 s (100.0 % left): fps = 5");
    for (cur = out; cur && (cur = strstr(cur, "  at ")) != NULL; cur++)
        last = cur;
    CHECK(last != NULL && strncmp(strstr(last, "fps = "), "fps = 3:", 8) == 0); /* the best plan */
    sched_end = number_after(out, "end at 3600.0 s with ");
    best_end = number_after(out, "the best plan alone ends with ");
    CHECK(sched_end >= 19.9 && sched_end < best_end);
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--schedule", "--json", NULL), 0);
    CHECK_NEAR(number_after(out, "\"best\":{\"fps\":"), 5.0, 1e-12);
    CHECK_NEAR(number_after(out, "\"schedule_soc_end\":"), number_after(out, "\"best_soc_end\":"),
               1e-6);
    CHECK(strstr(out, "\"t_s\":60") == NULL); /* one step only */
    free(out);
}

/* A frame rate asked for is not a frame rate achieved: the rows at 4 and 8
 * fps were late (1.4 achieved). The plan maximizes the achieved rate and
 * never recommends a request the machine fell short of, and says so. */
void test_cli_plan_achieved_rates(void);
void test_cli_plan_achieved_rates(void)
{
    const char *dir = results_folder_with("late", "id,det.fps,status,duration_s,iterations,late_frames,"
                                     "det.achieved_fps,samples,short_run,total_mean_w,reason\n"
                                     "0,1,ok,10,10,0,1,100,0,3,\n1,2,ok,10,20,0,1.99,100,0,4,\n"
                                     "2,4,ok,10,14,14,1.4,100,0,6,\n3,8,ok,10,14,14,1.4,100,0,9,\n",
                             NULL);
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--maximize", "det.fps",
                          "--json", NULL), 0);
    CHECK_NEAR(number_after(out, "\"best\":{\"det.fps\":"), 2.0, 1e-12);
    CHECK_CONTAINS(out, "\"quality\":\"det.achieved_fps\"");
    CHECK(number_after(out, "\"short_of_rate\":") >= 5); /* 3 .. 8 */
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", NULL), 0);
    CHECK_CONTAINS(out, "whose achieved rate falls short of the requested one by more than 5 %");
    CHECK_CONTAINS(out, "best: det.fps = 2 (achieves");
    free(out);
    /* a tolerance of 50 % lets 3 fps through (about 1.7 achieved) */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "600", "--tolerance", "0.5",
                          "--json", NULL), 0);
    CHECK(number_after(out, "\"best\":{\"det.fps\":") >= 2.0);
    free(out);
}

/* Parameters from run.json: a linear range plans on its step; a list of
 * integers on integers. */
void test_cli_plan_real_settings(void);
void test_cli_plan_real_settings(void)
{
    const char *dir = results_folder_with("settings", "id,a.x,a.level,status,duration_s,total_mean_w,reason\n"
                                         "0,0,1,ok,1,10,\n1,0.5,1,ok,1,20,\n2,1,1,ok,1,30,\n"
                                         "3,0,9,ok,1,18,\n4,0.5,9,ok,1,28,\n5,1,9,ok,1,38,\n",
                             "{\"params\":{\"a.x\":{\"scale\":\"linear\",\"values\":[0,0.5,1]},"
                             "\"a.level\":{\"scale\":\"list\",\"values\":[1,9]}}}");
    char *out = NULL;
    double x, level;

    /* power 10 + 20 x + level: 37.7 W allows x = 0.5 at level 9, not 0.8 */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--maximize", "a.x",
                          "--json", NULL), 0);
    x = number_after(out, "\"best\":{\"a.x\":");
    level = number_after(out, "\"a.level\":");
    CHECK(fabs(x * 2 - round(x * 2)) < 1e-9);
    CHECK(level == round(level));
    CHECK_NEAR(x, 1.0, 1e-9); /* at level 1 or so: 30 W + level */
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--maximize", "a.level",
                          "--json", NULL), 0);
    level = number_after(out, "\"a.level\":");
    CHECK(level == round(level) && level >= 1 && level <= 9);
    free(out);
}

/* Categorical parameters (labels): one model per label; predict and plan
 * take labels; no file name carries one. */
void test_model_categorical(void);
void test_model_categorical(void)
{
    const char *run_json = "{\"params\":{\"det.model\":{\"kind\":\"categorical\",\"values\":"
                           "[\"yolov3-tiny\",\"yolov2-tiny\"]},\"det.fps\":{\"kind\":\"list\","
                           "\"values\":[1,2,4]}}}";
    const char *dir = results_folder_with("cat", "id,det.model,det.fps,status,duration_s,total_mean_w,reason\n"
                                    "0,yolov3-tiny,1,ok,1,10,\n1,yolov3-tiny,2,ok,1,20,\n"
                                    "2,yolov3-tiny,4,ok,1,40,\n3,yolov2-tiny,1,ok,1,5,\n"
                                    "4,yolov2-tiny,2,ok,1,10,\n5,yolov2-tiny,4,ok,1,20,\n", run_json);
    char path[700], *out = NULL, *err = NULL, *text;

    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "det.model (categorical)");
    CHECK_CONTAINS(out, "one model per combination of labels: 2");
    CHECK_CONTAINS(out, "[2] det.model=yolov2-tiny");
    free(out);
    snprintf(path, sizeof path, "%s/model/total_mean_w.g1.dat", dir);
    CHECK(access(path, R_OK) == 0);
    snprintf(path, sizeof path, "%s/model/total_mean_w.dat", dir);
    CHECK(access(path, R_OK) == 0);
    CHECK_INT(run_powprof(&out, NULL, "predict", dir, "det.model=yolov2-tiny", "det.fps=3", "--json",
                          NULL), 0);
    CHECK_NEAR(field_of(out, "total_mean_w", "value"), 15.0, 1e-6);
    CHECK_CONTAINS(out, "\"det.model\":\"yolov2-tiny\"");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "predict", dir, "det.model=yolov9", "det.fps=3", NULL), 2);
    CHECK_CONTAINS(err, "det.model: 'yolov9' is not one of its labels: yolov3-tiny yolov2-tiny");
    free(err);
    /* 37.7 W for an hour: yolov3-tiny up to 3 fps, yolov2-tiny 4 (the top) */
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "3600", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"best\":{\"det.model\":\"yolov2-tiny\",\"det.fps\":4");
    free(out);
    /* without run.json: a column with a label is categorical, labels in order */
    snprintf(path, sizeof path, "%s/run.json", dir);
    unlink(path);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "det.model (categorical)");
    free(out);
    snprintf(path, sizeof path, "%s/model.json", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "\"yolov3-tiny\"");
    free(text);
    /* a label that is no label: file, line and value */
    dir = results_folder_with("badlabel", "id,m,status,duration_s,total_mean_w,reason\n0,a,ok,1,1,\n"
                             "1,b c,ok,1,2,\n", NULL);
    CHECK_INT(run_powprof(NULL, &err, "model", dir, NULL), 2);
    CHECK_CONTAINS(err, "summary.csv:3: m 'b c' is not a label");
    free(err);
}

/* Short runs: flagged in summary.csv (fewer than 5 samples, or shorter
 * than 5 sampling periods), said by import and model. */
void test_short_runs_flagged(void);
void test_short_runs_flagged(void)
{
    const char *names[] = {"VDD_IN"};
    pp_results_layout l;
    pp_results_row row = {0};
    pp_trace t;
    char buf[2048], out_dir[600], file[700], *out = NULL, *err = NULL;
    double v = 1, w = 2, mean;

    memset(&l, 0, sizeof l);
    l.n_params = 1;
    strcpy(l.param_names[0], "p");
    l.n_rails = 1;
    strcpy(l.rail_names[0], "VDD_IN");
    l.rail_in_total[0] = 1;
    row.values = &v;
    row.status = "ok";
    pp_results_header(&l, buf, sizeof buf);
    CHECK_CONTAINS(buf, ",samples,short_run,");
    CHECK_INT(pp_trace_init(&t, 1, names), 0);
    for (int i = 0; i < 3; i++)
        pp_trace_append(&t, 0.1 * i, &w);
    row.duration_s = 0.2;
    pp_results_format_row(&l, &row, &t, NULL, buf, sizeof buf, &mean);
    CHECK_CONTAINS(buf, ",3,1,"); /* 3 samples: short */
    for (int i = 3; i < 12; i++)
        pp_trace_append(&t, 0.1 * i, &w);
    row.duration_s = 1.1;
    pp_results_format_row(&l, &row, &t, NULL, buf, sizeof buf, &mean);
    CHECK_CONTAINS(buf, ",12,0,");
    row.duration_s = 0.3; /* 12 samples, but a run of 3 periods */
    pp_results_format_row(&l, &row, &t, NULL, buf, sizeof buf, &mean);
    CHECK_CONTAINS(buf, ",12,1,");
    pp_trace_free(&t);
    /* import warns and flags; model says how short runs are counted */
    snprintf(out_dir, sizeof out_dir, "%s/short", test_tmpdir());
    snprintf(file, sizeof file, "%s/m_1.csv", test_tmpdir());
    write_file(file, "100,101,102\n2,1,1\n3,1,1\n");
    {
        char f2[700];
        snprintf(f2, sizeof f2, "%s/m_2.csv", test_tmpdir());
        write_file(f2, "100,101,102\n4,1,1\n4,1,1\n4,1,1\n4,1,1\n4,1,1\n4,1,1\n");
        CHECK_INT(run_powprof(&out, &err, "import", "powprofiler", file, f2, "--pattern", "m_{p}.csv",
                              "-o", out_dir, NULL), 0);
    }
    CHECK_CONTAINS(err, "m_1.csv: a short run (2 samples)");
    CHECK(strstr(err, "m_2.csv") == NULL);
    free(out);
    free(err);
    snprintf(file, sizeof file, "%s/summary.csv", out_dir);
    out = slurp(file);
    CHECK_CONTAINS(out, ",2,1,"); /* samples 2, short */
    CHECK_CONTAINS(out, ",6,0,");
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "model", out_dir, NULL), 0);
    CHECK_CONTAINS(out, "1 short run (fewer than 5 samples");
    CHECK_CONTAINS(out, "weighted down in the fit");
    free(out);
}

/* The workload's CPU is a metric of a configuration; the whole machine's
 * CPU at the time (other programs' load) is not. */
void test_summary_machine_cpu_not_a_metric(void);
void test_summary_machine_cpu_not_a_metric(void)
{
    char dir[512], path[600];
    pp_summary s;

    snprintf(dir, sizeof dir, "%s/res", test_tmpdir());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    write_file(path, "id,p,status,duration_s,total_mean_w,reason,cpu_s,cpu_share,machine_cpu_share\n"
                     "0,1,ok,1,2,,0.5,0.5,1.9\n"
                     "1,2,ok,1,3,,0.9,0.9,1.2\n");
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK(pp_summary_metric(&s, "cpu_share") >= 0);
    CHECK(pp_summary_metric(&s, "total_mean_w") >= 0);
    CHECK_INT(pp_summary_metric(&s, "machine_cpu_share"), -1);
    pp_summary_free(&s);
}

/* Every metric column summary.csv has is described (model's table prints
 * the words; cpu_s and cpu_share once printed none): the header written
 * for a layout with two paced components and a rail, each column that is
 * not an id, a parameter, a count or a label given words. */
void test_results_every_metric_described(void);
void test_results_every_metric_described(void)
{
    static const char *const not_metrics[] = {"id", "det.fps", "status", "iterations",
                                              "late_frames", "det.iterations", "det.late_frames",
                                              "mm.iterations", "mm.late_frames", "samples",
                                              "short_run", "reason", "node", "repeat"};
    pp_results_layout l;
    char header[4096], what[128], *save = NULL;
    size_t described = 0;

    memset(&l, 0, sizeof l);
    l.n_params = 1;
    strcpy(l.param_names[0], "det.fps");
    l.n_components = 2;
    strcpy(l.component_names[0], "det");
    strcpy(l.component_names[1], "mm");
    l.component_pacing[0] = PP_PACING_FPS;
    l.component_pacing[1] = PP_PACING_SLEEP;
    l.n_rails = 1;
    strcpy(l.rail_names[0], "cpu");
    pp_results_header(&l, header, sizeof header);
    header[strcspn(header, "\n")] = '\0';
    for (char *col = strtok_r(header, ",", &save); col; col = strtok_r(NULL, ",", &save)) {
        int metric = 1;
        for (size_t i = 0; i < sizeof not_metrics / sizeof not_metrics[0]; i++)
            metric &= strcmp(col, not_metrics[i]) != 0;
        if (!metric)
            continue;
        pp_results_describe(col, what, sizeof what);
        if (!what[0])
            pp_test_fail(__FILE__, __LINE__, "column %s has no description", col);
        described++;
    }
    CHECK(described >= 14); /* rates 2, rail 2, totals 2, per iteration, soc 2, cutoff,
                               duration, cpu 3 */
    pp_results_describe("cpu_share", what, sizeof what);
    CHECK_STR(what, "workload CPU [cores]");
    pp_results_describe("gpu_mean_w", what, sizeof what);
    CHECK_STR(what, "gpu mean power [W]");
}

/* Issue 22, item 9: model advises --method auto only when it is not the
 * method in use. */
void test_model_advice_not_auto_when_auto(void);
void test_model_advice_not_auto_when_auto(void)
{
    const char *dir = results_folder_with("two", "id,a.x,status,duration_s,total_mean_w,reason\n"
                                          "0,1,ok,1,10,\n1,2,ok,1,12,\n", NULL);
    char *out = NULL;

    CHECK_INT(run_powprof(&out, NULL, "model", dir, NULL), 0);
    CHECK_CONTAINS(out, "too few: fewer configurations");
    CHECK(out && !strstr(out, "try --method auto"));
    free(out);
    CHECK_INT(run_powprof(&out, NULL, "model", dir, "--method", "nw", NULL), 0);
    CHECK_CONTAINS(out, "try --method auto");
    free(out);
}

/* Issue 22, item 1: `model` warns when a folder holds more rows than its
 * configurations, repeats and nodes explain (rows of two profiles). */
void test_model_warns_mixed_rows(void);
void test_model_warns_mixed_rows(void)
{
    char path[600], *text, *out = NULL, *err = NULL, *last, *mixed;

    write_exec_profile("level = [0, 1, 2];");
    CHECK_INT(run_powprof(NULL, NULL, "profile", g_cfg, "-o", g_out, NULL), 0);
    CHECK_INT(run_powprof(&out, &err, "model", g_out, NULL), 0);
    CHECK(err && !strstr(err, "rows for"));
    free(out);
    free(err);
    /* what a resume of another grid left: a row of level 2 numbered 3 */
    snprintf(path, sizeof path, "%s/summary.csv", g_out);
    text = slurp(path);
    CHECK(text != NULL);
    if (!text)
        return;
    last = strstr(text, "\n2,2,");
    CHECK(last != NULL);
    mixed = malloc(strlen(text) * 2 + 8);
    sprintf(mixed, "%s3%s", text, last ? last + 2 : "");
    write_file(path, mixed);
    CHECK_INT(run_powprof(&out, &err, "model", g_out, NULL), 0);
    CHECK_CONTAINS(err, "holds 4 rows for 3 configurations");
    free(out);
    free(err);
    free(mixed);
    free(text);
}

/* Item 7: every number of model.json range-checked, with the file and the
 * key, before a prediction or a plan uses it. */
void test_model_json_checked(void);
void test_model_json_checked(void)
{
    const char *res = tmp_path("res");
    char path[700], *text, *at, *err = NULL;

    tiny_profile_and_model(res);
    snprintf(path, sizeof path, "%s/model.json", res);
    text = slurp(path);
    CHECK(text != NULL);
    at = text ? strstr(text, "\"q\":") : NULL;
    CHECK(at != NULL);
    if (!at)
        return;
    memcpy(at, "\"q\":-5", 6); /* the first metric's band, negative */
    for (char *c = at + 6; *c && *c != ',' && *c != '\n' && *c != '}'; c++)
        *c = ' ';
    write_file(path, text);
    free(text);
    CHECK_INT(pp(NULL, &err, "predict", res, "w.a=2", "w.b=1", NULL), 2);
    CHECK_CONTAINS(err, "model.json: groups[0]");
    CHECK_CONTAINS(err, "band.q -5 is out of range");
    free(err);
    CHECK_INT(pp(NULL, &err, "plan", res, "--mission-s", "600", NULL), 2);
    CHECK_CONTAINS(err, "band.q -5 is out of range");
    free(err);
    CHECK_INT(pp(NULL, NULL, "model", res, NULL), 0); /* built again: usable */
    CHECK_INT(pp(NULL, NULL, "predict", res, "w.a=2", "w.b=1", NULL), 0);
}
