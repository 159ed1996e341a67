/* Plots through the command line: every plot renders without a word from
 * gnuplot (on the TX2 imports and on a folder made to have a constant
 * axis, a one-sample trace and a gap), layer 2 per rail and the plan's
 * state of charge have the data they say, and `run --json` combines every
 * step and forwards the profile's failure options. */
#include "harness.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int have_gnuplot(void)
{
    static int have = -1;
    char *argv[] = {"sh", "-c", "command -v gnuplot", NULL};

    if (have < 0)
        have = run_argv(argv, NULL, NULL) == 0;
    return have;
}

/* A PNG file of a plausible size for a 1000 x 680 plot. */
static int png_ok(const char *path)
{
    unsigned char sig[8] = {0};
    FILE *fp = fopen(path, "rb");
    long size;

    if (!fp)
        return 0;
    if (fread(sig, 1, 8, fp) != 8 || memcmp(sig, "\x89PNG\r\n\x1a\n", 8) != 0) {
        fclose(fp);
        return 0;
    }
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    fclose(fp);
    return size > 15000 && size < 3000000;
}

/* `powprof plot ARGS --json` on dir: the parsed object (NULL on failure);
 * every script rendered, each image a PNG, gnuplot silent, nothing on
 * stderr. Returns the count of scripts in *n. */
static json_t *plot_clean(const char *dir, const char *plan, const char *config, size_t *n)
{
    char *out = NULL, *err = NULL;
    json_t *root, *scripts, *sc;
    size_t i;

    if (plan)
        CHECK_INT(run_powprof(&out, &err, "plot", dir, "--plan", plan, "-c", config, "--json", NULL), 0);
    else
        CHECK_INT(run_powprof(&out, &err, "plot", dir, "--json", NULL), 0);
    CHECK_STR(err, ""); /* nothing of gnuplot's (or powprof's) on the terminal */
    root = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(root != NULL);
    free(out);
    free(err);
    if (!root)
        return NULL;
    scripts = json_object_get(root, "scripts");
    *n = json_array_size(scripts);
    CHECK(*n > 0);
    CHECK_INT(json_integer_value(json_object_get(root, "failed")), 0);
    CHECK_INT(json_integer_value(json_object_get(root, "warned")), 0);
    if (!have_gnuplot()) {
        fprintf(stderr, "    (gnuplot not installed: scripts and data only)\n");
        return root;
    }
    CHECK_INT(json_integer_value(json_object_get(root, "rendered")), (long long)*n);
    json_array_foreach(scripts, i, sc) {
        const char *name = json_string_value(json_object_get(sc, "name"));
        json_t *images = json_object_get(sc, "images");
        if (!json_is_true(json_object_get(sc, "rendered")) || json_array_size(images) != 1 ||
            !png_ok(json_string_value(json_array_get(images, 0))))
            pp_test_fail(__FILE__, __LINE__, "%s: not rendered, or not a PNG of a plausible size",
                         name ? name : "?");
        CHECK(json_is_null(json_object_get(sc, "warnings")));
        CHECK(json_is_null(json_object_get(sc, "error")));
    }
    return root;
}

static int has_script(json_t *root, const char *name)
{
    size_t i;
    json_t *sc;

    json_array_foreach(json_object_get(root, "scripts"), i, sc)
        if (strcmp(json_string_value(json_object_get(sc, "name")), name) == 0)
            return 1;
    return 0;
}

/* The rows of block `index` (gnuplot's: blocks separated by two blank
 * lines) of a data file, up to cap rows of up to 8 numbers; returns the
 * row count, the columns of the first row in *cols. */
static size_t block(const char *path, int index, double rows[][8], size_t cap, int *cols)
{
    char *text = slurp(path);
    size_t n = 0;
    int at = 0, blank = 0;

    *cols = 0;
    if (!text)
        return 0;
    for (char *p = text, *line; (line = strsep(&p, "\n"));) {
        if (!line[0]) {
            if (++blank == 2)
                at++;
            continue;
        }
        blank = 0;
        if (line[0] == '#' || at != index || n == cap)
            continue;
        int c = 0;
        for (char *f = line, *end; c < 8; f = end, c++) {
            rows[n][c] = strtod(f, &end);
            if (end == f)
                break;
        }
        if (n == 0)
            *cols = c;
        n++;
    }
    free(text);
    return n;
}

static const char *import_tx2(const char *name, char *const *files)
{
    static char dir[3][512];
    static int k;
    char *argv[64] = {"import", "powprofiler"};
    int n = 2;
    char *out = NULL, *err = NULL, *dst = dir[k++ % 3];

    snprintf(dst, 512, "%s/%s", test_tmpdir(), name);
    for (; *files; files++)
        argv[n++] = *files;
    argv[n++] = "-o";
    argv[n++] = dst;
    argv[n] = NULL;
    {
        char *full[68] = {getenv("POWPROF_BIN")};
        for (int i = 0; i <= n; i++)
            full[i + 1] = argv[i];
        CHECK_INT(run_argv(full, &out, &err), 0);
    }
    free(out);
    free(err);
    return dst;
}

/* The TX2 darknet traces whose names give their rate: 10, 25, 32 fps. */
static const char *import_darknet(const char *name)
{
    char *files[] = {"data/tx2/darknet/1layer_yolo-10fps.csv", "data/tx2/darknet/1layer_yolo-25fps.csv",
                     "data/tx2/darknet/1layer_yolo-32fps.csv", "--pattern", "1layer_yolo-{fps}fps.csv",
                     NULL};
    return import_tx2(name, files);
}

/* The TX2 matrix exponentiation (two parameters): surfaces of the total
 * and of each rail whose data hold the measured configurations with the
 * band of the prediction at each, and every plot renders in silence. */
void test_plot_tx2_matrix_surfaces(void);
void test_plot_tx2_matrix_surfaces(void)
{
    char *files[32];
    char names[25][160], path[800];
    static double rows[2000][8];
    const char *dir;
    size_t n = 0, k = 0;
    int cols;
    json_t *root;
    static const char *const sizes[] = {"256", "512", "1024", "2048", "4096"};

    for (size_t s = 0; s < 5; s++)
        for (int e = 20; e <= 60; e += 10, k++) {
            snprintf(names[k], sizeof names[k],
                     "data/tx2/matrix-exponentiation/matrix-exponentiation_%s-%d_1layer.csv", sizes[s], e);
            files[k] = names[k];
        }
    files[k++] = "--pattern";
    files[k++] = "matrix-exponentiation_{size}-{exponent}_1layer.csv";
    files[k] = NULL;
    dir = import_tx2("mx", files);
    root = plot_clean(dir, NULL, NULL, &n);
    if (!root)
        return;
    CHECK(has_script(root, "layer1-total"));
    CHECK(has_script(root, "trace-0"));
    CHECK(has_script(root, "layer2-soc_drain-size-exponent"));
    CHECK(has_script(root, "layer2-VDD_SYS_CPU_mean_w-size-exponent"));
    CHECK(!has_script(root, "layer2-VDD_IN_mean_w-size-exponent")); /* it is the total */
    json_decref(root);
    snprintf(path, sizeof path, "%s/plots/layer2-VDD_SYS_GPU_mean_w-size-exponent.dat", dir);
    CHECK_INT(block(path, 0, rows, 2000, &cols), 41 * 41);
    CHECK_INT(cols, 5);
    for (size_t i = 0; i < 41 * 41; i++)
        if (!(rows[i][3] <= rows[i][2] && rows[i][2] <= rows[i][4] && rows[i][0] >= 256 &&
              rows[i][0] <= 4096 && rows[i][1] >= 20 && rows[i][1] <= 60)) {
            pp_test_fail(__FILE__, __LINE__, "grid row %zu out of order or range", i);
            break;
        }
    CHECK_INT(block(path, 1, rows, 2000, &cols), 25); /* every configuration: no other parameter */
    CHECK_INT(cols, 6);
    for (size_t i = 0; i < 25; i++) /* size 1024, exponent 20: 2.899930 W on the GPU rail */
        if (rows[i][0] == 1024 && rows[i][1] == 20)
            CHECK_NEAR(rows[i][2], 2.89993, 1e-5);
}

/* TX2 darknet at 10, 25 and 32 fps (one parameter): the total with the
 * state of charge, every rail beside it (CPU, GPU; VDD_IN is the total),
 * each curve with its band and its measured points. */
void test_plot_tx2_darknet_rails(void);
void test_plot_tx2_darknet_rails(void)
{
    const char *dir = import_darknet("dk");
    static double rows[400][8];
    char path[800], *text;
    size_t n;
    int cols;
    json_t *root = plot_clean(dir, NULL, NULL, &n);

    if (!root)
        return;
    CHECK(has_script(root, "layer2-total_mean_w"));
    CHECK(has_script(root, "layer2-rails_mean_w"));
    CHECK(has_script(root, "layer2-rails_energy_j"));
    json_decref(root);
    snprintf(path, sizeof path, "%s/plots/layer2-rails_mean_w.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "title 'total'");
    CHECK_CONTAINS(text, "title 'VDD_SYS_CPU'");
    CHECK_CONTAINS(text, "title 'VDD_SYS_GPU'");
    CHECK(!strstr(text ? text : "", "title 'VDD_IN'"));
    free(text);
    snprintf(path, sizeof path, "%s/plots/layer2-rails_mean_w.dat", dir);
    for (int c = 0; c < 3; c++) { /* total, CPU, GPU: a line and its measured points */
        CHECK_INT(block(path, 2 * c, rows, 400, &cols), 200);
        CHECK_INT(cols, 4);
        CHECK_NEAR(rows[0][0], 10, 1e-9);
        CHECK_NEAR(rows[199][0], 32, 1e-9);
        for (size_t i = 0; i < 200; i++)
            if (!(rows[i][2] <= rows[i][1] && rows[i][1] <= rows[i][3]))
                pp_test_fail(__FILE__, __LINE__, "curve %d row %zu: not lo <= value <= hi", c, i);
        CHECK_INT(block(path, 2 * c + 1, rows, 400, &cols), 3);
    }
    /* the 32 fps trace averages 8.76 W (data/tx2/README.md) on the total */
    block(path, 1, rows, 400, &cols);
    for (size_t i = 0; i < 3; i++)
        if (rows[i][0] == 32)
            CHECK_NEAR(rows[i][1], 8.76, 0.01);
    snprintf(path, sizeof path, "%s/plots/layer2-total_mean_w.dat", dir);
    CHECK_INT(block(path, 2, rows, 400, &cols), 200); /* the state of charge after one run */
    CHECK(rows[0][1] > rows[199][1] && rows[0][1] < 100 && rows[199][1] > 99);
}

/* A results folder name under the test's scratch folder (its path in dir),
 * with traces/, and its summary.csv open for writing. */
static FILE *results_folder(const char *name, char *dir, size_t cap)
{
    char path[700];

    snprintf(dir, cap, "%s/%s", test_tmpdir(), name);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/traces", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    return fopen(path, "w");
}

/* What gnuplot warns about when left to itself: a constant axis (every
 * configuration the same power), a trace of one sample (an empty x range),
 * a gap row. None of it may reach the terminal, and none of it may make
 * gnuplot warn. */
void test_plot_constant_axes_silent(void);
void test_plot_constant_axes_silent(void)
{
    char dir[512], path[700];
    size_t n;
    json_t *root;
    FILE *fp;

    fp = results_folder("flat", dir, sizeof dir);
    fprintf(fp, "id,a,b,status,duration_s,iterations,late_frames,CPU_mean_w,CPU_energy_j,GPU_mean_w,"
                "GPU_energy_j,total_mean_w,total_energy_j,soc_end,soc_drain,reason\n");
    for (int i = 0; i < 6; i++)
        fprintf(fp, "%d,%d,%d,ok,1,1,0,2,2,0,0,2,2,0.999,0.001,\n", i, 1 + i % 3, 5 * (i / 3));
    fclose(fp);
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/traces/%d.csv", dir, i);
        write_file(path, i == 0 ? "t_s,CPU_w,GPU_w\n0.1,2,0\n"
                                : "t_s,CPU_w,GPU_w\n0.1,2,0\n0.2,,\n0.3,2,0\n0.4,2,0\n");
    }
    root = plot_clean(dir, NULL, NULL, &n);
    if (root) {
        CHECK(has_script(root, "trace-0"));
        CHECK(has_script(root, "layer2-total_mean_w-a-b"));
        CHECK(has_script(root, "layer2-GPU_mean_w-a-b")); /* 0 W everywhere: still a range */
    }
    json_decref(root);
}

/* The plan's state of charge: TX2 darknet, a mission long enough that the
 * schedule steps down from 32 fps. The curves end where the plan says,
 * the schedule's power is its steps', and a plan made with another battery
 * is refused. */
void test_plot_plan_soc(void);
void test_plot_plan_soc(void)
{
    const char *dir = import_darknet("plan");
    char plan_path[700], cfg[700], big[700], path[800], *out = NULL, *err = NULL;
    static double rows[400][8];
    json_t *plan, *root, *steps;
    size_t n;
    int cols;

    snprintf(plan_path, sizeof plan_path, "%s/plan.json", test_tmpdir());
    snprintf(cfg, sizeof cfg, "%s/battery.cfg", test_tmpdir());
    snprintf(big, sizeof big, "%s/big.cfg", test_tmpdir());
    write_file(cfg, "battery = { preset = \"drone-4s-3200\"; };\n");
    write_file(big, "battery = { preset = \"drone-6s-10000\"; };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "4000", "--base-power-w", "25", "-c",
                          cfg, "--schedule", "--json", NULL), 0);
    write_file(plan_path, out ? out : "");
    plan = out ? json_loads(out, 0, NULL) : NULL;
    free(out);
    CHECK(plan != NULL);
    if (!plan)
        return;
    steps = json_object_get(plan, "schedule");
    CHECK(json_array_size(steps) >= 2);
    root = plot_clean(dir, plan_path, cfg, &n);
    CHECK(root && has_script(root, "plan-soc"));
    json_decref(root);
    snprintf(path, sizeof path, "%s/plots/plan-soc.dat", dir);
    CHECK_INT(block(path, 0, rows, 400, &cols), 241);
    CHECK_INT(cols, 8);
    CHECK_NEAR(rows[0][0], 0, 1e-9);
    CHECK_NEAR(rows[240][0], 1.2 * 4000 / 60.0, 1e-6); /* minutes, a fifth past the end */
    CHECK_NEAR(rows[0][3], 100, 1e-6);
    /* at the end of the mission (row 200): the plan's own figures */
    CHECK_NEAR(rows[200][3], 100 * json_real_value(json_object_get(plan, "best_soc_end")), 0.2);
    CHECK_NEAR(rows[200][5], 100 * json_real_value(json_object_get(plan, "schedule_soc_end")), 0.2);
    CHECK(rows[200][1] >= rows[200][2] && rows[200][2] >= rows[200][4]); /* lo power keeps the most */
    CHECK_NEAR(rows[0][6], json_real_value(json_object_get(json_array_get(steps, 0), "planned_w")), 1e-6);
    CHECK_NEAR(rows[199][6],
               json_real_value(json_object_get(json_array_get(steps, json_array_size(steps) - 1),
                                               "planned_w")), 1e-6);
    CHECK(block(path, 1, rows, 400, &cols) >= 1); /* the switches labelled, the last one always */
    json_decref(plan);
    /* the same plan with a 10 Ah pack: its figures are not this battery's */
    CHECK_INT(run_powprof(NULL, &err, "plot", dir, "--plan", plan_path, "-c", big, NULL), 2);
    CHECK_CONTAINS(err, "give the battery the plan was made with");
    free(err);
    write_file(plan_path, "{\"feasible\": true,\n \"mission_s\": }\n");
    CHECK_INT(run_powprof(NULL, &err, "plot", dir, "--plan", plan_path, NULL), 2);
    CHECK_CONTAINS(err, "plan.json:2:");
    free(err);
}

/* A profile on the fake Jetson tree through `run`: exec `test {n} -gt 3`
 * fails for n = 1, 2, 3 with the same reason. */
static const char *run_cfg(const char *mission)
{
    static char cfg[600];
    char text[2048];

    snprintf(cfg, sizeof cfg, "%s/run.cfg", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"r\"; device = \"jetson\"; rate_hz = 20.0; sysfs_root = \"%s\"; };\n"
             "%s\ncomponents = ( { name = \"w\"; type = \"exec\"; command = [ \"test\", \"{n}\", "
             "\"-gt\", \"3\" ]; params = { n = [ 1, 2, 3, 4, 5 ]; }; duration_s = 0.2; } );\n",
             fixture("jetson-tx2-iio"), mission);
    write_file(cfg, text);
    return cfg;
}

static json_t *run_json(int status, ...)
{
    char *argv[16] = {getenv("POWPROF_BIN"), "run"}, *out = NULL, *err = NULL;
    int n = 2;
    va_list ap;
    json_t *root;

    va_start(ap, status);
    for (char *a; n < 14 && (a = va_arg(ap, char *));)
        argv[n++] = a;
    va_end(ap);
    argv[n++] = "--json";
    argv[n] = NULL;
    CHECK_INT(run_argv(argv, &out, &err), status);
    root = out ? json_loads(out, 0, NULL) : NULL;
    if (!root)
        pp_test_fail(__FILE__, __LINE__, "run --json printed no JSON object:\n%s\n%s", out ? out : "",
                     err ? err : "");
    free(out);
    free(err);
    return root;
}

/* run --json: one object with the profile's outcome, the model's summary,
 * the plots, the plan and the files; run forwards --keep-going,
 * --max-failures and --retry-failed to the profile. */
void test_cli_run_json(void);
void test_cli_run_json(void)
{
    const char *cfg = run_cfg("mission = { duration_s = 600.0; base_power_w = 100.0; maximize = \"w.n\"; };");
    char out_dir[600], plan[700];
    json_t *root, *o;

    snprintf(out_dir, sizeof out_dir, "%s/out", test_tmpdir());
    /* the default: three identical failures stop the sweep (exit 4) */
    root = run_json(4, (char *)cfg, "-o", out_dir, NULL);
    o = json_object_get(root, "profile");
    CHECK(json_is_true(json_object_get(o, "stopped")));
    CHECK_INT(json_integer_value(json_object_get(o, "ran")), 3);
    CHECK_INT(json_integer_value(json_object_get(root, "exit_status")), 4);
    CHECK(json_is_null(json_object_get(root, "plan")));
    json_decref(root);
    /* --max-failures forwarded: 0 is refused by the profile */
    root = run_json(2, (char *)cfg, "-o", out_dir, "--resume", "--max-failures", "0", NULL);
    json_decref(root);
    /* --retry-failed and --keep-going: every configuration runs, the two
     * that pass are modelled, planned and plotted */
    root = run_json(0, (char *)cfg, "-o", out_dir, "--retry-failed", "--keep-going", NULL);
    o = json_object_get(root, "profile");
    CHECK_INT(json_integer_value(json_object_get(o, "ran")), 5);
    CHECK_INT(json_integer_value(json_object_get(o, "ok")), 2);
    CHECK_INT(json_integer_value(json_object_get(o, "failed")), 3);
    o = json_object_get(root, "model");
    CHECK(json_array_size(json_object_get(json_array_get(json_object_get(o, "groups"), 0), "metrics")) > 5);
    o = json_object_get(root, "plan");
    CHECK(json_is_true(json_object_get(o, "feasible")));
    CHECK_STR(json_string_value(json_object_get(o, "maximize")), "w.n");
    snprintf(plan, sizeof plan, "%s/plan.json", out_dir);
    CHECK_STR(json_string_value(json_object_get(json_object_get(root, "files"), "plan")), plan);
    CHECK(access(plan, R_OK) == 0);
    o = json_object_get(root, "plots");
    CHECK_INT(json_integer_value(json_object_get(o, "failed")), 0);
    CHECK_INT(json_integer_value(json_object_get(o, "warned")), 0);
    {
        size_t i;
        json_t *sc;
        int plan_soc = 0;
        json_array_foreach(json_object_get(o, "scripts"), i, sc)
            plan_soc |= strcmp(json_string_value(json_object_get(sc, "name")), "plan-soc") == 0;
        CHECK(plan_soc);
    }
    json_decref(root);
}

/* A categorical parameter beside one numeric: a curve per label in the
 * same plot, named by its label. */
void test_plot_categorical_curves(void);
void test_plot_categorical_curves(void)
{
    char dir[512], path[700], *text;
    static double rows[400][8];
    size_t n;
    int cols;
    json_t *root;
    FILE *fp;

    fp = results_folder("nets", dir, sizeof dir);
    fprintf(fp, "id,net,fps,status,duration_s,iterations,late_frames,total_mean_w,total_energy_j,reason\n");
    for (int i = 0; i < 8; i++)
        fprintf(fp, "%d,%s,%d,ok,10,10,0,%g,%g,\n", i, i < 4 ? "yolov3-tiny" : "yolov2-tiny", 1 + i % 4,
                (i < 4 ? 1.5 : 1.0) + 0.3 * (i % 4), 10 * ((i < 4 ? 1.5 : 1.0) + 0.3 * (i % 4)));
    fclose(fp);
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof path, "%s/traces/%d.csv", dir, i);
        write_file(path, "t_s,total_rail_w\n0.5,1\n1,1.2\n");
    }
    root = plot_clean(dir, NULL, NULL, &n);
    json_decref(root);
    snprintf(path, sizeof path, "%s/plots/layer2-total_mean_w.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "title 'net=yolov3-tiny'");
    CHECK_CONTAINS(text, "title 'net=yolov2-tiny'");
    free(text);
    snprintf(path, sizeof path, "%s/plots/layer2-total_mean_w.dat", dir);
    CHECK_INT(block(path, 1, rows, 400, &cols), 4); /* yolov3-tiny's measured points */
    CHECK_NEAR(rows[3][1], 2.4, 1e-9);
    CHECK_INT(block(path, 3, rows, 400, &cols), 4); /* yolov2-tiny's */
    CHECK_NEAR(rows[0][1], 1.0, 1e-9);
    CHECK_INT(block(path, 2, rows, 400, &cols), 200);
    CHECK_NEAR(rows[0][1], 1.0, 0.05); /* yolov2-tiny's line starts at its first point */
}

/* Issue 45, defect 4: the heat maps named no parameter held (the 3-D plot did) and
 * their title ran into the frame; the plan per phase cut "takeoff-tran". */
void test_plot_map_held_and_phase_names(void);
void test_plot_map_held_and_phase_names(void)
{
    char summary[4096], path[700], mission[700], *text, *out = NULL;
    size_t len = 0;
    int id = 0;
    const char *dir;

    len += (size_t)snprintf(summary, sizeof summary, "id,m.size,m.exp,m.k,status,duration_s,"
                                                     "total_mean_w,total_energy_j,reason\n");
    for (int a = 64; a <= 512; a *= 2)
        for (int b = 1; b <= 8; b *= 2)
            for (int k = 1; k <= 3; k++) {
                double w = 2 + 0.001 * a * sqrt(b) + 0.1 * k;
                len += (size_t)snprintf(summary + len, sizeof summary - len,
                                        "%d,%d,%d,%d,ok,10,%.4f,%.4f,\n", id++, a, b, k, w, 10 * w);
            }
    dir = results_folder_with("held45", summary, NULL);
    CHECK_INT(run_powprof(NULL, NULL, "plot", dir, "--metric", "total_mean_w", NULL), 0);
    snprintf(path, sizeof path, "%s/plots/layer2-total_mean_w-m.size-m.exp-map.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "'at m.k=2 (held near the middle of its range); dots: the measured");
    CHECK_CONTAINS(text, "set tmargin at screen 0.91");
    CHECK(text && !strstr(text, "set title"));
    free(text);
    snprintf(mission, sizeof mission, "%s/m45.cfg", test_tmpdir());
    write_file(mission, "mission = { maximize = \"m.size\"; phases = (\n"
                        " { name = \"takeoff-transition\"; duration = \"2min\"; base_power_w = 5.0; },\n"
                        " { name = \"b\"; duration = \"3min\"; base_power_w = 5.0; }\n); };\n");
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", mission, NULL), 0);
    CHECK_CONTAINS(out, "\ntakeoff-transition ");
    free(out);
}

/* Issue 45, defect 4: the keys of battery-fit.png and governor.png lay over the
 * lines; beside (below) the panels now, the time axes end with the data. */
void test_plot_keys_beside_the_data(void);
void test_plot_keys_beside_the_data(void)
{
    char plot[700], path[800], mission[700], *text;
    const char *dir = tx2_darknet();

    snprintf(plot, sizeof plot, "%s/fit", test_tmpdir());
    CHECK_INT(run_powprof(NULL, NULL, "battery", "fit", fixture("ulog/sample_log_small.ulg"),
                          "--plot", plot, NULL), 0);
    snprintf(path, sizeof path, "%s/battery-fit.gp", plot);
    text = slurp(path);
    CHECK_CONTAINS(text, "set key below horizontal\nset autoscale xfix\n");
    CHECK(text && !strstr(text, "set key top right"));
    free(text);
    snprintf(mission, sizeof mission, "%s/mission-tx2.cfg", fixture_copy("governor"));
    snprintf(plot, sizeof plot, "%s/sim", test_tmpdir());
    run_powprof(NULL, NULL, "govern", dir, "--mission", mission, "--simulate", "planned",
                "--plot", plot, NULL);
    snprintf(path, sizeof path, "%s/governor.gp", plot);
    text = slurp(path);
    CHECK_CONTAINS(text, "set key outside right top vertical Left reverse\nset autoscale xfix\n");
    free(text);
}

/* Issue 45, defect 4: `battery LOG` had no --plot (only `battery fit` had): the
 * voltage, current and charge left over time, logged beside modelled, per
 * battery instance (the bench log has two); a trace's run refuses it. */
void test_plot_battery_flight(void);
void test_plot_battery_flight(void)
{
    char dir[700], path[800], *text, *err = NULL;
    size_t blocks = 0;

    snprintf(dir, sizeof dir, "%s/flight", test_tmpdir());
    CHECK_INT(run_powprof(NULL, &err, "battery", fixture("ulog/sample_log_small.ulg"), "--plot",
                          dir, NULL), 0);
    CHECK_CONTAINS(err, "powprof battery: plot ");
    free(err);
    snprintf(path, sizeof path, "%s/battery-flight.dat", dir);
    text = slurp(path);
    for (const char *c = text; c && (c = strstr(c, "\n\n\n")); c += 3)
        blocks++;
    CHECK_INT(blocks, 2);
    CHECK(text && !strstr(text, " nan nan nan")); /* the model at every sample */
    free(text);
    snprintf(path, sizeof path, "%s/battery-flight.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "set title 'battery 1: terminal voltage'");
    CHECK_CONTAINS(text, "using 1:7 with lines lt 1 title 'modelled (state of charge)'");
    CHECK_CONTAINS(text, "set key below horizontal");
    free(text);
    err = NULL;
    snprintf(path, sizeof path, "%s/t.csv", test_tmpdir());
    write_file(path, "t_s,a_w\n0,5\n1,5\n");
    CHECK_INT(run_powprof(NULL, &err, "battery", path, "--plot", dir, NULL), 2);
    CHECK_CONTAINS(err, "--plot draws a flight log beside the model");
    free(err);
}

/* Issue 45, defect 2, the plots: the surface drawn for time to cutoff is the one
 * predict gives (through the battery), not a surface of its own: its grid
 * at 10 fps (its first point) holds predict's value there. */
void test_plot_cutoff_through_battery(void);
void test_plot_cutoff_through_battery(void)
{
    const char *dir = tx2_darknet();
    char path[1200], *out = NULL, *text;
    double t, lo, hi;
    const char *at;

    CHECK_INT(run_powprof(&out, NULL, "predict", dir, "fps=10", "--json", NULL), 0);
    CHECK(predicted_band(out, "time_to_cutoff_s", &t, &lo, &hi));
    free(out);
    CHECK_INT(run_powprof(NULL, NULL, "plot", dir, "--metric", "time_to_cutoff_s", NULL), 0);
    snprintf(path, sizeof path, "%s/plots/layer2-time_to_cutoff_s.dat", dir);
    text = slurp(path);
    at = text ? strstr(text, "\n10 ") : NULL;
    CHECK(at != NULL);
    if (at) {
        char *end;
        CHECK_NEAR(strtod(at + 4, &end), t, 1e-6 * t);
        CHECK_NEAR(strtod(end, &end), lo, 1e-6 * t);
        CHECK_NEAR(strtod(end, NULL), hi, 1e-6 * t);
    }
    free(text);
}

/* A results folder (name) of 16 configurations over two parameters, m.size
 * 64 .. 512 and m.exp 1 .. 8 (doubling), whose power grows with both. */
static const char *surface_results(const char *name)
{
    char summary[4096];
    size_t len = 0;
    int id = 0;

    len += (size_t)snprintf(summary, sizeof summary, "id,m.size,m.exp,status,duration_s,"
                                                     "total_mean_w,total_energy_j,reason\n");
    for (int a = 64; a <= 512; a *= 2)
        for (int b = 1; b <= 8; b *= 2) {
            double w = 2 + 0.001 * a * sqrt(b);
            len += (size_t)snprintf(summary + len, sizeof summary - len,
                                    "%d,%d,%d,ok,10,%.4f,%.4f,\n", id++, a, b, w, 10 * w);
        }
    return results_folder_with(name, summary, NULL);
}

/* Issue 32, item 9: the plots. The plan per phase draws its base load
 * thin and light under the state of charge, the reserve in front, the
 * labels of a phase at an edge from its inner side and above 100 %; the
 * 1-D band's swatch in the curve's colour; the 3-D key away from the y
 * label (top right). */
void test_plot_phases_band_key(void);
void test_plot_phases_band_key(void)
{
    char mission[1024], trace[600], path[700], plan_json[700], *text, *out = NULL;
    const char *dir = surface_results("plots32");
    snprintf(trace, sizeof trace, "%s/short-flight.csv", test_tmpdir());
    write_file(trace, "t_s,motor_w\n0,50\n0.5,70\n1,40\n1.5,80\n2,60\n");
    snprintf(path, sizeof path, "%s/mission32.cfg", test_tmpdir());
    snprintf(mission, sizeof mission,
             "mission = { maximize = \"m.size\"; phases = (\n"
             "  { name = \"takeoff\"; duration = \"30s\"; base_power_w = 30.0; },\n"
             "  { name = \"cruise\"; duration = \"20min\"; base_trace = \"%s\"; },\n"
             "  { name = \"landing\"; duration = \"30s\"; base_power_w = 25.0; }\n); };\n", trace);
    write_file(path, mission);
    snprintf(plan_json, sizeof plan_json, "%s/plan32.json", test_tmpdir());
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission", path, "--json", NULL), 0);
    CHECK(out && write_file(plan_json, out) == 0);
    free(out);
    CHECK_INT(run_powprof(NULL, NULL, "plot", dir, "--plan", plan_json, NULL), 0);
    snprintf(path, sizeof path, "%s/plots/plan-phases.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "lc rgb '#A00000' front\n"); /* the reserve over everything */
    CHECK_CONTAINS(text, "set yrange [0:118]");
    CHECK_CONTAINS(text, "'takeoff' at first ");
    CHECK(text && strstr(strstr(text, "'takeoff' at first "), "graph 0.97 left front"));
    CHECK(text && strstr(strstr(text, "'landing' at first "), "graph 0.97 right front"));
    /* issue 45: the powers in a panel of their own, the computer on its own axis */
    CHECK(text && strstr(text, "using 1:3 with lines lw 1 lc rgb '#4A6A8A'") &&
          strstr(text, "using 1:3 with lines lw 1") < strstr(text, "title 'state of charge'"));
    CHECK_CONTAINS(text, "'' using 1:4 axes x1y2 with steps");
    CHECK_CONTAINS(text, "set y2label 'computer [W]'");
    free(text);
    snprintf(path, sizeof path, "%s/plots/layer2-total_mean_w-m.size-m.exp.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "set key at screen 0.98,0.86 right top");
    free(text);
}

/* Issue 32, item 9: 3-D surfaces are hard to read values from: each gets a
 * heat map with contours beside it; --metric plots one metric alone. */
void test_plot_heatmaps_and_metric(void);
void test_plot_heatmaps_and_metric(void)
{
    char path[700], *text, *out = NULL, *err = NULL;
    const char *dir = surface_results("heat32");
    CHECK_INT(run_powprof(&out, NULL, "plot", dir, "--metric", "total_energy_j", "--json", NULL), 0);
    CHECK_CONTAINS(out, "layer2-total_energy_j-m.size-m.exp-map");
    CHECK(out && !strstr(out, "layer2-total_mean_w"));
    free(out);
    snprintf(path, sizeof path, "%s/plots/layer2-total_energy_j-m.size-m.exp-map.gp", dir);
    text = slurp(path);
    CHECK_CONTAINS(text, "set view map");
    CHECK_CONTAINS(text, "set contour base");
    CHECK_CONTAINS(text, "with labels nosurface");
    CHECK_CONTAINS(text, "'layer2-total_energy_j-m.size-m.exp'.'.dat' index 0");
    free(text);
    CHECK_INT(run_powprof(NULL, &err, "plot", dir, "--metric", "nosuch", NULL), 2);
    CHECK_CONTAINS(err, "--metric nosuch: the results have no such metric");
    free(err);
}
