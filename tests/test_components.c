/* The component registry and its modules, categorical parameters, and the
 * checks a dry run makes. */
#include "harness.h"

#include "components/registry.h"
#include "src/layer2/lapack.h"
#include "src/config/profile.h"
#include "src/sweep/sweep.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pp_profile *load_text(const char *text, int *rc)
{
    char path[512];
    pp_profile *p = malloc(sizeof *p);

    snprintf(path, sizeof path, "%s/p.cfg", test_tmpdir());
    write_file(path, text);
    test_log_clear();
    *rc = pp_profile_load(path, p);
    return p;
}

/* dir/name's text (malloc'd), or NULL. */
static char *read_in(const char *dir, const char *name)
{
    char path[1200];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    return slurp(path);
}

static void expect_error(const char *text, const char *message)
{
    int rc;
    pp_profile *p = load_text(text, &rc);

    CHECK_INT(rc, -EINVAL);
    CHECK_CONTAINS(test_log(), message);
    free(p);
}

void test_profile_categorical_params(void);
void test_profile_categorical_params(void)
{
    int rc;
    char text[64];
    double v[4];
    pp_profile *p = load_text(
        "components = ({ name = \"x\"; type = \"exec\"; command = [\"/bin/echo\", \"{model}\"];\n"
        "  params = { model = [\"yolov3-tiny\", \"yolov2-tiny\", \"v+1/a:b_c.d\"]; n = [1, 2];\n"
        "             mode = \"fast\"; }; });\n", &rc);

    CHECK_INT(rc, 0);
    CHECK_INT(p->components[0].params[0].kind, PP_RANGE_CATEGORICAL);
    CHECK_INT(p->components[0].params[0].n_values, 3);
    CHECK_STR(p->components[0].params[0].labels[2], "v+1/a:b_c.d");
    CHECK_INT(p->components[0].params[2].kind, PP_RANGE_CATEGORICAL); /* one label */
    CHECK_INT(pp_profile_count(p), 6);
    pp_profile_values(p, 3, v); /* model 1, n 2 */
    CHECK_NEAR(v[0], 1, 0);
    CHECK_NEAR(v[1], 2, 0);
    CHECK_STR(pp_profile_label(p, 0, v[0]), "yolov2-tiny");
    CHECK(pp_profile_label(p, 1, v[1]) == NULL);
    pp_profile_value_text(p, 1, v[1], text, sizeof text);
    CHECK_STR(text, "2");
    free(p);
    expect_error("components = ({ type = \"idle\";\n params = { m = (\"a\", 2); }; });\n",
                 "p.cfg:2: idle.params.m: value 2 is not a label");
    expect_error("components = ({ type = \"idle\";\n params = { m = (1, \"a\"); }; });\n",
                 "p.cfg:2: idle.params.m: value 2 is not a number");
    expect_error("components = ({ type = \"idle\";\n params = { m = [\"a,b\"]; }; });\n",
                 "p.cfg:2: idle.params.m: label 'a,b': 1 to 63 letters, digits and _ . - + / : only");
    /* longer than summary.csv's readers take: refused here, not after the sweep */
    expect_error("components = ({ type = \"idle\";\n params = { m = [\"a\", "
                 "\"x234567890123456789012345678901234567890123456789012345678901234\"]; }; });\n",
                 "p.cfg:2: idle.params.m: label 'x234567890123456789012345678901234567890': 1 to "
                 "63 letters");
    expect_error("components = ({ type = \"idle\";\n params = { m = [\"a\", \"a\"]; }; });\n",
                 "label 'a' is given twice");
    expect_error("components = ({ type = \"idle\";\n params = { fps = [\"slow\"]; }; });\n",
                 "p.cfg:2: fps: pacing values must be numbers");
}

/* Each type declares its keys: a key of another type is unknown, choices
 * are checked, a parameter may stand for a string key but not beside it. */
void test_component_keys_per_type(void);
void test_component_keys_per_type(void)
{
    int rc;
    pp_profile *p;

    expect_error("components = ({ type = \"idle\";\n op = \"multiply\"; });\n",
                 "p.cfg:2: op: unknown key (known: name, type, params, until, duration_s");
    expect_error("components = ({ type = \"exec\"; command = [\"true\"];\n cfg = \"x\"; });\n",
                 "cfg: unknown key (known: name, type, params, until, duration_s, iterations, "
                 "fps, sleep_s, timeout_s, command)");
    expect_error("components = ({ type = \"matrix-cpu\";\n op = \"divide\"; });\n",
                 "p.cfg:2: op: 'divide' is not one of its choices");
    expect_error("components = ({ type = \"matrix-cpu\";\n"
                 " params = { size = 64; op = [\"multiply\", \"cube\"]; }; });\n",
                 "p.cfg:2: op: value 2 is not one of its choices");
    expect_error("components = ({ type = \"matrix-cpu\"; op = \"multiply\";\n"
                 " params = { op = [\"multiply\"]; }; });\n",
                 "given both as a setting and as a parameter");
    expect_error("components = ({ type = \"exec\"; command = [\"true\"];\n"
                 " params = { command = [\"a\"]; }; });\n",
                 "command is a setting of exec, not a parameter");
    expect_error("components = ({ type = \"exec\";\n command = [\"echo\", \"{nope}\"]; });\n",
                 "p.cfg:2: command: string 2: {nope} is not a parameter of exec");
    p = load_text("components = ({ type = \"matrix-cpu\";\n"
                  " params = { size = 64; op = [\"multiply\", \"exponentiate\"]; }; });\n", &rc);
    CHECK_INT(rc, 0);
    CHECK(p->components[0].ops != NULL);
    free(p);
}

/* One registry: the type list, the "known:" message, lookups. */
void test_component_registry(void);
void test_component_registry(void)
{
    const pp_component_ops *ops;
    char why[2048], known[1024], name[64];
    size_t n = 0;

    CHECK_INT(pp_component_lookup("idle", &ops, why, sizeof why), 0);
    CHECK_STR(ops->type, "idle");
    CHECK_INT(pp_component_lookup("matrix-cpu", &ops, why, sizeof why), 0); /* its module */
    CHECK_STR(ops->type, "matrix-cpu");
    CHECK(pp_component_key_find(ops, "op") != NULL);
    CHECK(pp_component_key_find(ops, "cfg") == NULL);
    CHECK_INT(pp_component_lookup("quantum", &ops, why, sizeof why), -ENOENT);
    CHECK_CONTAINS(why, "unknown component type 'quantum' (known: idle, exec, matrix-cpu, darknet");
    CHECK_INT(pp_component_lookup("../../etc/x", &ops, why, sizeof why), -ENOENT);
    pp_component_known(known, sizeof known);
    CHECK_CONTAINS(known, "nvidia-quicksort");
    while (pp_component_type_at(n, name, sizeof name, &ops, why, sizeof why) == 0)
        n++;
    CHECK(n >= 7);
}

/* A shipped module missing (a binary copied away from its modules): the
 * dry run fails, naming the module, where it looked and what to install. */
void test_component_module_missing(void);
void test_component_module_missing(void)
{
    char bin[600], cfg[600], *err = NULL;
    const char *src = getenv("POWPROF_BIN");

    snprintf(bin, sizeof bin, "%s/powprof", test_tmpdir());
    snprintf(cfg, sizeof cfg, "%s/m.cfg", test_tmpdir());
    {
        char *argv[] = {"cp", (char *)(src ? src : "build/powprof"), bin, NULL};
        CHECK_INT(run_argv(argv, NULL, NULL), 0);
    }
    write_file(cfg, "components = ({ type = \"matrix-cpu\"; params = { size = 64; }; });\n");
    unsetenv("POWPROF_MODULE_PATH");
    {
        char *argv[] = {bin, "profile", cfg, "--dry-run", NULL};
        CHECK(run_argv(argv, NULL, &err) != 0);
    }
    CHECK_CONTAINS(err, "m.cfg:1: type: component type 'matrix-cpu' needs the module "
                        "powprof-matrix-cpu.so, not found in");
    CHECK_CONTAINS(err, test_tmpdir());
    CHECK_CONTAINS(err, "apt-get install libopenblas0");
    free(err);
}

static const char *example_modules(void)
{
    const char *dir = getenv("POWPROF_EXAMPLE_MODULES");
    return dir ? dir : "build/examples/modules";
}

/* A module of one's own (examples/module/memcopy.c), found through
 * POWPROF_MODULE_PATH: listed, its keys checked, its check run, a sweep. */
void test_component_example_module(void);
void test_component_example_module(void)
{
    char cfg[PP_PATH_MAX], out_dir[600], *out = NULL, *err = NULL, *text;
    int rc;
    pp_profile *p;

    setenv("POWPROF_MODULE_PATH", example_modules(), 1);
    CHECK_INT(run_powprof(&out, NULL, "profile", "--types", NULL), 0);
    CHECK_CONTAINS(out, "memcopy            copies a buffer of size_kb KiB per step");
    CHECK_CONTAINS(out, "fill             string: the buffer's contents");
    free(out);
    expect_error("components = ({ type = \"memcopy\";\n colour = \"red\"; });\n",
                 "p.cfg:2: colour: unknown key (known: name, type, params, until, duration_s, "
                 "iterations, fps, sleep_s, timeout_s, fill, passes)");
    expect_error("components = ({ type = \"memcopy\";\n fill = \"purple\"; });\n",
                 "p.cfg:2: fill: 'purple' is not one of its choices");
    p = load_text("profile = { device = \"procstat\"; rate_hz = 50; };\n"
                  "components = ({ type = \"memcopy\"; fill = \"random\"; passes = 2;\n"
                  " iterations = 3; params = { size_kb = [64, 0]; }; });\n", &rc);
    CHECK_INT(rc, 0);
    snprintf(cfg, sizeof cfg, "%s", p->path);
    CHECK_INT(run_powprof(&out, &err, "profile", cfg, "--dry-run", NULL), 0);
    CHECK_CONTAINS(out, "ready: device procstat opens");
    free(out);
    free(err);
    /* the check sees the first value: 64 passes; size_kb 0 fails at its run */
    snprintf(out_dir, sizeof out_dir, "%s/out", test_tmpdir());
    CHECK_INT(run_powprof(&out, &err, "profile", cfg, "-o", out_dir, NULL), 1);
    text = read_in(out_dir, "summary.csv");
    CHECK_CONTAINS(text, "\n0,64,ok,");
    CHECK_CONTAINS(text, "\n1,0,failed,");
    CHECK_CONTAINS(text, "size_kb: a whole number of KiB");
    free(text);
    free(out);
    free(err);
    free(p);
}

/* --dry-run checks: a missing cfg names the cfg and where it looked, a
 * missing program names PATH; the exit status says not ready. */
void test_cli_dry_run_checks(void);
void test_cli_dry_run_checks(void)
{
    char cfg[600], *out = NULL, *err = NULL;
    const pp_component_ops *ops;
    char why[1024];
    int darknet = pp_component_lookup("darknet", &ops, why, sizeof why) == 0;

    snprintf(cfg, sizeof cfg, "%s/d.cfg", test_tmpdir());
    write_file(cfg, darknet
                        ? "profile = { device = \"procstat\"; };\ncomponents = (\n"
                          " { name = \"det\"; type = \"darknet\"; cfg = \"{model}\"; duration_s = 1;\n"
                          "   params = { model = [\"yolov3-tiny\", \"yolov9\"]; }; },\n"
                          " { name = \"zip\"; type = \"exec\"; command = [\"no-such-zipper\", \"-9\"]; });\n"
                        : "profile = { device = \"procstat\"; };\ncomponents = (\n"
                          " { name = \"zip\"; type = \"exec\"; command = [\"no-such-zipper\", \"-9\"]; });\n");
    CHECK_INT(run_powprof(&out, &err, "profile", cfg, "--dry-run", NULL), 1);
    CHECK_CONTAINS(out, "not ready");
    CHECK_CONTAINS(err, "d.cfg: component zip (exec): program 'no-such-zipper' not found in PATH");
    if (darknet)
        CHECK_CONTAINS(err, "component det (darknet): darknet cfg 'yolov9': "
                            "/usr/share/darknet/cfg/yolov9.cfg: No such file or directory (with "
                            "det.model = yolov9)");
    free(out);
    free(err);
    /* the real run stops before anything runs, for the same reasons */
    CHECK(run_powprof(&out, &err, "profile", cfg, "-o", test_tmpdir(), NULL) != 0);
    CHECK_CONTAINS(err, "no-such-zipper");
    snprintf(cfg, sizeof cfg, "%s/summary.csv", test_tmpdir());
    CHECK(access(cfg, F_OK) != 0);
    snprintf(cfg, sizeof cfg, "%s/d.cfg", test_tmpdir());
    free(out);
    free(err);
    /* a device that is not there */
    write_file(cfg, "profile = { device = \"odroid\"; sysfs_root = \"/nonexistent\"; };\n"
                    "components = ({ type = \"idle\"; duration_s = 1; });\n");
    CHECK_INT(run_powprof(&out, &err, "profile", cfg, "--dry-run", "--json", NULL), 1);
    CHECK_CONTAINS(out, "\"ready\":false");
    free(out);
    free(err);
}

/* A categorical sweep through exec: the labels reach argv, summary.csv
 * holds them, run.json records kind and values in the profile's order. */
void test_sweep_categorical_exec(void);
void test_sweep_categorical_exec(void)
{
    char cfg[600], out_dir[600], args[600], text[2048], *s;
    json_t *root, *param;
    json_error_t jerr;
    pp_profile *p = malloc(sizeof *p);
    pp_sweep_options o = {0};
    pp_sweep_stats st;

    snprintf(cfg, sizeof cfg, "%s/c.cfg", test_tmpdir());
    snprintf(out_dir, sizeof out_dir, "%s/out", test_tmpdir());
    snprintf(args, sizeof args, "%s/args", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { device = \"jetson\"; rate_hz = 100; sysfs_root = \"%s\"; };\n"
             "components = ({ name = \"xz\"; type = \"exec\";\n"
             "  command = [\"sh\", \"-c\", \"echo \\\"$1\\\" >> \\\"$0\\\"\", \"%s\", \"-{level}\"];\n"
             "  params = { level = [\"9e\", \"0\"]; }; });\n", fixture("jetson-tx2-iio"), args);
    write_file(cfg, text);
    CHECK_INT(pp_profile_load(cfg, p), 0);
    o.out_dir = out_dir;
    CHECK_INT(pp_sweep_run(p, &o, &st), 0);
    CHECK_INT(st.ok, 2);
    s = slurp(args);
    CHECK_STR(s, "-9e\n-0\n");
    free(s);
    s = read_in(out_dir, "summary.csv");
    CHECK_CONTAINS(s, "id,xz.level,status,");
    CHECK_CONTAINS(s, "\n0,9e,ok,");
    CHECK_CONTAINS(s, "\n1,0,ok,");
    free(s);
    s = read_in(out_dir, "run.json");
    root = json_loads(s ? s : "", 0, &jerr);
    free(s);
    CHECK(root != NULL);
    param = json_object_get(json_object_get(root, "params"), "xz.level");
    CHECK_STR(json_string_value(json_object_get(param, "kind")), "categorical");
    CHECK_STR(json_string_value(json_array_get(json_object_get(param, "values"), 0)), "9e");
    CHECK_STR(json_string_value(json_array_get(json_object_get(param, "values"), 1)), "0");
    CHECK_STR(json_string_value(json_object_get(root, "device")), "jetson");
    json_decref(root);
    free(p);
}

/* darknet's cfg taken from a categorical parameter named cfg. */
void test_sweep_categorical_darknet(void);
void test_sweep_categorical_darknet(void)
{
    const pp_component_ops *ops;
    char out_dir[600], why[1024], *s;
    pp_profile *p;
    pp_sweep_options o = {0};
    pp_sweep_stats st;
    int rc;

    if (pp_component_lookup("darknet", &ops, why, sizeof why) < 0) {
        fprintf(stderr, "    (darknet not built: %s)\n", why);
        CHECK_CONTAINS(why, "apt-get install darknet");
        return;
    }
    p = load_text("profile = { device = \"procstat\"; rate_hz = 20; };\n"
                  "components = ({ type = \"darknet\"; iterations = 1;\n"
                  "  params = { cfg = [\"yolov3-tiny\", \"yolov2-tiny\"]; }; });\n", &rc);
    CHECK_INT(rc, 0);
    snprintf(out_dir, sizeof out_dir, "%s/out", test_tmpdir());
    CHECK_INT(pp_sweep_check(p), 0);
    o.out_dir = out_dir;
    CHECK_INT(pp_sweep_run(p, &o, &st), 0);
    CHECK_INT(st.ok, 2);
    s = read_in(out_dir, "summary.csv");
    CHECK_CONTAINS(s, "\n0,yolov3-tiny,ok,");
    CHECK_CONTAINS(s, "\n1,yolov2-tiny,ok,");
    free(s);
    free(p);
}

/* The BLAS of layer 2, loaded on first use, against the plain loops. */
void test_blas_lazy_dgemm(void);
void test_blas_lazy_dgemm(void)
{
    double a[6 * 5], b[5 * 4], c1[6 * 4], c2[6 * 4];

    for (int i = 0; i < 30; i++)
        a[i] = (i * 7 % 11) - 5.0;
    for (int i = 0; i < 20; i++)
        b[i] = (i * 5 % 7) * 0.5;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            for (int i = 0; i < 24; i++)
                c1[i] = c2[i] = i;
            /* op(A) 6 x 5, op(B) 5 x 4 */
            pp_blas_dgemm(ta, tb, 6, 4, 5, 2.0, a, ta ? 6 : 5, b, tb ? 5 : 4, 0.5, c1, 4);
            pp_blas_dgemm_ref(ta, tb, 6, 4, 5, 2.0, a, ta ? 6 : 5, b, tb ? 5 : 4, 0.5, c2, 4);
            for (int i = 0; i < 24; i++)
                CHECK_NEAR(c1[i], c2[i], 1e-12);
        }
    CHECK_NEAR(c2[0], 0.0 * 0.5 + 2.0 * (a[0] * b[0] + a[6] * b[1] + a[12] * b[2] + a[18] * b[3] +
                                         a[24] * b[4]),
               1e-12); /* the last product: both transposed */
    if (access("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", F_OK) == 0)
        CHECK_STR(pp_blas_library(), "libopenblas.so.0");
}

/* The binary links what every command needs, no CUDA, darknet, OpenCV or
 * OpenBLAS: those are modules or loaded on first use. */
void test_binary_links_light(void);
void test_binary_links_light(void)
{
    const char *bin = getenv("POWPROF_BIN");
    char *argv[] = {"ldd", (char *)(bin ? bin : "build/powprof"), NULL}, *out = NULL;
    static const char *const heavy[] = {"cuda", "cublas", "darknet", "opencv", "openblas", "gdal"};

    CHECK_INT(run_argv(argv, &out, NULL), 0);
    CHECK_CONTAINS(out, "libsundials_cvode");
    for (size_t i = 0; i < sizeof heavy / sizeof heavy[0]; i++)
        if (out && strstr(out, heavy[i]))
            pp_test_fail(__FILE__, __LINE__, "ldd lists %s:\n%s", heavy[i], out);
    free(out);
}
