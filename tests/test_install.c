/* make install into a temporary prefix, then use what it installed as a
 * user would: the example program built with pkg-config against the
 * library, the example module built against the public headers, and the
 * installed binary finding its modules in the install tree. */
#include "harness.h"

#include "battery/battery.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS 64

/* argv = words of text (split at blanks; pkg-config output has no quoting
 * here) appended after the n words already there. Returns the new count. */
static size_t add_words(char **argv, size_t n, char *text)
{
    for (char *w = strtok(text, " \t\n"); w && n + 1 < MAX_ARGS; w = strtok(NULL, " \t\n"))
        argv[n++] = w;
    argv[n] = NULL;
    return n;
}

static char *pkg_config(const char *what)
{
    char *argv[] = {"pkg-config", (char *)what, "powprof", NULL}, *out = NULL;

    CHECK_INT(run_argv(argv, &out, NULL), 0);
    return out;
}

static void check_installed(const char *prefix)
{
    static const char *const files[] = {
        "bin/powprof", "lib/libpowprof.a", "lib/libpowprof.so", "lib/libpowprof.so.0",
        "lib/pkgconfig/powprof.pc",
        "lib/powprof/powprof-matrix-cpu.so", "include/powprof.h", "include/powprof/device.h",
        "include/powprof/battery.h", "include/powprof/trace.h", "include/powprof/log.h",
        "include/powprof/component.h", "include/powprof/model.h", "include/powprof/plan.h",
        "include/powprof/governor.h",
        "share/man/man1/powprof.1"};
    char path[700], *text;

    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", prefix, files[i]);
        if (access(path, R_OK) != 0)
            pp_test_fail(__FILE__, __LINE__, "not installed: %s", path);
        if (strstr(files[i], ".h") && (text = slurp(path))) {
            if (strstr(text, "#include \"../"))
                pp_test_fail(__FILE__, __LINE__, "%s includes with ../", path);
            free(text);
        }
    }
}

/* The functions the installed headers declare (a line that starts with a
 * type and names pp_...( ; not typedefs, macros or static inline helpers),
 * as " name " in buf. */
static void declared_functions(const char *prefix, char *buf, size_t cap)
{
    static const char *const headers[] = {"powprof.h", "powprof/device.h", "powprof/battery.h",
        "powprof/trace.h", "powprof/log.h", "powprof/component.h", "powprof/model.h",
        "powprof/plan.h", "powprof/meter.h", "powprof/governor.h"};
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        char path[700], *text, *save = NULL;
        snprintf(path, sizeof path, "%s/include/%s", prefix, headers[i]);
        CHECK((text = slurp(path)) != NULL);
        for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
            char *p = strstr(l, "pp_"), *q = p;
            if (!(l[0] >= 'a' && l[0] <= 'z') || !strncmp(l, "typedef", 7) ||
                !strncmp(l, "static", 6) || !p)
                continue;
            while ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_')
                q++;
            if (*q == '(' && used < cap)
                used += (size_t)snprintf(buf + used, cap - used, " %.*s ", (int)(q - p), p);
        }
        free(text);
    }
}

/* libpowprof.so exports exactly the functions of the installed headers,
 * under a versioned soname. */
static void check_exports(const char *prefix)
{
    char so[700], declared[8192], *out = NULL, *save = NULL;
    size_t n_exported = 0, n_declared = 0;

    snprintf(so, sizeof so, "%s/lib/libpowprof.so", prefix);
    declared_functions(prefix, declared, sizeof declared);
    for (const char *p = declared; (p = strstr(p, " pp_")); p += 4)
        n_declared++;
    {
        char *argv[] = {"nm", "-D", "--defined-only", "--format=posix", so, NULL};
        CHECK_INT(run_argv(argv, &out, NULL), 0);
    }
    for (char *l = out ? strtok_r(out, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
        char name[256], key[260];
        if (sscanf(l, "%255[^@ ]", name) != 1 || !strcmp(name, "POWPROF_0"))
            continue;
        snprintf(key, sizeof key, " %s ", name);
        if (!strstr(declared, key))
            pp_test_fail(__FILE__, __LINE__, "libpowprof.so exports %s, no public function", name);
        n_exported++;
    }
    CHECK_INT(n_exported, n_declared);
    CHECK(n_declared >= 40);
    free(out);
    {
        char *argv[] = {"readelf", "-d", so, NULL};
        CHECK_INT(run_argv(argv, &out, NULL), 0);
        CHECK_CONTAINS(out, "Library soname: [libpowprof.so.0]");
        free(out);
    }
}

/* The example program, compiled with `pkg-config --cflags --libs powprof`. */
static void build_and_run_example(const char *exe)
{
    char *cflags = pkg_config("--cflags"), *libs = pkg_config("--libs"), *out = NULL;
    char *argv[MAX_ARGS] = {"cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", (char *)exe,
                            "examples/onboard.c"};
    char trace[600], expect[128];
    size_t n = 8;
    pp_battery_params b;
    pp_battery_result r;
    pp_battery_options o;
    double t[2] = {0, 10}, w[2] = {10, 10};
    pp_battery_load load = {t, w, 2, 0};

    n = add_words(argv, n, cflags);
    add_words(argv, n, libs);
    CHECK_INT(run_argv(argv, NULL, NULL), 0);
    snprintf(trace, sizeof trace, "%s/trace.csv", test_tmpdir());
    write_file(trace, "t_s,VDD_IN_w\n0,10\n10,10\n");
    setenv("POWPROF_SYSFS_ROOT", fixture("jetson-tx2-iio"), 1);
    {
        char *run[] = {(char *)exe, "jetson", trace, NULL};
        CHECK_INT(run_argv(run, &out, NULL), 0);
    }
    CHECK_CONTAINS(out, "device jetson\n");
    free(out);
    { /* pkg-config's -lpowprof linked the shared library */
        char *elf[] = {"readelf", "-d", (char *)exe, NULL};
        CHECK_INT(run_argv(elf, &out, NULL), 0);
        CHECK_CONTAINS(out, "Shared library: [libpowprof.so.0]");
        free(out);
        char *run[] = {(char *)exe, "jetson", trace, NULL};
        CHECK_INT(run_argv(run, &out, NULL), 0);
    }
    CHECK_CONTAINS(out, "total 5.263 W\n");
    CHECK_CONTAINS(out, "trace 10.000 s, 100.000 J on rail VDD_IN\n");
    /* the same drain through the internal API */
    pp_battery_params_default(&b);
    pp_battery_options_init(&o);
    CHECK_INT(pp_battery_run(&b, &load, &o, &r), 0);
    snprintf(expect, sizeof expect, "battery drained %.9f of its charge", r.soc_drained_frac);
    CHECK_CONTAINS(out, expect);
    CHECK(r.soc_drained_frac > 0);
    free(out);
    free(cflags);
    free(libs);
}

/* A results folder of four runs at fps 2, 4, 8, 16 (power 2 + fps / 2 W,
 * with a ripple), imported as a user would. */
static void results_for_mission(const char *res)
{
    char *argv[16] = {getenv("POWPROF_BIN"), "import", "csv"}, files[4][600];
    size_t n = 3;

    for (int i = 0; i < 4; i++) {
        int fps = 2 << i;
        char text[4096];
        size_t used = (size_t)snprintf(text, sizeof text, "t_s,total_w\n");
        for (int k = 0; k <= 50; k++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%.1f,%.3f\n", 0.1 * k,
                                     2 + 0.5 * fps + 0.01 * (k % 3));
        snprintf(files[i], sizeof files[i], "%s/run_%d.csv", test_tmpdir(), fps);
        write_file(files[i], text);
        argv[n++] = files[i];
    }
    argv[n++] = "--pattern";
    argv[n++] = "run_{fps}.csv";
    argv[n++] = "-o";
    argv[n++] = (char *)res;
    argv[n] = NULL;
    CHECK_INT(run_argv(argv, NULL, NULL), 0);
}

/* The layer-2 example (model and plan), compiled with pkg-config: its
 * prediction and plan are those of `powprof predict` and `powprof plan`. */
static void build_and_run_mission(void)
{
    char *cflags = pkg_config("--cflags"), *libs = pkg_config("--libs"), *out = NULL;
    char exe[600], res[600], want[256], *pred = NULL, *plan = NULL;
    char *argv[MAX_ARGS] = {"cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe,
                            "examples/mission.c"};
    size_t n = 8;
    double value = NAN, max_w = NAN;

    snprintf(exe, sizeof exe, "%s/mission", test_tmpdir());
    snprintf(res, sizeof res, "%s/res", test_tmpdir());
    n = add_words(argv, n, cflags);
    add_words(argv, n, libs);
    CHECK_INT(run_argv(argv, NULL, NULL), 0);
    results_for_mission(res);
    CHECK_INT(run_powprof(&pred, NULL, "predict", res, "fps=5", "--json", NULL), 0);
    CHECK_INT(run_powprof(&plan, NULL, "plan", res, "--mission-s", "600", "--base-power-w", "150",
                          "--json", NULL), 0);
    CHECK(pred && sscanf(strstr(pred, "\"total_mean_w\":{\"value\":"), "\"total_mean_w\":{\"value\":%lf",
                         &value) == 1);
    CHECK(plan && sscanf(strstr(plan, "\"max_power_w\":"), "\"max_power_w\":%lf", &max_w) == 1);
    {
        char *run[] = {exe, res, "600", "150", "fps=5", NULL};
        CHECK_INT(run_argv(run, &out, NULL), 0);
    }
    snprintf(want, sizeof want, "predicted %.3f W, 90 %% band", value);
    CHECK_CONTAINS(out, want);
    snprintf(want, sizeof want, "the computer may draw %.3f W throughout", max_w);
    CHECK_CONTAINS(out, want);
    CHECK_CONTAINS(out, "best: fps=16,");
    CHECK_CONTAINS(plan, "\"best\":{\"fps\":16");
    free(out);
    free(pred);
    free(plan);
    free(cflags);
    free(libs);
}

/* The governor's example (examples/governed.c), compiled with pkg-config:
 * its rates are those `powprof govern` decides on the same readings. */
static void build_and_run_governed(void)
{
    char *cflags = pkg_config("--cflags"), *libs = pkg_config("--libs"), *out = NULL;
    char exe[600], res[600], mission[600], readings[600], want[200], *cli = NULL;
    char *argv[MAX_ARGS] = {"cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe,
                            "examples/governed.c"};
    size_t n = 8;
    double fps = NAN;

    snprintf(exe, sizeof exe, "%s/governed", test_tmpdir());
    snprintf(res, sizeof res, "%s/res", test_tmpdir());
    snprintf(mission, sizeof mission, "%s/mission.cfg", test_tmpdir());
    snprintf(readings, sizeof readings, "%s/readings.txt", test_tmpdir());
    n = add_words(argv, n, cflags);
    add_words(argv, n, libs);
    CHECK_INT(run_argv(argv, NULL, NULL), 0);
    write_file(mission, "mission = { min_soc = 0.2; phases = (\n"
                        " { name = \"cruise\"; duration = \"8min\"; base_power_w = 150.0; },\n"
                        " { name = \"land\"; duration = \"2min\"; base_power_w = 170.0; });\n};\n");
    write_file(readings, "0 1.0\n60 0.945\n120 0.89\n180 0.835\n");
    {
        char *run[] = {exe, res, mission, readings, NULL};
        CHECK_INT(run_argv(run, &out, NULL), 0);
    }
    CHECK_CONTAINS(out, "t 0.0 s, phase cruise: rate ");
    CHECK_CONTAINS(out, "(first; charge 100.0 % from measured)");
    CHECK_CONTAINS(out, " frames in 180.0 s");
    CHECK_INT(run_powprof(&cli, NULL, "govern", res, "--mission", mission, "--source", readings,
                          NULL), 0);
    CHECK(cli && sscanf(strstr(cli, "\"fps\":"), "\"fps\":%lf", &fps) == 1);
    snprintf(want, sizeof want, "t 0.0 s, phase cruise: rate %.3g (first", fps);
    CHECK_CONTAINS(out, want);
    free(out);
    free(cli);
    free(cflags);
    free(libs);
}

/* The example module, built against the installed headers, used by the
 * installed binary beside the shipped matrix-cpu module. */
static void build_and_use_module(const char *prefix)
{
    char *cflags = pkg_config("--cflags"), *out = NULL, *err = NULL;
    char mods[600], so[700], cfg[600], bin[600];
    char *argv[MAX_ARGS] = {"cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                            "-o", so, "examples/module/memcopy.c"};

    snprintf(mods, sizeof mods, "%s/mods", test_tmpdir());
    mkdir(mods, 0755);
    snprintf(so, sizeof so, "%s/powprof-memcopy.so", mods);
    add_words(argv, 10, cflags);
    CHECK_INT(run_argv(argv, NULL, NULL), 0);
    snprintf(cfg, sizeof cfg, "%s/m.cfg", test_tmpdir());
    write_file(cfg, "profile = { device = \"procstat\"; };\ncomponents = (\n"
                    " { type = \"memcopy\"; iterations = 2; params = { size_kb = 64; }; },\n"
                    " { type = \"matrix-cpu\"; params = { size = 32; }; });\n");
    snprintf(bin, sizeof bin, "%s/bin/powprof", prefix);
    setenv("POWPROF_MODULE_PATH", mods, 1);
    {
        char *run[] = {bin, "profile", cfg, "--dry-run", NULL};
        CHECK_INT(run_argv(run, &out, &err), 0);
    }
    CHECK_CONTAINS(out, "ready: device procstat opens");
    free(out);
    free(err);
    free(cflags);
}

void test_install_and_link(void);
void test_install_and_link(void)
{
    char prefix[512], prefix_arg[600], pc_path[600], exe[600];
    char *err = NULL;

    snprintf(prefix, sizeof prefix, "%s/prefix", test_tmpdir());
    snprintf(prefix_arg, sizeof prefix_arg, "PREFIX=%s", prefix);
    {
        /* a plain build, whatever flags the make running the tests has */
        char *argv[] = {"env", "-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL",
                        "make", "-s", "install", prefix_arg, "O=build", "SAN=", "OPT=-O2 -g", NULL};
        CHECK_INT(run_argv(argv, NULL, &err), 0);
        free(err);
    }
    check_installed(prefix);
    check_exports(prefix);
    snprintf(pc_path, sizeof pc_path, "%s/lib/pkgconfig", prefix);
    setenv("PKG_CONFIG_PATH", pc_path, 1);
    /* pkg-config's -lpowprof takes the shared library: the examples run on it */
    snprintf(pc_path, sizeof pc_path, "%s/lib", prefix);
    setenv("LD_LIBRARY_PATH", pc_path, 1);
    snprintf(exe, sizeof exe, "%s/onboard", test_tmpdir());
    build_and_run_example(exe);
    build_and_run_mission();
    build_and_run_governed();
    build_and_use_module(prefix);
}
