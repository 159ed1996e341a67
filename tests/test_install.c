/* make install into a temporary prefix, then use what it installed as a
 * user would: the example program built with pkg-config against the
 * library, the example module built against the public headers, and the
 * installed binary finding its modules in the install tree. */
#include "harness.h"

#include "../battery/battery.h"

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
        "bin/powprof", "lib/libpowprof.a", "lib/pkgconfig/powprof.pc",
        "lib/powprof/powprof-matrix-cpu.so", "include/powprof.h", "include/powprof/device.h",
        "include/powprof/battery.h", "include/powprof/trace.h", "include/powprof/log.h",
        "include/powprof/component.h", "share/man/man1/powprof.1"};
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
    snprintf(pc_path, sizeof pc_path, "%s/lib/pkgconfig", prefix);
    setenv("PKG_CONFIG_PATH", pc_path, 1);
    snprintf(exe, sizeof exe, "%s/onboard", test_tmpdir());
    build_and_run_example(exe);
    build_and_use_module(prefix);
}
